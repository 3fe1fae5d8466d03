// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// An entry's arguments may be static (baked in by the jit) or donated.
// CHECK-LABEL: func.func @entry
// CHECK-SAME: %arg0: tensor<4xf32> {kiln.donate}, %arg1: tensor<f32> {kiln.static}
func.func @entry(%x: tensor<4xf32> {kiln.donate}, %k: tensor<f32> {kiln.static}) -> tensor<4xf32> {
  %b = kiln.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %y = kiln.mul %x, %b : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown argument attribute 'kiln.statik' (kiln's are kiln.static, kiln.donate, kiln.sharding and kiln.part)}}
func.func @typo(%x: tensor<4xf32> {kiln.statik}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'kiln.static' takes no value}}
func.func @valued(%x: tensor<4xf32> {kiln.static = 1 : i64}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'kiln.donate' marks an argument of an entry (a public function with a body)}}
func.func private @helper(%x: tensor<4xf32> {kiln.donate}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
