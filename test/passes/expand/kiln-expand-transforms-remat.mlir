// kiln.checkpoint: in reverse mode with nothing_saveable, the block's
// forward half saves only its arguments, and its backward half recomputes
// the block's forward half before running its transpose (JAX's remat).
// Once nothing differentiates it, a checkpoint is a call.
// RUN: kiln-opt %s --kiln-expand-transforms | FileCheck %s

// CHECK-LABEL: func.func private @block_remat_fwd
// CHECK-SAME: (%[[W:.*]]: tensor<4x4xf32>, %[[H:.*]]: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<4x4xf32>, tensor<3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = call @block(%[[W]], %[[H]])
// CHECK-NEXT: return %[[R]], %[[W]], %[[H]]
// CHECK-LABEL: func.func private @block_remat_bwd
// CHECK-SAME: (%[[CT:.*]]: tensor<3x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[H:.*]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[AGAIN:.*]]:{{[0-9]+}} = call @block_fwd(%[[W]], %[[H]])
// CHECK-NEXT: call @block_bwd(%[[CT]], %[[AGAIN]]#1
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
