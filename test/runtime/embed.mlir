// The embedding example: a C program runs this artifact through the C API.
// RUN: kiln-compile %s -o %t.kmod
// RUN: kiln-embed-example %t.kmod | FileCheck %s
// CHECK: entry saxpy (f32[], f32[1000], f32[1000]) -> (f32[1000])
// CHECK: bad call: arg0: expected rank 0, got 1
// CHECK: 0 of 1000 elements wrong
func.func @saxpy(%a: tensor<f32>, %x: tensor<1000xf32>, %y: tensor<1000xf32>) -> tensor<1000xf32> {
  %ab = kiln.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<1000xf32>
  %ax = kiln.mul %ab, %x : tensor<1000xf32>
  %r = kiln.add %ax, %y : tensor<1000xf32>
  return %r : tensor<1000xf32>
}
