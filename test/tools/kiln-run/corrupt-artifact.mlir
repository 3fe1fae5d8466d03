// A truncated artifact, or one whose manifest lies about its entries, is
// refused with a message (the loader used to fault on the first, and calls
// to trust the second and write past their buffers).
// RUN: kiln-compile %s -o %t.so
// RUN: %numpy_python %S/corrupt_artifact.py %t.so
// RUN: %numpy_python %S/make_inputs.py %t
// RUN: not kiln-run %t.so.truncated --entry neg --input %t.neg.npz 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: kiln-run: error: {{.*}}.so.truncated is not a Kiln artifact: truncated
// RUN: not kiln-run %t.so.shape --entry neg --input %t.neg.npz 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: kiln-run: error: entry neg: the manifest says (f32[4]) -> (f32[9]) but the code was compiled for another signature
// RUN: not kiln-run %t.so.dtype --entry neg --input %t.neg.npz 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: kiln-run: error: entry neg: the manifest says (f64[4]) -> (f32[4]) but the code was compiled for another signature
// RUN: kiln-run %t.so --entry neg --input %t.neg.npz --print | FileCheck %s --check-prefix=GOOD
// GOOD: [-1. -2. -3. -4.]
func.func @neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
