// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @scalar(%x: f32) -> f32 {
  // expected-error @+1 {{custom op 'kiln.neg' invalid kind of type specified: expected builtin.tensor, but found 'f32'}}
  %0 = kiln.neg %x : f32
  return %0 : f32
}

// -----

// The generic form reaches the verifier with a non-tensor operand.
func.func @generic_scalar(%x: f32) -> f32 {
  // expected-error @+1 {{'kiln.neg' op operand #0 must be ranked tensor}}
  %0 = "kiln.neg"(%x) : (f32) -> f32
  return %0 : f32
}

// -----

func.func @use_wrong_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{use of value '%x' expects different type than prior uses: 'tensor<3xf32>' vs 'tensor<4xf32>'}}
  // expected-note @-2 {{prior use here}}
  %0 = kiln.neg %x : tensor<3xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @memref(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-error @+1 {{custom op 'kiln.exp' invalid kind of type specified: expected builtin.tensor, but found 'memref<4xf32>'}}
  %0 = kiln.exp %x : memref<4xf32>
  return %0 : memref<4xf32>
}

// -----

func.func @attribute_kind(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'kiln.transpose' op attribute 'permutation' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "kiln.transpose"(%x) {permutation = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @attribute_missing(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'kiln.transpose' op requires attribute 'permutation'}}
  %0 = "kiln.transpose"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @float_dimension() -> tensor<3xi32> {
  // expected-error @+1 {{floating point value not valid for specified type}}
  %0 = kiln.iota dim = 1.5 : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @string_attribute(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.reverse' op attribute 'dimensions' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "kiln.reverse"(%x) {dimensions = "0"} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @constant_count() -> tensor<3xf32> {
  // expected-error @+1 {{inferred shape of elements literal ([2]) does not match type ([3])}}
  %0 = kiln.constant dense<[1.0, 2.0]> : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @operand_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.add' op expected 2 operands, but found 1}}
  %0 = "kiln.add"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
