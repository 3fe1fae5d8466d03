// kiln-run names each problem and exits 1; it never crashes.
// RUN: %numpy_python %S/make_inputs.py %t
// RUN: not kiln-run %s --entry nothere --input %t.good.npz 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: kiln-run: error: {{.*}}errors.mlir has no entry 'nothere'; its entries are: add
// RUN: not kiln-run %s --entry add 2>&1 | FileCheck %s --check-prefix=NOINPUT
// NOINPUT: kiln-run: error: add takes 2 arguments: give them as arg0, ... in --input IN.npz
// RUN: not kiln-run %s --entry add --input %t.missing.npz 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: kiln-run: error: {{.*}}missing.npz has no array arg1 (add takes 2 arguments)
// RUN: not kiln-run %s --entry add --input %t.extra.npz 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: kiln-run: error: {{.*}}extra.npz has array 'arg2', which is not an argument of add (it takes arg0 to arg1)
// RUN: not kiln-run %s --entry add --input %t.dtype.npz 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: kiln-run: error: arg1: expected dtype f32, got f64
// RUN: not kiln-run %s --entry add --input %t.shape.npz 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: kiln-run: error: arg0 dimension 0: expected 4, got 3
// RUN: not kiln-run %s --entry add --input %t.rank.npz 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: kiln-run: error: arg1: expected rank 1, got 2
// RUN: not kiln-run %t.nofile.mlir --entry add 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: kiln-run: error: {{.*}}nofile.mlir{{.*}}
// RUN: not kiln-run %t.good.npz --entry add 2>&1 | FileCheck %s --check-prefix=NOTART
// NOTART: kiln-run: error: {{.*}}good.npz is not a Kiln artifact: not an ELF file
// RUN: not kiln-run %s --entry add --input %t.dup.npz 2>&1 | FileCheck %s --check-prefix=DUP
// DUP: kiln-run: error: {{.*}}dup.npz: the array 'arg0' appears twice
// RUN: kiln-run %s --entry choose --input %t.bools.npz --print | FileCheck %s --check-prefix=BOOLS
// BOOLS: out0 = f32[4]
// BOOLS-NEXT: [1. 20. 3. 4.]
// RUN: kiln-run %s --entry add --input %t.good.npz --print --bench 3 | FileCheck %s --check-prefix=GOOD
// GOOD: add: median {{[0-9.]+}} ms per call over 3 calls
// GOOD: out0 = f32[4]
// GOOD-NEXT: [11. 22. 33. 44.]
func.func @add(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.add %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @choose(%p: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.select %p, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}
