// RUN: kiln-opt %s --split-input-file -verify-diagnostics \
// RUN:   --kiln-specialize-shapes="entry=main arg-types=tensor<8x4xf32>,tensor<9x4xf32>"

// Sizes that disagree are reported at the op that combines them.
func.func @main(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'kiln.add' op all non-scalar operands/results must have the same shape and base type}}
  %0 = kiln.add %a, %b : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A given type must agree with the declared one's static sizes.
// expected-error @+1 {{argument #1 of @main has type 'tensor<?x5xf32>' but is given 'tensor<9x4xf32>'}}
func.func @main(%a: tensor<?x4xf32>, %b: tensor<?x5xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}

// -----

// expected-error @+1 {{argument #0 of @main has type 'tensor<?xf32>' but is given 'tensor<8x4xf32>'}}
func.func @main(%a: tensor<?xf32>, %b: tensor<?x4xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

// -----

func.func @main(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'kiln.reshape' op cannot reshape 'tensor<8x4xf32>' into 'tensor<?x3xf32>': 32 elements are no multiple of 3}}
  %0 = kiln.reshape %a : (tensor<?x4xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// A slice beyond the size the argument turns out to have.
func.func @main(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<9x4xf32> {
  // expected-error @+1 {{'kiln.slice' op dimension 0: start 0, limit 9 and size 8 must satisfy 0 <= start <= limit <= size}}
  %0 = kiln.slice %a [0:9, 0:4] : (tensor<?x4xf32>) -> tensor<9x4xf32>
  return %0 : tensor<9x4xf32>
}

// -----

// In a callee, the error names the call it was specialized for.
func.func private @pair(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'kiln.mul' op all non-scalar operands/results must have the same shape and base type}}
  %0 = kiln.mul %x, %y : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
func.func @main(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-remark @+1 {{while specializing @pair for (tensor<8x4xf32>, tensor<9x4xf32>) here}}
  %0 = call @pair(%a, %b) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A transformation's sizes must still agree once specialized: a vmap of
// axis_size 3 over 8 rows.
func.func private @total(%x: tensor<4xf32>) -> tensor<f32> {
  %s = kiln.reduce_sum %x, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.vmap' op operand #0 has batch size 8 but the batch size is 3}}
  %0 = kiln.vmap @total(%a) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 3 : i64}
      : (tensor<?x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @+1 {{kiln-specialize-shapes: entry 'main' names no public function}}
module {
  func.func private @main(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
    return %a : tensor<?x4xf32>
  }
}

// -----

// expected-error @+1 {{@main takes 1 arguments but arg-types gives 2}}
func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
