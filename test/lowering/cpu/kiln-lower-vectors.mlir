// RUN: kiln-opt %s --kiln-lower-vectors --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-vectors="streaming-bytes=67108864" --split-input-file | FileCheck %s --check-prefix=LARGER

// The accumulator's read and write are hoisted out of the k loop and the
// contraction becomes FMAs on rows.
// CHECK-LABEL: func.func @matmul_tile
func.func @matmul_tile(%a: memref<8x4xf32>, %b: memref<4x32xf32>, %c: memref<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  // CHECK: vector.load %{{.*}} : memref<8x32xf32>, vector<32xf32>
  // CHECK: scf.for
  // CHECK-NOT: memref<8x32xf32>
  // CHECK: vector.fma {{.*}} : vector<32xf32>
  // CHECK: scf.yield
  // CHECK: vector.store %{{.*}} : memref<8x32xf32>, vector<32xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    %sa = memref.subview %a[0, %k] [8, 1] [1, 1] : memref<8x4xf32> to memref<8x1xf32, strided<[4, 1], offset: ?>>
    %sb = memref.subview %b[%k, 0] [1, 32] [1, 1] : memref<4x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    %va = vector.transfer_read %sa[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x1xf32, strided<[4, 1], offset: ?>>, vector<8x1xf32>
    %vb = vector.transfer_read %sb[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
    %vc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x32xf32>, vector<8x32xf32>
    %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  }
  return
}

// -----

// A register tile that starts from the zeros written right before its k
// loop (kiln-tile-and-vectorize moves a product's fill there) starts its
// accumulators from them: the hoisted read takes the written vector, and
// the write, overwritten by the tile's result with nothing reading it in
// between, goes.
// CHECK-LABEL: func.func @tile_from_zeros
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK-NOT: memref<8x32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZEROS]])
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.yield
// CHECK-COUNT-8: vector.store %{{.*}} : memref<8x32xf32>, vector<32xf32>
// CHECK-NOT: vector.store
func.func @tile_from_zeros(%a: memref<8x4xf32>, %b: memref<4x32xf32>, %c: memref<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %zeros = arith.constant dense<0.0> : vector<8x32xf32>
  vector.transfer_write %zeros, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    %sa = memref.subview %a[0, %k] [8, 1] [1, 1] : memref<8x4xf32> to memref<8x1xf32, strided<[4, 1], offset: ?>>
    %sb = memref.subview %b[%k, 0] [1, 32] [1, 1] : memref<4x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    %va = vector.transfer_read %sa[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x1xf32, strided<[4, 1], offset: ?>>, vector<8x1xf32>
    %vb = vector.transfer_read %sb[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
    %vc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x32xf32>, vector<8x32xf32>
    %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  }
  return
}

// -----

// An accumulator in a buffer the function allocated stays in registers
// even though the buffer is read through a view after the loop (a product
// reshaped for a transpose), where upstream's hoisting gives up: the loop
// touches no other view of it.
// CHECK-LABEL: func.func @viewed_accumulator
func.func @viewed_accumulator(%a: memref<8x4xf32>, %b: memref<4x32xf32>) -> memref<2x4x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x32xf32>
  // CHECK: vector.load %{{.*}} : memref<8x32xf32>, vector<32xf32>
  // CHECK: scf.for {{.*}} iter_args
  // CHECK-NOT: memref<8x32xf32>
  // CHECK: scf.yield
  // CHECK: vector.store %{{.*}} : memref<8x32xf32>, vector<32xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    %va = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<8x4xf32>, vector<8x1xf32>
    %vb = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x32xf32>, vector<1x32xf32>
    %vc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x32xf32>, vector<8x32xf32>
    %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  }
  %view = memref.expand_shape %c [[0, 1], [2]] output_shape [2, 4, 32] : memref<8x32xf32> into memref<2x4x32xf32>
  return %view : memref<2x4x32xf32>
}

// -----

