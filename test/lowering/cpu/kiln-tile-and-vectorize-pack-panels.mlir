// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0" --canonicalize --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 pack-panels=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 bf16-dot-pairs=true" --canonicalize --split-input-file | FileCheck %s --check-prefix=PAIRS
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 int-dot-pairs=true" --canonicalize --split-input-file | FileCheck %s --check-prefix=INTS

// B's rows 4 KiB apart (1024 floats), 128 rows of A: B is packed once into
// panels of 32 columns, [32, K, 32], 32 floats at a time, B's rows outside
// panels (each row of B read whole before the next); the product runs over
// row blocks, then panels, then K, in register tiles of 8 x 32 that read
// one panel's rows, into the result viewed as [M, 32, 32].
// CHECK-LABEL: func.func @packed
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [16, 32, 32] : tensor<16x1024xf32> into tensor<16x32x32xf32>
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c16 step %c1
// CHECK: scf.for %[[PANEL:.*]] = %c0 to %c32 step %c1
// CHECK: tensor.extract_slice %[[SPLIT]][%[[ROW]], %[[PANEL]], 0] [1, 1, 32]
// CHECK: vector.transfer_read {{.*}} : tensor<1x1x32xf32>, vector<1x1x32xf32>
// CHECK: %[[VIEW:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [128, 32, 32] : tensor<128x1024xf32> into tensor<128x32x32xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c64 iter_args(%{{.*}} = %[[VIEW]])
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c1
// CHECK: tensor.extract_slice %{{.*}} [1, 16, 32] [1, 1, 1] : tensor<32x16x32xf32> to tensor<1x16x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<128x32x32xf32> into tensor<128x1024xf32>
// OFF-LABEL: func.func @packed
// OFF-NOT: tensor.expand_shape
// OFF: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
func.func @packed(%a: tensor<128x16xf32>, %b: tensor<16x1024xf32>) -> tensor<128x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<128x16xf32>, tensor<16x1024xf32>) outs(%c : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  return %0 : tensor<128x1024xf32>
}

// -----

// A batch matmul packs each batch's panels; rows past the last register
// tile (130 = 16 x 8 + 2) run as a tile of their own.
// CHECK-LABEL: func.func @packed_batch
// CHECK: tensor.empty() : tensor<2x64x8x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: vector.contract {{.*}} : vector<2x1xf32>, vector<1x{{[0-9]+}}xf32> into vector<2x{{[0-9]+}}xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<2x130x64x32xf32> into tensor<2x130x2048xf32>
func.func @packed_batch(%a: tensor<2x130x8xf32>, %b: tensor<2x8x2048xf32>, %c: tensor<2x130x2048xf32>) -> tensor<2x130x2048xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x130x8xf32>, tensor<2x8x2048xf32>) outs(%c : tensor<2x130x2048xf32>) -> tensor<2x130x2048xf32>
  return %0 : tensor<2x130x2048xf32>
}

// -----

// Not packed: fewer than 32 rows; B's rows 4000 bytes apart, or 1 KiB,
// and B within half of L2 (64 KiB); f64.
// CHECK-LABEL: func.func @unpacked
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @unpacked(%a: tensor<31x16xf32>, %b: tensor<16x1024xf32>, %c: tensor<31x1024xf32>,
                    %d: tensor<256x16xf32>, %e: tensor<16x1000xf32>, %f: tensor<256x1000xf32>,
                    %g: tensor<16x256xf32>, %h: tensor<256x256xf32>,
                    %i: tensor<256x16xf64>, %j: tensor<16x512xf64>, %k: tensor<256x512xf64>)
    -> (tensor<31x1024xf32>, tensor<256x1000xf32>, tensor<256x256xf32>, tensor<256x512xf64>) {
  %0 = linalg.matmul ins(%a, %b : tensor<31x16xf32>, tensor<16x1024xf32>) outs(%c : tensor<31x1024xf32>) -> tensor<31x1024xf32>
  %1 = linalg.matmul ins(%d, %e : tensor<256x16xf32>, tensor<16x1000xf32>) outs(%f : tensor<256x1000xf32>) -> tensor<256x1000xf32>
  %2 = linalg.matmul ins(%d, %g : tensor<256x16xf32>, tensor<16x256xf32>) outs(%h : tensor<256x256xf32>) -> tensor<256x256xf32>
  %3 = linalg.matmul ins(%i, %j : tensor<256x16xf64>, tensor<16x512xf64>) outs(%k : tensor<256x512xf64>) -> tensor<256x512xf64>
  return %0, %1, %2, %3 : tensor<31x1024xf32>, tensor<256x1000xf32>, tensor<256x256xf32>, tensor<256x512xf64>
}

