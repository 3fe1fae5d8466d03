// A region that is never closed.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// CHECK: unbalanced.mlir:{{[0-9]+}}:{{[0-9]+}}: error: expected operation name in quotes
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
