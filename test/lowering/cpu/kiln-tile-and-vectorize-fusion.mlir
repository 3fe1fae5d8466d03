// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=250000" --split-input-file | FileCheck %s

// Fusion that follows the data: an elementwise op computed from a row
// reduction (a normalization's last step) is tiled by blocks of rows that
// fit 64 KiB, and each block's producers (the squares, the sums in lanes,
// the fills) are computed in the loop, so the input is read from memory
// once per use in the block, not once per op.

// 512 x 256 (an estimated 180 us, under parallel-work): blocks of 64 rows
// in an scf.for; no op over all 512 rows is left.
// CHECK-LABEL: func.func @rows
// CHECK-NOT: scf.forall
// CHECK: scf.for %[[I:.*]] = %c0 to %c512 step %c64 iter_args
// CHECK: tensor.extract_slice %arg0[%[[I]], 0] [64, 256] [1, 1]
// CHECK: arith.mulf {{.*}} : vector<1x64xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} : vector<1x1x16xf32> to vector<1x16xf32>
// CHECK: arith.divf {{.*}} : vector<1x64xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[I]], 0] [64, 256] [1, 1]
// CHECK-NOT: tensor<512x16xf32>

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @rows(%arg0: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<512x256xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<512x256xf32>) outs(%0 : tensor<512x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.mulf %in, %in : f32
    linalg.yield %8 : f32
  } -> tensor<512x256xf32>
  %2 = tensor.empty() : tensor<512xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<512xf32>) -> tensor<512xf32>
  %expanded = tensor.expand_shape %1 [[0], [1, 2]] output_shape [512, 16, 16] : tensor<512x256xf32> into tensor<512x16x16xf32>
  %4 = tensor.empty() : tensor<512x16xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<512x16xf32>) -> tensor<512x16xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<512x16x16xf32>) outs(%5 : tensor<512x16xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %reduced_0 = linalg.reduce ins(%reduced : tensor<512x16xf32>) outs(%3 : tensor<512xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %6 = tensor.empty() : tensor<512x256xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %reduced_0 : tensor<512x256xf32>, tensor<512xf32>) outs(%6 : tensor<512x256xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.divf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<512x256xf32>
  return %7 : tensor<512x256xf32>
}

// -----

// Rows behind leading dimensions: a batch of one's [1, 512, 256] takes
// blocks of 64 of its 512 rows, as a [512, 256] does; attention's [2, 12,
// 64, 256] takes one batch and head at a time and blocks of its 64 rows
// (64 KiB), not a 1.5 MB block per batch. No op over all rows is left.
// CHECK-LABEL: func.func @batch_of_one
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c512 step %c64 iter_args
// CHECK: tensor.extract_slice %arg0[%{{.*}}, %[[I]], 0] [1, 64, 256] [1, 1, 1]
// CHECK: arith.divf {{.*}} : vector<1x1x64xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, %[[I]], 0] [1, 64, 256] [1, 1, 1]
// CHECK-NOT: tensor<1x512x16xf32>
// CHECK-LABEL: func.func @heads
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %c2 step %c1 iter_args
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %c12 step %{{.*}} iter_args
// CHECK: tensor.extract_slice %arg0[%[[B]], %[[H]], 0, 0] [1, 1, 64, 256] [1, 1, 1, 1]
// CHECK: arith.divf {{.*}} : vector<1x1x1x64xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[B]], %[[H]], 0, 0] [1, 1, 64, 256] [1, 1, 1, 1]
// CHECK-NOT: tensor<2x12x64x16xf32>

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @batch_of_one(%arg0: tensor<1x512x256xf32>) -> tensor<1x512x256xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x512xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x512xf32>) -> tensor<1x512xf32>
  %expanded = tensor.expand_shape %arg0 [[0], [1], [2, 3]] output_shape [1, 512, 16, 16] : tensor<1x512x256xf32> into tensor<1x512x16x16xf32>
  %2 = tensor.empty() : tensor<1x512x16xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x512x16xf32>) -> tensor<1x512x16xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<1x512x16x16xf32>) outs(%3 : tensor<1x512x16xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %6 = arith.addf %in, %init : f32
      linalg.yield %6 : f32
    }
  %reduced_0 = linalg.reduce ins(%reduced : tensor<1x512x16xf32>) outs(%1 : tensor<1x512xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %6 = arith.addf %in, %init : f32
      linalg.yield %6 : f32
    }
  %4 = tensor.empty() : tensor<1x512x256xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %reduced_0 : tensor<1x512x256xf32>, tensor<1x512xf32>) outs(%4 : tensor<1x512x256xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %6 = arith.divf %in, %in_1 : f32
    linalg.yield %6 : f32
  } -> tensor<1x512x256xf32>
  return %5 : tensor<1x512x256xf32>
}
func.func @heads(%arg0: tensor<2x12x64x256xf32>) -> tensor<2x12x64x256xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x12x64xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x12x64xf32>) -> tensor<2x12x64xf32>
  %expanded = tensor.expand_shape %arg0 [[0], [1], [2], [3, 4]] output_shape [2, 12, 64, 16, 16] : tensor<2x12x64x256xf32> into tensor<2x12x64x16x16xf32>
  %2 = tensor.empty() : tensor<2x12x64x16xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x12x64x16xf32>) -> tensor<2x12x64x16xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<2x12x64x16x16xf32>) outs(%3 : tensor<2x12x64x16xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %6 = arith.addf %in, %init : f32
      linalg.yield %6 : f32
    }
  %reduced_0 = linalg.reduce ins(%reduced : tensor<2x12x64x16xf32>) outs(%1 : tensor<2x12x64xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %6 = arith.addf %in, %init : f32
      linalg.yield %6 : f32
    }
  %4 = tensor.empty() : tensor<2x12x64x256xf32>
  %5 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %reduced_0 : tensor<2x12x64x256xf32>, tensor<2x12x64xf32>) outs(%4 : tensor<2x12x64x256xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %6 = arith.divf %in, %in_1 : f32
    linalg.yield %6 : f32
  } -> tensor<2x12x64x256xf32>
  return %5 : tensor<2x12x64x256xf32>
}

