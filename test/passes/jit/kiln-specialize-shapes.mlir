// RUN: kiln-opt %s --kiln-specialize-shapes="entry=mlp arg-types=tensor<8x784xf32>,tensor<784x10xf32>" \
// RUN:   | FileCheck %s --check-prefix=MLP
// RUN: kiln-opt %s --kiln-specialize-shapes="entry=loops arg-types=tensor<5x3xf32>,tensor<i1>" \
// RUN:   | FileCheck %s --check-prefix=LOOPS
// RUN: kiln-opt %s --kiln-specialize-shapes="entry=gather arg-types=tensor<6x4xf32>,tensor<3xi32>,tensor<3x4xf32>" \
// RUN:   | FileCheck %s --check-prefix=GATHER
// RUN: kiln-opt %s --kiln-specialize-shapes="entry=train arg-types=tensor<4x1xf32>,tensor<6x4xf32>,tensor<2x6x4xf32>" \
// RUN:   | FileCheck %s --check-prefix=TRANSFORMS
// RUN: kiln-opt %s --kiln-specialize-shapes="entry=outer arg-types=tensor<2x3xf32>" \
// RUN:   | FileCheck %s --check-prefix=CALLS

// Every op takes the sizes its operands imply: inferred types, a reshape's
// one dynamic dimension, a broadcast of a dynamic dimension, dot_general,
// argmax, and the results.
// MLP-LABEL: func.func @mlp(
// MLP-SAME:    tensor<8x784xf32>, %{{.*}}: tensor<784x10xf32>) -> (tensor<8x10xf32>, tensor<8xi32>, tensor<4x2x10xf32>)
// MLP:         kiln.dot_general {{.*}} -> tensor<8x10xf32>
// MLP:         kiln.reduce_max {{.*}} -> tensor<8xf32>
// MLP:         kiln.broadcast_in_dim {{.*}} -> tensor<8x10xf32>
// MLP:         kiln.sub {{.*}} : tensor<8x10xf32>
// MLP:         kiln.broadcast_in_dim %{{.*}}, dims = [1] : (tensor<10xf32>) -> tensor<8x10xf32>
// MLP:         kiln.add {{.*}} : tensor<8x10xf32>
// MLP:         kiln.argmax {{.*}} -> tensor<8xi32>
// MLP:         kiln.reshape {{.*}} -> tensor<4x2x10xf32>
// MLP:         return {{.*}} : tensor<8x10xf32>, tensor<8xi32>, tensor<4x2x10xf32>
// The other entries keep their dynamic signatures.
// MLP-LABEL: func.func @loops(
// MLP-SAME:    tensor<?x3xf32>
func.func @mlp(%x: tensor<?x784xf32>, %w: tensor<784x10xf32>)
    -> (tensor<?x10xf32>, tensor<?xi32>, tensor<?x2x10xf32>) {
  %y = kiln.dot_general %x, %w, contracting = [1] x [0]
      : (tensor<?x784xf32>, tensor<784x10xf32>) -> tensor<?x10xf32>
  %m = kiln.reduce_max %y, dims = [1] : (tensor<?x10xf32>) -> tensor<?xf32>
  %b = kiln.broadcast_in_dim %m, dims = [0] : (tensor<?xf32>) -> tensor<?x10xf32>
  %z = kiln.sub %y, %b : tensor<?x10xf32>
  %bias = kiln.constant dense<1.0> : tensor<10xf32>
  %bb = kiln.broadcast_in_dim %bias, dims = [1], like %z : (tensor<10xf32>, tensor<?x10xf32>) -> tensor<?x10xf32>
  %zb = kiln.add %z, %bb : tensor<?x10xf32>
  %i = kiln.argmax %zb, dim = 1 : (tensor<?x10xf32>) -> tensor<?xi32>
  %r = kiln.reshape %z : (tensor<?x10xf32>) -> tensor<?x2x10xf32>
  return %z, %i, %r : tensor<?x10xf32>, tensor<?xi32>, tensor<?x2x10xf32>
}

