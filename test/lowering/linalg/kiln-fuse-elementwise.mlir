// RUN: kiln-opt %s --convert-kiln-to-linalg --kiln-fuse-elementwise | FileCheck %s
// RUN: kiln-opt %s --convert-kiln-to-linalg --kiln-fuse-elementwise="max-body-ops=4" | FileCheck %s --check-prefix=BOUNDED

// A chain fuses into one loop body...
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: math.tanh
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// ...unless the body would exceed max-body-ops (a yield and three ops).
// BOUNDED-LABEL: func.func @chain
// BOUNDED: linalg.generic
// BOUNDED: math.exp
// BOUNDED: math.tanh
// BOUNDED: arith.mulf
// BOUNDED: linalg.yield
// BOUNDED: linalg.generic
// BOUNDED: arith.addf
// BOUNDED: linalg.yield
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = kiln.exp %x : tensor<8xf32>
  %1 = kiln.tanh %0 : tensor<8xf32>
  %2 = kiln.mul %1, %x : tensor<8xf32>
  %3 = kiln.add %2, %x : tensor<8xf32>
  return %3 : tensor<8xf32>
}

// A window product reads each input element once per window position (here
// 2): its elementwise producer stays a loop of its own rather than being
// computed at every position.
// CHECK-LABEL: func.func @window_input
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x12x3xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}"reduction"{{.*}} ins(%[[E]], %arg1 : tensor<1x12x3xf32>, tensor<2x3x4xf32>)
// CHECK-NOT: math.exp
func.func @window_input(%x: tensor<1x12x3xf32>, %k: tensor<2x3x4xf32>) -> tensor<1x11x4xf32> {
  %e = kiln.exp %x : tensor<1x12x3xf32>
  %t0 = kiln.slice %e [0:1, 0:11, 0:3] : (tensor<1x12x3xf32>) -> tensor<1x11x3xf32>
  %t1 = kiln.slice %e [0:1, 1:12, 0:3] : (tensor<1x12x3xf32>) -> tensor<1x11x3xf32>
  %r0 = kiln.reshape %t0 : (tensor<1x11x3xf32>) -> tensor<1x11x1x3xf32>
  %r1 = kiln.reshape %t1 : (tensor<1x11x3xf32>) -> tensor<1x11x1x3xf32>
  %patches = kiln.concatenate %r0, %r1, dim = 2 : (tensor<1x11x1x3xf32>, tensor<1x11x1x3xf32>) -> tensor<1x11x2x3xf32>
  %y = kiln.dot_general %patches, %k, contracting = [2, 3] x [0, 1] : (tensor<1x11x2x3xf32>, tensor<2x3x4xf32>) -> tensor<1x11x4xf32>
  return %y : tensor<1x11x4xf32>
}
