// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0" --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=1000" --split-input-file | FileCheck %s --check-prefix=THREADS
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 cache-tile-k=64 cache-tile-n=128" --split-input-file | FileCheck %s --check-prefix=BLOCKS
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 cache-tile-k=16 cache-tile-n=32" --split-input-file | FileCheck %s --check-prefix=POSITIONS

// A window product (convert-kiln-to-linalg's window-products of a
// convolution of 16 features or more; here a 2 x 2 window at stride 2) by
// output lines, one image and output row at a time: each line zeroes its
// outputs; its kernel (8 KiB) fits a cache tile of B, so each register
// tile of the line (10 = 8 + 2 pixels x 32 outputs) sums every window
// position and feature (loops of 2, 2 and 16) before its accumulators are
// stored.
#strided = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d6)>
#window = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @strided_window_product
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1
// CHECK: vector.transfer_write %cst{{.*}} : vector<1x1x1x32xf32>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c8
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c32
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c1
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: vector.contract {{.*}} : vector<2x1xf32>, vector<1x32xf32> into vector<2x32xf32>
// CHECK-NOT: linalg.generic
// A kernel larger than the cache tile (here 16 x 32 f32, 2 KiB): the line
// sums, position by position, the matmul of every second pixel of its
// input row [10, 16] (a slice of stride 2) with the kernel's [16, 32]
// there, into the line's [10, 32] of the result, its rows past the last
// whole register tile a tile of their own. With threads, the images are
// shared.
// POSITIONS-LABEL: func.func @strided_window_product
// POSITIONS: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// POSITIONS: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1
// POSITIONS: vector.transfer_write %cst
// POSITIONS: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// POSITIONS: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// POSITIONS: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 1, 10, 16] [1, 1, 2, 1] : tensor<1x1x19x16xf32> to tensor<10x16xf32>
// POSITIONS: vector.contract
// POSITIONS: vector.contract
// POSITIONS-NOT: linalg.generic
// THREADS-LABEL: func.func @strided_window_product
// THREADS: scf.forall (%{{.*}}) in (2)
// THREADS: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1
// THREADS: vector.contract {{.*}} into vector<8x32xf32>
func.func @strided_window_product(%x: tensor<2x9x21x16xf32>, %k: tensor<2x2x16x32xf32>) -> tensor<2x4x10x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x10x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x10x32xf32>) -> tensor<2x4x10x32xf32>
  %y = linalg.generic {indexing_maps = [#strided, #window, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %k : tensor<2x9x21x16xf32>, tensor<2x2x16x32xf32>) outs(%init : tensor<2x4x10x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x4x10x32xf32>
  return %y : tensor<2x4x10x32xf32>
}

// -----

// Fewer than 16 features (an RGB image's 3): each register tile of a line
// sums every window position (two loops) and feature (its contraction's 3
// steps) before its accumulators are stored, rather than a matmul of 3
// steps per position. Pixels and outputs past the last whole register tile
// (20 = 2 x 8 + 4, 48 = 32 + 16) are tiles of their own.
#pixels = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#taps = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#line = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @few_features
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c8
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c32
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1
// CHECK: vector.contract {{.*}} : vector<8x3xf32>, vector<3x32xf32> into vector<8x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x3xf32>, vector<3x16xf32> into vector<8x16xf32>
// CHECK: vector.contract {{.*}} : vector<4x3xf32>, vector<3x32xf32> into vector<4x32xf32>
// CHECK: vector.contract {{.*}} : vector<4x3xf32>, vector<3x16xf32> into vector<4x16xf32>
// CHECK-NOT: linalg.generic
func.func @few_features(%x: tensor<2x4x22x3xf32>, %k: tensor<2x3x3x48xf32>) -> tensor<2x3x20x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x20x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x20x48xf32>) -> tensor<2x3x20x48xf32>
  %y = linalg.generic {indexing_maps = [#pixels, #taps, #line], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %k : tensor<2x4x22x3xf32>, tensor<2x3x3x48xf32>) outs(%init : tensor<2x3x20x48xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x3x20x48xf32>
  return %y : tensor<2x3x20x48xf32>
}

// -----

// One feature at stride 2 (a grayscale first layer): each register tile's
// pixels are sliced whole, [1, 1, 8, 1] every second pixel, and collapsed
// to [8, 1], not sliced straight to [8, 1] (upstream's
// expand-strided-metadata crashed on that rank-reducing subview).
#pixels1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d6)>
#taps1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#line1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @one_feature_strided
// CHECK: %[[ROWS:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 1, 8, 1] [1, 1, 2, 1] : tensor<1x1x15x1xf32> to tensor<1x1x8x1xf32>
// CHECK: tensor.collapse_shape %[[ROWS]] {{\[}}[0, 1, 2], [3]] : tensor<1x1x8x1xf32> into tensor<8x1xf32>
// CHECK-NOT: to tensor<8x1xf32>
func.func @one_feature_strided(%x: tensor<2x17x17x1xf32>, %k: tensor<3x3x1x16xf32>) -> tensor<2x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x16xf32>) -> tensor<2x8x8x16xf32>
  %y = linalg.generic {indexing_maps = [#pixels1, #taps1, #line1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %k : tensor<2x17x17x1xf32>, tensor<3x3x1x16xf32>) outs(%init : tensor<2x8x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8x16xf32>
  return %y : tensor<2x8x8x16xf32>
}

// -----

// A kernel gradient as JAX writes it (the input's 64 features as the
// batch, an 8 x 8 output gradient as the window, the kernel's 3 x 3 taps
// as the output pixels): more batch than pixels in a line, so by output
// pixels, each summing window row by window row the matmul of the whole
// batch's input rows [64, 8 pixels x 8 features] with the window row's
// [64, 32] kernel into the pixel's [64, 32]. With threads, the batch is
// shared in chunks of at least two register tiles of rows.
#pixels = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#taps = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @kernel_gradient
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c1
// CHECK: tensor.extract_slice %{{.*}} [64, 1, 8, 8] [1, 1, 1, 1] : tensor<64x1x8x8xf32> to tensor<64x8x8xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<64x8x8xf32> into tensor<64x64xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<8x8x32xf32> into tensor<64x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT: linalg.generic
// THREADS-LABEL: func.func @kernel_gradient
// THREADS: scf.forall (%{{.*}}) = (0) to (64) step (16)
// THREADS: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<16x8x8xf32> into tensor<16x64xf32>
func.func @kernel_gradient(%x: tensor<64x10x10x8xf32>, %g: tensor<8x8x8x32xf32>) -> tensor<64x3x3x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x3x3x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x3x3x32xf32>) -> tensor<64x3x3x32xf32>
  %y = linalg.generic {indexing_maps = [#pixels, #taps, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %g : tensor<64x10x10x8xf32>, tensor<8x8x8x32xf32>) outs(%init : tensor<64x3x3x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64x3x3x32xf32>
  return %y : tensor<64x3x3x32xf32>
}

// -----

// A kernel gradient of a stride 2 layer: its window is dilated by 2, so a
// window row is no contiguous run of the input; by output pixels in
// register tiles of 8 batch rows x 32 outputs, each summing every window
// position's [8, 8] x [8, 32] before its accumulators are stored.
#dilated = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4 * 2, d2 + d5 * 2, d6)>
#taps = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @dilated_kernel_gradient
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c8
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c64{{.*}} step %c32
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c5{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c5{{.*}} step %c1
// CHECK: vector.contract {{.*}} : vector<8x8xf32>, vector<8x32xf32> into vector<8x32xf32>
// CHECK-NOT: linalg.generic
func.func @dilated_kernel_gradient(%x: tensor<32x11x11x8xf32>, %g: tensor<5x5x8x64xf32>) -> tensor<32x3x3x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x3x3x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x3x3x64xf32>) -> tensor<32x3x3x64xf32>
  %y = linalg.generic {indexing_maps = [#dilated, #taps, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %g : tensor<32x11x11x8xf32>, tensor<5x5x8x64xf32>) outs(%init : tensor<32x3x3x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32x3x3x64xf32>
  return %y : tensor<32x3x3x64xf32>
}

// -----

// The same with a kernel (the output gradient) larger than a cache tile of
// B (here 64 x 128 f32: 32 KiB; a window row of it is 5 x 8 x 64 f32, 10
// KiB): blocks of 3 window rows, the block loop outside the register
// tiles, each tile summing a block's 3 x 5 positions; the zeros are
// stored once, before the first block.
#dilated = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4 * 2, d2 + d5 * 2, d6)>
#taps = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// BLOCKS-LABEL: func.func @kernel_gradient_blocks
// BLOCKS: vector.transfer_write {{.*}} : vector<1x1x1x64xf32>
// BLOCKS: scf.for %{{.*}} = %c0{{.*}} to %c6{{.*}} step %c3
// BLOCKS: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c8
// BLOCKS: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1
// BLOCKS: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1
// BLOCKS: scf.for %{{.*}} = %c0{{.*}} to %c64{{.*}} step %c32
// BLOCKS: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1
// BLOCKS: scf.for %{{.*}} = %c0{{.*}} to %c5{{.*}} step %c1
// BLOCKS: vector.contract {{.*}} : vector<8x8xf32>, vector<8x32xf32> into vector<8x32xf32>
// BLOCKS-NOT: linalg.generic
// A kernel that fits (5 x 5 x 8 x 64 at the default tiles) is one block.
// CHECK-LABEL: func.func @kernel_gradient_blocks
// CHECK-NOT: step %c3
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c8
func.func @kernel_gradient_blocks(%x: tensor<32x13x11x8xf32>, %g: tensor<6x5x8x64xf32>) -> tensor<32x3x3x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x3x3x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x3x3x64xf32>) -> tensor<32x3x3x64xf32>
  %y = linalg.generic {indexing_maps = [#dilated, #taps, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %g : tensor<32x13x11x8xf32>, tensor<6x5x8x64xf32>) outs(%init : tensor<32x3x3x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32x3x3x64xf32>
  return %y : tensor<32x3x3x64xf32>
}

// -----

// Few outputs (3) of whole vectors of features (32 = 2 x 16 lanes): the
// kernel transposed to [window..., outputs, features], then by output
// lines, each line's register tiles (5 pixels, every second one of the
// input row, x 3 outputs x 16 lanes; 11 = 10 + 1 pixels) carried over the
// 3 x 3 window positions and 2 groups of lanes, then each vector's 16
// lanes summed into the line, instead of matmuls filling 3 lanes of 16.
#strided = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d6)>
#window = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @thin_outputs
// CHECK: tensor.empty() : tensor<3x3x3x32xf32>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c10{{.*}} step %c5{{.*}} -> (tensor<1x1x10x3x16xf32>)
// CHECK: tensor.extract_slice %{{.*}} [1, 1, 5, 1, 16] [1, 1, 2, 1, 1] : tensor<1x1x9x1x16xf32> to tensor<5x16xf32>
// CHECK: arith.mulf {{.*}} : vector<5x3x16xf32>
// CHECK: arith.mulf {{.*}} : vector<1x3x16xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} [4] : vector<1x1x1x1x16xf32> to vector<1x1x1x1xf32>
// CHECK-NOT: vector.contract
func.func @thin_outputs(%x: tensor<2x9x23x32xf32>, %k: tensor<3x3x32x3xf32>) -> tensor<2x4x11x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x11x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x11x3xf32>) -> tensor<2x4x11x3xf32>
  %y = linalg.generic {indexing_maps = [#strided, #window, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %k : tensor<2x9x23x32xf32>, tensor<3x3x32x3xf32>) outs(%init : tensor<2x4x11x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x4x11x3xf32>
  return %y : tensor<2x4x11x3xf32>
}
