// kiln.scan expands into one loop of calls of its body, whatever its
// length: each trip runs `unroll` steps, the steps left over follow it.
// RUN: kiln-opt %s --kiln-expand-transforms --split-input-file | FileCheck %s

// 100000 steps, two per trip: 50000 trips of one loop.
// CHECK-LABEL: func.func private @step_scan
// CHECK-SAME: (%[[C:.*]]: tensor<2xf32>, %[[XS:.*]]: tensor<100000x2xf32>) -> (tensor<2xf32>, tensor<100000xf32>)
// CHECK-DAG: %[[TRIPS:.*]] = kiln.constant dense<50000> : tensor<i64>
// CHECK-DAG: %[[YS:.*]] = kiln.constant dense<0.000000e+00> : tensor<100000xf32>
// CHECK: kiln.while(%{{.*}}, %[[C]], %[[YS]]) {kiln.scan_loop} : tensor<i64>, tensor<2xf32>, tensor<100000xf32> cond {
// CHECK: kiln.compare  LT, %{{.*}}, %[[TRIPS]]
// CHECK: } do {
// CHECK: kiln.dynamic_slice %[[XS]]
// CHECK: call @step(
// CHECK: kiln.dynamic_update_slice
// CHECK: kiln.dynamic_slice %[[XS]]
// CHECK: call @step(
// CHECK: kiln.dynamic_update_slice
// CHECK-NOT: call @step(
// CHECK: kiln.yield
// CHECK-NOT: call @step(
// CHECK: return
func.func private @step(%c: tensor<2xf32>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
  %a = kiln.add %c, %x : tensor<2xf32>
  %s = kiln.reduce_sum %a, dims = [0] : (tensor<2xf32>) -> tensor<f32>
  return %a, %s : tensor<2xf32>, tensor<f32>
}
func.func @main(%c: tensor<2xf32>, %xs: tensor<100000x2xf32>) -> (tensor<2xf32>, tensor<100000xf32>) {
  %r:2 = kiln.scan @step(%c, %xs) {num_carry = 1 : i64, length = 100000 : i64, unroll = 2 : i64} : (tensor<2xf32>, tensor<100000x2xf32>) -> (tensor<2xf32>, tensor<100000xf32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<100000xf32>
}

// -----

// Reversed, 3 steps with unroll 2: one step per trip of a loop would run
// once, so all three are straight-line code, reading positions 2, 1, 0.
// CHECK-LABEL: func.func private @step_scan
// CHECK-NOT: kiln.while
// CHECK: kiln.slice %{{.*}} [2:3, 0:2]
// CHECK: call @step(
// CHECK: kiln.slice %{{.*}} [1:2, 0:2]
// CHECK: call @step(
// CHECK: kiln.slice %{{.*}} [0:1, 0:2]
// CHECK: call @step(
func.func private @step(%c: tensor<2xf32>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
  %a = kiln.add %c, %x : tensor<2xf32>
  %s = kiln.reduce_sum %a, dims = [0] : (tensor<2xf32>) -> tensor<f32>
  return %a, %s : tensor<2xf32>, tensor<f32>
}
func.func @main(%c: tensor<2xf32>, %xs: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3xf32>) {
  %r:2 = kiln.scan @step(%c, %xs) {num_carry = 1 : i64, length = 3 : i64, reverse = true, unroll = 2 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<3xf32>
}
