// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s
// RUN: kiln-opt %s --convert-kiln-to-linalg="window-products=false" --split-input-file | FileCheck %s --check-prefix=IM2COL

// A 2 x 2 convolution of 16 features as kiln-import-stablehlo writes it
// (the padded input's taps stacked into patches, contracted with the
// kernel): contracted from the padded input itself by output lines, a
// linalg.generic over (batch, output rows, output columns, outputs,
// window rows, window columns, features) that reads pixel (y + i, x + j)
// for window position (i, j), into the result.
// CHECK-DAG: #[[PIXELS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
// CHECK-DAG: #[[KERNEL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_2x2
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 1, 0] [1, 10, 12, 16]
// CHECK: %[[FROM:.*]] = tensor.extract_slice %[[PADDED]][0, 0, 0, 0] [1, 12, 14, 16] [1, 1, 1, 1]
// CHECK: %[[GRID:.*]] = tensor.expand_shape %{{.*}} output_shape [2, 2, 16, 8]
// CHECK: %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<1x11x13x8xf32>
// CHECK: %[[PRODUCT:.*]] = linalg.generic {indexing_maps = [#[[PIXELS]], #[[KERNEL]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[FROM]], %[[GRID]] : tensor<1x12x14x16xf32>, tensor<2x2x16x8xf32>) outs(%[[ZEROS]] : tensor<1x11x13x8xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return %[[PRODUCT]]
// CHECK-NOT: linalg.matmul
// IM2COL-LABEL: func.func @conv_2x2
// IM2COL: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<143x64xf32>, tensor<64x8xf32>)
func.func @conv_2x2(%x: tensor<1x10x12x16xf32>, %k: tensor<2x2x16x8xf32>) -> tensor<1x11x13x8xf32> {
  %zero = kiln.constant dense<0.000000e+00> : tensor<f32>
  %p = kiln.pad %x, %zero, low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0] : (tensor<1x10x12x16xf32>, tensor<f32>) -> tensor<1x12x14x16xf32>
  %t0 = kiln.slice %p [0:1, 0:11, 0:13, 0:16] : (tensor<1x12x14x16xf32>) -> tensor<1x11x13x16xf32>
  %t1 = kiln.slice %p [0:1, 0:11, 1:14, 0:16] : (tensor<1x12x14x16xf32>) -> tensor<1x11x13x16xf32>
  %t2 = kiln.slice %p [0:1, 1:12, 0:13, 0:16] : (tensor<1x12x14x16xf32>) -> tensor<1x11x13x16xf32>
  %t3 = kiln.slice %p [0:1, 1:12, 1:14, 0:16] : (tensor<1x12x14x16xf32>) -> tensor<1x11x13x16xf32>
  %r0 = kiln.reshape %t0 : (tensor<1x11x13x16xf32>) -> tensor<1x11x13x1x16xf32>
  %r1 = kiln.reshape %t1 : (tensor<1x11x13x16xf32>) -> tensor<1x11x13x1x16xf32>
  %r2 = kiln.reshape %t2 : (tensor<1x11x13x16xf32>) -> tensor<1x11x13x1x16xf32>
  %r3 = kiln.reshape %t3 : (tensor<1x11x13x16xf32>) -> tensor<1x11x13x1x16xf32>
  %patches = kiln.concatenate %r0, %r1, %r2, %r3, dim = 3 : (tensor<1x11x13x1x16xf32>, tensor<1x11x13x1x16xf32>, tensor<1x11x13x1x16xf32>, tensor<1x11x13x1x16xf32>) -> tensor<1x11x13x4x16xf32>
  %kernel = kiln.reshape %k : (tensor<2x2x16x8xf32>) -> tensor<4x16x8xf32>
  %y = kiln.dot_general %patches, %kernel, contracting = [3, 4] x [0, 1] : (tensor<1x11x13x4x16xf32>, tensor<4x16x8xf32>) -> tensor<1x11x13x8xf32>
  return %y : tensor<1x11x13x8xf32>
}

// -----

