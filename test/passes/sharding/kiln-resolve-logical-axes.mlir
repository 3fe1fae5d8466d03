// RUN: kiln-opt %s --kiln-resolve-logical-axes --split-input-file -verify-diagnostics | FileCheck %s

// Each named dimension takes the axis of the first rule for its role whose
// axis the tensor does not use yet (Flax's logical_to_mesh_axes); unnamed
// dimensions, roles mapped to none and roles without rules are whole.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:    {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}]>}
// CHECK-SAME:    {kiln.sharding = #kiln.sharding<@mesh, [{}, {"model"}]>}
// CHECK-SAME:    -> (tensor<8x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {"model"}]>})
// CHECK:         kiln.sharding_constraint %{{.*}} <@mesh, [{"data"}, {"model"}]> : tensor<8x32xf32>
// CHECK:         kiln.sharding_constraint %{{.*}} <@mesh, [{"model"}, {"data"}]> : tensor<8x32xf32>
// CHECK:         kiln.sharding_constraint %{{.*}} <@mesh, [{"data"}, {}]> : tensor<8x32xf32>
module attributes {kiln.axis_rules = #kiln.axis_rules<@mesh, ["batch" -> "data", "hidden" -> "model", "heads" -> "model", "heads" -> "data", "embed" -> none]>} {
  kiln.mesh @mesh ["data"=2, "model"=4]
  func.func @mlp(%x: tensor<8x16xf32> {kiln.sharding = #kiln.logical<["batch", "embed"]>},
                 %w: tensor<16x32xf32> {kiln.sharding = #kiln.logical<["", "hidden"]>})
      -> (tensor<8x32xf32> {kiln.sharding = #kiln.logical<["batch", "hidden"]>}) {
    %y = kiln.dot_general %x, %w, contracting = [1] x [0]
        : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %a = kiln.sharding_constraint %y logical<["batch", "hidden"]> : tensor<8x32xf32>
    // "heads" falls back to "data" once "model" is taken.
    %b = kiln.sharding_constraint %a logical<["heads", "heads"]> : tensor<8x32xf32>
    %c = kiln.sharding_constraint %b logical<["batch", "unknown"]> : tensor<8x32xf32>
    return %c : tensor<8x32xf32>
  }
}

// -----

kiln.mesh @mesh ["data"=2]
func.func @no_rules(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.sharding_constraint' op a #kiln.logical naming needs the module's kiln.axis_rules}}
  %0 = kiln.sharding_constraint %x logical<["batch"]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// The resolved sharding is checked where it is given.
module attributes {kiln.axis_rules = #kiln.axis_rules<@mesh, ["batch" -> "data"]>} {
  kiln.mesh @mesh ["data"=4]
  // expected-error @+1 {{argument #0: dimension 0 of 'tensor<6xf32>' (size 6) does not divide among the 4 devices of its axes; pad it to a multiple of 4}}
  func.func @indivisible(%x: tensor<6xf32> {kiln.sharding = #kiln.logical<["batch"]>}) -> tensor<6xf32> {
    return %x : tensor<6xf32>
  }
}
