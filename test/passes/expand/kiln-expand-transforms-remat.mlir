// kiln.checkpoint: in reverse mode, the block's forward half saves its
// arguments and the values its policy saves; its backward half recomputes
// the rest of the block's forward half before running its transpose (JAX's
// remat). Once nothing differentiates it, a checkpoint is a call.
// RUN: kiln-opt %s --kiln-expand-transforms | FileCheck %s

// nothing_saveable: the forward half is the block itself; the backward half
// recomputes the dot by calling the block's forward half.
// CHECK-LABEL: func.func private @block_remat_fwd
// CHECK-SAME: (%[[W:.*]]: tensor<4x4xf32>, %[[H:.*]]: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<4x4xf32>, tensor<3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = call @block(%[[W]], %[[H]])
// CHECK-NEXT: return %[[T]], %[[W]], %[[H]]
// CHECK-LABEL: func.func private @block_remat_bwd
// CHECK-SAME: (%[[CT:.*]]: tensor<3x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[H:.*]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[F:.*]]:{{[0-9]+}} = call @block_fwd(%[[W]], %[[H]])
// CHECK-NEXT: call @block_bwd(%[[CT]],
// CHECK-LABEL: func.func private @block_fwd(
// CHECK: kiln.dot_general
// CHECK: kiln.tanh
// CHECK-LABEL: func.func private @loss(
// CHECK-NOT: kiln.checkpoint
// CHECK: call @block(
func.func private @block(%w: tensor<4x4xf32>, %h: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %a = kiln.dot_general %h, %w, contracting = [1] x [0] : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  %t = kiln.tanh %a : tensor<3x4xf32>
  return %t : tensor<3x4xf32>
}
func.func private @loss(%w: tensor<4x4xf32>, %x: tensor<3x4xf32>) -> tensor<f32> {
  %h = kiln.checkpoint @block(%w, %x) : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %l = kiln.reduce_sum %h, dims = [0, 1] : (tensor<3x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%w: tensor<4x4xf32>, %x: tensor<3x4xf32>) -> tensor<4x4xf32> {
  %g = kiln.grad @loss(%w, %x) : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}
func.func @forward(%w: tensor<4x4xf32>, %x: tensor<3x4xf32>) -> tensor<f32> {
  %l = call @loss(%w, %x) : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// dots_saveable: the dot, in a function the block calls, is saved; the
// backward half takes it instead of recomputing it.
// CHECK-LABEL: func.func private @dot_block_remat_fwd
// CHECK-SAME: -> (tensor<3x4xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
// CHECK-NEXT: %[[A:.*]] = kiln.dot_general
// CHECK-NEXT: %[[T:.*]] = kiln.tanh %[[A]]
// CHECK-NEXT: return %[[T]], %{{.*}}, %{{.*}}, %[[A]]
// CHECK-LABEL: func.func private @dot_block_remat_bwd
// CHECK-SAME: (%[[CT:.*]]: tensor<3x4xf32>, %{{.*}}: tensor<4x4xf32>, %{{.*}}: tensor<3x4xf32>, %[[A:.*]]: tensor<3x4xf32>)
// CHECK-NOT: kiln.dot_general
// CHECK: kiln.tanh %[[A]]
// CHECK-NOT: kiln.dot_general
// CHECK: call @dot_block_bwd(%[[CT]],
func.func private @project(%w: tensor<4x4xf32>, %h: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %a = kiln.dot_general %h, %w, contracting = [1] x [0] : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  return %a : tensor<3x4xf32>
}
func.func private @dot_block(%w: tensor<4x4xf32>, %h: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %a = call @project(%w, %h) : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %t = kiln.tanh %a : tensor<3x4xf32>
  return %t : tensor<3x4xf32>
}
func.func private @dot_loss(%w: tensor<4x4xf32>, %x: tensor<3x4xf32>) -> tensor<f32> {
  %h = kiln.checkpoint @dot_block(%w, %x) {policy = #kiln<remat_policy dots_saveable>} : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %l = kiln.reduce_sum %h, dims = [0, 1] : (tensor<3x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @dots(%w: tensor<4x4xf32>, %x: tensor<3x4xf32>) -> tensor<4x4xf32> {
  %g = kiln.grad @dot_loss(%w, %x) : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}

// save_only_these_names: only the value tagged with a listed name is saved
// (sin is not recomputed; its derivative, cos, is).
// CHECK-LABEL: func.func private @named_block_remat_fwd
// CHECK-SAME: -> (tensor<3x4xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
// CHECK: %[[S:.*]] = kiln.checkpoint_name %{{.*}}, "h"
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %[[S]]
// CHECK-LABEL: func.func private @named_block_remat_bwd
// CHECK-SAME: %[[S:[^:]*]]: tensor<3x4xf32>) -> (tensor<4x4xf32>, tensor<3x4xf32>)
// CHECK-NOT: kiln.sin
// CHECK: %[[U:.*]] = kiln.checkpoint_name %[[S]], "unsaved"
// CHECK-NOT: kiln.sin
// CHECK: kiln.dot_general %[[U]]
func.func private @named_block(%w: tensor<4x4xf32>, %h: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %s = kiln.sin %h : tensor<3x4xf32>
  %n = kiln.checkpoint_name %s, "h" : tensor<3x4xf32>
  %u = kiln.checkpoint_name %n, "unsaved" : tensor<3x4xf32>
  %a = kiln.dot_general %u, %w, contracting = [1] x [0] : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  %t = kiln.tanh %a : tensor<3x4xf32>
  return %t : tensor<3x4xf32>
}
func.func private @named_loss(%w: tensor<4x4xf32>, %x: tensor<3x4xf32>) -> tensor<f32> {
  %h = kiln.checkpoint @named_block(%w, %x) {policy = #kiln<remat_policy save_only_these_names>, names = ["h"]} : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %l = kiln.reduce_sum %h, dims = [0, 1] : (tensor<3x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @named(%w: tensor<4x4xf32>, %x: tensor<3x4xf32>) -> tensor<4x4xf32> {
  %g = kiln.grad @named_loss(%w, %x) : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}