// -----

// A normalization whose result a matmul reads (attention's probabilities
// times values) still ends its chain: its rows are fused by blocks before
// the product, which starts a chain of its own.
// CHECK-LABEL: func.func @rows_into_matmul
// CHECK: scf.for %[[I:.*]] = %c0 to %c512 step %c64 iter_args
// CHECK: arith.divf {{.*}} : vector<1x64xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[I]], 0] [64, 256] [1, 1]
// CHECK: vector.contract
// CHECK-NOT: tensor<512x16xf32>

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @rows_into_matmul(%arg0: tensor<512x256xf32>, %v: tensor<256x64xf32>) -> tensor<512x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty() : tensor<512xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<512xf32>) -> tensor<512xf32>
  %expanded = tensor.expand_shape %arg0 [[0], [1, 2]] output_shape [512, 16, 16] : tensor<512x256xf32> into tensor<512x16x16xf32>
  %4 = tensor.empty() : tensor<512x16xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<512x16xf32>) -> tensor<512x16xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<512x16x16xf32>) outs(%5 : tensor<512x16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %reduced_0 = linalg.reduce ins(%reduced : tensor<512x16xf32>) outs(%3 : tensor<512xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %6 = tensor.empty() : tensor<512x256xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %reduced_0 : tensor<512x256xf32>, tensor<512xf32>) outs(%6 : tensor<512x256xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.divf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<512x256xf32>
  %e = tensor.empty() : tensor<512x64xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<512x64xf32>) -> tensor<512x64xf32>
  %o = linalg.matmul ins(%7, %v : tensor<512x256xf32>, tensor<256x64xf32>) outs(%z : tensor<512x64xf32>) -> tensor<512x64xf32>
  return %o : tensor<512x64xf32>
}

// -----

