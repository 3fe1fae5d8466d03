// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0" --split-input-file | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-tile-and-vectorize="vector-width=16 register-tile-m=4 register-tile-n=16 cache-tile-m=32 cache-tile-n=128 cache-tile-k=64 parallel-work=0" | FileCheck %s --check-prefix=TARGET
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 vector-bytes=32" --split-input-file | FileCheck %s --check-prefix=AVX2

#id = affine_map<(d0) -> (d0)>
// An elementwise op: rows of 64 along the innermost dimension.
// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  // CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c64
  // CHECK: vector.transfer_read {{.*}} vector<64xf32>
  // CHECK: math.exp {{.*}} : vector<64xf32>
  // TARGET-LABEL: func.func @elementwise
  // TARGET: scf.for %{{.*}} = %c0 to %c1024 step %c16
  // TARGET: math.exp {{.*}} : vector<16xf32>
  // CHECK: vector.transfer_write {{.*}} vector<64xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = math.exp %in : f32
    linalg.yield %1 : f32
  } -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// -----

// A short innermost dimension is one whole row.
// CHECK-LABEL: func.func @short_rows
func.func @short_rows(%x: tensor<3x10xf32>) -> tensor<3x10xf32> {
  %e = tensor.empty() : tensor<3x10xf32>
  // CHECK: scf.for
  // CHECK: vector<1x10xf32>
  %0 = linalg.transpose ins(%x : tensor<3x10xf32>) outs(%e : tensor<3x10xf32>) permutation = [0, 1]
  return %0 : tensor<3x10xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
// A row of 1000 (no row length above 8 divides it): 960 in rows of 64,
// then the 40 left as one row.
// CHECK-LABEL: func.func @odd_rows
// CHECK: scf.for %{{.*}} = %c0 to %c960 step %c64
// CHECK: math.exp {{.*}} : vector<64xf32>
// CHECK: math.exp {{.*}} : vector<40xf32>
// CHECK: tensor.insert_slice
func.func @odd_rows(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %e = tensor.empty() : tensor<1000xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1000xf32>) outs(%e : tensor<1000xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = math.exp %in : f32
    linalg.yield %1 : f32
  } -> tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

// -----

// 2 rows (fewer than the register tile's 8) take 4 times the columns, 128,
// once: the 256 columns split off the 300 keep that width (not 256), the
// 44 left are one tile, whose rows kiln-lower-vectors carries in pieces of
// 32, 8 and 4 lanes (3 registers; 4 padded to 64).
// CHECK-LABEL: func.func @few_rows
// CHECK: vector.contract {{.*}} vector<2x1xf32>, vector<1x128xf32> into vector<2x128xf32>
// CHECK: vector.contract {{.*}} vector<2x1xf32>, vector<1x44xf32> into vector<2x44xf32>
// CHECK-NOT: vector<1x256xf32>
func.func @few_rows(%a: tensor<2x16xf32>, %b: tensor<16x300xf32>, %c: tensor<2x300xf32>) -> tensor<2x300xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<2x16xf32>, tensor<16x300xf32>) outs(%c : tensor<2x300xf32>) -> tensor<2x300xf32>
  return %0 : tensor<2x300xf32>
}

// -----

// An f64 matmul: register tiles of 8 x 16 (as many registers as 8 x 32 of
// f32).
// CHECK-LABEL: func.func @f64_matmul
// CHECK: vector.contract {{.*}} vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
func.func @f64_matmul(%a: tensor<64x64xf64>, %b: tensor<64x64xf64>, %c: tensor<64x64xf64>) -> tensor<64x64xf64> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xf64>, tensor<64x64xf64>) outs(%c : tensor<64x64xf64>) -> tensor<64x64xf64>
  return %0 : tensor<64x64xf64>
}

// -----

// An i32 matmul takes the f32 schedule: register tiles of 8 x 32.
// CHECK-LABEL: func.func @i32_matmul
// CHECK: vector.contract {{.*}} vector<8x1xi32>, vector<1x32xi32> into vector<8x32xi32>
func.func @i32_matmul(%a: tensor<64x64xi32>, %b: tensor<64x64xi32>, %c: tensor<64x64xi32>) -> tensor<64x64xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xi32>, tensor<64x64xi32>) outs(%c : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}

// -----

