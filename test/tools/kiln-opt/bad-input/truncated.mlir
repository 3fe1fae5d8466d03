// A file that ends in the middle of an op.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// CHECK: truncated.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: expected non-function type
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.add %x, %x : tensor<4x
