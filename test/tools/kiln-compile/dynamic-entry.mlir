// An entry with dynamic dimensions compiles through the jit, or once given
// sizes by kiln-specialize-shapes.
// RUN: not kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// RUN: kiln-opt %s --kiln-specialize-shapes="entry=rows arg-types=tensor<3x4xf32>" -o %t.mlir
// RUN: kiln-compile %t.mlir -o %t.kmod
// RUN: %numpy_python -c "import numpy as np; np.savez('%t.npz', arg0=np.arange(12, dtype=np.float32).reshape(3, 4))"
// RUN: kiln-run %t.kmod --entry rows --input %t.npz --print | FileCheck %s --check-prefix=OUT

// CHECK: kiln-compile: error: {{.*}}dynamic-entry.mlir:[[# @LINE + 1]]:1: error: public function @rows's argument #0 has type 'tensor<?x4xf32>', with dynamic dimensions: call it through the jit (kiln-run, kiln_jit_call), which compiles it for each call's shapes, or give them sizes with kiln-opt --kiln-specialize-shapes
func.func @rows(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  %0 = kiln.reduce_sum %x, dims = [1] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
// OUT: out0 = f32[3]
// OUT-NEXT: [6. 22. 38.]
