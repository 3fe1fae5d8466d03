// kiln.scan expands into one loop of calls of its body, whatever its
// length: each trip runs `unroll` steps, the steps left over follow it.
// RUN: kiln-opt %s --kiln-expand-transforms --split-input-file | FileCheck %s

// 100000 steps, two per trip: 50000 trips of one loop.
// CHECK-LABEL: func.func private @step_scan
// CHECK-SAME: (%[[C:.*]]: tensor<2xf32>, %[[XS:.*]]: tensor<100000x2xf32>) -> (tensor<2xf32>, tensor<100000xf32>)
// CHECK-DAG: %[[TRIPS:.*]] = kiln.constant dense<50000> : tensor<i64>
// CHECK-DAG: %[[YS:.*]] = kiln.constant dense<0.000000e+00> : tensor<100000xf32>
// CHECK: kiln.while(%{{.*}}, %[[C]], %[[YS]]) {kiln.scan_loop = 50000 : i64} : tensor<i64>, tensor<2xf32>, tensor<100000xf32> cond {
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

// -----

// grad of a scan: a forward loop stacks, per trip, the residuals the
// body's backward half needs (the carry is stacked; the loop-invariant %w
// is not), and a backward loop runs the trips in reverse order, carrying
// the carry's cotangent and summing %w's; the cotangent of the xs is
// summed one row per trip, not with a full-size add.
// CHECK-LABEL: func.func private @body_scan_fwd
// CHECK-SAME: (%[[H:.*]]: tensor<3xf32>, %[[W:.*]]: tensor<3xf32>, %[[XS:.*]]: tensor<4x3xf32>)
// CHECK: kiln.while
// CHECK: call @body_fwd(%{{.*}}, %[[W]], %{{.*}})
// CHECK: kiln.dynamic_update_slice
// CHECK: kiln.yield
// CHECK-LABEL: func.func private @body_scan_bwd
// CHECK-DAG: %[[LAST:.*]] = kiln.constant dense<3> : tensor<i64>
// CHECK: kiln.while
// CHECK: } do {
// CHECK: ^bb0(%[[K:[^:]*]]: tensor<i64>,
// CHECK: %[[T:.*]] = kiln.sub %[[LAST]], %[[K]] : tensor<i64>
// CHECK: kiln.dynamic_slice %{{.*}}[%[[T]], %{{.*}}]
// CHECK: call @body_bwd
// CHECK: %[[ROW:.*]] = kiln.add %{{.*}} : tensor<1x3xf32>
// CHECK: kiln.dynamic_update_slice %{{.*}}, %[[ROW]]
// CHECK-NOT: kiln.add {{.*}} : tensor<4x3xf32>
// CHECK: kiln.yield
// CHECK-LABEL: func.func @main
func.func private @step(%h: tensor<3xf32>, %x: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %m = kiln.mul %h, %w : tensor<3xf32>
  %a = kiln.add %m, %x : tensor<3xf32>
  %t = kiln.tanh %a : tensor<3xf32>
  %s = kiln.reduce_sum %t, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %t, %s : tensor<3xf32>, tensor<f32>
}
func.func private @body(%h: tensor<3xf32>, %w: tensor<3xf32>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<f32>) {
  %t, %s = call @step(%h, %x, %w) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
  return %t, %w, %s : tensor<3xf32>, tensor<3xf32>, tensor<f32>
}
func.func private @loss(%h: tensor<3xf32>, %xs: tensor<4x3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %r:3 = kiln.scan @body(%h, %w, %xs) {num_carry = 2 : i64, length = 4 : i64} : (tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<4xf32>)
  %s = kiln.reduce_sum %r#2, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%h: tensor<3xf32>, %xs: tensor<4x3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %g:2 = kiln.grad @loss(%h, %xs, %w) {argnums = array<i64: 0, 2>} : (tensor<3xf32>, tensor<4x3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// With a budget of 3 stored carries, 10 steps run Griewank's binomial
// schedule (2 sweeps: C(3 + 2, 3) = 10) as a chain: the first 4 steps
// checkpointed with 3 carries (one step at a time), the next 3 with 2, the
// next 2 with 1, then the last step, a scan of length 1. Without a
// derivative the checkpoints are calls.
// CHECK-LABEL: func.func private @step_revolve_1_0
// CHECK: call @step_scan(
// CHECK-LABEL: func.func private @step_revolve_4_3
// CHECK-SAME: (%[[C4:.*]]: tensor<f32>, %[[XS4:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[ONE:.*]] = kiln.slice %[[XS4]] [0:1]
// CHECK-NEXT: %[[FIRST:.*]]:2 = call @step_revolve_1_0(%[[C4]], %[[ONE]])
// CHECK-NEXT: %[[TWO:.*]] = kiln.slice %[[XS4]] [1:2]
// CHECK-NEXT: call @step_revolve_1_0(%[[FIRST]]#0, %[[TWO]])
// CHECK-LABEL: func.func private @step_revolve_10_3
// CHECK-SAME: (%[[C:.*]]: tensor<f32>, %[[XS:.*]]: tensor<10xf32>)
// CHECK-NEXT: %[[X1:.*]] = kiln.slice %[[XS]] [0:4]
// CHECK-NEXT: %[[P1:.*]]:2 = call @step_revolve_4_3(%[[C]], %[[X1]])
// CHECK-NEXT: %[[X2:.*]] = kiln.slice %[[XS]] [4:7]
// CHECK-NEXT: %[[P2:.*]]:2 = call @step_revolve_3_2(%[[P1]]#0, %[[X2]])
// CHECK-NEXT: %[[X3:.*]] = kiln.slice %[[XS]] [7:9]
// CHECK-NEXT: %[[P3:.*]]:2 = call @step_revolve_2_1(%[[P2]]#0, %[[X3]])
// CHECK-NEXT: %[[X4:.*]] = kiln.slice %[[XS]] [9:10]
// CHECK-NEXT: %[[P4:.*]]:2 = call @step_scan(%[[P3]]#0, %[[X4]])
// CHECK-NEXT: %[[ALL:.*]] = kiln.concatenate %[[P1]]#1, %[[P2]]#1, %[[P3]]#1, %[[P4]]#1, dim = 0
// CHECK-NEXT: return %[[P4]]#0, %[[ALL]]
// CHECK-LABEL: func.func @budgeted
// CHECK-NEXT: call @step_revolve_10_3(
func.func private @step(%c: tensor<f32>, %x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %s = kiln.add %c, %x : tensor<f32>
  %t = kiln.tanh %s : tensor<f32>
  return %t, %t : tensor<f32>, tensor<f32>
}
func.func @budgeted(%c: tensor<f32>, %xs: tensor<10xf32>) -> (tensor<f32>, tensor<10xf32>) {
  %r:2 = kiln.scan @step(%c, %xs) {num_carry = 1 : i64, length = 10 : i64, checkpoints = 3 : i64} : (tensor<f32>, tensor<10xf32>) -> (tensor<f32>, tensor<10xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<10xf32>
}
