// RUN: kiln-opt %s --split-input-file --kiln-gpu-tile-matmuls --canonicalize --cse | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-gpu-tile-matmuls="thread-rows=8 thread-columns=2" --canonicalize --cse | FileCheck %s --check-prefix=WIDE
// RUN: kiln-opt %s --split-input-file --kiln-gpu-tile-matmuls="tensor-cores=false" --canonicalize --cse | FileCheck %s --check-prefix=CUDA-CORES

// 100x30 times 30x70: 2x2 blocks of 64x64 outputs, A and B tiles of 16
// along k in workgroup memory, zero past the edges (a clamped load and a
// select, no branch); each thread starts
// from its 16 outputs (inside the result), folds 16 k steps per tile with
// fma-contractible arithmetic between two barriers, and writes back the
// outputs inside the result.
// CHECK-LABEL: func.func @matmul
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c2, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c256, {{.*}}) workgroup(%[[A:.*]] : memref<64x16xf32, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[INIT:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK:   memref.load %arg2
// CHECK: } else {
// CHECK:   scf.yield %cst : f32
// CHECK: scf.for %[[K:.*]] = %c0 to %c30 step %c16 iter_args(%{{.*}} = %[[INIT]],
// CHECK:   %[[AK:.*]] = arith.addi %[[K]],
// CHECK:   %[[VALID:.*]] = arith.andi
// CHECK:   %[[ROW:.*]] = arith.minui %{{.*}}, %c99
// CHECK:   %[[AKC:.*]] = arith.minui %[[AK]], %c29
// CHECK:   %[[LOADED:.*]] = memref.load %arg0[%[[ROW]], %[[AKC]]] : memref<100x30xf32>
// CHECK:   %[[STAGED:.*]] = arith.select %[[VALID]], %[[LOADED]], %cst
// CHECK:   memref.store %[[STAGED]], %[[A]]
// CHECK:   memref.load %arg1[%{{.*}}, %{{.*}}] : memref<30x70xf32>
// CHECK:   memref.store %{{.*}}, %[[B]]
// CHECK:   gpu.barrier
// CHECK:   memref.load %[[A]]
// CHECK:   memref.load %[[B]]
// CHECK:   arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK:   arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-COUNT-255: arith.addf
// CHECK:   gpu.barrier
// CHECK:   scf.yield
// CHECK-COUNT-16: memref.store %{{.*}}, %arg2
// CHECK-NOT: linalg.matmul
// WIDE-LABEL: func.func @matmul
// WIDE: gpu.launch blocks({{.*}}) in (%{{.*}} = %c3, %{{.*}} = %c1, %{{.*}} = %c1) {{.*}} workgroup(%{{.*}} : memref<128x16xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>)
func.func @matmul(%a: memref<100x30xf32>, %b: memref<30x70xf32>, %c: memref<100x70xf32>) {
  linalg.matmul ins(%a, %b : memref<100x30xf32>, memref<30x70xf32>) outs(%c : memref<100x70xf32>)
  return
}

// -----

// A batched bf16 contraction with B transposed ([batch, n, k]) into f32
// runs on tensor cores: eight warps per 128x128 tile (the batch on block
// z), pairs of bf16 packed in i32 staged in padded workgroup tiles, the
// next k step's pairs loaded while 4x4 tiles of mma.sync m16n8k16 per warp
// work on this one (k steps of 64: 64 mma.sync per warp).
// CHECK-LABEL: func.func @batched
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c3) threads({{.*}}) in (%{{.*}} = %c256, {{.*}}) workgroup(%[[A:.*]] : memref<128x36xi32, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<32x136xi32, #gpu.address_space<workgroup>>)
// CHECK: memref.load %arg1[%{{.*}}, %{{.*}}, %{{.*}}] : memref<3x40x100xbf16>
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK: arith.shli
// CHECK: scf.for {{.*}} -> (f32,
// CHECK:   memref.store %{{.*}}, %[[A]]
// CHECK:   gpu.barrier
// CHECK:   memref.load %arg0
// CHECK-COUNT-64: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK:   gpu.barrier
// CHECK:   scf.yield
// Without tensor cores, the CUDA cores widen each product.
// CUDA-CORES-LABEL: func.func @batched
// CUDA-CORES: workgroup(%{{.*}} : memref<64x16xbf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x64xbf16, #gpu.address_space<workgroup>>)
// CUDA-CORES: arith.extf %{{.*}} : bf16 to f32
// CUDA-CORES: arith.mulf {{.*}} fastmath<contract> : f32
// CUDA-CORES-NOT: nvvm.mma.sync
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (b, n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batched(%x: memref<3x33x100xbf16>, %y: memref<3x40x100xbf16>, %z: memref<3x33x40xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<3x33x100xbf16>, memref<3x40x100xbf16>) outs(%z : memref<3x33x40xf32>) {
  ^bb0(%l: bf16, %r: bf16, %acc: f32):
    %0 = arith.extf %l : bf16 to f32
    %1 = arith.extf %r : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// Not a contraction with single m, n and k loops: left for
// kiln-gpu-map-reductions.
// CHECK-LABEL: func.func @two_k
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
#x = affine_map<(m, n, k1, k2) -> (m, k1, k2)>
#y = affine_map<(m, n, k1, k2) -> (k1, k2, n)>
#o = affine_map<(m, n, k1, k2) -> (m, n)>
func.func @two_k(%x: memref<4x5x6xf32>, %y: memref<5x6x7xf32>, %z: memref<4x7xf32>) {
  linalg.generic {indexing_maps = [#x, #y, #o], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %y : memref<4x5x6xf32>, memref<5x6x7xf32>) outs(%z : memref<4x7xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %0 = arith.mulf %l, %r : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
