// RUN: kiln-opt %s --kiln-lower-amx-tiles --split-input-file | FileCheck %s

#a = affine_map<(j, m, c, q, p) -> (m, q, p)>
#b = affine_map<(j, m, c, q, p) -> (j, q, c, p)>
#c = affine_map<(j, m, c, q, p) -> (m, j, c)>

// A register tile of 32 rows by a panel of 32 columns over 64 k pairs,
// starting from zeros: C's 2 x 2 tiles start as tile_zero (the write of
// zeros is gone), a loop over the pairs 16 at a time loads 2 tiles of A
// (rows 784 elements apart) and 2 of the panel (rows of 16 columns' pairs,
// 64 elements apart) and multiplies each pair into C's tiles, which are
// then stored (rows 512 apart).
// CHECK-LABEL: func.func @from_zeros
// CHECK-NOT: vector.transfer_write
// CHECK-COUNT-4: amx.tile_zero : !amx.tile<16x16xf32>
// CHECK: %[[SUMS:.*]]:4 = scf.for %[[Q:.*]] = %{{c0(_[0-9]+)?}} to %c64 step %c16 iter_args(%[[S0:.*]] = %{{.*}}, %[[S1:.*]] = %{{.*}}, %[[S2:.*]] = %{{.*}}, %[[S3:.*]] = %{{.*}})
// CHECK: %[[A0:.*]] = amx.tile_load %arg0[%{{c0(_[0-9]+)?}}, %[[Q]], %{{c0(_[0-9]+)?}}], %c784 : {{.*}} into !amx.tile<16x32xbf16>
// CHECK: %[[A1:.*]] = amx.tile_load %arg0[%c16, %[[Q]], %{{c0(_[0-9]+)?}}], %c784
// CHECK: %[[B0:.*]] = amx.tile_load %arg1[%{{c0(_[0-9]+)?}}, %[[Q]], %{{c0(_[0-9]+)?}}, %{{c0(_[0-9]+)?}}], %c64 : {{.*}} into !amx.tile<16x32xbf16>
// CHECK: %[[B1:.*]] = amx.tile_load %arg1[%{{c0(_[0-9]+)?}}, %[[Q]], %c16, %{{c0(_[0-9]+)?}}], %c64
// CHECK: amx.tile_mulf %[[A0]], %[[B0]], %[[S0]]
// CHECK: amx.tile_mulf %[[A0]], %[[B1]], %[[S1]]
// CHECK: amx.tile_mulf %[[A1]], %[[B0]], %[[S2]]
// CHECK: amx.tile_mulf %[[A1]], %[[B1]], %[[S3]]
// CHECK: scf.yield
// CHECK: amx.tile_store %arg2[%{{c0(_[0-9]+)?}}, %{{c0(_[0-9]+)?}}, %{{c0(_[0-9]+)?}}], %[[SUMS]]#0, %c512
// CHECK: amx.tile_store %arg2[%{{c0(_[0-9]+)?}}, %{{c0(_[0-9]+)?}}, %c16], %[[SUMS]]#1, %c512
// CHECK: amx.tile_store %arg2[%c16, %{{c0(_[0-9]+)?}}, %{{c0(_[0-9]+)?}}], %[[SUMS]]#2, %c512
// CHECK: amx.tile_store %arg2[%c16, %{{c0(_[0-9]+)?}}, %c16], %[[SUMS]]#3, %c512
// CHECK-NOT: linalg.generic
// CHECK-NOT: kiln.amx_tile
func.func @from_zeros(%a: memref<32x64x2xbf16, strided<[784, 2, 1], offset: ?>>,
                      %panel: memref<1x64x32x2xbf16, strided<[4096, 64, 2, 1], offset: ?>>,
                      %out: memref<32x1x32xf32, strided<[512, 32, 1], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %zeros = arith.constant dense<0.0> : vector<32x1x32xf32>
  vector.transfer_write %zeros, %out[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<32x1x32xf32>, memref<32x1x32xf32, strided<[512, 32, 1], offset: ?>>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %panel : memref<32x64x2xbf16, strided<[784, 2, 1], offset: ?>>, memref<1x64x32x2xbf16, strided<[4096, 64, 2, 1], offset: ?>>)
      outs(%out : memref<32x1x32xf32, strided<[512, 32, 1], offset: ?>>) attrs = {kiln.amx_tile} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(j, m, c, q, p) -> (m, q, p)>
#b = affine_map<(j, m, c, q, p) -> (j, q, c, p)>
#c = affine_map<(j, m, c, q, p) -> (m, j, c)>

// A tile of 16 rows accumulating onto what C holds (a second cache tile of
// K): C's two tiles are loaded first, one tile of A a step.
// CHECK-LABEL: func.func @accumulates
// CHECK: amx.tile_load %arg2[%{{c0(_[0-9]+)?}}, %{{c0(_[0-9]+)?}}, %{{c0(_[0-9]+)?}}], %c64 : {{.*}} into !amx.tile<16x16xf32>
// CHECK: amx.tile_load %arg2[%{{c0(_[0-9]+)?}}, %{{c0(_[0-9]+)?}}, %c16], %c64 : {{.*}} into !amx.tile<16x16xf32>
// CHECK: scf.for {{.*}} = %{{c0(_[0-9]+)?}} to %c32 step %c16
// CHECK-COUNT-3: amx.tile_load
// CHECK-COUNT-2: amx.tile_mulf
// CHECK: scf.yield
// CHECK-COUNT-2: amx.tile_store
// CHECK-NOT: linalg.generic
func.func @accumulates(%a: memref<16x32x2xbf16, strided<[64, 2, 1], offset: ?>>,
                       %panel: memref<1x32x32x2xbf16>,
                       %out: memref<16x1x32xf32, strided<[64, 32, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %panel : memref<16x32x2xbf16, strided<[64, 2, 1], offset: ?>>, memref<1x32x32x2xbf16>)
      outs(%out : memref<16x1x32xf32, strided<[64, 32, 1], offset: ?>>) attrs = {kiln.amx_tile} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(j, m, c, q, p) -> (m, q, p)>
#b = affine_map<(j, m, c, q, p) -> (j, q, c, p)>
#c = affine_map<(j, m, c, q, p) -> (m, j, c)>

// A's pairs not contiguous, and a tile of 8 rows: no AMX tile reads them,
// so the op stays, unmarked, for the loop lowering.
// CHECK-LABEL: func.func @not_tiles
// CHECK-NOT: amx.
// CHECK: linalg.generic
// CHECK-NOT: kiln.amx_tile
// CHECK: linalg.generic
// CHECK-NOT: kiln.amx_tile
// CHECK-NOT: amx.
func.func @not_tiles(%a: memref<32x32x2xbf16, strided<[256, 4, 1], offset: ?>>,
                     %a8: memref<8x32x2xbf16>,
                     %panel: memref<1x32x32x2xbf16>,
                     %out: memref<32x1x32xf32>, %out8: memref<8x1x32xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %panel : memref<32x32x2xbf16, strided<[256, 4, 1], offset: ?>>, memref<1x32x32x2xbf16>)
      outs(%out : memref<32x1x32xf32>) attrs = {kiln.amx_tile} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%a8, %panel : memref<8x32x2xbf16>, memref<1x32x32x2xbf16>)
      outs(%out8 : memref<8x1x32xf32>) attrs = {kiln.amx_tile} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
