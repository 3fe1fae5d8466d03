// RUN: kiln-opt %s --kiln-partition --split-input-file -verify-diagnostics

// Partitioning reads the shardings that propagation gives every op.
kiln.mesh @mesh ["data"=2]
func.func @unpropagated(%x: tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}]>}) -> tensor<8xf32> {
  // expected-error @below {{'kiln.tanh' op has no result shardings; kiln-partition runs after kiln-propagate-sharding}}
  %y = kiln.tanh %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