// -----

// B's rows 3 KiB apart pack where B (1.2 MB) is more than half of L2:
// unpacked, register tiles would walk down K through rows 3 KiB apart,
// where a panel's are consecutive lines.
// CHECK-LABEL: func.func @packed_large_b
// CHECK: tensor.empty() : tensor<24x384x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// OFF-LABEL: func.func @packed_large_b
// OFF-NOT: tensor.expand_shape
// OFF: return
func.func @packed_large_b(%a: tensor<128x384xf32>, %b: tensor<384x768xf32>, %c: tensor<128x768xf32>) -> tensor<128x768xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x384xf32>, tensor<384x768xf32>) outs(%c : tensor<128x768xf32>) -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}

// B's rows off cache lines (505 columns): the product of its first 480
// columns splits off, and their B packs into 15 panels, written into C's
// columns in place; the last 25 columns are a product of their own (its
// columns padded to a register tile's 32 in registers).
// CHECK-LABEL: func.func @split_panels
// CHECK: %[[B:.*]] = tensor.extract_slice %arg1[0, 0] [100, 480] [1, 1] : tensor<100x505xf32> to tensor<100x480xf32>
// CHECK: %[[C:.*]] = tensor.extract_slice %arg2[0, 0] [256, 480] [1, 1] : tensor<256x505xf32> to tensor<256x480xf32>
// CHECK: tensor.expand_shape %[[B]] {{\[}}[0], [1, 2]] output_shape [100, 15, 32]
// CHECK: tensor.empty() : tensor<15x100x32xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0], [1, 2]] output_shape [256, 15, 32]
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: %[[WHOLE:.*]] = tensor.insert_slice %{{.*}} into %arg2[0, 0] [256, 480] [1, 1] : tensor<256x480xf32> into tensor<256x505xf32>
// CHECK: tensor.extract_slice %arg1[0, 480] [100, 25] [1, 1] : tensor<100x505xf32> to tensor<100x25xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[WHOLE]][0, 480] [256, 25] [1, 1] : tensor<256x25xf32> into tensor<256x505xf32>
// OFF-LABEL: func.func @split_panels
// OFF-NOT: tensor.expand_shape
// OFF: return
func.func @split_panels(%a: tensor<256x100xf32>, %b: tensor<100x505xf32>, %c: tensor<256x505xf32>) -> tensor<256x505xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x100xf32>, tensor<100x505xf32>) outs(%c : tensor<256x505xf32>) -> tensor<256x505xf32>
  return %0 : tensor<256x505xf32>
}

// -----

// B's rows on cache lines (784 columns) but not in whole panels: the first
// 768 columns split off too.
// CHECK-LABEL: func.func @split_panels_on_lines
// CHECK: tensor.extract_slice %arg1[0, 0] [100, 768] [1, 1] : tensor<100x784xf32> to tensor<100x768xf32>
// CHECK: tensor.empty() : tensor<24x100x32xf32>
// CHECK: tensor.extract_slice %arg1[0, 768] [100, 16] [1, 1] : tensor<100x784xf32> to tensor<100x16xf32>
func.func @split_panels_on_lines(%a: tensor<256x100xf32>, %b: tensor<100x784xf32>, %c: tensor<256x784xf32>) -> tensor<256x784xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x100xf32>, tensor<100x784xf32>) outs(%c : tensor<256x784xf32>) -> tensor<256x784xf32>
  return %0 : tensor<256x784xf32>
}

// -----

