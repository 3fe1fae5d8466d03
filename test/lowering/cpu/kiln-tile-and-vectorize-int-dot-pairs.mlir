// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 int-dot-pairs=true byte-quads=true" --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0" --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 int-dot-pairs=true" --split-input-file | FileCheck %s --check-prefix=PAIRS

// int8 -> i32 products of at least 4 k steps multiply B + 128 (B xor 0x80,
// unsigned bytes for VNNI's vpdpbusd) from C - 128 rowsum(A): the rows'
// sums of A, shifted by 7, are subtracted from the product's start (the
// fill's value), then register tiles of twice the rows on half the
// columns (16 x 16: B's rows are interleaved once for more rows) cover k
// quads, and a K of 7's last 3 steps run as a tile of their own,
// accumulating onto the quads'.
// CHECK-LABEL: func.func @int8_quads
// CHECK: arith.extsi %{{.*}} : vector<1x{{[0-9]+}}xi8> to vector<1x{{[0-9]+}}xi32>
// CHECK: vector.multi_reduction <add>
// CHECK: arith.shli
// CHECK: arith.subi %[[ZEROS:.*]], %{{.*}} : vector<1x32xi32>
// CHECK: scf.for {{.*}} step %c16
// CHECK: %[[A:.*]] = arith.extsi %{{.*}} : vector<16x4xi8> to vector<16x4xi32>
// CHECK: %[[X:.*]] = arith.xori %{{.*}}, %{{.*}} : vector<4x16xi8>
// CHECK: %[[B:.*]] = arith.extui %[[X]] : vector<4x16xi8> to vector<4x16xi32>
// CHECK: vector.contract {{.*}} %[[A]], %[[B]], %{{.*}} : vector<16x4xi32>, vector<4x16xi32> into vector<16x16xi32>
// CHECK: vector.contract {{.*}} : vector<16x3xi32>, vector<3x16xi32> into vector<16x16xi32>
// NONE-LABEL: func.func @int8_quads
// NONE-NOT: arith.xori
// NONE: vector.contract {{.*}} : vector<8x1xi8>, vector<1x32xi8> into vector<8x32xi32>
// NONE-NOT: vector<8x2xi8>
// Without byte-quads (AVX2's vpmaddwd multiplies pairs only), the same
// product covers k pairs of A and B as they are.
// PAIRS-LABEL: func.func @int8_quads
// PAIRS-NOT: arith.xori
// PAIRS: vector.contract {{.*}} : vector<8x2xi8>, vector<2x32xi8> into vector<8x32xi32>
// PAIRS: vector.contract {{.*}} : vector<8x1xi8>, vector<1x32xi8> into vector<8x32xi32>
func.func @int8_quads(%a: tensor<16x7xi8>, %b: tensor<7x32xi8>) -> tensor<16x32xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<16x32xi32>
  %c = linalg.fill ins(%zero : i32) outs(%empty : tensor<16x32xi32>) -> tensor<16x32xi32>
  %0 = linalg.matmul ins(%a, %b : tensor<16x7xi8>, tensor<7x32xi8>) outs(%c : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %0 : tensor<16x32xi32>
}

// -----

// A batch of them; an accumulator that is no fill is read and corrected,
// a register tile at a time. Rows fewer than the register tile's take as
// many more columns (8 x 32).
// CHECK-LABEL: func.func @int8_batch_quads
// CHECK: arith.subi %{{.*}}, %{{.*}} : vector<1x8x32xi32>
// CHECK: vector.contract {{.*}} : vector<8x4xi32>, vector<4x32xi32> into vector<8x32xi32>
// CHECK-NOT: vector.contract
func.func @int8_batch_quads(%a: tensor<2x8x12xi8>, %b: tensor<2x12x32xi8>, %c: tensor<2x8x32xi32>) -> tensor<2x8x32xi32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x8x12xi8>, tensor<2x12x32xi8>) outs(%c : tensor<2x8x32xi32>) -> tensor<2x8x32xi32>
  return %0 : tensor<2x8x32xi32>
}