// A product whose B per batch fits 256 KiB (attention's scores from one
// head's keys) is computed block by block in the rows loop, each block's
// rows right before the chain reads them from cache; one that something
// outside the chain reads too is computed once, before the loop.
// CHECK-LABEL: func.func @product_rows
// CHECK-NOT: vector.contract
// CHECK: scf.for %[[I:.*]] = %c0 to %c512 step %c64 iter_args
// CHECK: vector.contract
// CHECK: arith.divf {{.*}} : vector<1x64xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[I]], 0] [64, 256] [1, 1]
// CHECK-LABEL: func.func @product_read_twice
// CHECK: vector.contract
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512{{.*}} step %c64{{.*}} iter_args
// CHECK-NOT: vector.contract
// CHECK: arith.divf {{.*}} : vector<1x64xf32>

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @product_rows(%a: tensor<512x64xf32>, %b: tensor<64x256xf32>) -> tensor<512x256xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<512x256xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e0 : tensor<512x256xf32>) -> tensor<512x256xf32>
  %x = linalg.matmul ins(%a, %b : tensor<512x64xf32>, tensor<64x256xf32>) outs(%z : tensor<512x256xf32>) -> tensor<512x256xf32>
  %2 = tensor.empty() : tensor<512xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<512xf32>) -> tensor<512xf32>
  %expanded = tensor.expand_shape %x [[0], [1, 2]] output_shape [512, 16, 16] : tensor<512x256xf32> into tensor<512x16x16xf32>
  %4 = tensor.empty() : tensor<512x16xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<512x16xf32>) -> tensor<512x16xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<512x16x16xf32>) outs(%5 : tensor<512x16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %reduced_0 = linalg.reduce ins(%reduced : tensor<512x16xf32>) outs(%3 : tensor<512xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %6 = tensor.empty() : tensor<512x256xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %reduced_0 : tensor<512x256xf32>, tensor<512xf32>) outs(%6 : tensor<512x256xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.divf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<512x256xf32>
  return %7 : tensor<512x256xf32>
}
func.func @product_read_twice(%a: tensor<512x64xf32>, %b: tensor<64x256xf32>) -> (tensor<512x256xf32>, tensor<512x256xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<512x256xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e0 : tensor<512x256xf32>) -> tensor<512x256xf32>
  %x = linalg.matmul ins(%a, %b : tensor<512x64xf32>, tensor<64x256xf32>) outs(%z : tensor<512x256xf32>) -> tensor<512x256xf32>
  %2 = tensor.empty() : tensor<512xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<512xf32>) -> tensor<512xf32>
  %expanded = tensor.expand_shape %x [[0], [1, 2]] output_shape [512, 16, 16] : tensor<512x256xf32> into tensor<512x16x16xf32>
  %4 = tensor.empty() : tensor<512x16xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<512x16xf32>) -> tensor<512x16xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<512x16x16xf32>) outs(%5 : tensor<512x16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %reduced_0 = linalg.reduce ins(%reduced : tensor<512x16xf32>) outs(%3 : tensor<512xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %6 = tensor.empty() : tensor<512x256xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %reduced_0 : tensor<512x256xf32>, tensor<512xf32>) outs(%6 : tensor<512x256xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.divf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<512x256xf32>
  return %7, %x : tensor<512x256xf32>, tensor<512x256xf32>
}

// -----

// A reduction's blocks are single rows: a product computed in them would
// run a row at a time, so the product stays outside, computed once.
// CHECK-LABEL: func.func @product_row_sums
// CHECK: vector.contract
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512{{.*}} step %c1 iter_args
// CHECK-NOT: vector.contract
// CHECK: vector.multi_reduction <add>

func.func @product_row_sums(%a: tensor<512x64xf32>, %b: tensor<64x256xf32>) -> tensor<512xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<512x256xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e0 : tensor<512x256xf32>) -> tensor<512x256xf32>
  %x = linalg.matmul ins(%a, %b : tensor<512x64xf32>, tensor<64x256xf32>) outs(%z : tensor<512x256xf32>) -> tensor<512x256xf32>
  %2 = tensor.empty() : tensor<512xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<512xf32>) -> tensor<512xf32>
  %expanded = tensor.expand_shape %x [[0], [1, 2]] output_shape [512, 16, 16] : tensor<512x256xf32> into tensor<512x16x16xf32>
  %4 = tensor.empty() : tensor<512x16xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<512x16xf32>) -> tensor<512x16xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<512x16x16xf32>) outs(%5 : tensor<512x16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %reduced_0 = linalg.reduce ins(%reduced : tensor<512x16xf32>) outs(%3 : tensor<512xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  return %reduced_0 : tensor<512xf32>
}

// -----

// 2048 x 1024 (an estimated 2 ms): blocks of 16 rows (4 KiB each) in an
// scf.forall that threads share; each block's intermediate values are
// blocks of their own, not slices of tensors of all the rows.
// CHECK-LABEL: func.func @large_rows
// CHECK: scf.forall (%[[I:.*]]) = (0) to (2048) step (16) shared_outs
// CHECK: tensor.empty() : tensor<16x1024xf32>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[I]], 0] [16, 1024] [1, 1]
// CHECK-NOT: tensor.empty() : tensor<2048x1024xf32>

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @large_rows(%arg0: tensor<2048x1024xf32>) -> tensor<2048x1024xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2048x1024xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2048x1024xf32>) outs(%0 : tensor<2048x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.mulf %in, %in : f32
    linalg.yield %8 : f32
  } -> tensor<2048x1024xf32>
  %2 = tensor.empty() : tensor<2048xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2048xf32>) -> tensor<2048xf32>
  %expanded = tensor.expand_shape %1 [[0], [1, 2]] output_shape [2048, 16, 64] : tensor<2048x1024xf32> into tensor<2048x16x64xf32>
  %4 = tensor.empty() : tensor<2048x64xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2048x64xf32>) -> tensor<2048x64xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<2048x16x64xf32>) outs(%5 : tensor<2048x64xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %reduced_0 = linalg.reduce ins(%reduced : tensor<2048x64xf32>) outs(%3 : tensor<2048xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %6 = tensor.empty() : tensor<2048x1024xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %reduced_0 : tensor<2048x1024xf32>, tensor<2048xf32>) outs(%6 : tensor<2048x1024xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.divf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<2048x1024xf32>
  return %7 : tensor<2048x1024xf32>
}

// -----

// Exponentials both divided and summed (a softmax) are fused once per
// block of 64 rows, not once per reader.
// CHECK-LABEL: func.func @exponentials
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c64
// CHECK: math.exp
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @exponentials(%arg0: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<512x256xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<512x256xf32>) outs(%0 : tensor<512x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = math.exp %in : f32
    linalg.yield %8 : f32
  } -> tensor<512x256xf32>
  %2 = tensor.empty() : tensor<512xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<512xf32>) -> tensor<512xf32>
  %expanded = tensor.expand_shape %1 [[0], [1, 2]] output_shape [512, 16, 16] : tensor<512x256xf32> into tensor<512x16x16xf32>
  %4 = tensor.empty() : tensor<512x16xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<512x16xf32>) -> tensor<512x16xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<512x16x16xf32>) outs(%5 : tensor<512x16xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %reduced_0 = linalg.reduce ins(%reduced : tensor<512x16xf32>) outs(%3 : tensor<512xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %6 = tensor.empty() : tensor<512x256xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %reduced_0 : tensor<512x256xf32>, tensor<512xf32>) outs(%6 : tensor<512x256xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.divf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<512x256xf32>
  return %7 : tensor<512x256xf32>
}

// -----

// A column sum needs every row for each block: it is computed once, over
// all the rows, before the blocks of the division.
// CHECK-LABEL: func.func @column_sums
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c512{{.*}} step %c1
// CHECK: vector.multi_reduction <add>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c512{{.*}} step %c64
// CHECK-NOT: vector.multi_reduction
// CHECK: arith.divf

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @column_sums(%arg0: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<256xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<256xf32>) -> tensor<256xf32>
  %reduced = linalg.reduce ins(%arg0 : tensor<512x256xf32>) outs(%1 : tensor<256xf32>) dimensions = [0] 
    (%in: f32, %init: f32) {
      %4 = arith.addf %in, %init : f32
      linalg.yield %4 : f32
    }
  %2 = tensor.empty() : tensor<512x256xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %reduced : tensor<512x256xf32>, tensor<256xf32>) outs(%2 : tensor<512x256xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %4 = arith.divf %in, %in_0 : f32
    linalg.yield %4 : f32
  } -> tensor<512x256xf32>
  return %3 : tensor<512x256xf32>
}

