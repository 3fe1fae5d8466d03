// RUN: kiln-opt %s --kiln-lower-foralls --split-input-file --verify-diagnostics | FileCheck %s

// An outermost loop that neither allocates nor calls: an OpenMP
// worksharing loop over the same iterations in a parallel region.
// CHECK-LABEL: func.func @threads
func.func @threads(%x: memref<256x64xf32>, %y: memref<256x64xf32>) {
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
  // CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
  // CHECK: omp.parallel {
  // CHECK-NEXT: omp.wsloop nowait {
  // CHECK-NEXT: omp.loop_nest (%[[I:.*]]) : index = (%[[C0]]) to (%[[C256]]) step (%[[C64]]) {
  // CHECK: memref.subview %{{.*}}[%[[I]], 0] [64, 64] [1, 1]
  // CHECK: memref.copy
  // CHECK-NEXT: omp.yield
  // CHECK: omp.terminator
  // CHECK-NOT: scf.forall
  scf.forall (%i) = (0) to (256) step (64) {
    %a = memref.subview %x[%i, 0] [64, 64] [1, 1]
        : memref<256x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
    %b = memref.subview %y[%i, 0] [64, 64] [1, 1]
        : memref<256x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
    memref.copy %a, %b : memref<64x64xf32, strided<[64, 1], offset: ?>>
        to memref<64x64xf32, strided<[64, 1], offset: ?>>
  }
  return
}

// -----

// Buffers the body allocates (statically shaped, freed in it, 1 MiB at
// most in all) become stack buffers each thread allocates once.
// CHECK-LABEL: func.func @buffers
func.func @buffers(%x: memref<4x64xf32>) {
  // CHECK: omp.parallel {
  // CHECK-NEXT: %[[T:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64xf32>
  // CHECK-NEXT: omp.wsloop
  // CHECK: memref.copy %[[T]]
  // CHECK-NOT: memref.alloc()
  // CHECK-NOT: memref.dealloc
  scf.forall (%i) in (4) {
    %t = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
    %row = memref.subview %x[%i, 0] [1, 64] [1, 1]
        : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
    memref.copy %t, %row : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
    memref.dealloc %t : memref<64xf32>
  }
  return
}

// -----

// A loop whose buffers exceed 1 MiB (here 2 MiB), or are dynamically
// shaped, runs its iterations in order on the calling thread: a failed
// heap allocation abandons the call by a jump on that thread.
// CHECK-LABEL: func.func @large_buffers
// CHECK-NOT: omp.
func.func @large_buffers(%x: memref<4x64xf32>, %n: index) {
  // CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1
  // CHECK: memref.alloc() : memref<524288xf32>
  scf.forall (%i) in (4) {
    %t = memref.alloc() : memref<524288xf32>
    memref.dealloc %t : memref<524288xf32>
  }
  // CHECK: scf.for
  // CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
  scf.forall (%i) in (4) {
    %t = memref.alloc(%n) : memref<?xf32>
    memref.dealloc %t : memref<?xf32>
  }
  return
}

// -----

func.func private @helper(memref<64xf32, strided<[1], offset: ?>>)

// So does one that calls a function (which may allocate).
// CHECK-LABEL: func.func @calls
// CHECK-NOT: omp.
// CHECK: scf.for
// CHECK: call @helper
func.func @calls(%x: memref<4x64xf32>) {
  scf.forall (%i) in (4) {
    %row = memref.subview %x[%i, 0] [1, 64] [1, 1]
        : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
    func.call @helper(%row) : (memref<64xf32, strided<[1], offset: ?>>) -> ()
  }
  return
}

// -----

// A loop nested in one that threads run runs on its thread, in order.
// CHECK-LABEL: func.func @nested
func.func @nested(%x: memref<4x8xf32>, %v: f32) {
  // CHECK: omp.loop_nest
  // CHECK: scf.for
  // CHECK: memref.store
  // CHECK: omp.yield
  scf.forall (%i) in (4) {
    scf.forall (%j) in (8) {
      memref.store %v, %x[%i, %j] : memref<4x8xf32>
    }
  }
  return
}

// -----

func.func @on_tensors(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{kiln-lower-foralls: expected a bufferized loop (no shared outputs)}}
  %0 = scf.forall (%i) in (4) shared_outs(%o = %x) -> (tensor<4xf32>) {
    %s = tensor.extract_slice %o[%i] [1] [1] : tensor<4xf32> to tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%i] [1] [1] : tensor<1xf32> into tensor<4xf32>
    }
  }
  return %0 : tensor<4xf32>
}