// -----

// From 32 rows of A, B + 128 is packed first as [K / 4, N, 4] (each
// column's quad of k steps 4 consecutive bytes): B's 4 rows interleaved
// once per 16 columns. K's 10 steps are padded with zeros to 3 quads, in A
// and B, so that one product covers them all. The product reads A as
// [M, K / 4, 4] and the packed quads as rows of [32, 4], one quad a
// register tile of 8 x 32 (then 8 x 16 for the last 16 columns), and
// starts each register tile from -128 rowsum(A) there (no pass of its own
// over C).
// CHECK-LABEL: func.func @int8_packed
// CHECK-NOT: arith.subi
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [64, 10] [1, 1] : tensor<64x10xi8> into tensor<64x12xi8>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [10, 48] [1, 1] : tensor<10x48xi8> into tensor<12x48xi8>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [3, 4, 48] : tensor<12x48xi8> into tensor<3x4x48xi8>
// CHECK: arith.xori %{{.*}}, %{{.*}} : vector<4x16xi8>
// CHECK-COUNT-3: vector.interleave
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<1x16x4xi8> into tensor<64xi8>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [64, 3, 4] : tensor<64x12xi8> into tensor<64x3x4xi8>
// CHECK: scf.for
// CHECK: arith.subi %{{.*}}, %{{.*}} : vector<8x32xi32>
// CHECK: %[[A:.*]] = arith.extsi %{{.*}} : vector<8x4xi8> to vector<8x4xi32>
// CHECK: %[[B:.*]] = arith.extui %{{.*}} : vector<32x4xi8> to vector<32x4xi32>
// CHECK: vector.contract {{.*}} %[[A]], %[[B]], %{{.*}} : vector<8x4xi32>, vector<32x4xi32> into vector<8x32xi32>
// CHECK: vector.contract {{.*}} : vector<8x4xi32>, vector<16x4xi32> into vector<8x16xi32>
// CHECK-NOT: vector.contract
func.func @int8_packed(%a: tensor<64x10xi8>, %b: tensor<10x48xi8>) -> tensor<64x48xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<64x48xi32>
  %c = linalg.fill ins(%zero : i32) outs(%empty : tensor<64x48xi32>) -> tensor<64x48xi32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x10xi8>, tensor<10x48xi8>) outs(%c : tensor<64x48xi32>) -> tensor<64x48xi32>
  return %0 : tensor<64x48xi32>
}

// -----

// B a transpose of W [N, K] (x W^T), even with few rows: W's quads are
// 32-bit words, packed by transposing blocks of 16 x 16 of them (and the
// blocks at the edges, 16 x 4 and 2 x 16 and 2 x 4); no byte transpose is
// left.
// CHECK-LABEL: func.func @int8_packed_transpose
// CHECK-NOT: linalg.transpose
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [20, 18, 4] : tensor<20x72xi8> into tensor<20x18x4xi8>
// CHECK: vector.bitcast %{{.*}} : vector<16x64xi8> to vector<16x16xi32>
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x16xi32> to vector<16x16xi32>
// CHECK: vector.bitcast %{{.*}} : vector<16x16xi32> to vector<16x64xi8>
// CHECK: arith.xori %{{.*}}, %{{.*}} : vector<16x64xi8>
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<4x16xi32> to vector<16x4xi32>
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x2xi32> to vector<2x16xi32>
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<4x2xi32> to vector<2x4xi32>
// CHECK: vector.contract {{.*}} : vector<8x4xi32>, vector<16x4xi32> into vector<8x16xi32>
// CHECK: vector.contract {{.*}} : vector<8x4xi32>, vector<4x4xi32> into vector<8x4xi32>
func.func @int8_packed_transpose(%a: tensor<8x72xi8>, %w: tensor<20x72xi8>) -> tensor<8x20xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<8x20xi32>
  %c = linalg.fill ins(%zero : i32) outs(%empty : tensor<8x20xi32>) -> tensor<8x20xi32>
  %t0 = tensor.empty() : tensor<72x20xi8>
  %b = linalg.transpose ins(%w : tensor<20x72xi8>) outs(%t0 : tensor<72x20xi8>) permutation = [1, 0]
  %0 = linalg.matmul ins(%a, %b : tensor<8x72xi8>, tensor<72x20xi8>) outs(%c : tensor<8x20xi32>) -> tensor<8x20xi32>
  return %0 : tensor<8x20xi32>
}

