// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @dot_batch_range(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'kiln.dot_general' op lhs_batching_dimensions 2 is out of range for rank 2}}
  %0 = kiln.dot_general %a, %b, batching = [2] x [0], contracting = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @dot_contract_repeat(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.dot_general' op rhs_contracting_dimensions repeats dimension 0}}
  %0 = kiln.dot_general %a, %b, contracting = [0, 1] x [0, 0] : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @dot_both(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.dot_general' op lhs dimension 0 is both a batching and a contracting dimension}}
  %0 = kiln.dot_general %a, %b, batching = [0] x [0], contracting = [0] x [1] : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @dot_pair_count(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'kiln.dot_general' op has 1 lhs and 0 rhs contracting dimensions}}
  %0 = kiln.dot_general %a, %b, contracting = [1] x [] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @dot_pair_size(%a: tensor<2x3xf32>, %b: tensor<5x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'kiln.dot_general' op contracting dimensions lhs 1 (size 3) and rhs 0 (size 5) differ in size}}
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<2x3xf32>, tensor<5x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @dot_batch_size(%a: tensor<2x3xf32>, %b: tensor<5x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.dot_general' op batching dimensions lhs 0 (size 2) and rhs 0 (size 5) differ in size}}
  %0 = kiln.dot_general %a, %b, batching = [0] x [0], contracting = [1] x [1] : (tensor<2x3xf32>, tensor<5x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @dot_narrow(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xbf16> {
  // expected-error @+1 {{'kiln.dot_general' op result element type 'bf16' is neither the operands' 'f32' nor a wider type of the same kind}}
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}

// -----

func.func @dot_kind(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'kiln.dot_general' op result element type 'f32' is neither the operands' 'i32' nor a wider type of the same kind}}
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @dot_shape(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'kiln.dot_general' op result type should be 'tensor<2x4xf32>' (batch, then lhs free, then rhs free dimensions) but is 'tensor<4x2xf32>'}}
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @dot_operand_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  // expected-error @+1 {{'kiln.dot_general' op failed to verify that all of {lhs, rhs} have same element type}}
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}

// -----

func.func @reduce_range(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'kiln.reduce_sum' op dimensions 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_sum %x, dims = [2] : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_repeat(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'kiln.reduce_max' op dimensions repeats dimension 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_max %x, dims = [1, 1] : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_result(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+2 {{'kiln.reduce_min' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_min %x, dims = [1] : (tensor<4x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_bool(%x: tensor<4xi1>) -> tensor<i1> {
  // expected-error @+1 {{'kiln.reduce_prod' op operand #0 must be ranked tensor}}
  %0 = kiln.reduce_prod %x, dims = [0] : (tensor<4xi1>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

func.func @argmax_range(%x: tensor<4x8xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'kiln.argmax' op dimension -1 is out of range for rank 2}}
  %0 = kiln.argmax %x, dim = -1 : (tensor<4x8xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @argmax_empty(%x: tensor<4x0xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'kiln.argmax' op dimension 1 has no elements to take the argmax of}}
  %0 = kiln.argmax %x, dim = 1 : (tensor<4x0xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @argmax_shape(%x: tensor<4x8xf32>) -> tensor<8xi32> {
  // expected-error @+1 {{'kiln.argmax' op result type 'tensor<8xi32>' should have the operand's shape without dimension 1}}
  %0 = kiln.argmax %x, dim = 1 : (tensor<4x8xf32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @argmax_index(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.argmax' op result #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = kiln.argmax %x, dim = 1 : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @take_range(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // expected-error @+2 {{'kiln.take' op dimension 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.take %t[%i], dim = 2 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @take_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'kiln.take' op operand #1 must be ranked tensor of 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = kiln.take %t[%i], dim = 0 : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @take_shape(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{'kiln.take' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.take %t[%i], dim = 0 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @scatter_range(%t: tensor<10x4xf32>, %i: tensor<3xi32>, %u: tensor<3x4xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'kiln.scatter_add' op dimension 5 is out of range for rank 2}}
  %0 = kiln.scatter_add %t[%i], %u, dim = 5 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_updates(%t: tensor<10x4xf32>, %i: tensor<3xi32>, %u: tensor<4x4xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'kiln.scatter_add' op updates have type 'tensor<4x4xf32>' but kiln.take of these indices would give shape 'tensor<3x4xf32>'}}
  %0 = kiln.scatter_add %t[%i], %u, dim = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<4x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}
