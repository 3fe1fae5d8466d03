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

// Taps that are no grid (a position repeated), and bf16 taps of 16
// features or more (their patches' matmul multiplies bf16 pairs), build
// their patches.
// CHECK-LABEL: func.func @patches_kept
// CHECK-COUNT-2: linalg.matmul
// CHECK-NOT: linalg.generic {{.*}}reduction
func.func @patches_kept(%y: tensor<1x20x16xf32>, %k16: tensor<2x16x4xf32>, %b: tensor<1x20x16xbf16>, %kb: tensor<2x16x4xbf16>) -> (tensor<1x10x4xf32>, tensor<1x10x4xbf16>) {
  // The same position twice.
  %c0 = kiln.slice %y [0:1, 3:13, 0:16] : (tensor<1x20x16xf32>) -> tensor<1x10x16xf32>
  %rc0 = kiln.reshape %c0 : (tensor<1x10x16xf32>) -> tensor<1x10x1x16xf32>
  %pc = kiln.concatenate %rc0, %rc0, dim = 2 : (tensor<1x10x1x16xf32>, tensor<1x10x1x16xf32>) -> tensor<1x10x2x16xf32>
  %yc = kiln.dot_general %pc, %k16, contracting = [2, 3] x [0, 1] : (tensor<1x10x2x16xf32>, tensor<2x16x4xf32>) -> tensor<1x10x4xf32>
  // bf16, 16 features.
  %b0 = kiln.slice %b [0:1, 0:10, 0:16] : (tensor<1x20x16xbf16>) -> tensor<1x10x16xbf16>
  %b1 = kiln.slice %b [0:1, 1:11, 0:16] : (tensor<1x20x16xbf16>) -> tensor<1x10x16xbf16>
  %rb0 = kiln.reshape %b0 : (tensor<1x10x16xbf16>) -> tensor<1x10x1x16xbf16>
  %rb1 = kiln.reshape %b1 : (tensor<1x10x16xbf16>) -> tensor<1x10x1x16xbf16>
  %pb = kiln.concatenate %rb0, %rb1, dim = 2 : (tensor<1x10x1x16xbf16>, tensor<1x10x1x16xbf16>) -> tensor<1x10x2x16xbf16>
  %yb = kiln.dot_general %pb, %kb, contracting = [2, 3] x [0, 1] : (tensor<1x10x2x16xbf16>, tensor<2x16x4xbf16>) -> tensor<1x10x4xbf16>
  return %yc, %yb : tensor<1x10x4xf32>, tensor<1x10x4xbf16>
}

// -----

// Fewer than 16 features (3, an RGB image's) is a window product too, into
// any number of outputs (here two images under a window of 2 taps 4 apart
// into 16 outputs, and taps of stride 2 into 4);
// kiln-tile-and-vectorize's register tiles sum its whole window.
// CHECK-DAG: #[[SHIFT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3 * 4, d4)>
// CHECK-DAG: #[[STRIDE2:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 2 + d3, d4)>
// CHECK-LABEL: func.func @few_features
// CHECK: linalg.generic {indexing_maps = [#[[SHIFT]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x12x3xf32>, tensor<2x3x16xf32>) outs(%{{.*}} : tensor<2x8x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[STRIDE2]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x12x3xf32>, tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x5x4xf32>)
// CHECK-NOT: linalg.matmul
func.func @few_features(%x: tensor<2x12x3xf32>, %k: tensor<2x3x16xf32>, %k4: tensor<2x3x4xf32>) -> (tensor<2x8x16xf32>, tensor<2x5x4xf32>) {
  %t0 = kiln.slice %x [0:2, 0:8, 0:3] : (tensor<2x12x3xf32>) -> tensor<2x8x3xf32>
  %t1 = kiln.slice %x [0:2, 4:12, 0:3] : (tensor<2x12x3xf32>) -> tensor<2x8x3xf32>
  %r0 = kiln.reshape %t0 : (tensor<2x8x3xf32>) -> tensor<2x8x1x3xf32>
  %r1 = kiln.reshape %t1 : (tensor<2x8x3xf32>) -> tensor<2x8x1x3xf32>
  %patches = kiln.concatenate %r0, %r1, dim = 2 : (tensor<2x8x1x3xf32>, tensor<2x8x1x3xf32>) -> tensor<2x8x2x3xf32>
  %y = kiln.dot_general %patches, %k, contracting = [2, 3] x [0, 1] : (tensor<2x8x2x3xf32>, tensor<2x3x16xf32>) -> tensor<2x8x16xf32>
  %s0 = kiln.slice %x [0:2, 0:9:2, 0:3] : (tensor<2x12x3xf32>) -> tensor<2x5x3xf32>
  %s1 = kiln.slice %x [0:2, 1:10:2, 0:3] : (tensor<2x12x3xf32>) -> tensor<2x5x3xf32>
  %q0 = kiln.reshape %s0 : (tensor<2x5x3xf32>) -> tensor<2x5x1x3xf32>
  %q1 = kiln.reshape %s1 : (tensor<2x5x3xf32>) -> tensor<2x5x1x3xf32>
  %strided = kiln.concatenate %q0, %q1, dim = 2 : (tensor<2x5x1x3xf32>, tensor<2x5x1x3xf32>) -> tensor<2x5x2x3xf32>
  %z = kiln.dot_general %strided, %k4, contracting = [2, 3] x [0, 1] : (tensor<2x5x2x3xf32>, tensor<2x3x4xf32>) -> tensor<2x5x4xf32>
  return %y, %z : tensor<2x8x16xf32>, tensor<2x5x4xf32>
}

// -----

// bf16 taps of fewer than 16 features are a window product in f32: the
// input and kernel are widened once, before it, and its result rounded
// to bf16 after it.
// CHECK-LABEL: func.func @few_bf16_features
// CHECK: %[[X:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x12x3xbf16>) outs(%{{.*}} : tensor<2x12x3xf32>)
// CHECK: arith.extf
// CHECK: %[[K:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x3x20xbf16>) outs(%{{.*}} : tensor<2x3x20xf32>)
// CHECK: arith.extf
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[K]] : tensor<2x12x3xf32>, tensor<2x3x20xf32>) outs(%{{.*}} : tensor<2x8x20xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[Y]] : tensor<2x8x20xf32>) outs(%{{.*}} : tensor<2x8x20xbf16>)
// CHECK: arith.truncf
// CHECK-NOT: linalg.matmul
func.func @few_bf16_features(%x: tensor<2x12x3xbf16>, %k: tensor<2x3x20xbf16>) -> tensor<2x8x20xbf16> {
  %t0 = kiln.slice %x [0:2, 0:8, 0:3] : (tensor<2x12x3xbf16>) -> tensor<2x8x3xbf16>
  %t1 = kiln.slice %x [0:2, 4:12, 0:3] : (tensor<2x12x3xbf16>) -> tensor<2x8x3xbf16>
  %r0 = kiln.reshape %t0 : (tensor<2x8x3xbf16>) -> tensor<2x8x1x3xbf16>
  %r1 = kiln.reshape %t1 : (tensor<2x8x3xbf16>) -> tensor<2x8x1x3xbf16>
  %patches = kiln.concatenate %r0, %r1, dim = 2 : (tensor<2x8x1x3xbf16>, tensor<2x8x1x3xbf16>) -> tensor<2x8x2x3xbf16>
  %y = kiln.dot_general %patches, %k, contracting = [2, 3] x [0, 1] : (tensor<2x8x2x3xbf16>, tensor<2x3x20xbf16>) -> tensor<2x8x20xbf16>
  return %y : tensor<2x8x20xbf16>
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
