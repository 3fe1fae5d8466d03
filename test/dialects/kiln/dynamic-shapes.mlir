// RUN: kiln-opt %s | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Dynamic dimensions propagate exactly: inferred result types keep them
// where the operands leave a size unknown.
// CHECK-LABEL: func.func @propagate(
// CHECK:         kiln.exp {{.*}} : tensor<?x4xf32>
// CHECK:         kiln.transpose {{.*}} -> tensor<4x?xf32>
// CHECK:         kiln.slice {{.*}} -> tensor<1x2xf32>
// CHECK:         kiln.pad {{.*}} -> tensor<?x6xf32>
// CHECK:         kiln.concatenate {{.*}} -> tensor<?x4xf32>
// CHECK:         kiln.concatenate {{.*}} -> tensor<3x8xf32>
// CHECK:         kiln.dot_general {{.*}} -> tensor<?x?xf32>
// CHECK:         kiln.broadcast_in_dim {{.*}} -> tensor<?x5x4xf32>
// CHECK:         kiln.reshape {{.*}} -> tensor<?x2x2xf32>
// CHECK:         kiln.broadcast_in_dim %{{.*}}, dims = [], like %{{.*}} : (tensor<f32>, tensor<?x4xf32>) -> tensor<?x4xf32>
func.func @propagate(%x: tensor<?x4xf32>, %y: tensor<3x4xf32>, %z: tensor<?x?xf32>)
    -> (tensor<4x?xf32>, tensor<1x2xf32>, tensor<?x6xf32>, tensor<?x4xf32>, tensor<3x8xf32>, tensor<?x?xf32>, tensor<?x5x4xf32>, tensor<?x2x2xf32>) {
  %e = kiln.exp %x : tensor<?x4xf32>
  %t = kiln.transpose %e, permutation = [1, 0] : (tensor<?x4xf32>) -> tensor<4x?xf32>
  %s = kiln.slice %x [0:1, 1:3] : (tensor<?x4xf32>) -> tensor<1x2xf32>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %p = kiln.pad %x, %zero, low = [0, 1], high = [2, 1], interior = [0, 0] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x6xf32>
  %c = kiln.concatenate %x, %y, dim = 0 : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  %c2 = kiln.concatenate %y, %y, dim = 1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
  %d = kiln.dot_general %x, %z, contracting = [1] x [0] : (tensor<?x4xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %b = kiln.broadcast_in_dim %x, dims = [0, 2] : (tensor<?x4xf32>) -> tensor<?x5x4xf32>
  %r = kiln.reshape %x : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
  %k = kiln.broadcast_in_dim %zero, dims = [], like %x : (tensor<f32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %unused = kiln.add %k, %x : tensor<?x4xf32>
  return %t, %s, %p, %c, %c2, %d, %b, %r : tensor<4x?xf32>, tensor<1x2xf32>, tensor<?x6xf32>, tensor<?x4xf32>, tensor<3x8xf32>, tensor<?x?xf32>, tensor<?x5x4xf32>, tensor<?x2x2xf32>
}
