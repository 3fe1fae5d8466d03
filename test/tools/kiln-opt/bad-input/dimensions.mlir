// RUN: kiln-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{expected non-function type}}
func.func @negative(%x: tensor<-1xf32>) {
  return
}

// -----

// expected-error @+1 {{invalid dimension}}
func.func @overflowing(%x: tensor<99999999999999999999xf32>) {
  return
}

// -----

// The largest dimensions are fine to declare; arithmetic on them is checked.
func.func @huge(%x: tensor<9223372036854775807x2xf32>) -> tensor<2x9223372036854775807xf32> {
  %0 = kiln.transpose %x, permutation = [1, 0] : (tensor<9223372036854775807x2xf32>) -> tensor<2x9223372036854775807xf32>
  return %0 : tensor<2x9223372036854775807xf32>
}

// -----

func.func @huge_reshape(%x: tensor<9223372036854775807x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.reshape' op has more elements than fit in 64 bits}}
  %0 = kiln.reshape %x : (tensor<9223372036854775807x2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
