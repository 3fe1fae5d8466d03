// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=250000" --canonicalize --split-input-file | FileCheck %s

// A product that starts from zeros fills each block of its output right
// before accumulating in it, instead of the whole output first in a pass
// over memory: a chunk that threads share fills its rows.
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

// On one thread, a cache tile whose K loop runs whole (100 steps) fills its
// block (64 x 256); the part split off (the 4 columns past 256 + 256) fills
// its own, one tile without loops: in rows of 4 before its product.
// CHECK-LABEL: func.func @cache_tiles_fill_their_blocks
// CHECK-NOT: linalg.fill
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<64x516xf32>
// CHECK: %[[WHOLE:.*]] = tensor.extract_slice %[[EMPTY]][0, 0] [64, 512]
// CHECK: scf.for {{.*}} iter_args(%[[OUT:.*]] = %[[WHOLE]])
// CHECK: %[[BLOCK:.*]] = tensor.extract_slice %[[OUT]][0, %{{.*}}] [64, 256]
// CHECK: %[[FILLED:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[BLOCK]])
// CHECK: vector.transfer_write %{{.*}} : vector<1x64xf32>, tensor<1x64xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[FILLED]])
// CHECK: vector.contract
// CHECK: vector.transfer_write %{{.*}} : vector<1x4xf32>, tensor<1x4xf32>
// CHECK-NOT: linalg.fill
func.func @cache_tiles_fill_their_blocks(%a: tensor<64x100xf32>, %b: tensor<100x516xf32>) -> tensor<64x516xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x516xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x516xf32>) -> tensor<64x516xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x100xf32>, tensor<100x516xf32>)
                     outs(%c : tensor<64x516xf32>) -> tensor<64x516xf32>
  return %0 : tensor<64x516xf32>
}

