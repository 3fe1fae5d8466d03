// RUN: kiln-opt %s --split-input-file --kiln-gpu-map-reductions --canonicalize | FileCheck %s

// Rows of 1000: 64 threads (two warps) per row, four rows per block of
// 256; lanes stride by 64, combine by shuffles, warps through workgroup
// memory, and the first lane combines with the output's initial value.
// CHECK-LABEL: func.func @rows
// CHECK-DAG: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C1024]], {{.*}}) threads({{.*}}) workgroup(%[[SLOTS:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %[[C64]] iter_args(%[[ACC:.*]] = %[[NEG_INF]]) -> (f32)
// CHECK:   memref.load %{{.*}}[%{{.*}}, %[[E]]] : memref<4096x1000xf32>
// CHECK:   arith.maximumf
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: memref.store %{{.*}}, %[[SLOTS]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK:   memref.load %[[SLOTS]]
// CHECK:   memref.load %[[SLOTS]]
// CHECK-NOT: memref.load %[[SLOTS]]
// CHECK:   %[[OLD:.*]] = memref.load %arg1
// CHECK:   %[[NEW:.*]] = arith.maximumf %{{.*}}, %[[OLD]]
// CHECK:   memref.store %[[NEW]], %arg1
func.func @rows(%x: memref<4096x1000xf32>, %y: memref<4096xf32>) {
  linalg.reduce ins(%x : memref<4096x1000xf32>) outs(%y : memref<4096xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.maximumf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return
}

// -----

// One output of a million elements: 122 groups of 256 threads each sum a
// chunk of 8197 (32 or more per thread) into a partial result, and a
// second kernel sums the 122.
// CHECK-LABEL: func.func @full
// CHECK: %[[PARTIAL:.*]] = memref.alloc() : memref<122xf32>
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c122,
// CHECK:   arith.minui
// CHECK:   scf.for
// CHECK:   memref.store %{{.*}}, %[[PARTIAL]]
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1,
// CHECK:   memref.load %[[PARTIAL]]
// CHECK:   memref.store %{{.*}}, %arg1[] : memref<f32>
// CHECK: memref.dealloc %[[PARTIAL]]
func.func @full(%x: memref<1000000xf32>, %y: memref<f32>) {
  linalg.reduce ins(%x : memref<1000000xf32>) outs(%y : memref<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return
}

// -----

// Short f64 rows: a warp per row, eight rows per block, no workgroup
// memory; each shuffle moves the two 32-bit halves.
// CHECK-LABEL: func.func @short
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c13,
// CHECK-NOT: workgroup
// CHECK: scf.for {{.*}} -> (f64)
// CHECK-COUNT-10: gpu.shuffle xor %{{.*}} : i32
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
func.func @short(%x: memref<100x40xf64>, %y: memref<100xf64>) {
  linalg.reduce ins(%x : memref<100x40xf64>) outs(%y : memref<100xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %0 = arith.addf %in, %acc : f64
      linalg.yield %0 : f64
    }
  return
}

// -----

// Short column sums: a thread per output (neighbouring threads read
// neighbouring columns), the accumulator carried in a register.
// CHECK-LABEL: func.func @columns
// CHECK: scf.parallel (%[[J:.*]]) = (%c0) to (%c300)
// CHECK:   %[[INIT:.*]] = memref.load %arg1[%[[J]]]
// CHECK:   %[[SUM:.*]] = scf.for %[[I:.*]] = %c0 to %c40 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]])
// CHECK:     memref.load %arg0[%[[I]], %[[J]]]
// CHECK:   memref.store %[[SUM]], %arg1[%[[J]]]
// CHECK-NOT: gpu.launch
func.func @columns(%x: memref<40x300xf32>, %y: memref<300xf32>) {
  linalg.reduce ins(%x : memref<40x300xf32>) outs(%y : memref<300xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return
}

// -----

// Long column sums, too few outputs to fill the GPU: 31 chunks of 33 rows
// per column, a thread per chunk and column folding from the neutral value
// into a partial sum, then a thread per column adding the 31 to its
// initial value.
// CHECK-LABEL: func.func @long_columns
// CHECK: %[[PARTIAL:.*]] = memref.alloc() : memref<9300xf32>
// CHECK: scf.parallel (%[[S:.*]], %[[J:.*]]) = (%c0, %c0) to (%c31, %c300)
// CHECK:   %[[BEGIN:.*]] = arith.muli %[[S]], %c33
// CHECK:   %[[END:.*]] = arith.minui %{{.*}}, %c1000
// CHECK:   scf.for %[[I:.*]] = %[[BEGIN]] to %[[END]] step %c1 iter_args(%{{.*}} = %cst)
// CHECK:     memref.load %arg0[%[[I]], %[[J]]]
// CHECK:   memref.store %{{.*}}, %[[PARTIAL]]
// CHECK: scf.parallel (%[[J2:.*]]) = (%c0) to (%c300)
// CHECK:   %[[INIT:.*]] = memref.load %arg1[%[[J2]]]
// CHECK:   scf.for %{{.*}} = %c0 to %c31 step %c1 iter_args(%{{.*}} = %[[INIT]])
// CHECK:     memref.load %[[PARTIAL]]
// CHECK:   memref.store %{{.*}}, %arg1[%[[J2]]]
// CHECK: memref.dealloc %[[PARTIAL]]
func.func @long_columns(%x: memref<1000x300xf32>, %y: memref<300xf32>) {
  linalg.reduce ins(%x : memref<1000x300xf32>) outs(%y : memref<300xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return
}

// -----

// argmax (two outputs, no single combiner) and linalg.index: a thread per
// output whose loop carries both accumulators.
// CHECK-LABEL: func.func @argmax
// CHECK: scf.parallel
// CHECK:   scf.for %[[K:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, i64)
// CHECK:     arith.index_cast %[[K]] : index to i64
// CHECK:   memref.store
// CHECK:   memref.store
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @argmax(%x: memref<8x100xf32>, %v: memref<8xf32>, %i: memref<8xi64>) {
  linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x100xf32>) outs(%v, %i : memref<8xf32>, memref<8xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %k = linalg.index 1 : index
    %k64 = arith.index_cast %k : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %nv = arith.select %gt, %in, %best : f32
    %ni = arith.select %gt, %k64, %at : i64
    linalg.yield %nv, %ni : f32, i64
  }
  return
}

// -----

// Reductions over nothing leave their outputs as they are, and reductions
// with no outputs do nothing: no kernel (one of no blocks could not launch).
// CHECK-LABEL: func.func @nothing
// CHECK-NOT: gpu.launch
// CHECK-NOT: scf.parallel
// CHECK-NOT: linalg.reduce
// CHECK: return
func.func @nothing(%x: memref<3x0xf32>, %y: memref<3xf32>, %z: memref<0x5xf32>, %w: memref<0xf32>) {
  linalg.reduce ins(%x : memref<3x0xf32>) outs(%y : memref<3xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  linalg.reduce ins(%z : memref<0x5xf32>) outs(%w : memref<0xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return
}
