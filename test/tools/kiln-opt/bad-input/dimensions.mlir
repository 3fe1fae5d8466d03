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

// A kiln op takes no tensor of 2^63 bytes or more; its verifier says so
// first (kiln-check-tensor-sizes, which refuses the signature too, runs on
// verified IR).
func.func @huge(%x: tensor<9223372036854775807x2xf32>) -> tensor<2x9223372036854775807xf32> {
  // expected-error @+1 {{'kiln.transpose' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<9223372036854775807x2xf32>'}}
  %0 = kiln.transpose %x, permutation = [1, 0] : (tensor<9223372036854775807x2xf32>) -> tensor<2x9223372036854775807xf32>
  return %0 : tensor<2x9223372036854775807xf32>
}

// -----

func.func @huge_reshape(%x: tensor<9223372036854775807x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.reshape' op operand #0 must be ranked tensor}}
  %0 = kiln.reshape %x : (tensor<9223372036854775807x2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