// -----

// Rows of 100: the sum reads the exponentials as 96 lanes' columns and a
// remainder of 4, the division reads all 100. Fusion computes them once
// per block of 128 rows and slices the sum's parts from them.
// CHECK-LABEL: func.func @exponential_parts
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c128
// CHECK-COUNT-2: math.exp
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @exponential_parts(%arg0: tensor<256x100xf32>) -> tensor<256x100xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<256x100xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<256x100xf32>) outs(%0 : tensor<256x100xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = math.exp %in : f32
    linalg.yield %8 : f32
  } -> tensor<256x100xf32>
  %2 = tensor.empty() : tensor<256xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<256xf32>) -> tensor<256xf32>
  %lanes = tensor.extract_slice %1[0, 0] [256, 96] [1, 1] : tensor<256x100xf32> to tensor<256x96xf32>
  %expanded = tensor.expand_shape %lanes [[0], [1, 2]] output_shape [256, 6, 16] : tensor<256x96xf32> into tensor<256x6x16xf32>
  %4 = tensor.empty() : tensor<256x16xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<256x16xf32>) -> tensor<256x16xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<256x6x16xf32>) outs(%5 : tensor<256x16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %reduced_0 = linalg.reduce ins(%reduced : tensor<256x16xf32>) outs(%3 : tensor<256xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %rest = tensor.extract_slice %1[0, 96] [256, 4] [1, 1] : tensor<256x100xf32> to tensor<256x4xf32>
  %reduced_1 = linalg.reduce ins(%rest : tensor<256x4xf32>) outs(%reduced_0 : tensor<256xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %6 = tensor.empty() : tensor<256x100xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %reduced_1 : tensor<256x100xf32>, tensor<256xf32>) outs(%6 : tensor<256x100xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.divf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<256x100xf32>
  return %7 : tensor<256x100xf32>
}

// -----

// A softmax whose scaling reads the exponentials of x - max after the sum
// reads its 96 lanes' columns and the remainder of 4, and whose maxima's
// broadcast a comparison reads too: the scaling's copy of all 100 columns
// moves up before the sum's parts, which become slices of it, and the parts
// of the broadcast they read do not stop that. The exponentials are
// computed once, by vectors of 64 and 36.
// CHECK-LABEL: func.func @exponentials_before_their_parts
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c128
// CHECK: math.exp %{{.*}} : vector<1x64xf32>
// CHECK: math.exp %{{.*}} : vector<1x36xf32>
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
func.func @exponentials_before_their_parts(%arg0: tensor<256x100xf32>) -> tensor<256x100xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<256xf32>
  %1 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<256xf32>) -> tensor<256xf32>
  %extracted_slice = tensor.extract_slice %arg0[0, 0] [256, 96] [1, 1] : tensor<256x100xf32> to tensor<256x96xf32>
  %expanded = tensor.expand_shape %extracted_slice [[0], [1, 2]] output_shape [256, 6, 16] : tensor<256x96xf32> into tensor<256x6x16xf32>
  %2 = tensor.empty() : tensor<256x16xf32>
  %3 = linalg.fill ins(%cst_1 : f32) outs(%2 : tensor<256x16xf32>) -> tensor<256x16xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<256x6x16xf32>) outs(%3 : tensor<256x16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %14 = arith.maximumf %in, %init : f32
      linalg.yield %14 : f32
    }
  %reduced_2 = linalg.reduce ins(%reduced : tensor<256x16xf32>) outs(%1 : tensor<256xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %14 = arith.maximumf %in, %init : f32
      linalg.yield %14 : f32
    }
  %extracted_slice_3 = tensor.extract_slice %arg0[0, 96] [256, 4] [1, 1] : tensor<256x100xf32> to tensor<256x4xf32>
  %reduced_4 = linalg.reduce ins(%extracted_slice_3 : tensor<256x4xf32>) outs(%reduced_2 : tensor<256xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %14 = arith.maximumf %in, %init : f32
      linalg.yield %14 : f32
    }
  %4 = tensor.empty() : tensor<256x100xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%reduced_4 : tensor<256xf32>) outs(%4 : tensor<256x100xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<256x100xf32>
  %6 = tensor.empty() : tensor<256x100xf32>
  %7 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0, %5 : tensor<256x100xf32>, tensor<256x100xf32>) outs(%6 : tensor<256x100xf32>) {
  ^bb0(%in: f32, %in_11: f32, %out: f32):
    %14 = arith.subf %in, %in_11 : f32
    %15 = math.exp %14 : f32
    linalg.yield %15 : f32
  } -> tensor<256x100xf32>
  %8 = tensor.empty() : tensor<256xf32>
  %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<256xf32>) -> tensor<256xf32>
  %extracted_slice_5 = tensor.extract_slice %7[0, 0] [256, 96] [1, 1] : tensor<256x100xf32> to tensor<256x96xf32>
  %expanded_6 = tensor.expand_shape %extracted_slice_5 [[0], [1, 2]] output_shape [256, 6, 16] : tensor<256x96xf32> into tensor<256x6x16xf32>
  %10 = tensor.empty() : tensor<256x16xf32>
  %11 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<256x16xf32>) -> tensor<256x16xf32>
  %reduced_7 = linalg.reduce ins(%expanded_6 : tensor<256x6x16xf32>) outs(%11 : tensor<256x16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %14 = arith.addf %in, %init : f32
      linalg.yield %14 : f32
    }
  %reduced_8 = linalg.reduce ins(%reduced_7 : tensor<256x16xf32>) outs(%9 : tensor<256xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %14 = arith.addf %in, %init : f32
      linalg.yield %14 : f32
    }
  %extracted_slice_9 = tensor.extract_slice %7[0, 96] [256, 4] [1, 1] : tensor<256x100xf32> to tensor<256x4xf32>
  %reduced_10 = linalg.reduce ins(%extracted_slice_9 : tensor<256x4xf32>) outs(%reduced_8 : tensor<256xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %14 = arith.addf %in, %init : f32
      linalg.yield %14 : f32
    }
  %12 = tensor.empty() : tensor<256x100xf32>
  %13 = linalg.generic {indexing_maps = [#map, #map1, #map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%reduced_10, %7, %arg0, %5 : tensor<256xf32>, tensor<256x100xf32>, tensor<256x100xf32>, tensor<256x100xf32>) outs(%12 : tensor<256x100xf32>) {
  ^bb0(%in: f32, %in_11: f32, %in_12: f32, %in_13: f32, %out: f32):
    %14 = arith.cmpf oeq, %in_12, %in_13 : f32
    %15 = arith.uitofp %14 : i1 to f32
    %16 = arith.divf %cst, %in : f32
    %17 = arith.mulf %16, %in_11 : f32
    %18 = arith.addf %17, %15 : f32
    linalg.yield %18 : f32
  } -> tensor<256x100xf32>
  return %13 : tensor<256x100xf32>
}

