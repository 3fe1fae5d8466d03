// RUN: kiln-opt %s --kiln-vectorize-copies --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-vectorize-copies="vector-width=16" --split-input-file | FileCheck %s --check-prefix=W16
// RUN: not kiln-opt %s --kiln-vectorize-copies="vector-width=0" --split-input-file 2>&1 | FileCheck %s --check-prefix=ZERO

// A pad's input placed into its result: rows of 64 (the innermost
// dimension, contiguous in both) copied by whole vectors, indexing the
// memrefs as they are.
// CHECK-LABEL: func.func @into_padded
// CHECK-NOT: linalg.copy
// CHECK: scf.for %[[I:.*]] = %c0 to %c2 step %c1
// CHECK: scf.for %[[J:.*]] = %c0 to %c5 step %c1
// CHECK: scf.for %[[K:.*]] = %c0 to %c64 step %c64
// CHECK: %[[V:.*]] = vector.load %arg0[%[[I]], %[[J]], %[[K]]] : memref<2x5x64xf32>, vector<64xf32>
// CHECK: vector.store %[[V]], %{{.*}}[%[[I]], %[[J]], %[[K]]] : memref<2x5x64xf32, strided<[448, 64, 1], offset: 64>>, vector<64xf32>
// CHECK-NOT: vector.maskedload
// W16-LABEL: func.func @into_padded
// W16: scf.for %{{.*}} = %c0 to %c64 step %c16
// W16: vector.load {{.*}} vector<16xf32>
// ZERO: error: kiln-vectorize-copies: vector-width must be positive, not 0
func.func @into_padded(%x: memref<2x5x64xf32>, %padded: memref<2x7x64xf32>) {
  %view = memref.subview %padded[0, 1, 0] [2, 5, 64] [1, 1, 1] : memref<2x7x64xf32> to memref<2x5x64xf32, strided<[448, 64, 1], offset: 64>>
  linalg.copy ins(%x : memref<2x5x64xf32>) outs(%view : memref<2x5x64xf32, strided<[448, 64, 1], offset: 64>>)
  return
}

// -----

// A row of 100: vectors of 64 (the widest power of two no longer than the
// row), then the last 36 elements through a masked vector (its mask a
// constant before the loops).
// CHECK-LABEL: func.func @odd_row
// CHECK: %[[MASK:.*]] = arith.constant dense<[true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false]> : vector<64xi1>
// CHECK: scf.for %[[K:.*]] = %c0 to %c64 step %c64
// CHECK: vector.load %arg0[%{{.*}}, %[[K]]] : memref<3x100xf32>, vector<64xf32>
// CHECK: %[[TAIL:.*]] = vector.maskedload %arg0[%{{.*}}, %c64], %[[MASK]], %{{.*}} : memref<3x100xf32>, vector<64xi1>, vector<64xf32> into vector<64xf32>
// CHECK: vector.maskedstore %arg1[%{{.*}}, %c64], %[[MASK]], %[[TAIL]]
// W16-LABEL: func.func @odd_row
// W16: scf.for %{{.*}} = %c0 to %c96 step %c16
func.func @odd_row(%x: memref<3x100xf32>, %y: memref<3x100xf32>) {
  linalg.copy ins(%x : memref<3x100xf32>) outs(%y : memref<3x100xf32>)
  return
}

// -----

// A bf16 row's rest goes in power-of-two pieces, 32 then 4, unmasked: LLVM
// 22 cannot select a masked bf16 store on a CPU with AVX-512 BF16.
// CHECK-LABEL: func.func @odd_bf16_row
// CHECK: scf.for %[[K:.*]] = %c0 to %c64 step %c64
// CHECK: vector.load %arg0[%{{.*}}, %[[K]]] : memref<3x100xbf16>, vector<64xbf16>
// CHECK: vector.load %arg0[%{{.*}}, %c64] : memref<3x100xbf16>, vector<32xbf16>
// CHECK: vector.store %{{.*}}, %arg1[%{{.*}}, %c64] : memref<3x100xbf16>, vector<32xbf16>
// CHECK: vector.load %arg0[%{{.*}}, %c96] : memref<3x100xbf16>, vector<4xbf16>
// CHECK: vector.store %{{.*}}, %arg1[%{{.*}}, %c96] : memref<3x100xbf16>, vector<4xbf16>
// CHECK-NOT: vector.masked
func.func @odd_bf16_row(%x: memref<3x100xbf16>, %y: memref<3x100xbf16>) {
  linalg.copy ins(%x : memref<3x100xbf16>) outs(%y : memref<3x100xbf16>)
  return
}

// -----

// Booleans too (kiln-bool-vectors-as-bytes loads and stores them as the
// bytes a tensor of i1 holds).
// CHECK-LABEL: func.func @bools
// CHECK: vector.load %arg0[%{{.*}}, %{{.*}}] : memref<4x8xi1>, vector<8xi1>
func.func @bools(%b: memref<4x8xi1>, %c: memref<4x8xi1>) {
  linalg.copy ins(%b : memref<4x8xi1>) outs(%c : memref<4x8xi1>)
  return
}

// -----

