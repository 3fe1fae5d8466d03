// An unterminated string literal.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// CHECK: strings.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: expected '"' in string literal
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.checkpoint_name %x, "open : tensor<4xf32>
  return %0 : tensor<4xf32>
}