// An int8 matmul into i32 (a quantized layer) takes the same schedule: the
// contraction sign-extends its int8 operands.
// CHECK-LABEL: func.func @i8_matmul_into_i32
// CHECK: vector.contract {{.*}} vector<8x1xi8>, vector<1x32xi8> into vector<8x32xi32>
func.func @i8_matmul_into_i32(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>, %c: tensor<64x64xi32>) -> tensor<64x64xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xi8>, tensor<64x64xi8>) outs(%c : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}

// -----

#id = affine_map<(d0) -> (d0)>
// i1 tensors vectorize like any other (kiln-bool-vectors-as-bytes makes
// their vectors load and store bytes).
// CHECK-LABEL: func.func @booleans
func.func @booleans(%x: tensor<64xi1>) -> tensor<64xi1> {
  %e = tensor.empty() : tensor<64xi1>
  // CHECK: %[[V:.*]] = vector.transfer_read %{{.*}} : tensor<64xi1>, vector<64xi1>
  // CHECK: vector.transfer_write %[[V]], %{{.*}} : vector<64xi1>, tensor<64xi1>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xi1>) outs(%e : tensor<64xi1>) {
  ^bb0(%in: i1, %out: i1):
    linalg.yield %in : i1
  } -> tensor<64xi1>
  return %0 : tensor<64xi1>
}

// -----

// f32 matmul: cache tiles of 64 x 256 x 256 looping over N, K, then M;
// register tiles of 8 x 32 x 1.
// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<256x512xf32>, %b: tensor<512x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // CHECK: scf.for {{.*}} to %c256{{.*}} step %c256
  // CHECK: scf.for {{.*}} to %c512{{.*}} step %c256
  // CHECK: scf.for {{.*}} to %c256{{.*}} step %c64
  // CHECK: scf.for {{.*}} step %c8
  // CHECK: scf.for {{.*}} step %c32
  // CHECK: scf.for {{.*}} step %c1
  // CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
  // The target description's tiles: 32 x 128 x 64, then 4 x 16.
  // TARGET-LABEL: func.func @matmul
  // TARGET: scf.for {{.*}} to %c256{{.*}} step %c128
  // TARGET: scf.for {{.*}} to %c512{{.*}} step %c64
  // TARGET: scf.for {{.*}} to %c256{{.*}} step %c32
  // TARGET: scf.for {{.*}} step %c4
  // TARGET: scf.for {{.*}} step %c16
  // TARGET: vector.contract {{.*}} vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// A batch matmul: one batch at a time, then the matmul schedule.
// CHECK-LABEL: func.func @batch_matmul
func.func @batch_matmul(%a: tensor<2x16x40xf32>, %b: tensor<2x40x64xf32>, %c: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  // CHECK: scf.for {{.*}} to %c2{{.*}} step %c1
  // CHECK: vector.contract {{.*}} vector<1x8x1xf32>, vector<1x1x32xf32> into vector<1x8x32xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x16x40xf32>, tensor<2x40x64xf32>) outs(%c : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

// A thin product (3 columns, K = 300) sums in vector lanes along K:
// B transposed to [3, 300] (rows along K, as A's), register tiles of 5
// rows x 3 columns (15 vectors of 16 lanes) carried over K's 18 groups, the
// 12 steps past them added into their first lanes, then each vector's
// lanes summed. Rows of 8 where the columns are 2; B read transposed (x
// W^T) is read as the transpose's input, not transposed back. A batch's
// thin products run a batch at a time, each as the unbatched ones.
// CHECK-LABEL: func.func @thin_product
// CHECK: tensor.empty() : tensor<3x300xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c40 step %c5
// CHECK: scf.for %{{.*}} = %{{.*}} to %c18 step %{{.*}} -> (tensor<5x3x16xf32>)
// CHECK: arith.mulf {{.*}} : vector<5x3x1x16xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 288] [3, 12]
// CHECK: arith.mulf {{.*}} : vector<5x3x12xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} [2] : vector<5x3x16xf32> to vector<5x3xf32>
// CHECK-LABEL: func.func @thin_product_nt
// CHECK-NOT: linalg.transpose
// CHECK: scf.for %{{.*}} = %{{.*}} to %c40 step %c8
// CHECK: arith.mulf {{.*}} : vector<8x2x1x16xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} [2] : vector<8x2x16xf32> to vector<8x2xf32>
// CHECK-LABEL: func.func @thin_batch_product
// CHECK: tensor.empty() : tensor<4x2x256xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4 step %c1
// CHECK: scf.for %{{.*}} = %{{.*}} to %c40 step %c8
// CHECK: tensor.extract_slice {{.*}} : tensor<1x8x256xf32> to tensor<8x256xf32>
// CHECK: arith.mulf {{.*}} : vector<8x2x1x16xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} [2] : vector<8x2x16xf32> to vector<8x2xf32>
// CHECK: tensor.insert_slice {{.*}} : tensor<8x2xf32> into tensor<1x8x2xf32>
func.func @thin_product(%a: tensor<40x300xf32>, %b: tensor<300x3xf32>, %c: tensor<40x3xf32>) -> tensor<40x3xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<40x300xf32>, tensor<300x3xf32>) outs(%c : tensor<40x3xf32>) -> tensor<40x3xf32>
  return %0 : tensor<40x3xf32>
}
func.func @thin_product_nt(%a: tensor<40x256xf32>, %w: tensor<2x256xf32>, %c: tensor<40x2xf32>) -> tensor<40x2xf32> {
  %e = tensor.empty() : tensor<256x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x256xf32>) outs(%e : tensor<256x2xf32>) permutation = [1, 0]
  %0 = linalg.matmul ins(%a, %t : tensor<40x256xf32>, tensor<256x2xf32>) outs(%c : tensor<40x2xf32>) -> tensor<40x2xf32>
  return %0 : tensor<40x2xf32>
}
func.func @thin_batch_product(%a: tensor<4x40x256xf32>, %b: tensor<4x256x2xf32>, %c: tensor<4x40x2xf32>) -> tensor<4x40x2xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x40x256xf32>, tensor<4x256x2xf32>) outs(%c : tensor<4x40x2xf32>) -> tensor<4x40x2xf32>
  return %0 : tensor<4x40x2xf32>
}

