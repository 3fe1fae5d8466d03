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
