// kiln.vmap expands into a batched function: each op batched by its rule.
// RUN: kiln-opt %s --kiln-expand-transforms --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-to-cpu-pipeline="stop-after=linalg" --split-input-file | FileCheck %s --check-prefix=LINALG

// A matrix-vector product over a batch of vectors is one dot_general: the
// batch of the only batched side is a free dimension of it, no loop and
// no transpose (lowering transposes the batch of vectors to feed a
// matmul, in @main, where the batched function is inlined). The unbatched
// bias is broadcast for the add, which linalg fuses: it is read through a
// broadcasting map, never materialized.
// CHECK-LABEL: func.func private @layer_vmap
// CHECK-SAME: (%[[XS:.*]]: tensor<4x7xf32>, %[[W:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>) -> tensor<7x3xf32>
// CHECK-NEXT: %[[D:.*]] = kiln.dot_general %[[XS]], %[[W]], contracting = [0] x [0] : (tensor<4x7xf32>, tensor<4x3xf32>) -> tensor<7x3xf32>
// CHECK-NEXT: %[[BB:.*]] = kiln.broadcast_in_dim %[[B]], dims = [1] : (tensor<3xf32>) -> tensor<7x3xf32>
// CHECK-NEXT: %[[S:.*]] = kiln.add %[[D]], %[[BB]] : tensor<7x3xf32>
// CHECK-NEXT: %[[T:.*]] = kiln.tanh %[[S]] : tensor<7x3xf32>
// CHECK-NEXT: return %[[T]]
// LINALG: #[[BIAS:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// LINALG-LABEL: func.func @main
// LINALG: %[[XT:.*]] = linalg.transpose ins(%arg0 : tensor<4x7xf32>)
// LINALG: linalg.matmul ins(%[[XT]], %arg1 : tensor<7x4xf32>, tensor<4x3xf32>)
// LINALG: linalg.generic {indexing_maps = [#{{map[0-9]*}}, #[[BIAS]], #{{map[0-9]*}}], {{.*}} ins(%{{.*}}, %arg2 : tensor<7x3xf32>, tensor<3xf32>)
// LINALG-NOT: linalg.generic
// LINALG: return
func.func private @layer(%x: tensor<4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %y = kiln.dot_general %x, %w, contracting = [0] x [0] : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<3xf32>
  %s = kiln.add %y, %b : tensor<3xf32>
  %t = kiln.tanh %s : tensor<3xf32>
  return %t : tensor<3xf32>
}
func.func @main(%xs: tensor<4x7xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<7x3xf32> {
  %0 = kiln.vmap @layer(%xs, %w, %b) {in_axes = array<i64: 1, -1, -1>, out_axes = array<i64: 0>} : (tensor<4x7xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<7x3xf32>
  return %0 : tensor<7x3xf32>
}

// -----

// Both sides batched: the batch is a batching dimension of the product,
// wherever each side has it (no transpose). Work that does not depend on
// the batch (%scale) is done once; the result moves to out_axes.
// CHECK-LABEL: func.func private @inner_vmap
// CHECK-SAME: (%[[A:.*]]: tensor<5x2x3xf32>, %[[B:.*]]: tensor<3x5xf32>, %[[C:.*]]: tensor<f32>) -> tensor<2x5xf32>
// CHECK-NEXT: %[[D:.*]] = kiln.dot_general %[[A]], %[[B]], batching = [0] x [1], contracting = [2] x [0] : (tensor<5x2x3xf32>, tensor<3x5xf32>) -> tensor<5x2xf32>
// CHECK-NEXT: %[[E:.*]] = kiln.exp %[[C]] : tensor<f32>
// CHECK-NEXT: %[[S:.*]] = kiln.broadcast_in_dim %[[E]], dims = [] : (tensor<f32>) -> tensor<5x2xf32>
// CHECK-NEXT: %[[M:.*]] = kiln.mul %[[D]], %[[S]]
// CHECK-NEXT: %[[T:.*]] = kiln.transpose %[[M]], permutation = [1, 0] : (tensor<5x2xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: return %[[T]]
func.func private @inner(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<f32>) -> tensor<2xf32> {
  %d = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %scale = kiln.exp %c : tensor<f32>
  %s = kiln.broadcast_in_dim %scale, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %r = kiln.mul %d, %s : tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func @main(%a: tensor<5x2x3xf32>, %b: tensor<3x5xf32>, %c: tensor<f32>) -> tensor<2x5xf32> {
  %0 = kiln.vmap @inner(%a, %b, %c) {in_axes = array<i64: 0, 1, -1>, out_axes = array<i64: 1>} : (tensor<5x2x3xf32>, tensor<3x5xf32>, tensor<f32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// cond on a batched predicate: both branches on the whole batch, each lane
// selecting its own; on an unbatched predicate, a cond of batched branches.
// CHECK-LABEL: func.func private @pick_vmap_0
// CHECK-SAME: (%[[P:.*]]: tensor<i1>, %[[X:.*]]: tensor<5x3xf32>)
// CHECK: kiln.cond %[[P]] -> (tensor<5x3xf32>)
// CHECK: kiln.sin %[[X]] : tensor<5x3xf32>
// CHECK-LABEL: func.func private @pick_vmap(
// CHECK-SAME: %[[P:.*]]: tensor<5xi1>, %[[X:.*]]: tensor<5x3xf32>)
// CHECK-NOT: kiln.cond
// CHECK: %[[S:.*]] = kiln.sin %[[X]]
// CHECK: %[[LANES:.*]] = kiln.broadcast_in_dim %[[P]], dims = [0] : (tensor<5xi1>) -> tensor<5x3xi1>
// CHECK: kiln.select %[[LANES]], %[[S]], %[[X]]
func.func private @pick(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.cond %p -> (tensor<3xf32>) {
    %s = kiln.sin %x : tensor<3xf32>
    kiln.yield %s : tensor<3xf32>
  } else {
    kiln.yield %x : tensor<3xf32>
  }
  return %0 : tensor<3xf32>
}
func.func @main(%p: tensor<5xi1>, %x: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %0 = kiln.vmap @pick(%p, %x) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<5xi1>, tensor<5x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}
func.func @unbatched(%p: tensor<i1>, %x: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %0 = kiln.vmap @pick(%p, %x) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>} : (tensor<i1>, tensor<5x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// while on a batched condition: the loop runs while any lane's condition
// holds, and a finished lane keeps its value.
// CHECK-LABEL: func.func private @double_vmap
// CHECK: kiln.while(%{{.*}}) : tensor<4xf32> cond {
// CHECK: %[[LIVE:.*]] = kiln.compare  LT, %{{.*}} : tensor<4xf32>
// CHECK: %[[N:.*]] = kiln.convert %[[LIVE]] : (tensor<4xi1>) -> tensor<4xi32>
// CHECK: %[[COUNT:.*]] = kiln.reduce_sum %[[N]], dims = [0]
// CHECK: %[[ANY:.*]] = kiln.compare  GT, %[[COUNT]]
// CHECK: kiln.yield %[[ANY]] : tensor<i1>
// CHECK: } do {
// CHECK: ^bb0(%[[V:.*]]: tensor<4xf32>):
// CHECK: %[[L:.*]] = kiln.compare  LT, %[[V]]
// CHECK: %[[W:.*]] = kiln.add %[[V]], %[[V]]
// CHECK: %[[KEPT:.*]] = kiln.select %[[L]], %[[W]], %[[V]]
// CHECK: kiln.yield %[[KEPT]]
func.func private @double(%x: tensor<f32>) -> tensor<f32> {
  %r = kiln.while (%x) : tensor<f32> cond {
  ^bb0(%v: tensor<f32>):
    %big = kiln.constant dense<10.0> : tensor<f32>
    %p = kiln.compare LT, %v, %big : tensor<f32>
    kiln.yield %p : tensor<i1>
  } do {
  ^bb0(%v: tensor<f32>):
    %w = kiln.add %v, %v : tensor<f32>
    kiln.yield %w : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.vmap @double(%x) {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// vmap of vmap (a time x batch grid) through a call: each level batches
// the callee once; nothing batches when no operand is (axis_size).
// CHECK-LABEL: func.func private @scale_vmap(
// CHECK-SAME: %{{.*}}: tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK-LABEL: func.func private @scale_vmap_vmap(
// CHECK-SAME: %{{.*}}: tensor<4x3x2xf32>) -> tensor<4x3x2xf32>
// CHECK-LABEL: func.func private @row(
// CHECK: call @scale_vmap(
// CHECK-LABEL: func.func private @row_vmap(
// CHECK-SAME: %{{.*}}: tensor<4x3x2xf32>) -> tensor<4x3x2xf32>
// CHECK: call @scale_vmap_vmap(
// CHECK-LABEL: func.func private @constant_vmap
// CHECK-SAME: (%[[C:.*]]: tensor<2xf32>) -> tensor<6x2xf32>
// CHECK: kiln.broadcast_in_dim %[[C]], dims = [1] : (tensor<2xf32>) -> tensor<6x2xf32>
func.func private @scale(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = kiln.add %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func private @row(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = kiln.vmap @scale(%x) {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
func.func @grid(%x: tensor<4x3x2xf32>) -> tensor<4x3x2xf32> {
  %0 = kiln.vmap @row(%x) {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<4x3x2xf32>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}
func.func private @constant(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @repeat(%c: tensor<2xf32>) -> tensor<6x2xf32> {
  %0 = kiln.vmap @constant(%c) {in_axes = array<i64: -1>, out_axes = array<i64: 0>, axis_size = 6 : i64} : (tensor<2xf32>) -> tensor<6x2xf32>
  return %0 : tensor<6x2xf32>
}

// -----

// A sharding constraint batched along a dimension keeps that dimension
// whole on every device.
// CHECK-LABEL: func.func private @shard_vmap(
// CHECK:         kiln.sharding_constraint %{{.*}} <@mesh, [{"data"}, {}]> : tensor<8x3xf32>
// CHECK-LABEL: func.func @vmap_sharding(
kiln.mesh @mesh ["data"=2]
func.func private @shard(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = kiln.sharding_constraint %x <@mesh, [{"data"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func @vmap_sharding(%xs: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %0 = kiln.vmap @shard(%xs) {in_axes = array<i64: 1>, out_axes = array<i64: 1>}
      : (tensor<8x3xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}
