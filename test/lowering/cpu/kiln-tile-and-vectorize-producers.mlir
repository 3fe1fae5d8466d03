// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=250000" --canonicalize --split-input-file | FileCheck %s

// Producers of a matmul's operands move into its loops where each tile
// needs its own part of them, computed right before the tile reads it (in
// cache), instead of the whole operand first in a pass over memory.

// A product that starts from zeros fills each block of its output right
// before accumulating in it: a chunk that threads share fills its rows.
// CHECK-LABEL: func.func @chunks_fill_their_rows
// CHECK-NOT: linalg.fill
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<256x256xf32>
// CHECK: scf.forall (%[[I:.*]]) = (0) to (256) step (64) shared_outs(%[[OUT:.*]] = %[[EMPTY]])
// CHECK: %[[ROWS:.*]] = tensor.extract_slice %[[OUT]][%[[I]], 0] [64, 256]
// CHECK: %[[FILLED:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ROWS]])
// CHECK: vector.transfer_write %{{.*}}, %{{.*}} : vector<1x64xf32>, tensor<1x64xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[FILLED]])
// CHECK: vector.contract
// CHECK-NOT: linalg.fill
func.func @chunks_fill_their_rows(%a: tensor<256x512xf32>, %b: tensor<512x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x256xf32>)
                     outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// On one thread, a cache tile whose K loop runs whole (100 steps) fills
// each of its register tiles (8 x 32) right before the tile's K loop, as
// one vector its accumulators start from (kiln-lower-vectors forwards it:
// no zeros stored, none loaded); the part split off (the 4 columns past
// 256 + 256) fills its own tiles of 8 x 4.
// CHECK-LABEL: func.func @cache_tiles_fill_their_blocks
// CHECK-NOT: linalg.fill
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<24x516xf32>
// CHECK: %[[WHOLE:.*]] = tensor.extract_slice %[[EMPTY]][0, 0] [24, 512]
// CHECK: scf.for {{.*}} iter_args(%[[OUT:.*]] = %[[WHOLE]])
// CHECK: %[[TILE:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}] [8, 32]
// CHECK: %[[FILLED:.*]] = vector.transfer_write %[[ZEROS:.*]], %[[TILE]]{{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// CHECK: scf.for {{.*}} to %c100 {{.*}} iter_args(%{{.*}} = %[[FILLED]])
// CHECK: vector.contract
// CHECK: vector.transfer_write %{{.*}} : vector<8x4xf32>, tensor<8x4xf32>
// CHECK: vector.contract
// CHECK-NOT: linalg.fill
func.func @cache_tiles_fill_their_blocks(%a: tensor<24x100xf32>, %b: tensor<100x516xf32>) -> tensor<24x516xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x516xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<24x516xf32>) -> tensor<24x516xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<24x100xf32>, tensor<100x516xf32>)
                     outs(%c : tensor<24x516xf32>) -> tensor<24x516xf32>
  return %0 : tensor<24x516xf32>
}


// -----

// A weight gradient's Xᵀ: each chunk of 96 rows transposes the 96 columns
// of X it reads (in 16 x 16 blocks), on the thread that runs the chunk,
// instead of the whole transpose first on one thread; the 16 rows past the
// last chunk transpose their own columns after it.
// CHECK-LABEL: func.func @chunks_transpose_their_rows
// CHECK-SAME: (%[[X:.*]]: tensor<256x784xf32>
// CHECK-NOT: linalg.transpose
// CHECK: %[[WHOLE:.*]] = tensor.extract_slice %[[X]][0, 0] [256, 768]
// CHECK: scf.forall (%[[I:.*]]) = (0) to (768) step (96)
// CHECK: %[[COLUMNS:.*]] = tensor.extract_slice %[[WHOLE]][0, %[[I]]] [256, 96]
// CHECK: scf.for
// CHECK: tensor.extract_slice %[[COLUMNS]][%{{.*}}, %{{.*}}] [16, 16]
// CHECK: vector.transfer_read {{.*}} permutation_map = {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK: vector.contract
// CHECK-NOT: linalg.transpose
func.func @chunks_transpose_their_rows(%x: tensor<256x784xf32>, %dy: tensor<256x512xf32>) -> tensor<784x512xf32> {
  %zero = arith.constant 0.0 : f32
  %te = tensor.empty() : tensor<784x256xf32>
  %xt = linalg.transpose ins(%x : tensor<256x784xf32>) outs(%te : tensor<784x256xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<784x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<784x512xf32>) -> tensor<784x512xf32>
  %0 = linalg.matmul ins(%xt, %dy : tensor<784x256xf32>, tensor<256x512xf32>)
                     outs(%c : tensor<784x512xf32>) -> tensor<784x512xf32>
  return %0 : tensor<784x512xf32>
}