// -----

// Where M does not divide into register tiles, the rows below the last
// multiple of 8 run with whole tiles and the last row on its own; N = 9,
// smaller than a tile, runs as power-of-two widths (8, then 1): LLVM
// legalizes a vector of 9 floats element by element.
// CHECK-LABEL: func.func @odd_matmul
func.func @odd_matmul(%a: tensor<17x33xf32>, %b: tensor<33x9xf32>, %c: tensor<17x9xf32>) -> tensor<17x9xf32> {
  // The last row writes into the result of the first rows: one buffer.
  // CHECK: %[[TOP:.*]] = tensor.extract_slice %arg0[0, 0] [16, 33]
  // CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x8xf32> into vector<8x8xf32>
  // CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x1xf32> into vector<8x1xf32>
  // CHECK: %[[PARTIAL:.*]] = tensor.insert_slice %{{.*}} into %arg2[0, 0] [16, 9]
  // CHECK: %[[LAST:.*]] = tensor.extract_slice %arg0[16, 0] [1, 33]
  // CHECK: tensor.extract_slice %[[PARTIAL]][16, 0] [1, 9]
  // CHECK: vector.contract {{.*}} vector<1x1xf32>, vector<1x8xf32> into vector<1x8xf32>
  // CHECK: vector.contract {{.*}} vector<1x1xf32>, vector<1x1xf32> into vector<1x1xf32>
  // CHECK: tensor.insert_slice %{{.*}} into %[[PARTIAL]][16, 0] [1, 9]
  // CHECK-NOT: linalg.matmul
  %0 = linalg.matmul ins(%a, %b : tensor<17x33xf32>, tensor<33x9xf32>) outs(%c : tensor<17x9xf32>) -> tensor<17x9xf32>
  return %0 : tensor<17x9xf32>
}

// -----

// No partial cache tiles: M = 72 runs as 64 rows in a cache tile and 8 in
// one of their own, K = 300 as 256 steps and then 44 accumulating onto
// them (before, a cache tile that did not divide its dimension fell back
// to one register tile of rows or to all of K).
// CHECK-LABEL: func.func @cache_parts
func.func @cache_parts(%a: tensor<72x300xf32>, %b: tensor<300x32xf32>, %c: tensor<72x32xf32>) -> tensor<72x32xf32> {
  // CHECK: tensor.extract_slice %arg0[0, 0] [64, 300]
  // CHECK: tensor.extract_slice %{{.*}}[0, 0] [64, 256]
  // CHECK: scf.for {{.*}} to %c256{{.*}} step %c256
  // CHECK: scf.for {{.*}} to %c64{{.*}} step %c64
  // CHECK: tensor.extract_slice %{{.*}}[0, 256] [64, 44]
  // CHECK: scf.for {{.*}} to %c44{{.*}} step %c44
  // CHECK: tensor.extract_slice %arg0[64, 0] [8, 300]
  // CHECK-NOT: linalg.matmul
  %0 = linalg.matmul ins(%a, %b : tensor<72x300xf32>, tensor<300x32xf32>) outs(%c : tensor<72x32xf32>) -> tensor<72x32xf32>
  return %0 : tensor<72x32xf32>
}