// A transposed B over 1 MiB (x W^T, 300 x 900) of a product of more rows
// than columns splits too: chunks of rows would each stream it.
// CHECK-LABEL: func.func @split_transposed_b
// CHECK: tensor.empty() : tensor<300x900xf32>
// CHECK: tensor.empty() : tensor<28x300x32xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 896] [300, 4] [1, 1] : tensor<300x900xf32> to tensor<300x4xf32>
func.func @split_transposed_b(%a: tensor<1000x300xf32>, %w: tensor<900x300xf32>, %c: tensor<1000x900xf32>) -> tensor<1000x900xf32> {
  %te = tensor.empty() : tensor<300x900xf32>
  %wt = linalg.transpose ins(%w : tensor<900x300xf32>) outs(%te : tensor<300x900xf32>) permutation = [1, 0]
  %0 = linalg.matmul ins(%a, %wt : tensor<1000x300xf32>, tensor<300x900xf32>) outs(%c : tensor<1000x900xf32>) -> tensor<1000x900xf32>
  return %0 : tensor<1000x900xf32>
}

// -----

// Not split: 32 k steps (too few to pay for packing), a transposed B
// within 1 MiB (chunks of columns transpose their own).
// CHECK-LABEL: func.func @unsplit
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @unsplit(%a: tensor<256x100xf32>, %d: tensor<256x32xf32>, %e: tensor<32x505xf32>,
                   %f: tensor<256x505xf32>, %w: tensor<505x100xf32>) -> (tensor<256x505xf32>, tensor<256x505xf32>) {
  %0 = linalg.matmul ins(%d, %e : tensor<256x32xf32>, tensor<32x505xf32>) outs(%f : tensor<256x505xf32>) -> tensor<256x505xf32>
  %te = tensor.empty() : tensor<100x505xf32>
  %wt = linalg.transpose ins(%w : tensor<505x100xf32>) outs(%te : tensor<100x505xf32>) permutation = [1, 0]
  %1 = linalg.matmul ins(%a, %wt : tensor<256x100xf32>, tensor<100x505xf32>) outs(%f : tensor<256x505xf32>) -> tensor<256x505xf32>
  return %0, %1 : tensor<256x505xf32>, tensor<256x505xf32>
}

// -----

// A product computed block by block for its epilogue (a ReLU): B is
// packed once before the epilogue's loop, and each block of 256 columns
// reads its 8 panels, from panel column / 32.
// CHECK-LABEL: func.func @epilogue
// CHECK: %[[PANELS:.*]] = scf.for {{.*}} -> (tensor<32x16x32xf32>)
// CHECK: scf.for %[[COLUMN:.*]] = %c0 to %c1024 step %c256
// CHECK: %[[PANEL:.*]] = affine.apply #{{.*}}(%[[COLUMN]])
// CHECK: tensor.extract_slice %[[PANELS]][%[[PANEL]], 0, 0] [8, 16, 32] [1, 1, 1] : tensor<32x16x32xf32> to tensor<8x16x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: arith.maximumf
// OFF-LABEL: func.func @epilogue
// OFF-NOT: tensor.expand_shape
// OFF: arith.maximumf
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @epilogue(%a: tensor<256x16xf32>, %b: tensor<16x1024xf32>) -> tensor<256x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x16xf32>, tensor<16x1024xf32>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<256x1024xf32>) outs(%empty : tensor<256x1024xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x1024xf32>
  return %1 : tensor<256x1024xf32>
}

// -----

