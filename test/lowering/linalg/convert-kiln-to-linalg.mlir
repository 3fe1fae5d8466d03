// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s
// RUN: kiln-opt %s --convert-kiln-to-linalg="lane-reductions=false" --split-input-file | FileCheck %s --check-prefix=NOLANES

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  // CHECK: linalg.generic
  // CHECK: math.tanh
  %0 = kiln.tanh %x : tensor<4xf32>
  // Integer division never traps: the divisor is replaced where undefined.
  // CHECK: linalg.generic
  // CHECK: arith.divsi
  // CHECK: arith.select
  %1 = kiln.div %i, %i : tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// The scalar predicate is read through a map with no results.
// CHECK: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @scalar_select
func.func @scalar_select(%p: tensor<i1>, %x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[SCALAR]],
  %0 = kiln.select %p, %x, %y : tensor<i1>, tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @compare_bool
func.func @compare_bool(%a: tensor<2xi1>, %b: tensor<2xi1>) -> tensor<2xi1> {
  // CHECK: arith.cmpi ult
  %0 = kiln.compare LT, %a, %b : tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// CHECK-LABEL: func.func @matmuls
func.func @matmuls(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<2x4x8xf32>,
                   %d: tensor<2x8x16xf32>) -> (tensor<4x16xf32>, tensor<2x4x16xf32>, tensor<16x4xf32>) {
  // CHECK: linalg.fill
  // CHECK: linalg.matmul
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  // CHECK: linalg.batch_matmul
  %1 = kiln.dot_general %c, %d, batching = [0] x [0], contracting = [2] x [1] : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  // Other dimension numbers: operands and result transposed around a
  // matmul, whichever moves fewer elements: here b^T a^T as (a b)^T.
  // CHECK: %[[AB:.*]] = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x16xf32>)
  // CHECK: linalg.transpose ins(%[[AB]] : tensor<4x16xf32>) outs(%{{.*}} : tensor<16x4xf32>) permutation = [1, 0]
  %2 = kiln.dot_general %b, %a, contracting = [0] x [1] : (tensor<8x16xf32>, tensor<4x8xf32>) -> tensor<16x4xf32>
  return %0, %1, %2 : tensor<4x16xf32>, tensor<2x4x16xf32>, tensor<16x4xf32>
}

// -----

// x W^T with a large W: in f32 transposing x (8 x 32) and the result (8 x
// 300) moves fewer bytes than transposing W (300 x 32), counted at half
// its bytes (kiln-tile-and-vectorize's chunks of columns transpose their
// parts of W in cache), so the product is swapped, (W x^T)^T; with 64
// rows of x it is not (256 x 512 x 784 ran 1.24 -> 1.14 ms on one thread
// and 0.82 -> 0.67 on two unswapped, both transposes of the swapped
// product taking a pass on one thread). int8 into i32 is not swapped, its
// result's elements being 4 bytes to W's 1 (and int8 products read a
// transposed W as they pack it).
// CHECK-LABEL: func.func @weight_products
func.func @weight_products(%x: tensor<8x32xf32>, %w: tensor<300x32xf32>, %x64: tensor<64x32xf32>,
                           %xb: tensor<8x32xi8>, %wb: tensor<300x32xi8>) -> (tensor<8x300xf32>, tensor<64x300xf32>, tensor<8x300xi32>) {
  // CHECK: %[[XT:.*]] = linalg.transpose ins(%arg0 : tensor<8x32xf32>)
  // CHECK: %[[WX:.*]] = linalg.matmul ins(%arg1, %[[XT]] : tensor<300x32xf32>, tensor<32x8xf32>)
  // CHECK: linalg.transpose ins(%[[WX]] : tensor<300x8xf32>)
  %0 = kiln.dot_general %x, %w, contracting = [1] x [1] : (tensor<8x32xf32>, tensor<300x32xf32>) -> tensor<8x300xf32>
  // CHECK: %[[WT:.*]] = linalg.transpose ins(%arg1 : tensor<300x32xf32>)
  // CHECK: linalg.matmul ins(%arg2, %[[WT]] : tensor<64x32xf32>, tensor<32x300xf32>)
  %1 = kiln.dot_general %x64, %w, contracting = [1] x [1] : (tensor<64x32xf32>, tensor<300x32xf32>) -> tensor<64x300xf32>
  // CHECK: %[[WBT:.*]] = linalg.transpose ins(%arg4 : tensor<300x32xi8>)
  // CHECK: linalg.matmul ins(%arg3, %[[WBT]] : tensor<8x32xi8>, tensor<32x300xi8>)
  %2 = kiln.dot_general %xb, %wb, contracting = [1] x [1] : (tensor<8x32xi8>, tensor<300x32xi8>) -> tensor<8x300xi32>
  return %0, %1, %2 : tensor<8x300xf32>, tensor<64x300xf32>, tensor<8x300xi32>
}

// -----

// CHECK-LABEL: func.func @reduce_max
func.func @reduce_max(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // Starts from -inf and propagates NaN.
  // CHECK: arith.constant 0xFF800000 : f32
  // CHECK: linalg.reduce
  // CHECK: arith.maximumf
  %0 = kiln.reduce_max %x, dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A row of 200 reduces as 12 groups of 16 lanes (short rows take one
// vector of lanes), lane by lane across the groups, then over the lanes;
// the 8 left over are combined last.
// CHECK-LABEL: func.func @reduce_rows_in_lanes
// CHECK: %[[HEAD:.*]] = tensor.extract_slice %{{.*}}[0, 0] [4, 192] [1, 1]
// CHECK: tensor.collapse_shape %[[HEAD]]
// CHECK: %[[GROUPS:.*]] = tensor.expand_shape {{.*}} into tensor<4x12x16xf32>
// CHECK: %[[LANES:.*]] = linalg.reduce ins(%[[GROUPS]] : tensor<4x12x16xf32>) outs(%{{.*}} : tensor<4x16xf32>) dimensions = [1]
// CHECK: %[[ROWS:.*]] = linalg.reduce ins(%[[LANES]] : tensor<4x16xf32>) outs(%{{.*}} : tensor<4xf32>) dimensions = [1]
// CHECK: %[[TAIL:.*]] = tensor.extract_slice %{{.*}}[0, 192] [4, 8] [1, 1]
// CHECK: linalg.reduce ins(%[[TAIL]] : tensor<4x8xf32>) outs(%[[ROWS]] : tensor<4xf32>) dimensions = [1]
func.func @reduce_rows_in_lanes(%x: tensor<4x200xf32>) -> tensor<4xf32> {
  %0 = kiln.reduce_max %x, dims = [1] : (tensor<4x200xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A whole tensor of a million elements reduces as 61 rows of 16393 (up to
// 64 rows, for threads), each in groups of 64 lanes, then the rows'
// results, then the 33 elements left over.
// CHECK-LABEL: func.func @whole_in_rows
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} into tensor<1000006xf32>
// CHECK: %[[HEAD:.*]] = tensor.extract_slice %[[FLAT]][0] [999973] [1]
// CHECK: tensor.expand_shape %[[HEAD]] {{.*}} into tensor<61x16393xf32>
// CHECK: %[[LANES:.*]] = linalg.reduce ins(%{{.*}} : tensor<61x256x64xf32>) outs(%{{.*}} : tensor<61x64xf32>) dimensions = [1]
// CHECK: linalg.reduce ins(%[[LANES]] : tensor<61x64xf32>) outs(%{{.*}} : tensor<61xf32>) dimensions = [1]
// CHECK: %[[ROWS:.*]] = linalg.reduce ins(%{{.*}} : tensor<61x9xf32>) outs(%{{.*}} : tensor<61xf32>) dimensions = [1]
// CHECK: tensor.extract_slice %[[ROWS]][0] [48] [1]
// CHECK: %[[TAIL:.*]] = tensor.extract_slice %[[FLAT]][999973] [33] [1]
// CHECK: tensor.extract_slice %[[TAIL]][0] [32] [1]
// CHECK: %[[LAST:.*]] = tensor.extract_slice %[[TAIL]][32] [1] [1]
// CHECK: %[[ALL:.*]] = linalg.reduce ins(%[[LAST]] : tensor<1xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0]
// CHECK: return %[[ALL]]
func.func @whole_in_rows(%x: tensor<7x142858xf32>) -> tensor<f32> {
  %0 = kiln.reduce_max %x, dims = [0, 1] : (tensor<7x142858xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A smaller whole tensor reduces in lanes at once: 46 groups of 64 lanes,
// the lanes, then the 56 elements left over.
// CHECK-LABEL: func.func @whole_in_lanes
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} into tensor<3000xi32>
// CHECK: %[[LANES:.*]] = linalg.reduce ins(%{{.*}} : tensor<46x64xi32>) outs(%{{.*}} : tensor<64xi32>) dimensions = [0]
// CHECK: %[[SUM:.*]] = linalg.reduce ins(%[[LANES]] : tensor<64xi32>) outs(%{{.*}} : tensor<i32>) dimensions = [0]
// CHECK: %[[TAIL:.*]] = tensor.extract_slice %[[FLAT]][2944] [56] [1]
// CHECK: linalg.reduce ins(%[[TAIL]] : tensor<56xi32>) outs(%[[SUM]] : tensor<i32>) dimensions = [0]
func.func @whole_in_lanes(%x: tensor<3x1000xi32>) -> tensor<i32> {
  %0 = kiln.reduce_sum %x, dims = [1, 0] : (tensor<3x1000xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// Of a whole tensor that an all-parallel op computes, the rows (all but
// the first dimension) reduce first, in lanes, so that the producer fuses
// by rows; then the rows' results.
// CHECK-LABEL: func.func @whole_by_rows
// CHECK: linalg.generic
// CHECK: math.absf
// CHECK: linalg.reduce ins(%{{.*}} : tensor<256x8x64xf32>) outs(%{{.*}} : tensor<256x64xf32>) dimensions = [1]
// CHECK: %[[ROWS:.*]] = linalg.reduce ins(%{{.*}} : tensor<256x64xf32>) outs(%{{.*}} : tensor<256xf32>) dimensions = [1]
// CHECK: tensor.expand_shape %[[ROWS]] {{.*}} into tensor<16x16xf32>
func.func @whole_by_rows(%x: tensor<256x512xf32>) -> tensor<f32> {
  %a = kiln.abs %x : tensor<256x512xf32>
  %0 = kiln.reduce_max %a, dims = [0, 1] : (tensor<256x512xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A reduction over trailing dimensions and others (a batch norm's N, H and
// W of NCHW) reduces the trailing ones first, in lanes, then the others.
// CHECK-LABEL: func.func @batch_norm_sums
// CHECK: %[[LANES:.*]] = linalg.reduce ins(%{{.*}} : tensor<8x4x16x16xf32>) outs(%{{.*}} : tensor<8x4x16xf32>) dimensions = [2]
// CHECK: %[[PLANES:.*]] = linalg.reduce ins(%[[LANES]] : tensor<8x4x16xf32>) outs(%{{.*}} : tensor<8x4xf32>) dimensions = [2]
// CHECK: linalg.reduce ins(%[[PLANES]] : tensor<8x4xf32>) outs(%{{.*}} : tensor<4xf32>) dimensions = [0]
func.func @batch_norm_sums(%x: tensor<8x4x16x16xf32>) -> tensor<4xf32> {
  %0 = kiln.reduce_sum %x, dims = [0, 2, 3] : (tensor<8x4x16x16xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A matrix-vector product reduces along K the same way: 12 groups of 16
// lanes of products accumulated lane by lane (a multiply-add over the
// groups), then over the lanes, then the 8 products left over. Without
// lane reductions (GPUs) it is a matmul with one column.
// CHECK-LABEL: func.func @matrix_vector_in_lanes
// CHECK-DAG: %[[A:.*]] = tensor.expand_shape %{{.*}} into tensor<4x12x16xf32>
// CHECK-DAG: %[[X:.*]] = tensor.expand_shape %{{.*}} into tensor<12x16xf32>
// CHECK: %[[LANES:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[A]], %[[X]] : tensor<4x12x16xf32>, tensor<12x16xf32>) outs(%{{.*}} : tensor<4x16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[ROWS:.*]] = linalg.reduce ins(%[[LANES]] : tensor<4x16xf32>) outs(%{{.*}} : tensor<4xf32>) dimensions = [1]
// CHECK: %[[TAIL:.*]] = tensor.extract_slice %{{.*}}[0, 192] [4, 8] [1, 1]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[TAIL]], %{{.*}} : tensor<4x8xf32>, tensor<8xf32>) outs(%[[ROWS]] : tensor<4xf32>)
// CHECK-NOT: linalg.matmul
// NOLANES-LABEL: func.func @matrix_vector_in_lanes
// NOLANES: linalg.matmul
func.func @matrix_vector_in_lanes(%a: tensor<4x200xf32>, %x: tensor<200xf32>) -> tensor<4xf32> {
  %0 = kiln.dot_general %a, %x, contracting = [1] x [0] : (tensor<4x200xf32>, tensor<200xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// So does a matmul whose right operand has one column (16 groups of 16
// lanes, no remainder).
// CHECK-LABEL: func.func @one_column_in_lanes
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<3x16x16xf32>, tensor<16x16xf32>) outs(%{{.*}} : tensor<3x16xf32>)
// CHECK: linalg.reduce
// CHECK-NOT: linalg.matmul
// CHECK: tensor.expand_shape {{.*}} : tensor<3xf32> into tensor<3x1xf32>
// NOLANES-LABEL: func.func @one_column_in_lanes
// NOLANES: linalg.matmul
func.func @one_column_in_lanes(%a: tensor<3x256xf32>, %x: tensor<256x1xf32>) -> tensor<3x1xf32> {
  %0 = kiln.dot_general %a, %x, contracting = [1] x [0] : (tensor<3x256xf32>, tensor<256x1xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// One row x W^T (a Linear layer on one example) is W x: x^T, a reshape of
// one row, not a transpose, so the product swaps (W is not transposed)
// into a matrix-vector product in lanes, whose column of results is the
// row as it is (a reshape too); so does int8 into i32, whose 4-byte
// results keep a larger product from swapping.
// CHECK-LABEL: func.func @one_row_times_weight
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<300x16x16xf32>, tensor<16x16xf32>) outs(%{{.*}} : tensor<300x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<300x16x16xi8>, tensor<16x16xi8>) outs(%{{.*}} : tensor<300x16xi32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.matmul
// NOLANES-LABEL: func.func @one_row_times_weight
// NOLANES-NOT: linalg.transpose
// NOLANES: linalg.matmul ins(%arg1, %{{.*}} : tensor<300x256xf32>, tensor<256x1xf32>)
func.func @one_row_times_weight(%x: tensor<1x256xf32>, %w: tensor<300x256xf32>,
                                %xb: tensor<1x256xi8>, %wb: tensor<300x256xi8>) -> (tensor<1x300xf32>, tensor<1x300xi32>) {
  %0 = kiln.dot_general %x, %w, contracting = [1] x [1] : (tensor<1x256xf32>, tensor<300x256xf32>) -> tensor<1x300xf32>
  %1 = kiln.dot_general %xb, %wb, contracting = [1] x [1] : (tensor<1x256xi8>, tensor<300x256xi8>) -> tensor<1x300xi32>
  return %0, %1 : tensor<1x300xf32>, tensor<1x300xi32>
}

// -----

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<2x3xf32>, %i: tensor<i32>) -> (tensor<6xf32>, tensor<3x2xf32>, tensor<1x3xf32>, tensor<1x2xf32>) {
  // CHECK: tensor.collapse_shape
  %0 = kiln.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  // CHECK: linalg.transpose
  %1 = kiln.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: tensor.extract_slice %{{.*}}[1, 0] [1, 3] [1, 1]
  %2 = kiln.slice %x [1:2, 0:3] : (tensor<2x3xf32>) -> tensor<1x3xf32>
  // Start indices are clamped to [0, size - window].
  // CHECK: arith.maxsi
  // CHECK: arith.minsi
  // CHECK: tensor.extract_slice
  %3 = kiln.dynamic_slice %x [%i, %i], sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
  return %0, %1, %2, %3 : tensor<6xf32>, tensor<3x2xf32>, tensor<1x3xf32>, tensor<1x2xf32>
}

// -----

// Without interior padding only the border is filled, each slab in place:
// the operand overwrites the rest.
// CHECK-LABEL: func.func @pad_border
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[V:.*]]: tensor<f32>)
func.func @pad_border(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<5x4xf32> {
  // CHECK: %[[FILL:.*]] = tensor.extract %[[V]][]
  // CHECK: %[[E:.*]] = tensor.empty() : tensor<5x4xf32>
  // CHECK: %[[S0:.*]] = tensor.extract_slice %[[E]][0, 0] [1, 4] [1, 1]
  // CHECK: %[[F0:.*]] = linalg.fill ins(%[[FILL]] : f32) outs(%[[S0]] : tensor<1x4xf32>)
  // CHECK: %[[I0:.*]] = tensor.insert_slice %[[F0]] into %[[E]][0, 0] [1, 4] [1, 1]
  // CHECK: %[[S1:.*]] = tensor.extract_slice %[[I0]][3, 0] [2, 4] [1, 1]
  // CHECK: %[[F1:.*]] = linalg.fill ins(%[[FILL]] : f32) outs(%[[S1]] : tensor<2x4xf32>)
  // CHECK: %[[I1:.*]] = tensor.insert_slice %[[F1]] into %[[I0]][3, 0] [2, 4] [1, 1]
  // Along the second dimension, the slab after the operand only (low = 0).
  // CHECK: %[[S2:.*]] = tensor.extract_slice %[[I1]][1, 3] [2, 1] [1, 1]
  // CHECK: %[[F2:.*]] = linalg.fill ins(%[[FILL]] : f32) outs(%[[S2]] : tensor<2x1xf32>)
  // CHECK: %[[I2:.*]] = tensor.insert_slice %[[F2]] into %[[I1]][1, 3] [2, 1] [1, 1]
  // CHECK-NOT: linalg.fill
  // CHECK: tensor.insert_slice %[[X]] into %[[I2]][1, 0] [2, 3] [1, 1]
  %p = kiln.pad %x, %v, low = [1, 0], high = [2, 1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<5x4xf32>
  return %p : tensor<5x4xf32>
}

// Interior padding fills the whole tensor first: the holes are padding too.
// CHECK-LABEL: func.func @pad_interior
func.func @pad_interior(%x: tensor<3xf32>, %v: tensor<f32>) -> tensor<6xf32> {
  // CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6xf32>)
  // CHECK: tensor.insert_slice %{{.*}} into %[[F]][1] [3] [2]
  %p = kiln.pad %x, %v, low = [1], high = [0], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

// CHECK-LABEL: func.func @control_flow
func.func @control_flow(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32> {
  // CHECK: %[[P:.*]] = tensor.extract
  // CHECK: scf.if %[[P]]
  // CHECK: scf.yield
  %0 = kiln.cond %p -> (tensor<f32>) {
    kiln.yield %a : tensor<f32>
  } else {
    %n = kiln.neg %a : tensor<f32>
    kiln.yield %n : tensor<f32>
  }
  // CHECK: scf.while
  // CHECK: scf.condition
  // CHECK: scf.yield
  %1 = kiln.while (%0) : tensor<f32> cond {
  ^bb0(%v: tensor<f32>):
    %c = kiln.compare LT, %v, %a : tensor<f32>
    kiln.yield %c : tensor<i1>
  } do {
  ^bb0(%v: tensor<f32>):
    %w = kiln.add %v, %v : tensor<f32>
    kiln.yield %w : tensor<f32>
  }
  return %1 : tensor<f32>
}

// -----

// A while that counts (i < limit, i starting at a constant and stepped by
// a positive one; the limit defined in the cond region, as the StableHLO
// importer's loops have it, or above) becomes an scf.for of its trip
// count, which updates its carried tensors in place.
// CHECK-LABEL: func.func @counted
func.func @counted(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = kiln.constant dense<1> : tensor<i64>
  // CHECK-NOT: scf.while
  // CHECK: %[[C4:.*]] = arith.constant 4 : index
  // CHECK: scf.for %{{.*}} = %{{.*}} to %[[C4]] step
  %0:2 = kiln.while (%zero, %x) : tensor<i64>, tensor<8xf32> cond {
  ^bb0(%i: tensor<i64>, %v: tensor<8xf32>):
    %limit = kiln.constant dense<8> : tensor<i64>
    %c = kiln.compare LT, %i, %limit : tensor<i64>
    kiln.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i64>, %v: tensor<8xf32>):
    %two = kiln.constant dense<2> : tensor<i64>
    %j = kiln.add %i, %two : tensor<i64>
    %w = kiln.add %v, %v : tensor<8xf32>
    kiln.yield %j, %w : tensor<i64>, tensor<8xf32>
  }
  // CHECK: %[[C2:.*]] = arith.constant 2 : index
  // CHECK: scf.for %{{.*}} = %{{.*}} to %[[C2]] step
  %three = kiln.constant dense<3> : tensor<i64>
  %1:2 = kiln.while (%zero, %x) : tensor<i64>, tensor<8xf32> cond {
  ^bb0(%i: tensor<i64>, %v: tensor<8xf32>):
    %c = kiln.compare LT, %i, %three : tensor<i64>
    kiln.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i64>, %v: tensor<8xf32>):
    %j = kiln.add %i, %zero : tensor<i64>
    %w = kiln.mul %v, %v : tensor<8xf32>
    kiln.yield %j, %w : tensor<i64>, tensor<8xf32>
  }
  return %0#1, %1#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// argmax is two reductions, each vectorizable along a row: the maximum
// (NaN if any element is NaN), then the least index whose element equals
// it or is NaN where it is, over 10 elsewhere.
// CHECK-LABEL: func.func @argmax
// CHECK: %[[MAX:.*]] = linalg.reduce ins(%arg0 : tensor<4x10xf32>)
// CHECK: arith.maximumf
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf une
// CHECK: linalg.index 1
// CHECK: %[[NONE:.*]] = arith.constant dense<10> : tensor<4x10xi32>
// CHECK: arith.select
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x10xi32>)
// CHECK: arith.minsi
func.func @argmax(%x: tensor<4x10xf32>) -> tensor<4xi32> {
  %i = kiln.argmax %x, dim = 1 : (tensor<4x10xf32>) -> tensor<4xi32>
  return %i : tensor<4xi32>
}

// -----

func.func private @loss(%w: tensor<4xf32>) -> tensor<f32>

// Transformation ops stay for the contract check to report.
// CHECK-LABEL: func.func @transform
func.func @transform(%w: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: kiln.grad @loss
  %0 = kiln.grad @loss(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Code for one device lays nothing out: meshes, argument and result
// shardings, propagated shardings and constraints go.
// CHECK-NOT: kiln.mesh
// CHECK-LABEL: func.func @layouts
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>) -> tensor<8xf32>
// CHECK-NOT: kiln.shardings
// CHECK: return %[[X]]
kiln.mesh @mesh ["data"=2]
func.func @layouts(%x: tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}]>})
    -> (tensor<8xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}]>}) {
  %c = kiln.sharding_constraint %x <@mesh, [{"data"}]> {kiln.shardings = [#kiln.sharding<@mesh, [{"data"}]>]} : tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// A take reads its index in the payload (not as an input, so that the
// vectorizer sees it fixed along the row it selects), clamps it into the
// table and reads the table there.
// CHECK-LABEL: func.func @take_rows
// CHECK-SAME: (%[[T:.*]]: tensor<10x4x8xf32>, %[[I:.*]]: tensor<2x3xi32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(
// CHECK: %[[D0:.+]] = linalg.index 0
// CHECK: %[[D1:.+]] = linalg.index 1
// CHECK: %[[D2:.+]] = linalg.index 2
// CHECK: %[[D3:.+]] = linalg.index 3
// CHECK: %[[RAW:.+]] = tensor.extract %[[I]][%[[D1]], %[[D2]]]
// CHECK: %[[INDEX:.+]] = arith.index_cast %[[RAW]]
// CHECK: %[[LOW:.+]] = arith.maxsi %[[INDEX]], %c0
// CHECK: %[[CLAMPED:.+]] = arith.minsi %[[LOW]], %c3
// CHECK: tensor.extract %[[T]][%[[D0]], %[[CLAMPED]], %[[D3]]]
func.func @take_rows(%t: tensor<10x4x8xf32>, %i: tensor<2x3xi32>) -> tensor<10x2x3x8xf32> {
  %0 = kiln.take %t[%i], dim = 1 : (tensor<10x4x8xf32>, tensor<2x3xi32>) -> tensor<10x2x3x8xf32>
  return %0 : tensor<10x2x3x8xf32>
}

// -----

// A scatter_add whose operand has dimensions after the scattered one loops
// over the updates' rows (the leading and index dimensions) and adds each
// whole row, clamped index and all, as an elementwise op on the slices.
// CHECK-LABEL: func.func @scatter_rows
// CHECK-SAME: (%[[T:.*]]: tensor<10x4x8xf32>, %[[I:.*]]: tensor<2x3xi32>, %[[U:.*]]: tensor<10x2x3x8xf32>)
// CHECK: scf.for %[[B:.*]] = {{.*}} iter_args(%[[ACC0:.*]] = %[[T]])
// CHECK: scf.for %[[R:.*]] = {{.*}} iter_args(%[[ACC1:.*]] = %[[ACC0]])
// CHECK: scf.for %[[C:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[ACC1]])
// CHECK: %[[RAW:.*]] = tensor.extract %[[I]][%[[R]], %[[C]]]
// CHECK: %[[INDEX:.*]] = arith.index_cast %[[RAW]]
// CHECK: %[[LOW:.*]] = arith.maxsi %[[INDEX]]
// CHECK: %[[ROW:.*]] = arith.minsi %[[LOW]]
// CHECK: %[[OLD:.*]] = tensor.extract_slice %[[ACC]][%[[B]], %[[ROW]], 0] [1, 1, 8] [1, 1, 1] : tensor<10x4x8xf32> to tensor<8xf32>
// CHECK: %[[NEW:.*]] = tensor.extract_slice %[[U]][%[[B]], %[[R]], %[[C]], 0] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<10x2x3x8xf32> to tensor<8xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[NEW]] : tensor<8xf32>) outs(%[[OLD]] : tensor<8xf32>)
// CHECK: arith.addf
// CHECK: tensor.insert_slice %[[SUM]] into %[[ACC]][%[[B]], %[[ROW]], 0] [1, 1, 8] [1, 1, 1]
// CHECK-NOT: tensor.insert %
func.func @scatter_rows(%t: tensor<10x4x8xf32>, %i: tensor<2x3xi32>, %u: tensor<10x2x3x8xf32>) -> tensor<10x4x8xf32> {
  %0 = kiln.scatter_add %t[%i], %u, dim = 1 : (tensor<10x4x8xf32>, tensor<2x3xi32>, tensor<10x2x3x8xf32>) -> tensor<10x4x8xf32>
  return %0 : tensor<10x4x8xf32>
}

// -----

// An empty input reduces into its init as it is, in one linalg.reduce: the
// lanes' slices of a dimension of size 0 would not verify.
// CHECK-LABEL: func.func @empty_reduce
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : i8) outs(%{{.*}} : tensor<1xi8>)
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.reduce ins(%arg0 : tensor<6x0x1x289xi8>) outs(%[[INIT]] : tensor<1xi8>) dimensions = [0, 1, 3]
// CHECK-NOT: linalg.reduce
// NOLANES-LABEL: func.func @empty_reduce
func.func @empty_reduce(%x: tensor<6x0x1x289xi8>) -> tensor<1xi8> {
  %r = kiln.reduce_max %x, dims = [3, 0, 1] : (tensor<6x0x1x289xi8>) -> tensor<1xi8>
  return %r : tensor<1xi8>
}

// -----

// A matrix of 8 MiB or more read straight from the arguments (reshaped or
// not) makes its matrix-vector product a matmul of one column, which the
// CPU runs as a thin product (several rows streaming at once); the same
// matrix computed in the function keeps lanes, which fuse with its
// producers row by row.
// CHECK-LABEL: func.func @streamed_matrix_vector
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2048x1024xf32>, tensor<1024x1xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2048x1024xf32>, tensor<1024x1xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<2048x16x64xf32>, tensor<16x64xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<1024x16x64xf32>, tensor<16x64xf32>)
func.func @streamed_matrix_vector(%a: tensor<2048x1024xf32>, %flat: tensor<2048x2x512xf32>, %x: tensor<1024xf32>, %small: tensor<1024x1024xf32>) -> (tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<1024xf32>) {
  %0 = kiln.dot_general %a, %x, contracting = [1] x [0] : (tensor<2048x1024xf32>, tensor<1024xf32>) -> tensor<2048xf32>
  %r = kiln.reshape %flat : (tensor<2048x2x512xf32>) -> tensor<2048x1024xf32>
  %1 = kiln.dot_general %r, %x, contracting = [1] x [0] : (tensor<2048x1024xf32>, tensor<1024xf32>) -> tensor<2048xf32>
  %e = kiln.exp %a : tensor<2048x1024xf32>
  %2 = kiln.dot_general %e, %x, contracting = [1] x [0] : (tensor<2048x1024xf32>, tensor<1024xf32>) -> tensor<2048xf32>
  %3 = kiln.dot_general %small, %x, contracting = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %0, %1, %2, %3 : tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<1024xf32>
}