// -----

// A reduction over the innermost dimension accumulates 64 elements a tile.
// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: tensor<4x256xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: scf.for {{.*}} step %c1
  // CHECK: scf.for {{.*}} step %c64
  // CHECK: vector.multi_reduction <add>, {{.*}} : vector<1x64xf32> to vector<1xf32>
  %0 = linalg.reduce ins(%x : tensor<4x256xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<4xf32>
}

// -----

// A sum over rows (the innermost dimension parallel): tiles step along the
// columns first, in rows of 4 x 64 f32 (1 KiB of accumulators, 16 AVX-512
// registers; 4 x 16 with vector-width=16; 512 bytes in 16 of AVX2's 32-byte
// registers), and then along
// the rows, so that a row of sums stays in the same vectors over every row
// read (kiln-lower-vectors hoists its reads and writes out of that loop);
// rows of 128 f64 (64 on AVX2).
// CHECK-LABEL: func.func @column_sums
func.func @column_sums(%x: tensor<300x768xf32>, %init: tensor<768xf32>) -> tensor<768xf32> {
  // CHECK: scf.for {{.*}} = %c0{{.*}} to %c768 step %c256
  // CHECK: scf.for {{.*}} = %c0{{.*}} to %c300 step %c1
  // CHECK: vector.multi_reduction <add>, {{.*}} : vector<1x256xf32> to vector<256xf32>
  // TARGET-LABEL: func.func @column_sums
  // TARGET: scf.for {{.*}} = %c0{{.*}} to %c768 step %c64
  // TARGET: scf.for {{.*}} = %c0{{.*}} to %c300 step %c1
  // AVX2-LABEL: func.func @column_sums
  // AVX2: scf.for {{.*}} = %c0{{.*}} to %c768 step %c128
  // AVX2: scf.for {{.*}} = %c0{{.*}} to %c300 step %c1
  // AVX2: vector.multi_reduction <add>, {{.*}} : vector<1x128xf32> to vector<128xf32>
  %0 = linalg.reduce ins(%x : tensor<300x768xf32>) outs(%init : tensor<768xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<768xf32>
}

// CHECK-LABEL: func.func @column_sums_f64
func.func @column_sums_f64(%x: tensor<8x300x640xf64>, %init: tensor<8x640xf64>) -> tensor<8x640xf64> {
  // CHECK: scf.for {{.*}} = %c0{{.*}} to %c8 step %c1
  // CHECK: scf.for {{.*}} = %c0{{.*}} to %c640 step %c128
  // CHECK: scf.for {{.*}} = %c0{{.*}} to %c300 step %c1
  // CHECK: vector.multi_reduction <add>, {{.*}} : vector<1x1x128xf64> to vector<1x128xf64>
  // AVX2-LABEL: func.func @column_sums_f64
  // AVX2: vector.multi_reduction <add>, {{.*}} : vector<1x1x64xf64> to vector<1x64xf64>
  %0 = linalg.reduce ins(%x : tensor<8x300x640xf64>) outs(%init : tensor<8x640xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  return %0 : tensor<8x640xf64>
}

// -----

// A reduction over an innermost dimension no tile length near 64 divides
// (517 = 11 x 47): 512 elements in tiles of 64, then the 5 left summed onto
// their result, instead of one element at a time.
// CHECK-LABEL: func.func @reduce_odd
func.func @reduce_odd(%x: tensor<3x517xi8>, %init: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK: vector.multi_reduction <add>, {{.*}} : vector<1x64xi32> to vector<1xi32>
  // CHECK: vector.multi_reduction <add>, {{.*}} : vector<1x5xi32> to vector<1xi32>
  // CHECK-NOT: vector<1x1xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x517xi8>) outs(%init : tensor<3xi32>) {
  ^bb0(%in: i8, %acc: i32):
    %w = arith.extsi %in : i8 to i32
    %s = arith.addi %acc, %w : i32
    linalg.yield %s : i32
  } -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Fewer rows than a register tile by a bf16 B convert B's elements as
// they stream them, rather than widening a copy of all of B first, one
// contraction per row: a row's step of A is one element (a column of bf16
// was assembled through the stack), and the rows' reads of B are the same.
// CHECK-LABEL: func.func @bf16_vector_matrix
// CHECK-NOT: tensor<512x1024xf32>
// CHECK: vector.contract {{.*}} : vector<1x1xbf16>, vector<1x256xbf16> into vector<1x256xf32>
// CHECK-LABEL: func.func @bf16_two_rows
// CHECK-NOT: tensor<512x1000xf32>
// CHECK-COUNT-2: vector.contract {{.*}} : vector<1x1xbf16>, vector<1x{{[0-9]+}}xbf16> into vector<1x{{[0-9]+}}xf32>
// CHECK-NOT: vector<2x1xbf16>
// Four of AVX2's 8 x 32 tiles' rows alike, 1000 columns as tiles of 64
// and then parts of 32 and 8 (powers of two: LLVM cannot legalize odd
// vectors of bf16).
// AVX2-LABEL: func.func @bf16_four_rows
// AVX2-NOT: tensor<512x1000xf32>
// AVX2-COUNT-4: vector.contract {{.*}} : vector<1x1xbf16>, vector<1x64xbf16> into vector<1x64xf32>
// AVX2-COUNT-4: vector.contract {{.*}} : vector<1x1xbf16>, vector<1x32xbf16> into vector<1x32xf32>
// AVX2-COUNT-4: vector.contract {{.*}} : vector<1x1xbf16>, vector<1x8xbf16> into vector<1x8xf32>
// AVX2-NOT: vector<4x1xbf16>
func.func @bf16_vector_matrix(%a: tensor<1x512xbf16>, %b: tensor<512x1024xbf16>, %c: tensor<1x1024xf32>) -> tensor<1x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1x512xbf16>, tensor<512x1024xbf16>) outs(%c : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}
func.func @bf16_two_rows(%a: tensor<2x512xbf16>, %b: tensor<512x1000xbf16>, %c: tensor<2x1000xf32>) -> tensor<2x1000xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<2x512xbf16>, tensor<512x1000xbf16>) outs(%c : tensor<2x1000xf32>) -> tensor<2x1000xf32>
  return %0 : tensor<2x1000xf32>
}
func.func @bf16_four_rows(%a: tensor<4x512xbf16>, %b: tensor<512x1000xbf16>, %c: tensor<4x1000xf32>) -> tensor<4x1000xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x512xbf16>, tensor<512x1000xbf16>) outs(%c : tensor<4x1000xf32>) -> tensor<4x1000xf32>
  return %0 : tensor<4x1000xf32>
}