// Copies left to the loop lowering: an innermost dimension read with a
// stride (a transposed view), dynamic shapes, rows of one element (a
// scalar's view as tensor<1xf32>: a vector load through it would fold
// into a load from a rank-0 memref, which does not exist).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: linalg.copy
// CHECK-NOT: vector.load
func.func @left_alone(%t: memref<8x4xf32, strided<[1, 8]>>, %u: memref<8x4xf32>, %d: memref<?x8xf32>, %e: memref<?x8xf32>, %s: memref<f32>, %v: memref<1xf32>) {
  linalg.copy ins(%t : memref<8x4xf32, strided<[1, 8]>>) outs(%u : memref<8x4xf32>)
  linalg.copy ins(%d : memref<?x8xf32>) outs(%e : memref<?x8xf32>)
  %one = memref.expand_shape %s [] output_shape [1] : memref<f32> into memref<1xf32>
  linalg.copy ins(%one : memref<1xf32>) outs(%v : memref<1xf32>)
  return
}

// -----

// The inputs of a concatenation along its last dimension (copies into the
// same rows of one buffer, only views between them) run in one nest of
// loops over those rows, each row of every input copied in turn, so that
// each row of the result is written in one pass.
// CHECK-LABEL: func.func @concatenated_rows
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c64 step %c64 {
// CHECK-NEXT: vector.load %arg0[%[[I]], %[[J]]] : memref<4x64xf32>, vector<64xf32>
// CHECK: }
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c32 step %c32 {
// CHECK-NEXT: vector.load %arg1[%[[I]], %[[K]]] : memref<4x36xf32>, vector<32xf32>
// CHECK: }
// CHECK-NEXT: vector.maskedload %arg1[%[[I]], %c32]
// CHECK-NEXT: vector.maskedstore
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @concatenated_rows(%a: memref<4x64xf32>, %b: memref<4x36xf32>, %out: memref<4x100xf32>) {
  %left = memref.subview %out[0, 0] [4, 64] [1, 1] : memref<4x100xf32> to memref<4x64xf32, strided<[100, 1]>>
  linalg.copy ins(%a : memref<4x64xf32>) outs(%left : memref<4x64xf32, strided<[100, 1]>>)
  %right = memref.subview %out[0, 64] [4, 36] [1, 1] : memref<4x100xf32> to memref<4x36xf32, strided<[100, 1], offset: 64>>
  linalg.copy ins(%b : memref<4x36xf32>) outs(%right : memref<4x36xf32, strided<[100, 1], offset: 64>>)
  return
}

// -----

// Copies stay loop nests of their own where running them row by row
// together could change what they read or write: into different rows of
// the buffer (rows 0-3 and 1-4), one reading the buffer they write, or a
// store between them.
// CHECK-LABEL: func.func @other_rows
// CHECK-COUNT-2: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} {
// CHECK-LABEL: func.func @reads_the_buffer
// CHECK-COUNT-2: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} {
// CHECK-LABEL: func.func @store_between
// CHECK-COUNT-2: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} {
func.func @other_rows(%a: memref<4x16xf32>, %out: memref<5x32xf32>) {
  %top = memref.subview %out[0, 0] [4, 16] [1, 1] : memref<5x32xf32> to memref<4x16xf32, strided<[32, 1]>>
  linalg.copy ins(%a : memref<4x16xf32>) outs(%top : memref<4x16xf32, strided<[32, 1]>>)
  %below = memref.subview %out[1, 16] [4, 16] [1, 1] : memref<5x32xf32> to memref<4x16xf32, strided<[32, 1], offset: 48>>
  linalg.copy ins(%a : memref<4x16xf32>) outs(%below : memref<4x16xf32, strided<[32, 1], offset: 48>>)
  return
}
func.func @reads_the_buffer(%a: memref<4x16xf32>, %out: memref<4x32xf32>) {
  %left = memref.subview %out[0, 0] [4, 16] [1, 1] : memref<4x32xf32> to memref<4x16xf32, strided<[32, 1]>>
  %right = memref.subview %out[0, 16] [4, 16] [1, 1] : memref<4x32xf32> to memref<4x16xf32, strided<[32, 1], offset: 16>>
  linalg.copy ins(%a : memref<4x16xf32>) outs(%left : memref<4x16xf32, strided<[32, 1]>>)
  linalg.copy ins(%left : memref<4x16xf32, strided<[32, 1]>>) outs(%right : memref<4x16xf32, strided<[32, 1], offset: 16>>)
  return
}
func.func @store_between(%a: memref<4x16xf32>, %out: memref<4x32xf32>, %x: f32) {
  %left = memref.subview %out[0, 0] [4, 16] [1, 1] : memref<4x32xf32> to memref<4x16xf32, strided<[32, 1]>>
  %right = memref.subview %out[0, 16] [4, 16] [1, 1] : memref<4x32xf32> to memref<4x16xf32, strided<[32, 1], offset: 16>>
  linalg.copy ins(%a : memref<4x16xf32>) outs(%left : memref<4x16xf32, strided<[32, 1]>>)
  %c0 = arith.constant 0 : index
  memref.store %x, %out[%c0, %c0] : memref<4x32xf32>
  linalg.copy ins(%a : memref<4x16xf32>) outs(%right : memref<4x16xf32, strided<[32, 1], offset: 16>>)
  return
}