// -----

// Exponentials that a result reads too would be computed both in the loop
// and outside it: the chain stays unfused, each op over all the rows.
// CHECK-LABEL: func.func @exponentials_returned
// CHECK-NOT: step %c64
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c1
// CHECK: math.exp

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @exponentials_returned(%arg0: tensor<512x256xf32>) -> (tensor<512x256xf32>, tensor<512x256xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<512x256xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<512x256xf32>) outs(%0 : tensor<512x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = math.exp %in : f32
    linalg.yield %8 : f32
  } -> tensor<512x256xf32>
  %2 = tensor.empty() : tensor<512xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<512xf32>) -> tensor<512xf32>
  %reduced = linalg.reduce ins(%1 : tensor<512x256xf32>) outs(%3 : tensor<512xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %6 = tensor.empty() : tensor<512x256xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %reduced : tensor<512x256xf32>, tensor<512xf32>) outs(%6 : tensor<512x256xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.divf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<512x256xf32>
  return %7, %1 : tensor<512x256xf32>, tensor<512x256xf32>
}

// -----

// Matmul epilogues: a bias add and ReLU reading a 512 x 256 x 512 product
// (an estimated 1.3 ms) run on blocks of it, in an scf.forall over 256
// columns by 64 rows (blocks of 256 rows would make 4 blocks, fewer than
// the 10 chunks the work asks for): each block of the product is computed
// over all of K in a buffer of its own, each register tile from zeros,
// then biased from cache. B, its rows 2 KiB apart, is packed into panels
// before the loop, each block reading its columns' 8. No product of all
// 512 x 512 is left.
// CHECK-LABEL: func.func @epilogue
// CHECK: %[[PANELS:.*]] = scf.for {{.*}} -> (tensor<16x256x32xf32>)
// CHECK: scf.forall (%[[N:.*]], %[[M:.*]]) = (0, 0) to (512, 512) step (256, 64)
// CHECK: tensor.extract_slice %arg0[%[[M]], 0] [64, 256] [1, 1]
// CHECK: tensor.empty() : tensor<64x256xf32>
// CHECK: tensor.extract_slice %[[PANELS]][%{{.*}}, 0, 0] [8, 256, 32] [1, 1, 1]
// CHECK: vector.transfer_write %{{.*}}, %{{.*}} : vector<8x1x32xf32>, tensor<8x1x32xf32>
// CHECK: vector.contract
// CHECK: arith.addf %{{.*}} : vector<1x64xf32>
// CHECK: arith.maximumf %{{.*}} : vector<1x64xf32>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[M]], %[[N]]] [64, 256] [1, 1]
// CHECK-NOT: linalg.matmul
// CHECK-NOT: tensor<512x512xf32> into

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @epilogue(%arg0: tensor<512x256xf32>, %arg1: tensor<256x512xf32>, %arg2: tensor<512xf32>) -> tensor<512x512xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<512x512xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<512x256xf32>, tensor<256x512xf32>) outs(%1 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %3 = tensor.empty() : tensor<512x512xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<512x512xf32>, tensor<512xf32>) outs(%3 : tensor<512x512xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.addf %in, %in_0 : f32
    %6 = arith.maximumf %5, %cst : f32
    linalg.yield %6 : f32
  } -> tensor<512x512xf32>
  return %4 : tensor<512x512xf32>
}

// -----

