// RUN: kiln-opt %s --split-input-file --verify-diagnostics

// Arithmetic on i1 is rejected, as in jax.lax.
func.func @add_bool(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'kiln.add' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = kiln.add %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @exp_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'kiln.exp' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = kiln.exp %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @not_float(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.not' op operand #0 must be ranked tensor of 1-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = kiln.not %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unsupported_element(%a: tensor<4xi4>) -> tensor<4xi4> {
  // expected-error @+1 {{'kiln.abs' op operand #0 must be ranked tensor}}
  %0 = kiln.abs %a : tensor<4xi4>
  return %0 : tensor<4xi4>
}

// -----

func.func @mismatched(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.mul' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "kiln.mul"(%a, %b) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compare_mixed(%a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xi1> {
  // expected-error @+1 {{'kiln.compare' op requires all operands to have the same type}}
  %0 = "kiln.compare"(%a, %b) {comparison_direction = #kiln<comparison_direction EQ>} : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_result(%a: tensor<4xf32>) -> tensor<3xi1> {
  // expected-error @+1 {{'kiln.compare' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "kiln.compare"(%a, %a) {comparison_direction = #kiln<comparison_direction EQ>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @compare_direction(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+2 {{expected ::kiln::ComparisonDirection to be one of: EQ, NE, LT, LE, GT, GE}}
  // expected-error @+1 {{failed to parse Kiln_ComparisonDirectionAttr parameter 'value'}}
  %0 = kiln.compare LESS, %a, %a : tensor<4xf32>
  return %0 : tensor<4xi1>
}

// -----

func.func @select_shape(%p: tensor<3xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.select' op pred has shape 'tensor<3xi1>' but the operands have type 'tensor<4xf32>'; it must match them or be a scalar}}
  %0 = kiln.select %p, %a, %a : tensor<3xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_pred(%p: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.select' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = "kiln.select"(%p, %a, %a) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_types(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.select' op failed to verify that all of {on_true, on_false, result} have same type}}
  %0 = "kiln.select"(%p, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @convert_shape(%a: tensor<4xf32>) -> tensor<3xi32> {
  // expected-error @+1 {{'kiln.convert' op all non-scalar operands/results must have the same shape and base type}}
  %0 = kiln.convert %a : (tensor<4xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// A tensor of 2^63 bytes or more cannot exist: offsets into it overflow.
func.func @huge(%x: tensor<9223372036854775807x9223372036854775807xf32>) -> tensor<9223372036854775807x9223372036854775807xf32> {
  // expected-error @+1 {{'kiln.neg' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes}}
  %0 = kiln.neg %x : tensor<9223372036854775807x9223372036854775807xf32>
  return %0 : tensor<9223372036854775807x9223372036854775807xf32>
}

// -----

func.func @just_too_big(%x: tensor<4xf64>) -> tensor<1152921504606846976x4xf64> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes}}
  %0 = kiln.broadcast_in_dim %x, dims = [1] : (tensor<4xf64>) -> tensor<1152921504606846976x4xf64>
  return %0 : tensor<1152921504606846976x4xf64>
}

// -----

func.func @bitcast_width(%a: tensor<4xf32>) -> tensor<4xi64> {
  // expected-error @+1 {{'kiln.bitcast_convert' op expects element types of one bit width (not i1), got 'f32' and 'i64'}}
  %0 = kiln.bitcast_convert %a : (tensor<4xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @shift_floats(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.shift_left' op operand #0 must be}}
  %0 = kiln.shift_left %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
