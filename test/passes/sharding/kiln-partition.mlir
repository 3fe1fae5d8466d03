// RUN: kiln-opt %s --kiln-propagate-sharding --kiln-partition --cse --split-input-file | FileCheck %s

// A matmul ("data", "model") x ("model", none) -> ("data", none) is one
// local matmul and one all_reduce over "model" (XLA's partitioner makes the
// same); each argument and result says which layout it is a part of.
kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32> {kiln.part = #kiln.sharding<@mesh, [{"data"}, {"model"}]>}, %[[W:.*]]: tensor<4x32xf32> {kiln.part = #kiln.sharding<@mesh, [{"model"}, {}]>})
// CHECK-SAME: -> (tensor<4x32xf32> {kiln.part = #kiln.sharding<@mesh, [{"data"}, {}]>})
// CHECK-NEXT: %[[Y:.*]] = kiln.dot_general %[[X]], %[[W]], contracting = [1] x [0] : (tensor<4x4xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT: %[[R:.*]] = kiln.all_reduce sum %[[Y]] over @mesh ["model"] : tensor<4x32xf32>
// CHECK-NEXT: return %[[R]]
func.func @matmul(%x: tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}]>},
                  %w: tensor<16x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<8x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}]>}) {
  %y = kiln.dot_general %x, %w, contracting = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// With the result split over "model", the all_reduce is a reduce_scatter.
// CHECK-LABEL: func.func @matmul_scattered
// CHECK-NEXT: kiln.dot_general
// CHECK-NEXT: %[[R:.*]] = kiln.reduce_scatter sum %{{.*}} over @mesh ["model"], dim = 1 : (tensor<4x32xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @matmul_scattered(%x: tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}]>},
                            %w: tensor<16x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<8x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}]>}) {
  %y = kiln.dot_general %x, %w, contracting = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// Megatron's MLP: the first layer split by columns, the second by rows;
// one all_reduce in all.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: tensor<4x16xf32>
// CHECK-SAME: tensor<16x8xf32>
// CHECK-SAME: tensor<8x16xf32> {kiln.part = #kiln.sharding<@mesh, [{"model"}, {}]>}
// CHECK-NEXT: kiln.dot_general {{.*}} -> tensor<4x8xf32>
// CHECK-NEXT: kiln.tanh
// CHECK-NEXT: kiln.dot_general {{.*}} -> tensor<4x16xf32>
// CHECK-NEXT: kiln.all_reduce sum %{{.*}} over @mesh ["model"] : tensor<4x16xf32>
// CHECK-NEXT: return
func.func @mlp(%x: tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {?}]>},
               %w1: tensor<16x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {"model"}]>},
               %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %h = kiln.dot_general %x, %w1, contracting = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %a = kiln.tanh %h : tensor<8x32xf32>
  %y = kiln.dot_general %a, %w2, contracting = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// Layout changes: an axis moving from the minor end of one dimension to
// another is one all_to_all; a dimension losing axes is gathered; one
// gaining axes is sliced at the device's place, without communication.
// Collectives are merged like pure ops (one gather for two results).
kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-LABEL: func.func @moves
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>
// CHECK: %[[A:.*]] = kiln.all_to_all %[[X]] over @mesh ["model"], split = 0, concat = 1 : (tensor<4x4xf32>) -> tensor<1x16xf32>
// CHECK: %[[G0:.*]] = kiln.all_gather %[[X]] over @mesh ["data"], dim = 0 : (tensor<4x4xf32>) -> tensor<8x4xf32>
// CHECK: %[[G1:.*]] = kiln.all_gather %[[G0]] over @mesh ["model"], dim = 1 : (tensor<8x4xf32>) -> tensor<8x16xf32>
// CHECK: %[[P:.*]] = kiln.axis_index over @mesh ["data"] : tensor<i32>
// CHECK: %[[N:.*]] = kiln.constant dense<8> : tensor<i32>
// CHECK: %[[S:.*]] = kiln.mul %[[P]], %[[N]]
// CHECK: %[[L:.*]] = kiln.dynamic_slice %[[G1]][%{{.*}}, %[[S]]], sizes = [8, 8] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
// CHECK: return %[[A]], %[[G1]], %[[L]]
func.func @moves(%x: tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}]>})
    -> (tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data", "model"}, {}]>},
        tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {}]>},
        tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {"data"}]>}) {
  return %x, %x, %x : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// Values made from attributes make their own parts: an iota counts from
// its part's start, a splat is a smaller splat, other constants are cut.
kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-LABEL: func.func @create
// CHECK: %[[I:.*]] = kiln.iota dim = 1 : tensor<4x4xi32>
// CHECK: %[[P:.*]] = kiln.axis_index over @mesh ["model"] : tensor<i32>
// CHECK: %[[N:.*]] = kiln.constant dense<4> : tensor<i32>
// CHECK: %[[S:.*]] = kiln.mul %[[P]], %[[N]]
// CHECK: %[[B:.*]] = kiln.broadcast_in_dim %[[S]], dims = [] : (tensor<i32>) -> tensor<4x4xi32>
// CHECK: %[[C:.*]] = kiln.add %[[I]], %[[B]]
// CHECK: %[[ONES:.*]] = kiln.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK: %[[WHOLE:.*]] = kiln.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK: %[[D:.*]] = kiln.dynamic_slice %[[WHOLE]]
// CHECK: return %[[C]], %[[ONES]], %[[D]] : tensor<4x4xi32>, tensor<4xf32>, tensor<1xf32>
func.func @create() -> (tensor<8x16xi32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}]>},
                        tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}]>},
                        tensor<4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"model"}]>}) {
  %i = kiln.iota dim = 1 : tensor<8x16xi32>
  %c = kiln.constant dense<1.0> : tensor<8xf32>
  %d = kiln.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  return %i, %c, %d : tensor<8x16xi32>, tensor<8xf32>, tensor<4xf32>
}

