// RUN: kiln-opt %s --split-input-file --kiln-free-after-last-use | FileCheck %s

// A buffer is freed after the last op that uses it or a view of it, even
// inside a loop, instead of at the end of the block.
// CHECK-LABEL: func.func @early
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK: %[[V:.*]] = memref.subview %[[A]]
// CHECK: scf.for
// CHECK: memref.load %[[V]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: %[[B:.*]] = memref.alloc()
// CHECK: memref.dealloc %[[B]]
// CHECK-NEXT: return
func.func @early(%x: memref<8xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %v = memref.subview %a[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  scf.for %i = %c0 to %c4 step %c1 {
    %e = memref.load %v[%i] : memref<4xf32, strided<[1], offset: 2>>
    memref.store %e, %y[%i] : memref<4xf32>
  }
  %b = memref.alloc() : memref<4xf32>
  memref.copy %y, %b : memref<4xf32> to memref<4xf32>
  memref.copy %b, %y : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// The deallocation of a buffer's base (as the deallocation pipeline writes
// it) moves too.
// CHECK-LABEL: func.func @base
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK-NEXT: memref.copy %{{.*}}, %[[A]]
// CHECK-NEXT: memref.copy %[[A]]
// CHECK-NEXT: %[[BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[A]]
// CHECK-NEXT: memref.dealloc %[[BASE]]
// CHECK-NEXT: memref.copy
func.func @base(%x: memref<8xf32>, %y: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  memref.copy %a, %y : memref<8xf32> to memref<8xf32>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %a : memref<8xf32> -> memref<f32>, index, index, index
  memref.copy %x, %y : memref<8xf32> to memref<8xf32>
  memref.dealloc %base : memref<f32>
  return
}

// -----

// A buffer that escapes its block (yielded by a loop, chosen by a select)
// keeps its deallocation where it is.
// CHECK-LABEL: func.func @escapes
// CHECK: scf.for
// CHECK: arith.select
// CHECK: memref.copy
// CHECK-NEXT: memref.copy
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
func.func @escapes(%x: memref<4xf32>, %y: memref<4xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %a) -> (memref<4xf32>) {
    scf.yield %m : memref<4xf32>
  }
  %b = memref.alloc() : memref<4xf32>
  %s = arith.select %c, %b, %x : memref<4xf32>
  memref.copy %s, %y : memref<4xf32> to memref<4xf32>
  memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}
