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

// The target's vector registers reach the passes that size what loops carry
// in them: a column max in rows of 128 lanes carries keys and magnitudes
// in 16 of AVX-512's 32 registers, keys alone in 16 of AVX2's 16.
// RUN: kiln-opt %s --kiln-to-cpu-pipeline="stop-after=loops vector-bytes=32 vector-registers=16" | FileCheck %s --check-prefix=AVX2
// LOOPS-LABEL: func.func @column_max
// LOOPS: arith.maxui {{.*}} : vector<128xi32>
// AVX2-LABEL: func.func @column_max
// AVX2-NOT: arith.maxui
// AVX2: arith.maxsi {{.*}} : vector<128xi32>
// AVX2-NOT: arith.maxui
// AVX2: return
func.func @column_max(%x: tensor<64x128xf32>) -> tensor<128xf32> {
  %0 = kiln.reduce_max %x, dims = [0] : (tensor<64x128xf32>) -> tensor<128xf32>
  return %0 : tensor<128xf32>
}