// An SGD update of a weight gradient, W - 0.05 X^T dY (784 x 256 x 512,
// from a 256-row batch): blocks of 56 rows by all 512 columns (B's 512 KiB
// stay in L2 as they pass), each transposing its 56 rows of X^T (all 256
// of K) once, in a buffer of its own while it computes them, rather than
// one thread transposing all of X before the blocks start.
// CHECK-LABEL: func.func @transposed_rows_in_blocks
// CHECK-NOT: linalg.transpose
// CHECK: scf.forall (%[[M:.*]]) = (0) to (784) step (56)
// CHECK: tensor.extract_slice %arg0[0, %[[M]]] [256, 56] [1, 1]
// CHECK: tensor.empty() : tensor<56x256xf32>
// CHECK: vector.transfer_read {{.*}} {permutation_map = {{.*}}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK: vector.contract
// CHECK: arith.subf %{{.*}} : vector<1x64xf32>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[M]], 0] [56, 512] [1, 1]
// CHECK-NOT: linalg.transpose

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @transposed_rows_in_blocks(%x: tensor<256x784xf32>, %dy: tensor<256x512xf32>, %w: tensor<784x512xf32>) -> tensor<784x512xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %lr = arith.constant 5.000000e-02 : f32
  %0 = tensor.empty() : tensor<784x256xf32>
  %xt = linalg.transpose ins(%x : tensor<256x784xf32>) outs(%0 : tensor<784x256xf32>) permutation = [1, 0]
  %1 = tensor.empty() : tensor<784x512xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<784x512xf32>) -> tensor<784x512xf32>
  %3 = linalg.matmul ins(%xt, %dy : tensor<784x256xf32>, tensor<256x512xf32>) outs(%2 : tensor<784x512xf32>) -> tensor<784x512xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%w, %3 : tensor<784x512xf32>, tensor<784x512xf32>) outs(%1 : tensor<784x512xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.mulf %in_0, %lr : f32
    %6 = arith.subf %in, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<784x512xf32>
  return %4 : tensor<784x512xf32>
}

// -----

// The same update from a batch of 4096: 56 rows of X^T are 896 KiB, more
// than half a thread's buffers (1 MiB, beside its block's own); the
// transpose runs first, in chunks of its own that threads share (whole
// 16-row blocks of it: 12 chunks of 4 of its 49 blocks, then the last).
// CHECK-LABEL: func.func @transposed_rows_too_long
// CHECK: scf.forall (%{{.*}}) = (0) to (768) step (64) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<768x4096xf32>)
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c16 step %c16
// CHECK: %[[XT:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[768, 0] [16, 4096] [1, 1]
// CHECK: scf.forall (%[[N:.*]], %[[M:.*]]) = (0, 0) to (512, 784) step (256, 56)
// CHECK: tensor.extract_slice %[[XT]][%[[M]], 0] [56, 4096] [1, 1]

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @transposed_rows_too_long(%x: tensor<4096x784xf32>, %dy: tensor<4096x512xf32>, %w: tensor<784x512xf32>) -> tensor<784x512xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %lr = arith.constant 5.000000e-02 : f32
  %0 = tensor.empty() : tensor<784x4096xf32>
  %xt = linalg.transpose ins(%x : tensor<4096x784xf32>) outs(%0 : tensor<784x4096xf32>) permutation = [1, 0]
  %1 = tensor.empty() : tensor<784x512xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<784x512xf32>) -> tensor<784x512xf32>
  %3 = linalg.matmul ins(%xt, %dy : tensor<784x4096xf32>, tensor<4096x512xf32>) outs(%2 : tensor<784x512xf32>) -> tensor<784x512xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%w, %3 : tensor<784x512xf32>, tensor<784x512xf32>) outs(%1 : tensor<784x512xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.mulf %in_0, %lr : f32
    %6 = arith.subf %in, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<784x512xf32>
  return %4 : tensor<784x512xf32>
}

// -----

// Not epilogues: a product that is also returned (fusing would compute it
// twice), and one of 10 columns (each block would pad B): each product is
// computed whole (the first in 4 chunks of 4 panels, for threads), then
// its tanh.
// CHECK-LABEL: func.func @not_epilogues
// CHECK: scf.forall (%{{.*}}) = (0) to (16) step (4)
// CHECK: vector.contract
// CHECK: scf.forall.in_parallel
// CHECK: scf.for %{{.*}} = %{{.*}} to %c256
// CHECK: math.tanh %{{.*}} : vector<1x64xf32>
// CHECK: tensor.empty() : tensor<256x16xf32>
// CHECK: vector.contract
// CHECK: math.tanh %{{.*}} : vector<1x10xf32>

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_epilogues(%arg0: tensor<256x256xf32>, %arg1: tensor<256x512xf32>, %arg2: tensor<256x10xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x10xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<256x512xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<256x512xf32>) -> tensor<256x512xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<256x256xf32>, tensor<256x512xf32>) outs(%1 : tensor<256x512xf32>) -> tensor<256x512xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<256x512xf32>) outs(%0 : tensor<256x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %4 = math.tanh %in : f32
    linalg.yield %4 : f32
  } -> tensor<256x512xf32>
  %5 = tensor.empty() : tensor<256x10xf32>
  %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<256x10xf32>) -> tensor<256x10xf32>
  %7 = linalg.matmul ins(%arg0, %arg2 : tensor<256x256xf32>, tensor<256x10xf32>) outs(%6 : tensor<256x10xf32>) -> tensor<256x10xf32>
  %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<256x10xf32>) outs(%5 : tensor<256x10xf32>) {
  ^bb0(%in: f32, %out: f32):
    %9 = math.tanh %in : f32
    linalg.yield %9 : f32
  } -> tensor<256x10xf32>
  return %2, %3, %8 : tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x10xf32>
}

// -----

