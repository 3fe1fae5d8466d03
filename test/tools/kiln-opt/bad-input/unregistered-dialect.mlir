// RUN: kiln-opt %s --verify-diagnostics
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{Dialect `nodialect' not found for custom op 'nodialect.op'}}
  // expected-note @+1 {{Available dialects: }}
  %0 = nodialect.op %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
