// An artifact's calls of its own functions bind to them (-Bsymbolic), not
// to a function of the same name in a library loaded before it: a GPU
// scan's host function @step called libc's regex `step` and crashed.
// RUN: kiln-compile %s -o %t.so
// RUN: llvm-readelf -d %t.so | FileCheck %s --check-prefix=ELF
// RUN: %numpy_python -c "import numpy as np; np.savez('%t.npz', arg0=np.float32(1), arg1=np.array([1, 2, 3], np.float32))"
// RUN: kiln-run %t.so --entry main --input %t.npz --print | FileCheck %s
// ELF: (FLAGS) SYMBOLIC
// CHECK: out0 = f32[]
// CHECK-NEXT: 7.
// CHECK-NEXT: out1 = f32[3]
// CHECK-NEXT: [4. 16. 49.]
func.func @step(%c: tensor<f32>, %x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %s = kiln.add %c, %x : tensor<f32>
  %t = kiln.mul %s, %s : tensor<f32>
  return %s, %t : tensor<f32>, tensor<f32>
}
func.func @main(%c: tensor<f32>, %xs: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %r:2 = kiln.scan @step(%c, %xs) {num_carry = 1, length = 3} : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<3xf32>
}