// The same with 16 columns more than whole panels, and a bias: the whole
// panels' 1024 columns split off with their part of the epilogue, and
// their B packs once before its loop; the last 16 columns are a product
// and an epilogue of their own.
// CHECK-LABEL: func.func @split_epilogue
// CHECK-DAG: tensor.extract_slice %arg1[0, 0] [64, 1024] [1, 1] : tensor<64x1040xf32> to tensor<64x1024xf32>
// CHECK-DAG: tensor.extract_slice %arg1[0, 1024] [64, 16] [1, 1] : tensor<64x1040xf32> to tensor<64x16xf32>
// CHECK: %[[PANELS:.*]] = scf.for {{.*}} -> (tensor<32x64x32xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c256
// CHECK: tensor.extract_slice %[[PANELS]]
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: arith.maximumf {{.*}} : vector<1x64xf32>
// CHECK: arith.maximumf {{.*}} : vector<1x16xf32>
// OFF-LABEL: func.func @split_epilogue
// OFF-NOT: tensor<32x64x32xf32>
// OFF: arith.maximumf
#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @split_epilogue(%a: tensor<512x64xf32>, %b: tensor<64x1040xf32>, %bias: tensor<1040xf32>) -> tensor<512x1040xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<512x1040xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<512x1040xf32>) -> tensor<512x1040xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<512x64xf32>, tensor<64x1040xf32>) outs(%c : tensor<512x1040xf32>) -> tensor<512x1040xf32>
  %1 = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<512x1040xf32>, tensor<1040xf32>) outs(%empty : tensor<512x1040xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<512x1040xf32>
  return %1 : tensor<512x1040xf32>
}

// -----

// A weight gradient's product for its update (w - Xᵀ dY): each block of
// 256 rows (of all 512 columns) transposes its rows of X, and the whole
// Xᵀ's 512 rows pay for packing dY, once before the loop.
// CHECK-LABEL: func.func @epilogue_of_a_transpose
// CHECK: %[[PANELS:.*]] = scf.for {{.*}} -> (tensor<16x32x32xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK: vector.transfer_read {{.*}} permutation_map = {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK: tensor.extract_slice %[[PANELS]]
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: arith.subf
// OFF-LABEL: func.func @epilogue_of_a_transpose
// OFF-NOT: tensor.expand_shape
// OFF: arith.subf
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @epilogue_of_a_transpose(%x: tensor<32x512xf32>, %dy: tensor<32x512xf32>, %w: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %te = tensor.empty() : tensor<512x32xf32>
  %xt = linalg.transpose ins(%x : tensor<32x512xf32>) outs(%te : tensor<512x32xf32>) permutation = [1, 0]
  %empty = tensor.empty() : tensor<512x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<512x512xf32>) -> tensor<512x512xf32>
  %0 = linalg.matmul ins(%xt, %dy : tensor<512x32xf32>, tensor<32x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%w, %0 : tensor<512x512xf32>, tensor<512x512xf32>) outs(%empty : tensor<512x512xf32>) {
  ^bb0(%in: f32, %g: f32, %out: f32):
    %r = arith.subf %in, %g : f32
    linalg.yield %r : f32
  } -> tensor<512x512xf32>
  return %1 : tensor<512x512xf32>
}

// -----

// bf16 into f32 on vdpbf16ps's pairs: B is packed into panels of pairs of
// rows interleaved, [N / 32, K / 2, 32, 2] (the pack reads two rows of a
// panel and interleaves them), whatever the distance between B's rows; A
// is read as [M, K / 2, 2]; a register tile multiplies A's pair of 8 rows
// by a panel's pair of rows read as one row of 64.
// PAIRS-LABEL: func.func @pairs
// PAIRS: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2, 3]] output_shape [3, 2, 2, 32] : tensor<6x64xbf16> into tensor<3x2x2x32xbf16>
// PAIRS: tensor.empty() : tensor<2x3x32x2xbf16>
// PAIRS: vector.transfer_read {{.*}} : tensor<2x32xbf16>, vector<2x32xbf16>
// PAIRS: vector.interleave %{{.*}}, %{{.*}} : vector<32xi16> -> vector<64xi16>
// PAIRS: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [128, 3, 2] : tensor<128x6xbf16> into tensor<128x3x2xbf16>
// PAIRS: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3]] : tensor<1x1x32x2xbf16> into tensor<64xbf16>
// PAIRS: vector.contract {{.*}} : vector<8x2xbf16>, vector<32x2xbf16> into vector<8x32xf32>
// PAIRS: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<128x2x32xf32> into tensor<128x64xf32>
// CHECK-LABEL: func.func @pairs
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @pairs(%a: tensor<128x6xbf16>, %b: tensor<6x64xbf16>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x64xf32>) -> tensor<128x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<128x6xbf16>, tensor<6x64xbf16>) outs(%c : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %0 : tensor<128x64xf32>
}