// -----

// Rows of bf16 have a power-of-two length (LLVM cannot legalize every
// operation on odd-sized bf16 vectors): 24 = 8 x 3 splits into rows of 16
// and 8 (no power of two near the row width divides it).
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @bf16_rows
func.func @bf16_rows(%x: tensor<24xbf16>) -> tensor<24xbf16> {
  %e = tensor.empty() : tensor<24xbf16>
  // CHECK: scf.for %{{.*}} = %c0 to %c16 step %c16
  // CHECK: vector.transfer_read {{.*}} vector<16xbf16>
  // CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8 step %c8
  // CHECK: vector.transfer_read {{.*}} vector<8xbf16>
  // CHECK-NOT: vector<24xbf16>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<24xbf16>) outs(%e : tensor<24xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %1 = arith.addf %in, %in : bf16
    linalg.yield %1 : bf16
  } -> tensor<24xbf16>
  return %0 : tensor<24xbf16>
}

// -----

// A transpose of 32-bit elements runs in 16 x 16 blocks, each read as one
// transposed vector<16x16> (kiln-lower-vectors transposes it with
// shuffles); the 8 columns past the last whole block run as rows.
// CHECK-LABEL: func.func @transpose_blocks
// CHECK: tensor.extract_slice %arg0[0, 0] [48, 32] [1, 1]
// CHECK: scf.for {{.*}} to %c32 step %c16
// CHECK: scf.for {{.*}} to %c48 step %c16
// CHECK: vector.transfer_read {{.*}} {permutation_map = #{{.*}}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK: tensor.extract_slice %arg0[0, 32] [48, 8] [1, 1]
// CHECK: vector.transfer_read {{.*}} {permutation_map = #{{.*}}} : tensor<16x1xf32>, vector<1x16xf32>
func.func @transpose_blocks(%x: tensor<48x40xf32>) -> tensor<40x48xf32> {
  %e = tensor.empty() : tensor<40x48xf32>
  %t = linalg.transpose ins(%x : tensor<48x40xf32>) outs(%e : tensor<40x48xf32>) permutation = [1, 0]
  return %t : tensor<40x48xf32>
}