// -----

// Bᵀ packed into panels (its rows 2 KiB apart): 4 chunks of 4 panels each
// pack theirs straight from B's rows, 16 x 16 blocks transposed in
// registers, with no transpose of all of B written out before the loop.
// CHECK-LABEL: func.func @transposed_b_packed_by_chunks
// CHECK-NOT: linalg.transpose
// CHECK: tensor.expand_shape %arg1 {{\[}}[0, 1], [2]] output_shape [16, 32, 256]
// CHECK: scf.forall (%{{.*}}) = (0) to (16) step (4)
// CHECK: -> (tensor<4x256x32xf32>)
// CHECK: vector.transfer_read {{.*}} permutation_map = {{.*}} : tensor<1x16x16xf32>, vector<1x16x16xf32>
// CHECK: vector.contract
func.func @transposed_b_packed_by_chunks(%a: tensor<512x256xf32>, %b: tensor<512x256xf32>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %te = tensor.empty() : tensor<256x512xf32>
  %bt = linalg.transpose ins(%b : tensor<512x256xf32>) outs(%te : tensor<256x512xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<512x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %0 = linalg.matmul ins(%a, %bt : tensor<512x256xf32>, tensor<256x512xf32>)
                     outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// -----

// x Wᵀ with W stored [N, K] (a Linear's weight, dY W's backward twin):
// chunks split N, each transposing its own rows of W, instead of chunks of
// rows that would all read a Wᵀ one thread transposed whole first. The 5
// columns past the last whole chunk transpose their own 5 rows of W.
// CHECK-LABEL: func.func @chunks_transpose_their_rows_of_w
// CHECK-SAME: (%{{.*}}: tensor<450x249xf32>, %[[W:.*]]: tensor<581x249xf32>)
// CHECK-NOT: tensor<249x581xf32>
// CHECK: %[[WHOLE:.*]] = tensor.extract_slice %[[W]][0, 0] [576, 249]
// CHECK: scf.forall (%[[J:.*]]) = (0) to (576) step (32)
// CHECK: tensor.extract_slice %[[WHOLE]][%[[J]], 0] [32, 249]
// CHECK: vector.transfer_read {{.*}} permutation_map = {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK: vector.contract
// CHECK: scf.forall.in_parallel
// CHECK: tensor.extract_slice %[[W]][576, 0] [5, 249]
// CHECK-NOT: tensor<249x581xf32>
func.func @chunks_transpose_their_rows_of_w(%x: tensor<450x249xf32>, %w: tensor<581x249xf32>) -> tensor<450x581xf32> {
  %zero = arith.constant 0.0 : f32
  %te = tensor.empty() : tensor<249x581xf32>
  %wt = linalg.transpose ins(%w : tensor<581x249xf32>) outs(%te : tensor<249x581xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<450x581xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<450x581xf32>) -> tensor<450x581xf32>
  %0 = linalg.matmul ins(%x, %wt : tensor<450x249xf32>, tensor<249x581xf32>)
                     outs(%c : tensor<450x581xf32>) -> tensor<450x581xf32>
  return %0 : tensor<450x581xf32>
}