// -----

// An odd K stays unpacked (its pairs run in registers, the last step
// alone).
// PAIRS-LABEL: func.func @odd_pairs
// PAIRS-NOT: tensor.expand_shape
// PAIRS: return
func.func @odd_pairs(%a: tensor<128x7xbf16>, %b: tensor<7x64xbf16>, %c: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x7xbf16>, tensor<7x64xbf16>) outs(%c : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %0 : tensor<128x64xf32>
}

// -----

// From zeros over more k steps than a cache tile's (256): the first cache
// tile of K starts each register tile at zero in registers, and the rest
// accumulate onto it in cache tiles of 256 k steps, a panel's 256 x 32
// (32 KiB) staying in L1 while every row tile passes it.
// CHECK-LABEL: func.func @packed_k_tiles
// CHECK: tensor.empty() : tensor<32x768x32xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[ZEROS:.*]] = vector.transfer_write %{{.*}} : vector<8x1x32xf32>, tensor<8x1x32xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args(%{{.*}} = %[[ZEROS]])
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
func.func @packed_k_tiles(%a: tensor<128x768xf32>, %b: tensor<768x1024xf32>) -> tensor<128x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<128x768xf32>, tensor<768x1024xf32>) outs(%c : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  return %0 : tensor<128x1024xf32>
}

// -----

// int8 into i32 on 16-bit pairs (vpmaddwd, vpdpwssd): A and B widened to
// i16 once, then B packed into panels of pairs like bf16's (the pack
// interleaves two rows of a panel as they are, without bitcasts); a
// register tile multiplies A's pair of 8 rows by a panel's pair of rows.
// INTS-LABEL: func.func @int8_pairs
// INTS: arith.extsi %{{.*}} : vector<{{.*}}xi8> to vector<{{.*}}xi16>
// INTS: tensor.empty() : tensor<2x3x32x2xi16>
// INTS: vector.transfer_read {{.*}} : tensor<2x32xi16>, vector<2x32xi16>
// INTS-NOT: vector.bitcast
// INTS: vector.interleave %{{.*}}, %{{.*}} : vector<32xi16> -> vector<64xi16>
// INTS: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [128, 3, 2] : tensor<128x6xi16> into tensor<128x3x2xi16>
// INTS: vector.contract {{.*}} : vector<8x2xi16>, vector<32x2xi16> into vector<8x32xi32>
// INTS: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<128x2x32xi32> into tensor<128x64xi32>
// CHECK-LABEL: func.func @int8_pairs
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @int8_pairs(%a: tensor<128x6xi8>, %b: tensor<6x64xi8>) -> tensor<128x64xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<128x64xi32>
  %c = linalg.fill ins(%zero : i32) outs(%empty : tensor<128x64xi32>) -> tensor<128x64xi32>
  %0 = linalg.matmul ins(%a, %b : tensor<128x6xi8>, tensor<6x64xi8>) outs(%c : tensor<128x64xi32>) -> tensor<128x64xi32>
  return %0 : tensor<128x64xi32>
}

// -----

// An odd K is padded with a zero step (A's and B's copies, as wide as
// int16) and the columns past the last whole panel (70 = 64 + 6) split
// off, so that B's whole panels still pack into pairs.
// INTS-LABEL: func.func @int8_odd_pairs
// INTS: tensor.empty() : tensor<2x4x32x2xi16>
// INTS: vector.contract {{.*}} : vector<8x2xi16>, vector<32x2xi16> into vector<8x32xi32>
// INTS: return
func.func @int8_odd_pairs(%a: tensor<128x7xi8>, %b: tensor<7x70xi8>) -> tensor<128x70xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<128x70xi32>
  %c = linalg.fill ins(%zero : i32) outs(%empty : tensor<128x70xi32>) -> tensor<128x70xi32>
  %0 = linalg.matmul ins(%a, %b : tensor<128x7xi8>, tensor<7x70xi8>) outs(%c : tensor<128x70xi32>) -> tensor<128x70xi32>
  return %0 : tensor<128x70xi32>
}
