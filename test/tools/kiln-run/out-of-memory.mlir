// A buffer that cannot be allocated is reported by the call instead of
// handing the code a null pointer. A huge splat constant is filled at run
// time rather than written into the binary (compiling it used to hang).
// RUN: %numpy_python %S/make_inputs.py %t
// RUN: not kiln-run %s --entry broadcast --input %t.neg.npz 2>&1 | FileCheck %s --check-prefix=BROADCAST
// BROADCAST: kiln-run: error: broadcast: out of memory allocating a buffer of 4611686018427387904 bytes
// RUN: kiln-compile %s -o %t.so
// RUN: kiln-run %t.so --entry small --input %t.neg.npz --print | FileCheck %s --check-prefix=SMALL
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
