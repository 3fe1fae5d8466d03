// RUN: kiln-opt %s --kiln-to-cpu-pipeline | FileCheck %s
// RUN: kiln-opt %s --kiln-to-cpu-pipeline="approximate-math=false" | FileCheck %s --check-prefix=EXACT

// The result is an out-parameter: the function allocates nothing.
// CHECK-LABEL: llvm.func @f(
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.return
// CHECK: llvm.func @_mlir_ciface_f(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.func @kiln_entry_f(%{{.*}}: !llvm.ptr)
// EXACT: llvm.intr.exp
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: kiln-opt %s --kiln-to-cpu-pipeline="stop-after=linalg" | FileCheck %s --check-prefix=LINALG
// LINALG: linalg.generic
// LINALG-SAME: ins(%{{.*}} : tensor<4xf32>)
// RUN: kiln-opt %s --kiln-to-cpu-pipeline="stop-after=loops" | FileCheck %s --check-prefix=LOOPS
// LOOPS: func.func @f(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// LOOPS: vector.load
// LOOPS: vector.store
