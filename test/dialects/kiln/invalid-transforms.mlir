// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @missing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.grad' op callee @nowhere does not exist}}
  %0 = kiln.grad @nowhere(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

memref.global @g : memref<4xf32> = uninitialized
func.func @not_func(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.jvp' op callee @g is a 'memref.global', not a func.func}}
  %0:2 = kiln.jvp @g(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

func.func private @scalar(%x: f32) -> f32
func.func @not_tensor(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.checkpoint' op callee @scalar has type '(f32) -> f32'; transformations need ranked tensor arguments and results}}
  %0 = kiln.checkpoint @scalar(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @loss(%w: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<f32>
func.func @grad_operand_count(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.grad' op has 1 operands but the callee's arguments give 2}}
  %0 = kiln.grad @loss(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @loss(%w: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<f32>
func.func @grad_operand_type(%w: tensor<4xf32>, %x: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.grad' op operand #1 has type 'tensor<3xf32>' but the callee's arguments give 'tensor<4xf32>'}}
  %0 = kiln.grad @loss(%w, %x) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @loss(%w: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<f32>
func.func @grad_argnums_range(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.grad' op argnums entry 2 is out of range for callee @loss with 2 arguments}}
  %0 = kiln.grad @loss(%w, %w) {argnums = array<i64: 2>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @loss(%w: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<f32>
func.func @grad_argnums_repeat(%w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op argnums repeats 1}}
  %0:3 = kiln.value_and_grad @loss(%w, %w) {argnums = array<i64: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>)
  return %0#1, %0#2 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func private @loss(%w: tensor<4xf32>, %n: tensor<i32>) -> tensor<f32>
func.func @grad_int_argument(%w: tensor<4xf32>, %n: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{'kiln.grad' op argnums selects argument 1 of type 'tensor<i32>'; only float arguments have gradients}}
  %0 = kiln.grad @loss(%w, %n) {argnums = array<i64: 1>} : (tensor<4xf32>, tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func private @vector_loss(%w: tensor<4xf32>) -> tensor<4xf32>
func.func @grad_not_scalar(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.grad' op callee @vector_loss's first result must be a scalar float tensor such as tensor<f32>}}
  %0 = kiln.grad @vector_loss(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @no_result(%w: tensor<4xf32>)
func.func @grad_no_result(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.grad' op callee @no_result's first result must be a scalar float tensor such as tensor<f32>}}
  %0 = kiln.grad @no_result(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @int_loss(%w: tensor<4xf32>) -> tensor<i32>
func.func @grad_int_loss(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.grad' op callee @int_loss's first result must be a scalar float tensor such as tensor<f32>}}
  %0 = kiln.grad @int_loss(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @two(%w: tensor<4xf32>) -> (tensor<f32>, tensor<f32>)
func.func @grad_without_aux(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.grad' op callee @two has 2 results; without has_aux it must have exactly one}}
  %0 = kiln.grad @two(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @two(%w: tensor<4xf32>) -> (tensor<f32>, tensor<2xf32>)
func.func @grad_aux_results(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.grad' op has 1 results but the gradients (then the aux results) give 2}}
  %0 = kiln.grad @two(%w) {has_aux = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @loss(%w: tensor<4xf32>) -> tensor<f32>
func.func @value_and_grad_order(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.value_and_grad' op result #0 has type 'tensor<4xf32>' but the callee's results then the gradients give 'tensor<f32>'}}
  %0:2 = kiln.value_and_grad @loss(%w) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>)
  return %0#0 : tensor<4xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<2xf32>
func.func @jvp_tangent(%x: tensor<4xf32>, %t: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.jvp' op operand #1 has type 'tensor<2xf32>' but the callee's arguments then their tangents give 'tensor<4xf32>'}}
  %0:2 = kiln.jvp @f(%x, %t) : (tensor<4xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %0#1 : tensor<2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<2xf32>
func.func @jvp_results(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.jvp' op has 1 results but the callee's results then their tangents give 2}}
  %0 = kiln.jvp @f(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<2xf32>
func.func @vjp_cotangent(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.vjp' op operand #1 has type 'tensor<4xf32>' but the callee's arguments then one cotangent per callee result give 'tensor<2xf32>'}}
  %0:2 = kiln.vjp @f(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<2xf32>, tensor<4xf32>)
  return %0#1 : tensor<4xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<2xf32>
func.func @vjp_results(%x: tensor<4xf32>, %c: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.vjp' op has 1 results but the callee's results then one cotangent per argnum give 2}}
  %0 = kiln.vjp @f(%x, %c) : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<2xf32>
func.func @vjp_argnums(%x: tensor<4xf32>, %c: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.vjp' op argnums entry -1 is negative}}
  %0:2 = kiln.vjp @f(%x, %c) {argnums = array<i64: -1>} : (tensor<4xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>)
  return %0#0 : tensor<2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func @vmap_operands(%x: tensor<8x4xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{'kiln.vmap' op has 1 operands but callee @f takes 2}}
  %0 = kiln.vmap @f(%x) {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func @vmap_in_axes_count(%x: tensor<8x4xf32>, %w: tensor<4x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{'kiln.vmap' op in_axes has 1 entries but there are 2 operands}}
  %0 = kiln.vmap @f(%x, %w) {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func @vmap_out_axes_count(%x: tensor<8x4xf32>, %w: tensor<4x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{'kiln.vmap' op out_axes has 0 entries but there are 1 callee results}}
  %0 = kiln.vmap @f(%x, %w) {in_axes = array<i64: 0, -1>, out_axes = array<i64>} : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func @vmap_axis_range(%x: tensor<8x4xf32>, %w: tensor<4x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{'kiln.vmap' op in_axes entry 2 for #0 must be -1 or in [0, 1]}}
  %0 = kiln.vmap @f(%x, %w) {in_axes = array<i64: 2, -1>, out_axes = array<i64: 0>} : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func @vmap_rank(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{'kiln.vmap' op operand #0 has type 'tensor<4xf32>'; batched along axis 0 it must have rank 2}}
  %0 = kiln.vmap @f(%x, %w) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func @vmap_batch_size(%x: tensor<8x4xf32>, %w: tensor<4x2x3xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{'kiln.vmap' op operand #1 has batch size 3 but the batch size is 8}}
  %0 = kiln.vmap @f(%x, %w) {in_axes = array<i64: 0, 2>, out_axes = array<i64: 0>} : (tensor<8x4xf32>, tensor<4x2x3xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func @vmap_axis_size(%x: tensor<8x4xf32>, %w: tensor<4x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{'kiln.vmap' op operand #0 has batch size 8 but the batch size is 4}}
  %0 = kiln.vmap @f(%x, %w) {axis_size = 4 : i64, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func @vmap_negative_size(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.vmap' op axis_size -1 is negative}}
  %0 = kiln.vmap @f(%x, %w) {axis_size = -1 : i64, in_axes = array<i64: -1, -1>, out_axes = array<i64: -1>} : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func @vmap_no_batch(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.vmap' op needs axis_size when no operand is batched}}
  %0 = kiln.vmap @f(%x, %w) {in_axes = array<i64: -1, -1>, out_axes = array<i64: -1>} : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func @vmap_unbatched_operand(%x: tensor<8x4xf32>, %w: tensor<2x4xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{'kiln.vmap' op operand #1 has type 'tensor<2x4xf32>' but the callee's arguments batched by in_axes give 'tensor<4x2xf32>'}}
  %0 = kiln.vmap @f(%x, %w) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func @vmap_result(%x: tensor<8x4xf32>, %w: tensor<4x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{'kiln.vmap' op result #0 has type 'tensor<8x2xf32>' but the callee's results batched by out_axes give 'tensor<2x8xf32>'}}
  %0 = kiln.vmap @f(%x, %w) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 1>} : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func private @step(%c: tensor<f32>, %x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
func.func @scan_length(%c: tensor<f32>, %xs: tensor<8x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.scan' op length -1 is negative}}
  %0:2 = kiln.scan @step(%c, %xs) {num_carry = 1 : i64, length = -1 : i64} : (tensor<f32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<8x4xf32>)
  return %0#0 : tensor<f32>
}

// -----

func.func private @step(%c: tensor<f32>, %x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
func.func @scan_unroll(%c: tensor<f32>, %xs: tensor<8x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.scan' op unroll 0 must be at least 1}}
  %0:2 = kiln.scan @step(%c, %xs) {num_carry = 1 : i64, length = 8 : i64, unroll = 0 : i64} : (tensor<f32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<8x4xf32>)
  return %0#0 : tensor<f32>
}

// -----

func.func private @step(%c: tensor<f32>, %x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
func.func @scan_checkpoints(%c: tensor<f32>, %xs: tensor<8x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.scan' op checkpoints -2 is negative}}
  %0:2 = kiln.scan @step(%c, %xs) {num_carry = 1 : i64, length = 8 : i64, checkpoints = -2 : i64} : (tensor<f32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<8x4xf32>)
  return %0#0 : tensor<f32>
}

// -----

func.func private @step(%c: tensor<f32>, %x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
func.func @scan_num_carry(%c: tensor<f32>, %xs: tensor<8x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.scan' op num_carry 3 must be in [0, 2] for callee @step with 2 arguments and 2 results}}
  %0:2 = kiln.scan @step(%c, %xs) {num_carry = 3 : i64, length = 8 : i64} : (tensor<f32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<8x4xf32>)
  return %0#0 : tensor<f32>
}

// -----

func.func private @step(%c: tensor<f32>, %x: tensor<4xf32>) -> (tensor<f64>, tensor<4xf32>)
func.func @scan_carry_types(%c: tensor<f32>, %xs: tensor<8x4xf32>) -> tensor<f64> {
  // expected-error @+1 {{'kiln.scan' op callee @step takes carries ('tensor<f32>') but returns carries ('tensor<f64>')}}
  %0:2 = kiln.scan @step(%c, %xs) {num_carry = 1 : i64, length = 8 : i64} : (tensor<f32>, tensor<8x4xf32>) -> (tensor<f64>, tensor<8x4xf32>)
  return %0#0 : tensor<f64>
}

// -----

func.func private @step(%c: tensor<f32>, %x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
func.func @scan_xs(%c: tensor<f32>, %xs: tensor<7x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.scan' op operand #1 has type 'tensor<7x4xf32>' but the carries then the xs stacked `length` times give 'tensor<8x4xf32>'}}
  %0:2 = kiln.scan @step(%c, %xs) {num_carry = 1 : i64, length = 8 : i64} : (tensor<f32>, tensor<7x4xf32>) -> (tensor<f32>, tensor<8x4xf32>)
  return %0#0 : tensor<f32>
}

// -----

func.func private @step(%c: tensor<f32>, %x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
func.func @scan_ys(%c: tensor<f32>, %xs: tensor<8x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.scan' op result #1 has type 'tensor<4xf32>' but the carries then the ys stacked `length` times give 'tensor<8x4xf32>'}}
  %0:2 = kiln.scan @step(%c, %xs) {num_carry = 1 : i64, length = 8 : i64} : (tensor<f32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %0#0 : tensor<f32>
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @checkpoint_names(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.checkpoint' op names are only used by policy save_only_these_names}}
  %0 = kiln.checkpoint @f(%x) {names = ["h"]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @checkpoint_results(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.checkpoint' op result #0 has type 'tensor<2xf32>' but the callee's results give 'tensor<4xf32>'}}
  %0 = kiln.checkpoint @f(%x) : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @checkpoint_policy(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::kiln::RematPolicy to be one of: everything_saveable, nothing_saveable, dots_saveable, dots_with_no_batch_dims_saveable, save_only_these_names}}
  // expected-error @+1 {{failed to parse Kiln_RematPolicyAttr parameter 'value'}}
  %0 = kiln.checkpoint @f(%x) {policy = #kiln<remat_policy sometimes>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @checkpoint_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.checkpoint_name' op name must not be empty}}
  %0 = kiln.checkpoint_name %x, "" : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Checks of the attributes alone report even when the callee is missing.
func.func @attributes_without_callee(%c: tensor<f32>, %xs: tensor<8x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.scan' op unroll 0 must be at least 1}}
  %0:2 = kiln.scan @missing(%c, %xs) {num_carry = 1 : i64, length = 8 : i64, unroll = 0 : i64} : (tensor<f32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<8x4xf32>)
  return %0#0 : tensor<f32>
}

// -----

func.func @argnums_without_callee(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.grad' op argnums repeats 0}}
  %0, %1 = kiln.grad @missing(%x) {argnums = array<i64: 0, 0>} : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %0 : tensor<f32>
}

// -----

func.func @scan_negative_carries(%c: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.scan' op num_carry -1 is negative}}
  %0 = kiln.scan @missing(%c) {num_carry = -1 : i64, length = 8 : i64} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @fwd(%x: tensor<3xf32>) -> tensor<4xf32> {
  %0 = kiln.constant dense<0.0> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @bwd(%ct: tensor<3xf32>) -> tensor<3xf32> {
  return %ct : tensor<3xf32>
}
func.func @custom_fwd_results(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.custom_vjp' op fwd @fwd must take the callee's arguments and return its results, then the residuals}}
  %0 = kiln.custom_vjp @f(%x) {fwd = @fwd, bwd = @bwd} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %0 = kiln.constant dense<0.0> : tensor<f32>
  return %x, %0 : tensor<3xf32>, tensor<f32>
}
func.func private @bwd(%ct: tensor<3xf32>, %r: tensor<f32>) -> tensor<3xf32> {
  return %ct : tensor<3xf32>
}
func.func @custom_bwd_order(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.custom_vjp' op bwd @bwd must have type '(tensor<f32>, tensor<3xf32>) -> tensor<3xf32>': the residuals of fwd, then one cotangent per result, to one cotangent per argument}}
  %0 = kiln.custom_vjp @f(%x) {fwd = @fwd, bwd = @bwd} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @custom_missing_rule(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.custom_vjp' op fwd @nowhere does not exist}}
  %0 = kiln.custom_vjp @custom_missing_rule(%x) {fwd = @nowhere, bwd = @nowhere} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