// Not when the loop also reads the buffer through a view: the read may
// see what an earlier step wrote.
// CHECK-LABEL: func.func @accumulator_read_through_a_view
func.func @accumulator_read_through_a_view(%a: memref<8x4xf32>, %out: memref<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x32xf32>
  %rows = memref.subview %c[0, 0] [4, 32] [1, 1] : memref<8x32xf32> to memref<4x32xf32, strided<[32, 1]>>
  // CHECK: scf.for
  // CHECK-NOT: iter_args
  // CHECK: vector.load %{{.*}} : memref<8x32xf32>, vector<32xf32>
  // CHECK: vector.store
  scf.for %k = %c0 to %c4 step %c1 {
    %vb = vector.transfer_read %rows[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x32xf32, strided<[32, 1]>>, vector<1x32xf32>
    %va = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<8x4xf32>, vector<8x1xf32>
    %vc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x32xf32>, vector<8x32xf32>
    %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  }
  memref.copy %rows, %out : memref<4x32xf32, strided<[32, 1]>> to memref<4x32xf32>
  return
}

// -----

// Whole aligned lines into a buffer of 32 MiB or more are streamed.
// CHECK-LABEL: func.func @streaming
func.func @streaming(%x: memref<8388608xf32>, %y: memref<8388608xf32>)
    attributes {kiln.buffer_alignment = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %n = arith.constant 8388608 : index
  scf.for %i = %c0 to %n step %c64 {
    %v = vector.load %x[%i] : memref<8388608xf32>, vector<64xf32>
    // CHECK: vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true}
    // A 32 MiB buffer is below a 64 MiB threshold.
    // LARGER-LABEL: func.func @streaming
    // LARGER-NOT: nontemporal
    vector.store %v, %y[%i] : memref<8388608xf32>, vector<64xf32>
  }
  return
}

// -----

// A store that may start mid-line is not streamed.
// CHECK-LABEL: func.func @offset
func.func @offset(%x: memref<8388608xf32>, %y: memref<8388608xf32>)
    attributes {kiln.buffer_alignment = 64 : i64} {
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %n = arith.constant 8388544 : index
  scf.for %i = %c3 to %n step %c64 {
    %v = vector.load %x[%i] : memref<8388608xf32>, vector<64xf32>
    // CHECK: vector.store
    // CHECK-NOT: nontemporal
    vector.store %v, %y[%i] : memref<8388608xf32>, vector<64xf32>
  }
  return
}

// -----

// Arguments of a function that is not an entry may be any views: their
// alignment is unknown, so nothing is streamed.
// CHECK-LABEL: func.func @unknown_alignment
func.func @unknown_alignment(%x: memref<8388608xf32>, %y: memref<8388608xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %n = arith.constant 8388608 : index
  scf.for %i = %c0 to %n step %c64 {
    %v = vector.load %x[%i] : memref<8388608xf32>, vector<64xf32>
    // CHECK: vector.store
    // CHECK-NOT: nontemporal
    vector.store %v, %y[%i] : memref<8388608xf32>, vector<64xf32>
  }
  return
}

// -----

// A reduction along the innermost dimension only (a row's lanes) becomes a
// horizontal reduction per row (a tree in LLVM); float sums reassociate for
// it. A reduction across rows (a middle dimension) stays elementwise.
// CHECK-LABEL: func.func @row_reductions
// CHECK: vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<64xf32> into f32
// CHECK: vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<64xf32> into f32
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<64xf32> into f32
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<64xf32> into f32
// CHECK-NOT: vector.reduction
// CHECK-COUNT-15: arith.addf %{{.*}}, %{{.*}} : vector<64xf32>
// CHECK: return
func.func @row_reductions(%v: vector<2x64xf32>, %acc: vector<2xf32>, %g: vector<1x15x64xf32>, %gacc: vector<1x64xf32>) -> (vector<2xf32>, vector<2xf32>, vector<1x64xf32>) {
  %m = vector.multi_reduction <maximumf>, %v, %acc [1] : vector<2x64xf32> to vector<2xf32>
  %s = vector.multi_reduction <add>, %v, %acc [1] : vector<2x64xf32> to vector<2xf32>
  %c = vector.multi_reduction <add>, %g, %gacc [1] : vector<1x15x64xf32> to vector<1x64xf32>
  return %m, %s, %c : vector<2xf32>, vector<2xf32>, vector<1x64xf32>
}

// -----

// A 16 x 16 block of floats transposes with shuffles, not element by
// element.
// CHECK-LABEL: func.func @transpose_block
// CHECK: vector.shuffle
// CHECK-NOT: vector.extract %{{.*}}[{{[0-9]+}}, {{[0-9]+}}] : f32
// CHECK: return
func.func @transpose_block(%v: vector<16x16xf32>) -> vector<16x16xf32> {
  %t = vector.transpose %v, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
  return %t : vector<16x16xf32>
}

// -----

// Blocks of bytes and of bf16 transpose as their 32-bit widenings, with
// the same shuffles, then narrow back (an insert per byte before).
// CHECK-LABEL: func.func @narrow_transpose_blocks
// CHECK: arith.extui %{{.*}} : vector<16x16xi8> to vector<16x16xi32>
// CHECK: vector.shuffle
// CHECK-NOT: vector.extract %{{.*}}[{{[0-9]+}}, {{[0-9]+}}] : i8
// CHECK: arith.trunci %{{.*}} : vector<16x16xi32> to vector<16x16xi8>
// CHECK: arith.bitcast %{{.*}} : vector<16x16xbf16> to vector<16x16xi16>
// CHECK: vector.shuffle
// CHECK: arith.bitcast %{{.*}} : vector<16x16xi16> to vector<16x16xbf16>
// CHECK: return
func.func @narrow_transpose_blocks(%b: vector<16x16xi8>, %h: vector<16x16xbf16>) -> (vector<16x16xi8>, vector<16x16xbf16>) {
  %tb = vector.transpose %b, [1, 0] : vector<16x16xi8> to vector<16x16xi8>
  %th = vector.transpose %h, [1, 0] : vector<16x16xbf16> to vector<16x16xbf16>
  return %tb, %th : vector<16x16xi8>, vector<16x16xbf16>
}

// -----

// 8 (or 4) rows of 16 transpose as the 16 x 16 block they pad with zeros,
// with the same shuffles, and the 16 rows of 8 taken from its columns (an
// extract and an insert per element before); bytes widened as above.
// CHECK-LABEL: func.func @padded_transpose_blocks
// CHECK: vector.extract %arg0[7] : vector<16xf32> from vector<8x16xf32>
// CHECK: vector.shuffle
// CHECK-NOT: vector.extract %{{.*}}[{{[0-9]+}}, {{[0-9]+}}] : f32
// CHECK: arith.extui %{{.*}} : vector<16x16xi8> to vector<16x16xi32>
// CHECK-NOT: vector.extract %{{.*}}[{{[0-9]+}}, {{[0-9]+}}] : i8
// CHECK: return
func.func @padded_transpose_blocks(%v: vector<8x16xf32>, %b: vector<4x16xi8>) -> (vector<16x8xf32>, vector<16x4xi8>) {
  %t = vector.transpose %v, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
  %tb = vector.transpose %b, [1, 0] : vector<4x16xi8> to vector<16x4xi8>
  return %t, %tb : vector<16x8xf32>, vector<16x4xi8>
}

// -----

// A 1-D write that may run past its buffer (a vector<2> into a 1 x 1 slice,
// as canonicalization folded it) becomes a masked store of the lanes that
// fit (it was left unlowered; scripts/fuzz.py, seed 8035439).
// CHECK-LABEL: func.func @write_past_the_slice
// CHECK: %[[MASK:.+]] = arith.constant dense<[true, false]> : vector<2xi1>
// CHECK: vector.maskedstore %{{.+}}, %[[MASK]], %{{.+}} : memref<1x1xi64, strided<[3, 1], offset: 2>>, vector<2xi1>, vector<2xi64>
// CHECK-NOT: vector.transfer_write
func.func @write_past_the_slice(%v: vector<2xi64>, %m: memref<1x1xi64, strided<[3, 1], offset: 2>>) {
  %c0 = arith.constant 0 : index
  vector.transfer_write %v, %m[%c0, %c0] : vector<2xi64>, memref<1x1xi64, strided<[3, 1], offset: 2>>
  return
}

// -----

// A loop carries rows of 48 lanes (a sum over a middle dimension) as
// pieces of 32 and 16: LLVM took a carried vector<48xf32> apart into 48
// scalars at every step. Rows of 7 lanes fit a register and stay whole.
// CHECK-LABEL: func.func @carried_rows
// CHECK: scf.for {{.*}} -> (vector<1x32xf32>, vector<1x16xf32>)
// CHECK: scf.for {{.*}} -> (vector<7xf32>)
// CHECK: return
func.func @carried_rows(%x: memref<400x48xf32>, %y: memref<48xf32>, %u: memref<400x7xf32>, %v: memref<7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c400 = arith.constant 400 : index
  %zero = arith.constant dense<0.0> : vector<1x48xf32>
  %sum = scf.for %i = %c0 to %c400 step %c1 iter_args(%acc = %zero) -> (vector<1x48xf32>) {
    %row = vector.load %x[%i, %c0] : memref<400x48xf32>, vector<48xf32>
    %row2 = vector.shape_cast %row : vector<48xf32> to vector<1x48xf32>
    %next = arith.addf %acc, %row2 : vector<1x48xf32>
    scf.yield %next : vector<1x48xf32>
  }
  %flat = vector.shape_cast %sum : vector<1x48xf32> to vector<48xf32>
  vector.store %flat, %y[%c0] : memref<48xf32>, vector<48xf32>
  %zero7 = arith.constant dense<0.0> : vector<7xf32>
  %sum7 = scf.for %i = %c0 to %c400 step %c1 iter_args(%acc = %zero7) -> (vector<7xf32>) {
    %row = vector.load %u[%i, %c0] : memref<400x7xf32>, vector<7xf32>
    %next = arith.addf %acc, %row : vector<7xf32>
    scf.yield %next : vector<7xf32>
  }
  vector.store %sum7, %v[%c0] : memref<7xf32>, vector<7xf32>
  return
}

// -----

// A register tile of 8 x 24 carried as pieces of 16 and 8 lanes is stored
// in those pieces: joined, LLVM put each row together element by element
// before storing it.
// CHECK-LABEL: func.func @stored_in_pieces
// CHECK: scf.for {{.*}} -> (vector<8x16xf32>, vector<8x8xf32>)
// CHECK: scf.yield
// CHECK-NOT: vector<24xf32>
// CHECK: vector.store %{{.*}}, %arg1[%arg2, %c0] : memref<64x24xf32>, vector<16xf32>
// CHECK-NOT: vector<24xf32>
// CHECK: vector.store %{{.*}}, %arg1[%arg2, %c16] : memref<64x24xf32>, vector<8xf32>
// CHECK-NOT: vector<24xf32>
// CHECK: return
func.func @stored_in_pieces(%b: memref<40x24xf32>, %c: memref<64x24xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %f0 = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8x24xf32>
  %sum = scf.for %k = %c0 to %c40 step %c1 iter_args(%acc = %zero) -> (vector<8x24xf32>) {
    %row = vector.transfer_read %b[%k, %c0], %f0 {in_bounds = [true, true]} : memref<40x24xf32>, vector<8x24xf32>
    %next = arith.addf %acc, %row : vector<8x24xf32>
    scf.yield %next : vector<8x24xf32>
  }
  vector.transfer_write %sum, %c[%i, %c0] {in_bounds = [true, true]} : vector<8x24xf32>, memref<64x24xf32>
  return
}

// -----

// Rows narrower than 64 bits to contiguous memory (a pair pack's 32
// columns of bf16 pairs, shape-cast from the row it interleaved) are
// stored as one row of 64, not 32 stores of a pair; rows that are not
// contiguous (every other pair) stay rows.
// CHECK-LABEL: func.func @narrow_rows
// CHECK: %[[ROWS:.*]] = memref.collapse_shape %arg1 {{\[}}[0], [1], [2, 3]]
// CHECK: vector.store %arg0, %[[ROWS]]{{.*}} : memref<8x16x64xbf16>, vector<64xbf16>
// CHECK-COUNT-32: vector.store %{{.*}} : memref<32x2xbf16, strided<[4, 1], offset: ?>>, vector<2xbf16>
// CHECK-NOT: vector.store
// CHECK: return
func.func @narrow_rows(%pairs: vector<64xbf16>, %packed: memref<8x16x32x2xbf16>, %spaced: memref<8x16x64x2xbf16>, %i: index) {
  %c0 = arith.constant 0 : index
  %row = vector.shape_cast %pairs : vector<64xbf16> to vector<32x2xbf16>
  %sub = memref.subview %packed[%i, %i, 0, 0] [1, 1, 32, 2] [1, 1, 1, 1] : memref<8x16x32x2xbf16> to memref<32x2xbf16, strided<[2, 1], offset: ?>>
  vector.transfer_write %row, %sub[%c0, %c0] {in_bounds = [true, true]} : vector<32x2xbf16>, memref<32x2xbf16, strided<[2, 1], offset: ?>>
  %gaps = memref.subview %spaced[%i, %i, 0, 0] [1, 1, 32, 2] [1, 1, 2, 1] : memref<8x16x64x2xbf16> to memref<32x2xbf16, strided<[4, 1], offset: ?>>
  vector.transfer_write %row, %gaps[%c0, %c0] {in_bounds = [true, true]} : vector<32x2xbf16>, memref<32x2xbf16, strided<[4, 1], offset: ?>>
  return
}

// -----

// A batched contraction of int16 into i32 (no dot product instruction
// asked for) multiplies its operands extended to i32, as a 2-D one's outer
// products do; bf16 into f32 extends them to f32.
#lhs = affine_map<(b, i, j, k) -> (b, i, k)>
#rhs = affine_map<(b, i, j, k) -> (b, k, j)>
#out = affine_map<(b, i, j, k) -> (b, i, j)>
// CHECK-LABEL: func.func @batched_narrow_operands
// CHECK-DAG: arith.extsi %arg1 : vector<1x1x16xi16> to vector<1x1x16xi32>
// CHECK-DAG: arith.extf %arg4 : vector<1x1x16xbf16> to vector<1x1x16xf32>
// CHECK-NOT: vector.contract
// CHECK: return
func.func @batched_narrow_operands(%a: vector<1x6x1xi16>, %b: vector<1x1x16xi16>, %c: vector<1x6x16xi32>, %x: vector<1x6x1xbf16>, %y: vector<1x1x16xbf16>, %z: vector<1x6x16xf32>) -> (vector<1x6x16xi32>, vector<1x6x16xf32>) {
  %0 = vector.contract {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<1x6x1xi16>, vector<1x1x16xi16> into vector<1x6x16xi32>
  %1 = vector.contract {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %z : vector<1x6x1xbf16>, vector<1x1x16xbf16> into vector<1x6x16xf32>
  return %0, %1 : vector<1x6x16xi32>, vector<1x6x16xf32>
}

// -----

// A gather from a strided view (a tensor computed in place in a pad's
// buffer, its rows 6 elements apart) counts its offsets in the row-major
// order of the view's shape: each active lane's element is found by
// delinearizing by that shape, and the load steps by the view's strides.
// CHECK-LABEL: func.func @gather_from_strided_view
// CHECK: %[[FIRST:.*]] = affine.linearize_index [%{{.*}}, %{{.*}}, %{{.*}}] by (2, 3, 1)
// CHECK: %[[LANE:.*]] = vector.extract %{{.*}}[0] : index from vector<2xindex>
// CHECK: %[[LINEAR:.*]] = arith.addi %[[FIRST]], %[[LANE]]
// CHECK: scf.if
// CHECK: %[[AT:.*]]:3 = affine.delinearize_index %[[LINEAR]] into (2, 3, 1)
// CHECK: memref.load %{{.*}}[%[[AT]]#0, %[[AT]]#1, %[[AT]]#2] : memref<2x3x1xf32, strided<[14, 6, 1], offset: 1>>
// CHECK: vector.extract %{{.*}}[1] : index from vector<2xindex>
// CHECK-NOT: vector.gather
// CHECK: return
func.func @gather_from_strided_view(%buffer: memref<3x7x2xf32>, %offsets: vector<2xindex>, %mask: vector<2xi1>) -> vector<2xf32> {
  %c0 = arith.constant 0 : index
  %zeros = arith.constant dense<0.0> : vector<2xf32>
  %view = memref.subview %buffer[0, 0, 1] [2, 3, 1] [1, 3, 1] : memref<3x7x2xf32> to memref<2x3x1xf32, strided<[14, 6, 1], offset: 1>>
  %g = vector.gather %view[%c0, %c0, %c0] [%offsets], %mask, %zeros : memref<2x3x1xf32, strided<[14, 6, 1], offset: 1>>, vector<2xindex>, vector<2xi1>, vector<2xf32> into vector<2xf32>
  return %g : vector<2xf32>
}

// -----

// A 2-D read through an expansion whose vector spans dimensions expanded
// from one source dimension (a [6, 1] read of [2, 6, 1] expanded from
// [2, 6]) reads row by row: each row's element folds into the source at
// [b, i], where the upstream folding read the 6 along the source's first
// dimension ([b + i, 0]). A read whose dimensions are the source's own
// folds whole.
// CHECK-LABEL: func.func @read_through_expansion
// CHECK-SAME: (%[[SRC:.*]]: memref<2x6xf32>, %[[B:.*]]: index, %[[WIDE:.*]]: memref<12x42xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: vector.load %[[SRC]][%[[B]], %[[C0]]] : memref<2x6xf32>, vector<1xf32>
// CHECK: vector.load %[[SRC]][%[[B]], %[[C5]]] : memref<2x6xf32>, vector<1xf32>
// CHECK-NOT: memref.expand_shape
// CHECK: vector.load %[[WIDE]][%{{.*}}, %[[C0]]] : memref<12x42xf32>, vector<8xf32>
// CHECK: return
func.func @read_through_expansion(%src: memref<2x6xf32>, %b: index, %wide: memref<12x42xf32>) -> (vector<6x1xf32>, vector<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %e = memref.expand_shape %src [[0], [1, 2]] output_shape [2, 6, 1] : memref<2x6xf32> into memref<2x6x1xf32>
  %r = vector.transfer_read %e[%b, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x6x1xf32>, vector<6x1xf32>
  %w = memref.expand_shape %wide [[0, 1], [2]] output_shape [2, 6, 42] : memref<12x42xf32> into memref<2x6x42xf32>
  %s = vector.transfer_read %w[%b, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x6x42xf32>, vector<4x8xf32>
  return %r, %s : vector<6x1xf32>, vector<4x8xf32>
}
