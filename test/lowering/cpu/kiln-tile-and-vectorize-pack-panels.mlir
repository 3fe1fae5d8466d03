// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0" --canonicalize --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 pack-panels=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=OFF

// B's rows 4 KiB apart (1024 floats), 128 rows of A: B is packed once into
// panels of 32 columns, [32, K, 32], row by row of 32 floats; the product
// runs over row blocks, then panels, then K, in register tiles of 8 x 32
// that read one panel's rows, into the result viewed as [M, 32, 32].
// CHECK-LABEL: func.func @packed
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [16, 32, 32] : tensor<16x1024xf32> into tensor<16x32x32xf32>
// CHECK: tensor.extract_slice %[[SPLIT]]
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

// Not packed: fewer than 128 rows; B's rows 4000 bytes apart, or 2 KiB;
// f64.
// CHECK-LABEL: func.func @unpacked
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @unpacked(%a: tensor<127x16xf32>, %b: tensor<16x1024xf32>, %c: tensor<127x1024xf32>,
                    %d: tensor<256x16xf32>, %e: tensor<16x1000xf32>, %f: tensor<256x1000xf32>,
                    %g: tensor<16x512xf32>, %h: tensor<256x512xf32>,
                    %i: tensor<256x16xf64>, %j: tensor<16x512xf64>, %k: tensor<256x512xf64>)
    -> (tensor<127x1024xf32>, tensor<256x1000xf32>, tensor<256x512xf32>, tensor<256x512xf64>) {
  %0 = linalg.matmul ins(%a, %b : tensor<127x16xf32>, tensor<16x1024xf32>) outs(%c : tensor<127x1024xf32>) -> tensor<127x1024xf32>
  %1 = linalg.matmul ins(%d, %e : tensor<256x16xf32>, tensor<16x1000xf32>) outs(%f : tensor<256x1000xf32>) -> tensor<256x1000xf32>
  %2 = linalg.matmul ins(%d, %g : tensor<256x16xf32>, tensor<16x512xf32>) outs(%h : tensor<256x512xf32>) -> tensor<256x512xf32>
  %3 = linalg.matmul ins(%i, %j : tensor<256x16xf64>, tensor<16x512xf64>) outs(%k : tensor<256x512xf64>) -> tensor<256x512xf64>
  return %0, %1, %2, %3 : tensor<127x1024xf32>, tensor<256x1000xf32>, tensor<256x512xf32>, tensor<256x512xf64>
}

// -----

// A product computed block by block for its epilogue (a ReLU) is not
// packed: each block would pack its part of B again.
// CHECK-LABEL: func.func @epilogue
// CHECK-NOT: tensor.expand_shape
// CHECK: arith.maximumf
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
