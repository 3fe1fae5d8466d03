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
