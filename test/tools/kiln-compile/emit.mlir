// Every --emit stage of kiln-compile, and an artifact that kiln-run runs.
// RUN: kiln-compile %s -o - --emit=kiln | FileCheck %s --check-prefix=KILN
// RUN: kiln-compile %s -o - --emit=linalg | FileCheck %s --check-prefix=LINALG
// RUN: kiln-compile %s -o - --emit=loops | FileCheck %s --check-prefix=LOOPS
// RUN: kiln-compile %s -o - --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: kiln-compile %s -o - --emit=llvm-ir | FileCheck %s --check-prefix=IR
// RUN: kiln-compile %s -o - --emit=asm | FileCheck %s --check-prefix=ASM
// RUN: kiln-compile %s -o %t.kmod
// RUN: %numpy_python -c "import numpy as np; np.savez('%t.npz', arg0=np.array([1, -2, 3, -4], np.float32))"
// RUN: kiln-run %t.kmod --entry twice --input %t.npz --print | FileCheck %s --check-prefix=RESULT

// KILN: kiln.add
// LINALG: linalg.generic
// LINALG: arith.addf
// LOOPS: vector.load
// LOOPS: vector.store
// LLVM: llvm.func @kiln_entry_twice
// IR-DAG: define void @kiln_entry_twice(ptr
// IR-DAG: @kiln_manifest = constant {{.*}}c"kiln-manifest 1\0Acpu-features {{[a-z0-9. -]*}}\0Aentry twice\0Aarg f32 4\0Aresult f32 4\0Aend\0A\00"
// ASM: kiln_entry_twice:
// RESULT: out0 = f32[4]
// RESULT-NEXT: [2. -4. 6. -8.]
func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// An artifact named without a directory is a file in the current one.
// RUN: mkdir -p %t.dir && cd %t.dir && kiln-compile %s -o emit-relative.kmod && kiln-run emit-relative.kmod --entry twice --input %t.npz --print | FileCheck %s --check-prefix=RESULT
