// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Meshes, shardings of entry arguments and results, and constraints print
// back as written, through the generic form too.
// CHECK: kiln.mesh @mesh ["data"=2, "model"=4]
// CHECK: kiln.mesh @line ["x"=8]
kiln.mesh @mesh ["data"=2, "model"=4]
kiln.mesh @line ["x"=8]

// CHECK-LABEL: func.func @layer(
// CHECK-SAME:    %{{.*}}: tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}]>}
// CHECK-SAME:    %{{.*}}: tensor<16x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {"model"}], replicated={"data"}>}
// CHECK-SAME:    -> (tensor<8x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data", ?}, {?}]>})
// CHECK:         kiln.sharding_constraint %{{.*}} <@mesh, [{"data"}, {"model"}]> : tensor<8x32xf32>
// CHECK:         kiln.sharding_constraint %{{.*}} <@line, [{"x"}, {}]> : tensor<8x32xf32>
// CHECK:         kiln.sharding_constraint %{{.*}} <@mesh, [{"data", "model"}, {}]> : tensor<8x32xf32>
// CHECK:         kiln.sharding_constraint %{{.*}} logical<["batch", ""]> : tensor<8x32xf32>
func.func @layer(%x: tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}]>},
                 %w: tensor<16x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {"model"}], replicated={"data"}>})
    -> (tensor<8x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data", ?}, {?}]>}) {
  %y = kiln.dot_general %x, %w, contracting = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %a = kiln.sharding_constraint %y <@mesh, [{"data"}, {"model"}]> : tensor<8x32xf32>
  %b = kiln.sharding_constraint %a <@line, [{"x"}, {}]> : tensor<8x32xf32>
  %c = kiln.sharding_constraint %b <@mesh, [{"data", "model"}, {}]> : tensor<8x32xf32>
  %d = kiln.sharding_constraint %c logical<["batch", ""]> : tensor<8x32xf32>
  return %d : tensor<8x32xf32>
}

// Logical axis names and the module's rules.
// CHECK-LABEL: func.func @logical(
// CHECK-SAME:    {kiln.sharding = #kiln.logical<["batch", "embed"]>}
// CHECK-SAME:    {kiln.axis_rules = #kiln.axis_rules<@mesh, ["batch" -> "data", "embed" -> none]>}
func.func @logical(%x: tensor<8x16xf32> {kiln.sharding = #kiln.logical<["batch", "embed"]>})
    -> tensor<8x16xf32> attributes {kiln.axis_rules = #kiln.axis_rules<@mesh, ["batch" -> "data", "embed" -> none]>} {
  return %x : tensor<8x16xf32>
}

// Collectives, the ops of partitioned programs.
// CHECK-LABEL: func.func @collectives
func.func @collectives(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x64xf32>, tensor<8x4xf32>, tensor<32x4xf32>, tensor<8x16xf32>, tensor<i32>) {
  // CHECK: kiln.all_reduce  sum %{{.*}} over @mesh ["model"] : tensor<8x16xf32>
  %a = kiln.all_reduce sum %x over @mesh ["model"] : tensor<8x16xf32>
  // CHECK: kiln.all_gather %{{.*}} over @mesh ["model"], dim = 1 : (tensor<8x16xf32>) -> tensor<8x64xf32>
  %g = kiln.all_gather %x over @mesh ["model"], dim = 1 : (tensor<8x16xf32>) -> tensor<8x64xf32>
  // CHECK: kiln.reduce_scatter  max %{{.*}} over @mesh ["model"], dim = 1 : (tensor<8x16xf32>) -> tensor<8x4xf32>
  %s = kiln.reduce_scatter max %x over @mesh ["model"], dim = 1 : (tensor<8x16xf32>) -> tensor<8x4xf32>
  // CHECK: kiln.all_to_all %{{.*}} over @mesh ["model"], split = 1, concat = 0 : (tensor<8x16xf32>) -> tensor<32x4xf32>
  %t = kiln.all_to_all %x over @mesh ["model"], split = 1, concat = 0 : (tensor<8x16xf32>) -> tensor<32x4xf32>
  // CHECK: kiln.collective_permute %{{.*}} over @mesh ["data"], pairs = [0, 1, 1, 0] : tensor<8x16xf32>
  %p = kiln.collective_permute %x over @mesh ["data"], pairs = [0, 1, 1, 0] : tensor<8x16xf32>
  // CHECK: kiln.axis_index over @mesh ["data", "model"] : tensor<i32>
  %i = kiln.axis_index over @mesh ["data", "model"] : tensor<i32>
  return %a, %g, %s, %t, %p, %i : tensor<8x16xf32>, tensor<8x64xf32>, tensor<8x4xf32>, tensor<32x4xf32>, tensor<8x16xf32>, tensor<i32>
}
