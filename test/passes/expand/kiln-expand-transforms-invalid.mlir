// RUN: kiln-opt %s --kiln-expand-transforms --split-input-file -verify-diagnostics

// Reverse mode cannot transpose a while loop: its trip count is known only
// once it has run (as in JAX, where scan is the differentiable loop).
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.while' op cannot be differentiated in reverse mode: its trip count is known only once it has run; write the loop as kiln.scan, whose length is fixed}}
  %0 = kiln.while (%x) : tensor<f32> cond {
  ^bb0(%v: tensor<f32>):
    %big = kiln.constant dense<10.0> : tensor<f32>
    %p = kiln.compare LT, %v, %big : tensor<f32>
    kiln.yield %p : tensor<i1>
  } do {
  ^bb0(%v: tensor<f32>):
    %w = kiln.add %v, %v : tensor<f32>
    kiln.yield %w : tensor<f32>
  }
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = kiln.grad @f(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A function that reaches itself through a transformation.
// expected-error @+1 {{function @f reaches @f, which reaches it back: recursive functions cannot be transformed}}
func.func @f(%x: tensor<f32>, %t: tensor<f32>) -> tensor<f32> {
  %0:2 = kiln.jvp @f(%x, %t, %x, %t) : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %0#0 : tensor<f32>
}

// -----

// A call of a function without a body.
func.func private @external(%x: tensor<f32>) -> tensor<f32>
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'func.call' op calls @external, which has no body to differentiate}}
  %0 = call @external(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>, %t: tensor<f32>) -> tensor<f32> {
  %0:2 = kiln.jvp @f(%x, %t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %0#1 : tensor<f32>
}

// -----

// A custom_vjp defines reverse mode only.
func.func private @cf(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @cf_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>) {
  return %x : tensor<3xf32>
}
func.func private @cf_bwd(%ct: tensor<3xf32>) -> tensor<3xf32> {
  return %ct : tensor<3xf32>
}
func.func private @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.custom_vjp' op defines reverse mode only: forward-mode differentiation (kiln.jvp) of it is not supported, as for JAX's custom_vjp}}
  %y = kiln.custom_vjp @cf(%x) {fwd = @cf_fwd, bwd = @cf_bwd} : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>, %t: tensor<3xf32>) -> tensor<3xf32> {
  %0:2 = kiln.jvp @g(%x, %t) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#1 : tensor<3xf32>
}

// -----

// A result that depends on the batch cannot be returned unbatched.
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.neg %x : tensor<3xf32>
  // expected-error @+1 {{'func.return' op result #0 of @f depends on the batch, but its out_axes entry is -1}}
  return %0 : tensor<3xf32>
}
func.func @main(%xs: tensor<4x3xf32>) -> tensor<3xf32> {
  %0 = kiln.vmap @f(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: -1>} : (tensor<4x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A checkpoint budget too small for the scan's length: one carry would
// reverse 100 steps in 99 sweeps.
func.func private @step(%c: tensor<f32>, %x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %s = kiln.add %c, %x : tensor<f32>
  return %s, %s : tensor<f32>, tensor<f32>
}
func.func @main(%c: tensor<f32>, %xs: tensor<100xf32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.scan' op checkpoints = 1 is too few for length 100: the binomial schedule would sweep the steps over 32 times; give at least 2}}
  %r:2 = kiln.scan @step(%c, %xs) {num_carry = 1 : i64, length = 100 : i64, checkpoints = 1 : i64} : (tensor<f32>, tensor<100xf32>) -> (tensor<f32>, tensor<100xf32>)
  return %r#0 : tensor<f32>
}

// -----

// Transformations expand for sizes.
func.func private @loss(%x: tensor<?x4xf32>) -> tensor<f32> {
  %0 = kiln.reduce_sum %x, dims = [0, 1] : (tensor<?x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @dynamic_grad(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'kiln.grad' op has dynamic dimensions: give them sizes first (kiln-specialize-shapes, or call the entry through the jit)}}
  %0 = kiln.grad @loss(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