// -----

// A packed product's epilogue (bias, ReLU) runs on each block of its
// columns while it is in cache, as a matmul's: row fusion does not take
// the product for a normalization's reduction (blocks of 32 rows).
// CHECK-LABEL: func.func @int8_epilogue
// CHECK-NOT: step %c32 iter_args(%{{.*}}) -> (tensor<128x512xi32>)
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c512{{.*}} step %c256 iter_args(%{{.*}}) -> (tensor<128x512xi32>)
// CHECK: vector.contract
// CHECK-NOT: scf.yield %{{.*}} : tensor<128x512xi32>
// CHECK: arith.maxsi {{.*}} : vector<1x64xi32>
func.func @int8_epilogue(%a: tensor<128x64xi8>, %b: tensor<64x512xi8>, %bias: tensor<512xi32>) -> tensor<128x512xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<128x512xi32>
  %c = linalg.fill ins(%zero : i32) outs(%empty : tensor<128x512xi32>) -> tensor<128x512xi32>
  %p = linalg.matmul ins(%a, %b : tensor<128x64xi8>, tensor<64x512xi8>) outs(%c : tensor<128x512xi32>) -> tensor<128x512xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %bias : tensor<128x512xi32>, tensor<512xi32>) outs(%empty : tensor<128x512xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %s = arith.addi %x, %y : i32
    %m = arith.maxsi %s, %zero : i32
    linalg.yield %m : i32
  } -> tensor<128x512xi32>
  return %r : tensor<128x512xi32>
}

// -----

// An int8 matrix-vector product in lanes (as kiln's dot_general lowers y =
// A x) runs on lanes of k quads: A + 128 (unsigned) by x, and the rows'
// sums less 128 sum(x), one correction for every row. Rows fusion computes
// it a row at a time, its lanes summed as soon as they are complete.
// CHECK-LABEL: func.func @int8_lanes
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<20xi32>)
// CHECK: tensor.extract_slice %arg0[%[[ROW]], %{{.*}}, %{{.*}}] [1, 2, 64]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [1, 2, 16, 4]
// CHECK: arith.xori %{{.*}}, %{{.*}} : vector<1x64xi8>
// CHECK: vector.contract {{.*}} : vector<1x16x4xi32>, vector<16x4xi32> into vector<1x16xi32>
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x16xi32> to vector<1xi32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[ROW]]] [1] [1] : tensor<1xi32> into tensor<20xi32>
// CHECK: arith.shli
// CHECK: arith.subi %{{.*}}, %{{.*}} : vector<20xi32>
func.func @int8_lanes(%a: tensor<20x2x64xi8>, %x: tensor<2x64xi8>) -> tensor<20xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<20x64xi32>
  %z = linalg.fill ins(%zero : i32) outs(%e : tensor<20x64xi32>) -> tensor<20x64xi32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %x : tensor<20x2x64xi8>, tensor<2x64xi8>) outs(%z : tensor<20x64xi32>) {
  ^bb0(%in: i8, %in_0: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    %1 = arith.extsi %in_0 : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %2, %out : i32
    linalg.yield %3 : i32
  } -> tensor<20x64xi32>
  %e2 = tensor.empty() : tensor<20xi32>
  %z2 = linalg.fill ins(%zero : i32) outs(%e2 : tensor<20xi32>) -> tensor<20xi32>
  %r = linalg.reduce ins(%p : tensor<20x64xi32>) outs(%z2 : tensor<20xi32>) dimensions = [1]
    (%in: i32, %init: i32) {
      %s = arith.addi %in, %init : i32
      linalg.yield %s : i32
    }
  return %r : tensor<20xi32>
}