// A dilated 1-D window (taps 2 apart) that starts past the padding's first
// pixel: the pixels start at that pixel (2), and shift by 2 per position.
// CHECK-DAG: #[[SHIFT2:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3 * 2, d4)>
// CHECK-LABEL: func.func @dilated_1d
// CHECK: tensor.extract_slice %{{.*}}[0, 2, 0] [1, 18, 16] [1, 1, 1]
// CHECK: linalg.fill {{.*}} -> tensor<1x12x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[SHIFT2]],
func.func @dilated_1d(%x: tensor<1x20x16xf32>, %k: tensor<3x16x4xf32>) -> tensor<1x12x4xf32> {
  %t0 = kiln.slice %x [0:1, 2:14, 0:16] : (tensor<1x20x16xf32>) -> tensor<1x12x16xf32>
  %t1 = kiln.slice %x [0:1, 4:16, 0:16] : (tensor<1x20x16xf32>) -> tensor<1x12x16xf32>
  %t2 = kiln.slice %x [0:1, 6:18, 0:16] : (tensor<1x20x16xf32>) -> tensor<1x12x16xf32>
  %r0 = kiln.reshape %t0 : (tensor<1x12x16xf32>) -> tensor<1x12x1x16xf32>
  %r1 = kiln.reshape %t1 : (tensor<1x12x16xf32>) -> tensor<1x12x1x16xf32>
  %r2 = kiln.reshape %t2 : (tensor<1x12x16xf32>) -> tensor<1x12x1x16xf32>
  %patches = kiln.concatenate %r0, %r1, %r2, dim = 2 : (tensor<1x12x1x16xf32>, tensor<1x12x1x16xf32>, tensor<1x12x1x16xf32>) -> tensor<1x12x3x16xf32>
  %y = kiln.dot_general %patches, %k, contracting = [2, 3] x [0, 1] : (tensor<1x12x3x16xf32>, tensor<3x16x4xf32>) -> tensor<1x12x4xf32>
  return %y : tensor<1x12x4xf32>
}

// -----

// Fewer than 16 features into outputs that are no multiple of 16, strided
// taps of fewer than 16 features, and taps that are no grid (a position
// repeated) build their patches.
// CHECK-LABEL: func.func @patches_kept
// CHECK-COUNT-3: linalg.matmul
// CHECK-NOT: linalg.generic {{.*}}reduction
func.func @patches_kept(%x: tensor<1x20x8xf32>, %k8: tensor<2x8x4xf32>, %y: tensor<1x20x16xf32>, %k16: tensor<2x16x4xf32>) -> (tensor<1x10x4xf32>, tensor<1x9x4xf32>, tensor<1x10x4xf32>) {
  // 8 features.
  %a0 = kiln.slice %x [0:1, 0:10, 0:8] : (tensor<1x20x8xf32>) -> tensor<1x10x8xf32>
  %a1 = kiln.slice %x [0:1, 1:11, 0:8] : (tensor<1x20x8xf32>) -> tensor<1x10x8xf32>
  %ra0 = kiln.reshape %a0 : (tensor<1x10x8xf32>) -> tensor<1x10x1x8xf32>
  %ra1 = kiln.reshape %a1 : (tensor<1x10x8xf32>) -> tensor<1x10x1x8xf32>
  %pa = kiln.concatenate %ra0, %ra1, dim = 2 : (tensor<1x10x1x8xf32>, tensor<1x10x1x8xf32>) -> tensor<1x10x2x8xf32>
  %ya = kiln.dot_general %pa, %k8, contracting = [2, 3] x [0, 1] : (tensor<1x10x2x8xf32>, tensor<2x8x4xf32>) -> tensor<1x10x4xf32>
  // Stride 2 of 8 features.
  %b0 = kiln.slice %x [0:1, 0:17:2, 0:8] : (tensor<1x20x8xf32>) -> tensor<1x9x8xf32>
  %b1 = kiln.slice %x [0:1, 1:18:2, 0:8] : (tensor<1x20x8xf32>) -> tensor<1x9x8xf32>
  %rb0 = kiln.reshape %b0 : (tensor<1x9x8xf32>) -> tensor<1x9x1x8xf32>
  %rb1 = kiln.reshape %b1 : (tensor<1x9x8xf32>) -> tensor<1x9x1x8xf32>
  %pb = kiln.concatenate %rb0, %rb1, dim = 2 : (tensor<1x9x1x8xf32>, tensor<1x9x1x8xf32>) -> tensor<1x9x2x8xf32>
  %yb = kiln.dot_general %pb, %k8, contracting = [2, 3] x [0, 1] : (tensor<1x9x2x8xf32>, tensor<2x8x4xf32>) -> tensor<1x9x4xf32>
  // The same position twice.
  %c0 = kiln.slice %y [0:1, 3:13, 0:16] : (tensor<1x20x16xf32>) -> tensor<1x10x16xf32>
  %rc0 = kiln.reshape %c0 : (tensor<1x10x16xf32>) -> tensor<1x10x1x16xf32>
  %pc = kiln.concatenate %rc0, %rc0, dim = 2 : (tensor<1x10x1x16xf32>, tensor<1x10x1x16xf32>) -> tensor<1x10x2x16xf32>
  %yc = kiln.dot_general %pc, %k16, contracting = [2, 3] x [0, 1] : (tensor<1x10x2x16xf32>, tensor<2x16x4xf32>) -> tensor<1x10x4xf32>
  return %ya, %yb, %yc : tensor<1x10x4xf32>, tensor<1x9x4xf32>, tensor<1x10x4xf32>
}

// -----

