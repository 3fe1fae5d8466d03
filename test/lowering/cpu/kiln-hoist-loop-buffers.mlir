// RUN: kiln-opt %s --kiln-hoist-loop-buffers --split-input-file | FileCheck %s

// A buffer each iteration allocates and frees is allocated once before the
// loop and freed after it; out of an inner loop first, then out of the
// loop around it.
// CHECK-LABEL: func.func @hoisted
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ROW:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x64xf32>
// CHECK-DAG: %[[PART:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT: scf.for
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: scf.for
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: }
// CHECK: }
// CHECK-DAG: memref.dealloc %[[ROW]] : memref<1x64xf32>
// CHECK-DAG: memref.dealloc %[[PART]] : memref<16xf32>
// CHECK: return
func.func @hoisted(%x: memref<300x64xf32>, %y: memref<300x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c300 = arith.constant 300 : index
  %cst = arith.constant dense<0.0> : vector<64xf32>
  scf.for %i = %c0 to %c300 step %c1 {
    %row = memref.alloc() {alignment = 64 : i64} : memref<1x64xf32>
    vector.store %cst, %row[%c0, %c0] : memref<1x64xf32>, vector<64xf32>
    scf.for %j = %c0 to %c4 step %c1 {
      %part = memref.alloc() : memref<16xf32>
      %v = vector.load %row[%c0, %c0] : memref<1x64xf32>, vector<16xf32>
      vector.store %v, %part[%c0] : memref<16xf32>, vector<16xf32>
      %w = vector.load %part[%c0] : memref<16xf32>, vector<16xf32>
      vector.store %w, %y[%i, %c0] : memref<300x16xf32>, vector<16xf32>
      memref.dealloc %part : memref<16xf32>
    }
    memref.dealloc %row : memref<1x64xf32>
  }
  return
}

// -----

// A buffer whose size the iteration computes, one freed elsewhere than in
// the iteration that allocated it, and one never freed there stay in the
// loop.
// CHECK-LABEL: func.func @kept
// CHECK: scf.for %[[I:[a-z0-9]+]] =
// CHECK-NEXT: memref.alloc(%[[I]]) : memref<?xf32>
// CHECK: memref.dealloc
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: scf.if
// CHECK-NEXT: memref.dealloc
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: scf.yield
func.func @kept(%n: index, %flag: i1) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %first = memref.alloc() : memref<4xf32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %first) -> (memref<4xf32>) {
    %sized = memref.alloc(%i) : memref<?xf32>
    memref.dealloc %sized : memref<?xf32>
    %maybe = memref.alloc() : memref<8xf32>
    scf.if %flag {
      memref.dealloc %maybe : memref<8xf32>
    }
    %next = memref.alloc() : memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  return %last : memref<4xf32>
}

// -----

// Buffers leave a loop smallest first while they total at most max-bytes
// (64 KiB): a large buffer stays in the loop, so that the allocator hands
// each iteration the memory, hot in cache, the last one freed, instead of
// every large buffer of the body being live at once (a sort network's
// steps).
// CHECK-LABEL: func.func @budget
// CHECK: %[[SMALL:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT: %[[MID:.*]] = memref.alloc() : memref<8192xf32>
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.alloc() : memref<32768xf32>
// CHECK-NEXT: memref.alloc() : memref<8192xf32>
// CHECK: memref.dealloc
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: }
// CHECK-DAG: memref.dealloc %[[SMALL]] :
// CHECK-DAG: memref.dealloc %[[MID]] :
func.func @budget(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %large = memref.alloc() : memref<32768xf32>
    %mid = memref.alloc() : memref<8192xf32>
    %second = memref.alloc() : memref<8192xf32>
    %small = memref.alloc() : memref<16xf32>
    memref.dealloc %large : memref<32768xf32>
    memref.dealloc %mid : memref<8192xf32>
    memref.dealloc %second : memref<8192xf32>
    memref.dealloc %small : memref<16xf32>
  }
  return
}
