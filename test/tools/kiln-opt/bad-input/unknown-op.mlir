// RUN: kiln-opt %s --verify-diagnostics
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{custom op 'kiln.frobnicate' is unknown}}
  %0 = kiln.frobnicate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