// -----

// A dimension that must be whole is gathered; a slice of whole dimensions
// keeps its part; a maximum over a split dimension is all-reduced by max.
kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK-LABEL: func.func @slices
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>
// CHECK-NEXT: %[[G:.*]] = kiln.all_gather %[[X]] over @mesh ["model"], dim = 1 : (tensor<4x4xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[S:.*]] = kiln.slice %[[G]] [0:4, 2:6] : (tensor<4x16xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: %[[M:.*]] = kiln.reduce_max %[[X]], dims = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = kiln.all_reduce max %[[M]] over @mesh ["model"] : tensor<4xf32>
// CHECK-NEXT: return %[[S]], %[[R]]
func.func @slices(%x: tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}]>})
    -> (tensor<8x4xf32>, tensor<8xf32>) {
  %s = kiln.slice %x [0:8, 2:6] : (tensor<8x16xf32>) -> tensor<8x4xf32>
  %m = kiln.reduce_max %x, dims = [1] : (tensor<8x16xf32>) -> tensor<8xf32>
  return %s, %m : tensor<8x4xf32>, tensor<8xf32>
}

// -----

// Loops carry parts; callees run on parts too.
kiln.mesh @mesh ["data"=2]
// CHECK-LABEL: func.func @loop
// CHECK: kiln.while(%{{.*}}, %{{.*}}) : tensor<i32>, tensor<4xf32> cond {
// CHECK: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<4xf32>):
// CHECK: } do {
// CHECK: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<4xf32>):
// CHECK: kiln.add %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK: call @helper(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: tensor<4xf32> {kiln.part = #kiln.sharding<@mesh, [{"data"}]>}
func.func @loop(%x: tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}]>}) -> tensor<8xf32> {
  %zero = kiln.constant dense<0> : tensor<i32>
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
  %h = func.call @helper(%y) : (tensor<8xf32>) -> tensor<8xf32>
  return %h : tensor<8xf32>
}
func.func private @helper(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = kiln.exp %a : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

// Nothing sharded: the program is left as it is.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%{{.*}}: tensor<8xf32>) -> tensor<8xf32>
func.func @plain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = kiln.tanh %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// A callee partitioned before its caller: the call reshards to the layout
// the callee's arguments are parts of.
kiln.mesh @mesh ["data"=2]
// CHECK-LABEL: func.func private @first
// CHECK-SAME: tensor<4xf32> {kiln.part = #kiln.sharding<@mesh, [{"data"}]>}
func.func private @first(%a: tensor<8xf32>) -> tensor<8xf32> {
  %c = kiln.sharding_constraint %a <@mesh, [{"data"}]> : tensor<8xf32>
  %e = kiln.exp %c : tensor<8xf32>
  return %e : tensor<8xf32>
}
// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>
// CHECK: %[[PART:.*]] = kiln.dynamic_slice %[[X]]
// CHECK: call @first(%[[PART]]) : (tensor<4xf32>) -> tensor<4xf32>
func.func @caller(%x: tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}]>}) -> tensor<8xf32> {
  %h = func.call @first(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %h : tensor<8xf32>
}
