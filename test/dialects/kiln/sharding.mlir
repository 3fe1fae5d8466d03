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
func.func @layer(%x: tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}]>},
                 %w: tensor<16x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {"model"}], replicated={"data"}>})
    -> (tensor<8x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data", ?}, {?}]>}) {
  %y = kiln.dot_general %x, %w, contracting = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %a = kiln.sharding_constraint %y <@mesh, [{"data"}, {"model"}]> : tensor<8x32xf32>
  %b = kiln.sharding_constraint %a <@line, [{"x"}, {}]> : tensor<8x32xf32>
  %c = kiln.sharding_constraint %b <@mesh, [{"data", "model"}, {}]> : tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}