// -----

// Fewer than 4 k steps, and int16 products, cover k pairs (for vpdpwssd):
// an odd K's last step runs as a tile of its own, accumulating onto the
// pairs'. A register tile's rows sign-extend the int8 elements they read...
// CHECK-LABEL: func.func @int8_pairs
// CHECK-NOT: arith.xori
// CHECK-NOT: arith.extsi %{{.*}} : vector<1x3xi8> to vector<1x3xi16>
// CHECK: vector.contract {{.*}} : vector<8x2xi8>, vector<2x32xi8> into vector<8x32xi32>
// CHECK: vector.contract {{.*}} : vector<8x1xi8>, vector<1x32xi8> into vector<8x32xi32>
// NONE-LABEL: func.func @int8_pairs
// NONE: vector.contract {{.*}} : vector<8x1xi8>, vector<1x32xi8> into vector<8x32xi32>
// NONE-NOT: vector<8x2xi8>
func.func @int8_pairs(%a: tensor<8x3xi8>, %b: tensor<3x32xi8>, %c: tensor<8x32xi32>) -> tensor<8x32xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x3xi8>, tensor<3x32xi8>) outs(%c : tensor<8x32xi32>) -> tensor<8x32xi32>
  return %0 : tensor<8x32xi32>
}

// -----

// ... where from two register tiles' rows, A and B are widened to i16
// once, so that each row's pair of A is one 32-bit word.
// CHECK-LABEL: func.func @int8_pairs_widened
// CHECK: arith.extsi %{{.*}} : vector<1x3xi8> to vector<1x3xi16>
// CHECK: arith.extsi %{{.*}} : vector<1x32xi8> to vector<1x32xi16>
// CHECK: vector.contract {{.*}} : vector<8x2xi16>, vector<2x32xi16> into vector<8x32xi32>
// CHECK: vector.contract {{.*}} : vector<8x1xi16>, vector<1x32xi16> into vector<8x32xi32>
// NONE-LABEL: func.func @int8_pairs_widened
// NONE-NOT: arith.extsi
// NONE: vector.contract {{.*}} : vector<8x1xi8>, vector<1x32xi8> into vector<8x32xi32>
func.func @int8_pairs_widened(%a: tensor<16x3xi8>, %b: tensor<3x32xi8>, %c: tensor<16x32xi32>) -> tensor<16x32xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x3xi8>, tensor<3x32xi8>) outs(%c : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %0 : tensor<16x32xi32>
}

// -----

// CHECK-LABEL: func.func @int16_pairs
// CHECK-NOT: arith.xori
// CHECK: scf.for {{.*}} step %c2
// CHECK: vector.contract {{.*}} : vector<8x2xi16>, vector<2x32xi16> into vector<8x32xi32>
// CHECK: vector.contract {{.*}} : vector<8x1xi16>, vector<1x32xi16> into vector<8x32xi32>
func.func @int16_pairs(%a: tensor<16x7xi16>, %b: tensor<7x32xi16>, %c: tensor<16x32xi32>) -> tensor<16x32xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x7xi16>, tensor<7x32xi16>) outs(%c : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %0 : tensor<16x32xi32>
}

// -----

// int32 products do not pair.
// CHECK-LABEL: func.func @int32_steps
// CHECK: vector.contract {{.*}} : vector<8x1xi32>, vector<1x32xi32> into vector<8x32xi32>
func.func @int32_steps(%a: tensor<8x6xi32>, %b: tensor<6x32xi32>, %c: tensor<8x32xi32>) -> tensor<8x32xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x6xi32>, tensor<6x32xi32>) outs(%c : tensor<8x32xi32>) -> tensor<8x32xi32>
  return %0 : tensor<8x32xi32>
}