// Regions: a while's arguments take its operands' types, a cond's results
// what its branches yield.
// LOOPS-LABEL: func.func @loops(
// LOOPS-SAME:    tensor<5x3xf32>, %{{.*}}: tensor<i1>) -> tensor<5x3xf64>
// LOOPS:         kiln.while({{.*}}) : tensor<5x3xf32>, tensor<i32> cond {
// LOOPS-NEXT:    ^bb0(%{{.*}}: tensor<5x3xf32>, %{{.*}}: tensor<i32>):
// LOOPS:         } do {
// LOOPS-NEXT:    ^bb0(%{{.*}}: tensor<5x3xf32>, %{{.*}}: tensor<i32>):
// LOOPS:           kiln.mul {{.*}} : tensor<5x3xf32>
// LOOPS:         kiln.cond {{.*}} -> (tensor<5x3xf32>)
// LOOPS:           kiln.neg {{.*}} : tensor<5x3xf32>
// LOOPS:         kiln.select {{.*}} : tensor<i1>, tensor<5x3xf32>
// LOOPS:         kiln.convert {{.*}} : (tensor<5x3xf32>) -> tensor<5x3xf64>
func.func @loops(%x: tensor<?x3xf32>, %p: tensor<i1>) -> tensor<?x3xf64> {
  %zero = kiln.constant dense<0> : tensor<i32>
  %one = kiln.constant dense<1> : tensor<i32>
  %three = kiln.constant dense<3> : tensor<i32>
  %r:2 = kiln.while (%x, %zero) : tensor<?x3xf32>, tensor<i32> cond {
  ^bb0(%v: tensor<?x3xf32>, %i: tensor<i32>):
    %c = kiln.compare LT, %i, %three : tensor<i32>
    kiln.yield %c : tensor<i1>
  } do {
  ^bb0(%v: tensor<?x3xf32>, %i: tensor<i32>):
    %w = kiln.mul %v, %v : tensor<?x3xf32>
    %j = kiln.add %i, %one : tensor<i32>
    kiln.yield %w, %j : tensor<?x3xf32>, tensor<i32>
  }
  %c = kiln.cond %p -> (tensor<?x3xf32>) {
    %n = kiln.neg %r#0 : tensor<?x3xf32>
    kiln.yield %n : tensor<?x3xf32>
  } else {
    kiln.yield %r#0 : tensor<?x3xf32>
  }
  %s = kiln.select %p, %c, %x : tensor<i1>, tensor<?x3xf32>
  %d = kiln.convert %s : (tensor<?x3xf32>) -> tensor<?x3xf64>
  return %d : tensor<?x3xf64>
}