// Fewer than 16 features (3, an RGB image's) into a multiple of 16 outputs
// is a window product too (here two images under a window of 2 taps 4
// apart); kiln-tile-and-vectorize's register tiles sum its whole window.
// CHECK-DAG: #[[SHIFT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3 * 4, d4)>
// CHECK-LABEL: func.func @few_features
// CHECK: linalg.generic {indexing_maps = [#[[SHIFT]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x12x3xf32>, tensor<2x3x16xf32>) outs(%{{.*}} : tensor<2x8x16xf32>)
// CHECK-NOT: linalg.matmul
func.func @few_features(%x: tensor<2x12x3xf32>, %k: tensor<2x3x16xf32>) -> tensor<2x8x16xf32> {
  %t0 = kiln.slice %x [0:2, 0:8, 0:3] : (tensor<2x12x3xf32>) -> tensor<2x8x3xf32>
  %t1 = kiln.slice %x [0:2, 4:12, 0:3] : (tensor<2x12x3xf32>) -> tensor<2x8x3xf32>
  %r0 = kiln.reshape %t0 : (tensor<2x8x3xf32>) -> tensor<2x8x1x3xf32>
  %r1 = kiln.reshape %t1 : (tensor<2x8x3xf32>) -> tensor<2x8x1x3xf32>
  %patches = kiln.concatenate %r0, %r1, dim = 2 : (tensor<2x8x1x3xf32>, tensor<2x8x1x3xf32>) -> tensor<2x8x2x3xf32>
  %y = kiln.dot_general %patches, %k, contracting = [2, 3] x [0, 1] : (tensor<2x8x2x3xf32>, tensor<2x3x16xf32>) -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

// A reshape that regroups the slice's elements (6 x 4 pixels as 4 x 6) is
// no window position: the patches are built.
// CHECK-LABEL: func.func @regrouped
// CHECK: linalg.matmul
// CHECK-NOT: linalg.generic {{.*}}reduction
func.func @regrouped(%x: tensor<1x7x4x16xf32>, %k: tensor<2x16x4xf32>) -> tensor<1x4x6x4xf32> {
  %t0 = kiln.slice %x [0:1, 0:6, 0:4, 0:16] : (tensor<1x7x4x16xf32>) -> tensor<1x6x4x16xf32>
  %t1 = kiln.slice %x [0:1, 1:7, 0:4, 0:16] : (tensor<1x7x4x16xf32>) -> tensor<1x6x4x16xf32>
  %r0 = kiln.reshape %t0 : (tensor<1x6x4x16xf32>) -> tensor<1x4x6x1x16xf32>
  %r1 = kiln.reshape %t1 : (tensor<1x6x4x16xf32>) -> tensor<1x4x6x1x16xf32>
  %patches = kiln.concatenate %r0, %r1, dim = 3 : (tensor<1x4x6x1x16xf32>, tensor<1x4x6x1x16xf32>) -> tensor<1x4x6x2x16xf32>
  %y = kiln.dot_general %patches, %k, contracting = [3, 4] x [0, 1] : (tensor<1x4x6x2x16xf32>, tensor<2x16x4xf32>) -> tensor<1x4x6x4xf32>
  return %y : tensor<1x4x6x4xf32>
}

// -----

// Strided taps of 16 features or more: by output lines too, reading the
// input from the first tap's pixel (1) at stride 3 per output and the
// dilation (2) per window position.
// CHECK-DAG: #[[STRIDED:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 3 + d3 * 2, d4)>
// CHECK-DAG: #[[TAPS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d3, d4, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @strided
// CHECK: %[[FROM:.*]] = tensor.extract_slice %{{.*}}[0, 1, 0] [1, 19, 16] [1, 1, 1]
// CHECK: %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<1x5x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[STRIDED]], #[[TAPS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[FROM]], %{{.*}} : tensor<1x19x16xf32>, tensor<2x16x4xf32>) outs(%[[ZEROS]] : tensor<1x5x4xf32>)
// CHECK-NOT: linalg.matmul
func.func @strided(%y: tensor<1x20x16xf32>, %k: tensor<2x16x4xf32>) -> tensor<1x5x4xf32> {
  %t0 = kiln.slice %y [0:1, 1:14:3, 0:16] : (tensor<1x20x16xf32>) -> tensor<1x5x16xf32>
  %t1 = kiln.slice %y [0:1, 3:16:3, 0:16] : (tensor<1x20x16xf32>) -> tensor<1x5x16xf32>
  %r0 = kiln.reshape %t0 : (tensor<1x5x16xf32>) -> tensor<1x5x1x16xf32>
  %r1 = kiln.reshape %t1 : (tensor<1x5x16xf32>) -> tensor<1x5x1x16xf32>
  %p = kiln.concatenate %r0, %r1, dim = 2 : (tensor<1x5x1x16xf32>, tensor<1x5x1x16xf32>) -> tensor<1x5x2x16xf32>
  %r = kiln.dot_general %p, %k, contracting = [2, 3] x [0, 1] : (tensor<1x5x2x16xf32>, tensor<2x16x4xf32>) -> tensor<1x5x4xf32>
  return %r : tensor<1x5x4xf32>
}