// A sum over an empty dimension (its loop has no iterations) read through a
// slice stays whole: it is not fused into the reader (tiling it crashed
// upstream; scripts/fuzz.py, seed 2013336).
// CHECK-LABEL: func.func @empty_sum_then_slice
// CHECK: linalg.reduce ins(%{{.*}} : tensor<7x0x17xf32>)
// CHECK: scf.for
// CHECK: arith.negf
#map = affine_map<(d0) -> (d0)>
func.func @empty_sum_then_slice(%x: tensor<7x0x17xf32>) -> tensor<16xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e17 = tensor.empty() : tensor<17xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e17 : tensor<17xf32>) -> tensor<17xf32>
  %sum = linalg.reduce ins(%x : tensor<7x0x17xf32>) outs(%init : tensor<17xf32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %part = tensor.extract_slice %sum[1] [16] [1] : tensor<17xf32> to tensor<16xf32>
  %e16 = tensor.empty() : tensor<16xf32>
  %neg = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%part : tensor<16xf32>) outs(%e16 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<16xf32>
  return %neg : tensor<16xf32>
}

// -----

// A reduction can end the chain too: y = A x in lanes (as kiln's
// dot_general lowers a matrix-vector product, K = 777: 12 groups of 64 and
// 9 columns after them) runs a row at a time, the row's lanes of partial
// sums summed as soon as they are complete and its last 9 products added,
// instead of a pass that writes 300 x 64 partial sums and two more passes.
// The loop over the 12 groups is marked for LLVM to keep rolled.
// CHECK-LABEL: func.func @matrix_vector
// CHECK-NOT: tensor<300x64xf32>
// CHECK: scf.for %[[I:.*]] = %c0 to %c300 step %c1 iter_args
// CHECK: tensor.extract_slice %arg0[%[[I]], 768] [1, 9] [1, 1]
// CHECK: tensor.extract_slice %arg0[%[[I]], %{{.*}}] [1, 768] [1, 1]
// CHECK: scf.for %{{.*}} = %{{.*}} to %c12 step
// CHECK: arith.mulf {{.*}} : vector<1x1x64xf32>
// CHECK: } {loop_annotation = #loop_annotation}
// CHECK: vector.multi_reduction <add>, {{.*}} [1] : vector<1x64xf32> to vector<1xf32>
// CHECK: arith.mulf {{.*}} : vector<1x9xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} [1] : vector<1x9xf32> to vector<1xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[I]]] [1] [1] : tensor<1xf32> into tensor<300xf32>
// CHECK-NOT: tensor<300x64xf32>

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d1)>
#map5 = affine_map<(d0, d1) -> (d0)>
func.func @matrix_vector(%a: tensor<300x777xf32>, %x: tensor<777xf32>) -> tensor<300xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %a_whole = tensor.extract_slice %a[0, 0] [300, 768] [1, 1] : tensor<300x777xf32> to tensor<300x768xf32>
  %x_whole = tensor.extract_slice %x[0] [768] [1] : tensor<777xf32> to tensor<768xf32>
  %a_groups = tensor.expand_shape %a_whole [[0], [1, 2]] output_shape [300, 12, 64] : tensor<300x768xf32> into tensor<300x12x64xf32>
  %x_groups = tensor.expand_shape %x_whole [[0, 1]] output_shape [12, 64] : tensor<768xf32> into tensor<12x64xf32>
  %0 = tensor.empty() : tensor<300x64xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<300x64xf32>) -> tensor<300x64xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a_groups, %x_groups : tensor<300x12x64xf32>, tensor<12x64xf32>) outs(%1 : tensor<300x64xf32>) {
  ^bb0(%in: f32, %in_6: f32, %out: f32):
    %6 = arith.mulf %in, %in_6 : f32
    %7 = arith.addf %6, %out : f32
    linalg.yield %7 : f32
  } -> tensor<300x64xf32>
  %3 = tensor.empty() : tensor<300xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<300xf32>) -> tensor<300xf32>
  %reduced = linalg.reduce ins(%2 : tensor<300x64xf32>) outs(%4 : tensor<300xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %6 = arith.addf %in, %init : f32
      linalg.yield %6 : f32
    }
  %a_rest = tensor.extract_slice %a[0, 768] [300, 9] [1, 1] : tensor<300x777xf32> to tensor<300x9xf32>
  %x_rest = tensor.extract_slice %x[768] [9] [1] : tensor<777xf32> to tensor<9xf32>
  %5 = linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "reduction"]} ins(%a_rest, %x_rest : tensor<300x9xf32>, tensor<9xf32>) outs(%reduced : tensor<300xf32>) {
  ^bb0(%in: f32, %in_6: f32, %out: f32):
    %6 = arith.mulf %in, %in_6 : f32
    %7 = arith.addf %6, %out : f32
    linalg.yield %7 : f32
  } -> tensor<300xf32>
  return %5 : tensor<300xf32>
}

// -----

// Row sums of 8192 x 1024 (an estimated 420 us at a reduction's 80 GB/s):
// rows shared by threads, one a step, the lanes' sums of each summed on
// the spot.
// CHECK-LABEL: func.func @row_sums
// CHECK: scf.forall (%[[I:.*]]) in (8192)
// CHECK: tensor.extract_slice %arg0[%[[I]], 0, 0] [1, 16, 64] [1, 1, 1]
// CHECK: vector.multi_reduction <add>, {{.*}} [1] : vector<1x1x64xf32> to vector<1x64xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} [1] : vector<1x64xf32> to vector<1xf32>
// CHECK-NOT: tensor<8192x64xf32>

func.func @row_sums(%x: tensor<8192x16x64xf32>) -> tensor<8192xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<8192x64xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8192x64xf32>) -> tensor<8192x64xf32>
  %lanes = linalg.reduce ins(%x : tensor<8192x16x64xf32>) outs(%1 : tensor<8192x64xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  %2 = tensor.empty() : tensor<8192xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8192xf32>) -> tensor<8192xf32>
  %sums = linalg.reduce ins(%lanes : tensor<8192x64xf32>) outs(%3 : tensor<8192xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %sums : tensor<8192xf32>
}