// -----

// So do transposes of bytes (int8 A^T, uint8 images; a 1000 x 777 int8
// transpose took 0.47 ms element by element, 0.054 in blocks).
// CHECK-LABEL: func.func @byte_transpose_blocks
// CHECK: vector.transfer_read {{.*}} {permutation_map = #{{.*}}} : tensor<16x16xi8>, vector<16x16xi8>
func.func @byte_transpose_blocks(%x: tensor<48x32xi8>) -> tensor<32x48xi8> {
  %e = tensor.empty() : tensor<32x48xi8>
  %t = linalg.transpose ins(%x : tensor<48x32xi8>) outs(%e : tensor<32x48xi8>) permutation = [1, 0]
  return %t : tensor<32x48xi8>
}

// -----

// A batch of 8 moved last (NHWC to CHWN, as a kernel gradient reads its
// input) transposes in blocks of 16 features x 8, each read as a
// transposed vector<16x8>; the features past the last whole block (40 =
// 32 + 8) run as rows.
// CHECK-LABEL: func.func @batch_last_blocks
// CHECK: scf.for {{.*}} to %c32 step %c16
// CHECK: vector.transfer_read {{.*}} {permutation_map = #{{.*}}} : tensor<8x1x1x16xf32>, vector<16x1x1x8xf32>
// CHECK: tensor.extract_slice %arg0[0, 0, 0, 32] [8, 3, 5, 8] [1, 1, 1, 1]
func.func @batch_last_blocks(%x: tensor<8x3x5x40xf32>) -> tensor<40x3x5x8xf32> {
  %e = tensor.empty() : tensor<40x3x5x8xf32>
  %t = linalg.transpose ins(%x : tensor<8x3x5x40xf32>) outs(%e : tensor<40x3x5x8xf32>) permutation = [3, 1, 2, 0]
  return %t : tensor<40x3x5x8xf32>
}

// -----

// Ten columns with 64 rows: B's and C's columns are padded with zeros to 16
// and computed as one tile of 8 x 16, and the 10 columns sliced back (with
// fewer than 32 rows they would split into widths 8 and 2 instead).
// CHECK-LABEL: func.func @narrow_columns
// CHECK: %[[B:.*]] = tensor.insert_slice %arg1 into %{{.*}}[0, 0] [40, 10] [1, 1] : tensor<40x10xf32> into tensor<40x16xf32>
// CHECK: %[[C:.*]] = tensor.insert_slice %arg2 into %{{.*}}[0, 0] [64, 10] [1, 1] : tensor<64x10xf32> into tensor<64x16xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK-NOT: vector.contract
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [64, 10] [1, 1] : tensor<64x16xf32> to tensor<64x10xf32>
func.func @narrow_columns(%a: tensor<64x40xf32>, %b: tensor<40x10xf32>, %c: tensor<64x10xf32>) -> tensor<64x10xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x40xf32>, tensor<40x10xf32>) outs(%c : tensor<64x10xf32>) -> tensor<64x10xf32>
  return %0 : tensor<64x10xf32>
}

// -----

// Rows of 24 or 20 columns take as many registers in pieces of 16 and 8 or
// 4 lanes as padded to 32: one tile of 8 x 24 or 8 x 20, neither padded (a
// copy of B and of C) nor split.
// CHECK-LABEL: func.func @columns_in_pieces
// CHECK-NOT: tensor.insert_slice
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x24xf32> into vector<8x24xf32>
// CHECK-NOT: vector.contract
func.func @columns_in_pieces(%a: tensor<64x40xf32>, %b: tensor<40x24xf32>, %c: tensor<64x24xf32>) -> tensor<64x24xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x40xf32>, tensor<40x24xf32>) outs(%c : tensor<64x24xf32>) -> tensor<64x24xf32>
  return %0 : tensor<64x24xf32>
}

