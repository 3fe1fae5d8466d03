// RUN: kiln-opt %s --kiln-propagate-sharding --split-input-file -verify-diagnostics

// Logical namings are resolved first.
kiln.mesh @mesh ["data"=2]
// expected-error @below {{the sharding of argument 0 of @f is a logical naming; run kiln-resolve-logical-axes first}}
func.func @f(%x: tensor<8xf32> {kiln.sharding = #kiln.logical<["batch"]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// One program is sharded over one mesh.
kiln.mesh @a ["data"=2]
kiln.mesh @b ["data"=2]
func.func @f(%x: tensor<8xf32> {kiln.sharding = #kiln.sharding<@a, [{"data"}]>}) -> tensor<8xf32> {
  // expected-error @below {{shards over @b, but the program is sharded over @a; one program uses one mesh}}
  %y = kiln.sharding_constraint %x <@b, [{"data"}]> : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Shapes are known.
kiln.mesh @mesh ["data"=2]
// expected-error @below {{sharding propagation needs static shapes; run kiln-specialize-shapes first}}
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

// Transformations are expanded first.
kiln.mesh @mesh ["data"=2]
func.func private @square(%x: tensor<f32>) -> tensor<f32> {
  %y = kiln.mul %x, %x : tensor<f32>
  return %y : tensor<f32>
}
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @below {{'kiln.grad' op has no sharding rule; sharding propagation runs after kiln-expand-transforms}}
  %g = kiln.grad @square(%x) : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
