// A program whose tensors could never be allocated on this machine is
// refused where the tensor is, before anything is allocated (a huge splat
// constant used to hang the compiler, and a huge buffer to reach the code
// as a null pointer); tensors that fit run.
// RUN: %numpy_python %S/make_inputs.py %t
// RUN: not kiln-run %s --entry broadcast --input %t.neg.npz 2>&1 | FileCheck %s --check-prefix=BROADCAST
// BROADCAST: kiln-run: error: {{.*}}out-of-memory.mlir:[[# @LINE + 7]]:8: error: result #0 has type 'tensor<288230376151711744x4xf32>', of 4611686018427387904 bytes: more than the memory of this machine ({{[0-9.]+}} GiB)
// RUN: not kiln-run %s --entry splat --input %t.neg.npz 2>&1 | FileCheck %s --check-prefix=SPLAT
// SPLAT-DAG: out-of-memory.mlir:[[# @LINE + 9]]:1: error: result #0 of @splat has type 'tensor<1152921504606846976xf32>', of 4611686018427387904 bytes: more than the memory of this machine
// SPLAT-DAG: out-of-memory.mlir:[[# @LINE + 9]]:8: error: result #0 has type 'tensor<1152921504606846976xf32>'
// RUN: kiln-run %s --entry small --input %t.neg.npz --print | FileCheck %s --check-prefix=SMALL
// SMALL: 8388608.
func.func @broadcast(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = kiln.broadcast_in_dim %a, dims = [1] : (tensor<4xf32>) -> tensor<288230376151711744x4xf32>
  %s = kiln.reduce_sum %b, dims = [0] : (tensor<288230376151711744x4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @splat(%a: tensor<4xf32>) -> tensor<1152921504606846976xf32> {
  %c = kiln.constant dense<1.0> : tensor<1152921504606846976xf32>
  return %c : tensor<1152921504606846976xf32>
}
func.func @small(%a: tensor<4xf32>) -> tensor<f32> {
  %c = kiln.constant dense<1.0> : tensor<8388608xf32>
  %s = kiln.reduce_sum %c, dims = [0] : (tensor<8388608xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