// CHECK-LABEL: func.func @columns_in_two_pieces
// CHECK-NOT: tensor.insert_slice
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x20xf32> into vector<8x20xf32>
// CHECK-NOT: vector.contract
func.func @columns_in_two_pieces(%a: tensor<64x40xf32>, %b: tensor<40x20xf32>, %c: tensor<64x20xf32>) -> tensor<64x20xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x40xf32>, tensor<40x20xf32>) outs(%c : tensor<64x20xf32>) -> tensor<64x20xf32>
  return %0 : tensor<64x20xf32>
}

// 28 columns would take 3 registers (16, 8 and 4 lanes): padded to 32,
// they take 2.
// CHECK-LABEL: func.func @columns_in_three_pieces
// CHECK: tensor.insert_slice %arg1 into %{{.*}}[0, 0] [40, 28] [1, 1] : tensor<40x28xf32> into tensor<40x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT: vector.contract
func.func @columns_in_three_pieces(%a: tensor<64x40xf32>, %b: tensor<40x28xf32>, %c: tensor<64x28xf32>) -> tensor<64x28xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x40xf32>, tensor<40x28xf32>) outs(%c : tensor<64x28xf32>) -> tensor<64x28xf32>
  return %0 : tensor<64x28xf32>
}

// f64 rows of 12 columns (8 and 4 lanes: 2 registers, as padded to 16)
// take tiles of 8 x 12.
// CHECK-LABEL: func.func @f64_columns_in_pieces
// CHECK-NOT: tensor.insert_slice
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x12xf64> into vector<8x12xf64>
// CHECK-NOT: vector.contract
func.func @f64_columns_in_pieces(%a: tensor<64x40xf64>, %b: tensor<40x12xf64>, %c: tensor<64x12xf64>) -> tensor<64x12xf64> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x40xf64>, tensor<40x12xf64>) outs(%c : tensor<64x12xf64>) -> tensor<64x12xf64>
  return %0 : tensor<64x12xf64>
}

// -----

// A gather (the payload reads its position and a table from above) split
// into 64 whole columns and 26 more: the second piece reads columns 64 to
// 89, its position shifted by 64 (found by scripts/fuzz.py, seed 1005677:
// it read columns 0 to 25). Each piece reads its columns of the row as one
// vector.
// CHECK-LABEL: func.func @gather_row
// CHECK: scf.for
// CHECK: vector.transfer_read %arg0[%{{.+}}, %{{.+}}]{{.*}} : tensor<1x90xf64>, vector<64xf64>
// CHECK: scf.for
// CHECK: %[[SHIFT:.+]] = arith.constant dense<64> : vector<26xindex>
// CHECK: %[[SHIFTED:.+]] = arith.addi %{{.+}}, %[[SHIFT]] : vector<26xindex>
// CHECK: %[[COLUMNS:.+]] = vector.shape_cast %[[SHIFTED]]
// CHECK: %[[COLUMN:.+]] = vector.extract %[[COLUMNS]][0]
// CHECK: vector.transfer_read %arg0[%{{.+}}, %[[COLUMN]]]{{.*}} : tensor<1x90xf64>, vector<26xf64>
#scalar = affine_map<(d0) -> ()>
#id = affine_map<(d0) -> (d0)>
func.func @gather_row(%table: tensor<1x90xf64>, %i: tensor<i32>) -> tensor<90xf64> {
  %c0 = arith.constant 0 : index
  %empty = tensor.empty() : tensor<90xf64>
  %0 = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel"]}
      ins(%i : tensor<i32>) outs(%empty : tensor<90xf64>) {
  ^bb0(%in: i32, %out: f64):
    %col = linalg.index 0 : index
    %raw = arith.index_cast %in : i32 to index
    %low = arith.maxsi %raw, %c0 : index
    %row = arith.minsi %low, %c0 : index
    %x = tensor.extract %table[%row, %col] : tensor<1x90xf64>
    linalg.yield %x : f64
  } -> tensor<90xf64>
  return %0 : tensor<90xf64>
}

// -----