// Data movement: take, scatter_add, slice, concatenate, pad, transpose.
// GATHER-LABEL: func.func @gather(
// GATHER-SAME:    -> (tensor<3x4xf32>, tensor<6x4xf32>, tensor<4x4xf32>, tensor<9x4xf32>, tensor<4x8xf32>)
// GATHER:         kiln.take {{.*}} -> tensor<3x4xf32>
// GATHER:         kiln.scatter_add {{.*}} -> tensor<6x4xf32>
// GATHER:         kiln.slice {{.*}} -> tensor<4x4xf32>
// GATHER:         kiln.concatenate {{.*}} -> tensor<9x4xf32>
// GATHER:         kiln.pad {{.*}} -> tensor<8x4xf32>
// GATHER:         kiln.transpose {{.*}} -> tensor<4x8xf32>
func.func @gather(%t: tensor<?x4xf32>, %i: tensor<?xi32>, %u: tensor<?x4xf32>)
    -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<4x4xf32>, tensor<?x4xf32>, tensor<4x?xf32>) {
  %g = kiln.take %t[%i], dim = 0 : (tensor<?x4xf32>, tensor<?xi32>) -> tensor<?x4xf32>
  %s = kiln.scatter_add %t[%i], %u, dim = 0 : (tensor<?x4xf32>, tensor<?xi32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %l = kiln.slice %t [0:4, 0:4] : (tensor<?x4xf32>) -> tensor<4x4xf32>
  %c = kiln.concatenate %t, %u, dim = 0 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %p = kiln.pad %t, %zero, low = [1, 0], high = [1, 0], interior = [0, 0] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %tr = kiln.transpose %p, permutation = [1, 0] : (tensor<?x4xf32>) -> tensor<4x?xf32>
  return %g, %s, %l, %c, %tr : tensor<?x4xf32>, tensor<?x4xf32>, tensor<4x4xf32>, tensor<?x4xf32>, tensor<4x?xf32>
}

// Calls go to copies specialized once per operand types; the private
// dynamic original goes.
// CALLS-LABEL: func.func @outer(
// CALLS:         call @double_specialized({{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CALLS:         call @double_specialized_0({{.*}}) : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CALLS:         call @double_specialized({{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CALLS-NOT:   func.func private @double(
// CALLS-DAG:   func.func private @double_specialized(%{{.*}}: tensor<2x3xf32>) -> tensor<2x3xf32>
// CALLS-DAG:   func.func private @double_specialized_0(%{{.*}}: tensor<4x3xf32>) -> tensor<4x3xf32>
func.func @outer(%a: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %b = kiln.concatenate %a, %a, dim = 0 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %0 = call @double(%a) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %1 = call @double(%b) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %2 = call @double(%a) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0, %1, %2 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}
func.func private @double(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = kiln.add %x, %x : tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// Transformations name copies of their functions specialized for the
// argument types their operands imply (one copy per function and types):
// grad of a loss over the batch, vmap over a batch of batches, scan over
// its leading dimension.
// TRANSFORMS-DAG:   func.func private @loss_specialized(%{{.*}}: tensor<4x1xf32>, %{{.*}}: tensor<6x4xf32>) -> tensor<f32>
// TRANSFORMS-DAG:   func.func private @step_specialized(%{{.*}}: tensor<f32>, %{{.*}}: tensor<6x4xf32>) -> (tensor<f32>, tensor<f32>)
// TRANSFORMS-LABEL: func.func @train(
// TRANSFORMS-SAME:    -> (tensor<4x1xf32>, tensor<2xf32>, tensor<f32>, tensor<2xf32>)
// TRANSFORMS:         kiln.grad @loss_specialized({{.*}}) : (tensor<4x1xf32>, tensor<6x4xf32>) -> tensor<4x1xf32>
// TRANSFORMS:         kiln.vmap @loss_specialized({{.*}}) {{.*}} : (tensor<4x1xf32>, tensor<2x6x4xf32>) -> tensor<2xf32>
// TRANSFORMS:         kiln.scan @step_specialized({{.*}}) {{.*}} : (tensor<f32>, tensor<2x6x4xf32>) -> (tensor<f32>, tensor<2xf32>)
func.func private @loss(%w: tensor<4x1xf32>, %x: tensor<?x4xf32>) -> tensor<f32> {
  %y = kiln.dot_general %x, %w, contracting = [1] x [0]
      : (tensor<?x4xf32>, tensor<4x1xf32>) -> tensor<?x1xf32>
  %s = kiln.mul %y, %y : tensor<?x1xf32>
  %l = kiln.reduce_sum %s, dims = [0, 1] : (tensor<?x1xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func private @step(%c: tensor<f32>, %x: tensor<?x4xf32>) -> (tensor<f32>, tensor<f32>) {
  %s = kiln.reduce_sum %x, dims = [0, 1] : (tensor<?x4xf32>) -> tensor<f32>
  %n = kiln.add %c, %s : tensor<f32>
  return %n, %s : tensor<f32>, tensor<f32>
}
func.func @train(%w: tensor<4x1xf32>, %x: tensor<?x4xf32>, %xs: tensor<2x?x4xf32>)
    -> (tensor<4x1xf32>, tensor<2xf32>, tensor<f32>, tensor<2xf32>) {
  %g = kiln.grad @loss(%w, %x) : (tensor<4x1xf32>, tensor<?x4xf32>) -> tensor<4x1xf32>
  %v = kiln.vmap @loss(%w, %xs) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>}
      : (tensor<4x1xf32>, tensor<2x?x4xf32>) -> tensor<2xf32>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %c, %ys = kiln.scan @step(%zero, %xs) {num_carry = 1, length = 2}
      : (tensor<f32>, tensor<2x?x4xf32>) -> (tensor<f32>, tensor<2xf32>)
  return %g, %v, %c, %ys : tensor<4x1xf32>, tensor<2xf32>, tensor<f32>, tensor<2xf32>
}