// -----

// A matmul does not end a chain that rows fusion computes a row at a time:
// the partial sums its A is made of are computed whole, and the matmul
// keeps its register tiles of 8 rows.
// CHECK-LABEL: func.func @matmul_of_sums
// CHECK-NOT: scf.forall
// CHECK: vector.multi_reduction <add>, {{.*}} : vector<1x1x16xf32> to vector<1x16xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>

func.func @matmul_of_sums(%x: tensor<64x4x16xf32>, %w: tensor<16x32xf32>) -> tensor<64x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x16xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x16xf32>) -> tensor<64x16xf32>
  %sums = linalg.reduce ins(%x : tensor<64x4x16xf32>) outs(%1 : tensor<64x16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  %2 = tensor.empty() : tensor<64x32xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %4 = linalg.matmul ins(%sums, %w : tensor<64x16xf32>, tensor<16x32xf32>) outs(%3 : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %4 : tensor<64x32xf32>
}

// -----

// Row maxima that a whole-tensor maximum reduces further (over its first
// loop, no rows fusion root) end their chain: each row's absolute values
// are computed in the rows loop, not written whole first.
// CHECK-LABEL: func.func @row_maxima_then_total
// CHECK-NOT: into tensor<256x512xf32>
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK: tensor.extract_slice %arg0[%[[ROW]], 0] [1, 512] [1, 1]
// CHECK: math.absf {{.*}} : vector<1x64xf32>
// CHECK: vector.multi_reduction <maximumf>, {{.*}} [1] : vector<1x1x64xf32> to vector<1x64xf32>
// CHECK: vector.multi_reduction <maximumf>, {{.*}} [1] : vector<1x64xf32> to vector<1xf32>
// CHECK: vector.multi_reduction <maximumf>, {{.*}} [0] : vector<1x16xf32> to vector<16xf32>

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @row_maxima_then_total(%arg0: tensor<256x512xf32>) -> tensor<f32> {
  %cst = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<256x512xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<256x512xf32>) outs(%0 : tensor<256x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %10 = math.absf %in : f32
    linalg.yield %10 : f32
  } -> tensor<256x512xf32>
  %2 = tensor.empty() : tensor<f32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<f32>) -> tensor<f32>
  %4 = tensor.empty() : tensor<256xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<256xf32>) -> tensor<256xf32>
  %expanded = tensor.expand_shape %1 [[0], [1, 2]] output_shape [256, 8, 64] : tensor<256x512xf32> into tensor<256x8x64xf32>
  %6 = tensor.empty() : tensor<256x64xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<256x64xf32>) -> tensor<256x64xf32>
  %reduced = linalg.reduce ins(%expanded : tensor<256x8x64xf32>) outs(%7 : tensor<256x64xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %10 = arith.maximumf %in, %init : f32
      linalg.yield %10 : f32
    }
  %reduced_0 = linalg.reduce ins(%reduced : tensor<256x64xf32>) outs(%5 : tensor<256xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %10 = arith.maximumf %in, %init : f32
      linalg.yield %10 : f32
    }
  %expanded_1 = tensor.expand_shape %reduced_0 [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %8 = tensor.empty() : tensor<16xf32>
  %9 = linalg.fill ins(%cst : f32) outs(%8 : tensor<16xf32>) -> tensor<16xf32>
  %reduced_2 = linalg.reduce ins(%expanded_1 : tensor<16x16xf32>) outs(%9 : tensor<16xf32>) dimensions = [0] 
    (%in: f32, %init: f32) {
      %10 = arith.maximumf %in, %init : f32
      linalg.yield %10 : f32
    }
  %reduced_3 = linalg.reduce ins(%reduced_2 : tensor<16xf32>) outs(%3 : tensor<f32>) dimensions = [0] 
    (%in: f32, %init: f32) {
      %10 = arith.maximumf %in, %init : f32
      linalg.yield %10 : f32
    }
  return %reduced_3 : tensor<f32>
}

// -----

// A reverse (read through d -> n - 1 - d) feeding a sum whose rows fuse
// into the max after it stays whole: upstream's tiling kept its map against
// a slice of one of its 3 rows, which the verifier rejected
// (scripts/fuzz.py, seed 1592).
// CHECK-LABEL: func.func @reverse_then_sums
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x3x7xf32>)
// CHECK: scf.for
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @reverse_then_sums(%x: tensor<2x3x7xf32>) -> (tensor<2x7xf32>, tensor<2xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<2x3x7xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, -d1 + 2, -d2 + 6)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x3x7xf32>) outs(%e : tensor<2x3x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x7xf32>
  %se = tensor.empty() : tensor<2x7xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%se : tensor<2x7xf32>) -> tensor<2x7xf32>
  %s = linalg.reduce ins(%r : tensor<2x3x7xf32>) outs(%sz : tensor<2x7xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %a = arith.addf %in, %init : f32
      linalg.yield %a : f32
    }
  %me = tensor.empty() : tensor<2xf32>
  %mz = linalg.fill ins(%ninf : f32) outs(%me : tensor<2xf32>) -> tensor<2xf32>
  %m = linalg.reduce ins(%s : tensor<2x7xf32>) outs(%mz : tensor<2xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %a = arith.maximumf %in, %init : f32
      linalg.yield %a : f32
    }
  return %s, %m : tensor<2x7xf32>, tensor<2xf32>
}
