// RUN: kiln-opt %s --kiln-propagate-sharding --split-input-file | FileCheck %s

// Shardings flow forward and backward across every op by its factor rule:
// elementwise ops, broadcast, transpose pass dimensions through.

kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-LABEL: func.func @pass_through
// CHECK-SAME: %{{.*}}: tensor<8x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}]>}
// CHECK-SAME: %{{.*}}: tensor<4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"model"}]>}
// CHECK-SAME: -> (tensor<4x16x8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"model"}, {}, {"data"}]>})
func.func @pass_through(%x: tensor<8x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {?}]>},
                        %b: tensor<4xf32>) -> tensor<4x16x8xf32> {
  // CHECK: kiln.broadcast_in_dim {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {"model"}]>]
  %bb = kiln.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
  // CHECK: kiln.add {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {"model"}]>]
  %s = kiln.add %x, %bb : tensor<8x4xf32>
  // CHECK: kiln.transpose {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"model"}, {"data"}]>]
  %t = kiln.transpose %s, permutation = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  // The new dimension of size 16 is whole.
  // CHECK: kiln.broadcast_in_dim {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"model"}, {}, {"data"}]>]
  %w = kiln.broadcast_in_dim %t, dims = [0, 2] : (tensor<4x8xf32>) -> tensor<4x16x8xf32>
  // A sharding_constraint starts its own: %x's open dimension and %b's
  // come back from it.
  %c = kiln.sharding_constraint %w <@mesh, [{"model"}, {}, {"data"}]> : tensor<4x16x8xf32>
  return %c : tensor<4x16x8xf32>
}

// -----

// A size-1 dimension broadcast to many is whole in the operand.
kiln.mesh @mesh ["data"=2]
// CHECK-LABEL: func.func @broadcast_ones
// CHECK-SAME: %{{.*}}: tensor<1x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {}]>}
func.func @broadcast_ones(%x: tensor<1x4xf32>) -> (tensor<8x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}]>}) {
  %b = kiln.broadcast_in_dim %x, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<8x4xf32>
  return %b : tensor<8x4xf32>
}

// -----

// reshape: a merged or split group's majormost dimensions share a factor,
// split where the split divides both; the group's other dimensions are
// whole, and dimensions of equal size pass through.
kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<4x6x8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}, {"model"}]>})
    -> (tensor<24x8xf32>, tensor<2x2x6x8xf32>, tensor<8x3x8xf32>) {
  // CHECK: kiln.reshape {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {"model"}]>]
  %m = kiln.reshape %x : (tensor<4x6x8xf32>) -> tensor<24x8xf32>
  // CHECK: kiln.reshape {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}, {}, {"model"}]>]
  %s = kiln.reshape %x : (tensor<4x6x8xf32>) -> tensor<2x2x6x8xf32>
  // 4x6 -> 8x3: both majormost sizes split over "data" (gcd 4).
  // CHECK: kiln.reshape {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}, {"model"}]>]
  %r = kiln.reshape %x : (tensor<4x6x8xf32>) -> tensor<8x3x8xf32>
  return %m, %s, %r : tensor<24x8xf32>, tensor<2x2x6x8xf32>, tensor<8x3x8xf32>
}

// -----

// A split that does not divide the group's majormost sizes alike stays whole.
kiln.mesh @mesh ["x"=3]
// CHECK-LABEL: func.func @reshape_uneven
// CHECK: kiln.reshape {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{}, {}]>]
func.func @reshape_uneven(%x: tensor<6x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x6xf32> {
  %r = kiln.reshape %x : (tensor<6x4xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// Sliced, padded, reversed and concatenated dimensions are whole; the
// others pass through.
kiln.mesh @mesh ["data"=2, "model"=2]
// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<8x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}]>},
                         %s: tensor<f32>, %i: tensor<i32>)
    -> (tensor<8x2xf32>, tensor<8x6xf32>, tensor<8x4xf32>, tensor<8x8xf32>, tensor<8x2xf32>, tensor<8x4xf32>) {
  // CHECK: kiln.slice {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}]>]
  %sl = kiln.slice %x [0:8, 1:3] : (tensor<8x4xf32>) -> tensor<8x2xf32>
  // CHECK: kiln.pad {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}]>]
  %p = kiln.pad %x, %s, low = [0, 1], high = [0, 1], interior = [0, 0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x6xf32>
  // CHECK: kiln.reverse {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}]>]
  %r = kiln.reverse %x, dims = [1] : tensor<8x4xf32>
  // CHECK: kiln.concatenate {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}]>]
  %c = kiln.concatenate %x, %x, dim = 1 : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
  // CHECK: kiln.dynamic_slice {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}]>]
  %d = kiln.dynamic_slice %x [%i, %i], sizes = [8, 2] : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x2xf32>
  // CHECK: kiln.dynamic_update_slice {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}]>]
  %u = kiln.dynamic_update_slice %x, %d [%i, %i] : (tensor<8x4xf32>, tensor<8x2xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  return %sl, %p, %r, %c, %d, %u : tensor<8x2xf32>, tensor<8x6xf32>, tensor<8x4xf32>, tensor<8x8xf32>, tensor<8x2xf32>, tensor<8x4xf32>
}

// -----

// Reductions: kept dimensions pass through; a reduced dimension's axes
// move between operands (they make partial results), never to the result.
kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}]>})
    -> (tensor<8xf32>, tensor<16xf32>, tensor<8xi32>) {
  // CHECK: kiln.reduce_sum {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}]>]
  %a = kiln.reduce_sum %x, dims = [1] : (tensor<8x16xf32>) -> tensor<8xf32>
  // CHECK: kiln.reduce_max {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"model"}]>]
  %b = kiln.reduce_max %x, dims = [0] : (tensor<8x16xf32>) -> tensor<16xf32>
  // CHECK: kiln.argmax {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}]>]
  %c = kiln.argmax %x, dim = 1 : (tensor<8x16xf32>) -> tensor<8xi32>
  return %a, %b, %c : tensor<8xf32>, tensor<16xf32>, tensor<8xi32>
}