// A take of rows (the index read in the payload, fixed along a row) copies
// each row's columns as vectors instead of gathering them lane by lane
// (2048 rows of a 32000 x 512 embedding: 0.67-0.98 ms as scalar loads,
// 0.1 ms as vectors).
// CHECK-LABEL: func.func @take_rows
// CHECK-NOT: vector.gather
// CHECK: %[[CLAMPED:.+]] = arith.minsi %{{.+}} : vector<1x32xindex>
// CHECK: %[[ROWS:.+]] = vector.shape_cast %[[CLAMPED]]
// CHECK: %[[ROW:.+]] = vector.extract %[[ROWS]][0] : index from vector<32xindex>
// CHECK: %[[COLUMN:.+]] = vector.extract %{{.+}}[0] : index from vector<32xindex>
// CHECK: vector.transfer_read %arg0[%[[ROW]], %[[COLUMN]]]{{.*}} : tensor<1000x96xf32>, vector<1x32xf32>
// CHECK-NOT: vector.gather
func.func @take_rows(%t: tensor<1000x96xf32>, %i: tensor<20xi32>) -> tensor<20x96xf32> {
  %c0 = arith.constant 0 : index
  %c999 = arith.constant 999 : index
  %empty = tensor.empty() : tensor<20x96xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%empty : tensor<20x96xf32>) {
  ^bb0(%out: f32):
    %row = linalg.index 0 : index
    %col = linalg.index 1 : index
    %raw = tensor.extract %i[%row] : tensor<20xi32>
    %index = arith.index_cast %raw : i32 to index
    %low = arith.maxsi %index, %c0 : index
    %clamped = arith.minsi %low, %c999 : index
    %x = tensor.extract %t[%clamped, %col] : tensor<1000x96xf32>
    linalg.yield %x : f32
  } -> tensor<20x96xf32>
  return %0 : tensor<20x96xf32>
}

// -----

// A take from a slice (rows 1, 3, ... of a 12 x 3 tensor's first column)
// gathers from the slice's source, at the slice's offset and stride: the
// vectorizer linearizes a gather's offsets by the shape of the tensor it
// reads, as if its buffer were contiguous, and the slice's is a strided
// view (scripts/fuzz.py seed 3023).
// CHECK-LABEL: func.func @take_from_slice
// CHECK: %[[TWO:.+]] = arith.constant dense<2> : vector<1x1xindex>
// CHECK: %[[ROW:.+]] = arith.muli %{{.+}}, %[[TWO]] : vector<1x1xindex>
// CHECK: %[[ONE:.+]] = arith.constant dense<1> : vector<1x1xindex>
// CHECK: %[[SOURCEROW:.+]] = arith.addi %[[ROW]], %[[ONE]] : vector<1x1xindex>
// CHECK: %[[COLUMNS:.+]] = tensor.dim %arg0, %{{.+}} : tensor<12x3xf32>
// CHECK: %[[ROWLENGTH:.+]] = vector.broadcast %[[COLUMNS]] : index to vector<1x1xindex>
// CHECK: %[[LINEAR:.+]] = arith.muli %[[SOURCEROW]], %[[ROWLENGTH]] : vector<1x1xindex>
// CHECK: %[[OFFSETS:.+]] = arith.addi %{{.+}}, %[[LINEAR]] : vector<1x1xindex>
// CHECK: vector.gather %arg0[%{{.+}}, %{{.+}}] [%[[OFFSETS]]]{{.*}} : tensor<12x3xf32>
func.func @take_from_slice(%t: tensor<12x3xf32>, %i: tensor<4xi32>) -> tensor<4x1xf32> {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %s = tensor.extract_slice %t[1, 0] [6, 1] [2, 1] : tensor<12x3xf32> to tensor<6x1xf32>
  %empty = tensor.empty() : tensor<4x1xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%empty : tensor<4x1xf32>) {
  ^bb0(%out: f32):
    %row = linalg.index 0 : index
    %raw = tensor.extract %i[%row] : tensor<4xi32>
    %index = arith.index_cast %raw : i32 to index
    %low = arith.maxsi %index, %c0 : index
    %clamped = arith.minsi %low, %c5 : index
    %x = tensor.extract %s[%clamped, %c0] : tensor<6x1xf32>
    linalg.yield %x : f32
  } -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// A vector-matrix product streams B from memory, each element used once:
// its cache tile takes all 1024 columns, and each K tile of 8 rows walks
// every column of its rows (8 streams the prefetchers follow), in register
// tiles of 1 x 256.
// CHECK-LABEL: func.func @vector_matrix
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c1024{{.*}} step %c1024
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c512{{.*}} step %c8
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c1024{{.*}} step %c256
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c1
// CHECK: vector.contract {{.*}} into vector<1x256xf32>
func.func @vector_matrix(%a: tensor<1x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<1x1024xf32>) -> tensor<1x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}
