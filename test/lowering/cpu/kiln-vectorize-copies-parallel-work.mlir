// RUN: kiln-opt %s --kiln-vectorize-copies --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-vectorize-copies="parallel-work=0" --split-input-file | FileCheck %s --check-prefix=SERIAL

// A copy of 4 MB (8 MB read and written: 419 us at 20 GB/s, past the
// default 150 us) shares its rows between threads; one of 16 KB does not.
// CHECK-LABEL: func.func @large_and_small
// CHECK: scf.forall (%[[ROW:.*]]) in (1024) {
// CHECK:   scf.for %[[COL:.*]] = %c0 to %c1024 step %c64 {
// CHECK:     vector.load %arg0[%[[ROW]], %[[COL]]] : memref<1024x1024xf32>, vector<64xf32>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c64{{.*}} step %c1 {
// CHECK-NOT: scf.forall
// SERIAL-LABEL: func.func @large_and_small
// SERIAL-NOT: scf.forall
func.func @large_and_small(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<64x64xf32>, %d: memref<64x64xf32>) {
  linalg.copy ins(%a : memref<1024x1024xf32>) outs(%b : memref<1024x1024xf32>)
  linalg.copy ins(%c : memref<64x64xf32>) outs(%d : memref<64x64xf32>)
  return
}

// -----

// A copy inside a loop threads already share stays a plain loop nest.
// CHECK-LABEL: func.func @inside_forall
// SERIAL-LABEL: func.func @inside_forall
// CHECK: scf.forall
// CHECK-NOT: scf.forall
// CHECK: scf.for
func.func @inside_forall(%a: memref<2x1024x1024xf32>, %b: memref<2x1024x1024xf32>) {
  scf.forall (%i) in (2) {
    %from = memref.subview %a[%i, 0, 0] [1, 1024, 1024] [1, 1, 1] : memref<2x1024x1024xf32> to memref<1024x1024xf32, strided<[1024, 1], offset: ?>>
    %to = memref.subview %b[%i, 0, 0] [1, 1024, 1024] [1, 1, 1] : memref<2x1024x1024xf32> to memref<1024x1024xf32, strided<[1024, 1], offset: ?>>
    linalg.copy ins(%from : memref<1024x1024xf32, strided<[1024, 1], offset: ?>>) outs(%to : memref<1024x1024xf32, strided<[1024, 1], offset: ?>>)
  }
  return
}