// -----

// dot_general: a contracting dimension's axes move from one side to the
// other; batching and free dimensions reach the result.
kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-LABEL: func.func @dot
// CHECK-SAME: %{{.*}}: tensor<2x8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}, {"model"}]>}
// CHECK-SAME: %{{.*}}: tensor<2x16x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}, {}]>}
func.func @dot(%x: tensor<2x8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}, {"model"}]>},
               %w: tensor<2x16x4xf32>) -> tensor<2x8x4xf32> {
  // CHECK: kiln.dot_general {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}, {}]>]
  %y = kiln.dot_general %x, %w, batching = [0] x [0], contracting = [2] x [1] : (tensor<2x8x16xf32>, tensor<2x16x4xf32>) -> tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}

// -----

// take and scatter_add: the indexed dimension is whole; the indices'
// dimensions are the result's (take) or summed over (scatter_add).
kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-LABEL: func.func @gather_scatter
func.func @gather_scatter(%table: tensor<100x8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}]>},
                          %ids: tensor<4x6xi32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}]>})
    -> tensor<100x8xf32> {
  // CHECK: kiln.take {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}, {"model"}]>]
  %g = kiln.take %table[%ids], dim = 0 : (tensor<100x8xf32>, tensor<4x6xi32>) -> tensor<4x6x8xf32>
  // CHECK: kiln.scatter_add {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{}, {"model"}]>]
  %s = kiln.scatter_add %table[%ids], %g, dim = 0 : (tensor<100x8xf32>, tensor<4x6xi32>, tensor<4x6x8xf32>) -> tensor<100x8xf32>
  return %s : tensor<100x8xf32>
}

// -----

// Pass-through ops go before dots: %y's sharding comes from the
// constraint through the add, not from %w through the dot.
kiln.mesh @mesh ["data"=2, "model"=2]
// CHECK-LABEL: func.func @priorities
func.func @priorities(%x: tensor<8x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {"model"}]>},
                      %w: tensor<4x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {"data"}]>},
                      %z: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: kiln.dot_general {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}]>]
  %y = kiln.dot_general %x, %w, contracting = [1] x [0] : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  // CHECK: kiln.add {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}]>]
  %s = kiln.add %y, %z : tensor<8x4xf32>
  %c = kiln.sharding_constraint %s <@mesh, [{"data"}, {}]> : tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

// Regions and calls: a while's carried values, a cond's yields and a
// callee's arguments and results take the shardings that flow into them.
kiln.mesh @mesh ["data"=2]
// CHECK-LABEL: func.func @control
func.func @control(%x: tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}]>}, %p: tensor<i1>) -> tensor<8xf32> {
  %zero = kiln.constant dense<0> : tensor<i32>
  // CHECK: kiln.while{{.*}}kiln.shardings = [#kiln.sharding<@mesh, []>, #kiln.sharding<@mesh, [{"data"}]>]
  // CHECK: kiln.add %{{.*}}, %{{.*}} {kiln.shardings = [#kiln.sharding<@mesh, [{"data"}]>]} : tensor<8xf32>
  %n, %y = kiln.while (%zero, %x) : tensor<i32>, tensor<8xf32> cond {
  ^bb0(%i: tensor<i32>, %v: tensor<8xf32>):
    %ten = kiln.constant dense<10> : tensor<i32>
    %c = kiln.compare LT, %i, %ten : tensor<i32>
    kiln.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %v: tensor<8xf32>):
    %one = kiln.constant dense<1> : tensor<i32>
    %j = kiln.add %i, %one : tensor<i32>
    %w = kiln.add %v, %v : tensor<8xf32>
    kiln.yield %j, %w : tensor<i32>, tensor<8xf32>
  }
  // CHECK: kiln.tanh {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}]>]
  // CHECK: } {kiln.shardings = [#kiln.sharding<@mesh, [{"data"}]>]}
  %r = kiln.cond %p -> (tensor<8xf32>) {
    %t = kiln.tanh %y : tensor<8xf32>
    kiln.yield %t : tensor<8xf32>
  } else {
    kiln.yield %y : tensor<8xf32>
  }
  // CHECK: call @helper{{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}]>]
  %h = func.call @helper(%r) : (tensor<8xf32>) -> tensor<8xf32>
  return %h : tensor<8xf32>
}
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: %{{.*}}: tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}]>}
// CHECK-SAME: -> (tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}]>})
// CHECK: kiln.exp {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}]>]
func.func private @helper(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = kiln.exp %a : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

// Axes a tensor uses for one dimension, or lists as replicated, are not
// given to another.
kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-LABEL: func.func @exclusions
func.func @exclusions(%x: tensor<8x8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}]>},
                      %y: tensor<8x8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{?}, {?}], replicated={"data"}>})
    -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  // CHECK: kiln.transpose {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{}, {"data"}]>]
  %t = kiln.transpose %x, permutation = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // %y excludes "data": the add's operand %y stays whole, the result is sharded.
  // CHECK: kiln.add {{.*}}kiln.shardings = [#kiln.sharding<@mesh, [{"data"}, {}]>]
  %a = kiln.add %x, %y : tensor<8x8xf32>
  return %t, %a : tensor<8x8xf32>, tensor<8x8xf32>
}
