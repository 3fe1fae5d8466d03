// RUN: kiln-opt %s --kiln-gpu-map-parallel-loops --convert-parallel-loops-to-gpu --canonicalize | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-map-parallel-loops=block-size=128 --convert-parallel-loops-to-gpu --canonicalize | FileCheck %s --check-prefix=SMALL

// A 2-D loop is collapsed row-major (the innermost index is the remainder,
// so neighbouring threads touch neighbouring elements), tiled by the block
// size and mapped to block x and thread x; the inner reduction loop stays.
// CHECK-LABEL: func.func @rows
// CHECK-DAG: %[[C300:.*]] = arith.constant 300 : index
// CHECK-DAG: %[[N:.*]] = arith.constant 300000 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[BLOCKS:.*]] = arith.constant 1172 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCKS]], {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
// CHECK:   arith.addi %[[T]],
// CHECK:   arith.cmpi ult, %{{.*}}, %[[N]]
// CHECK:   arith.remsi %{{.*}}, %[[C300]] : index
// CHECK:   arith.divsi %{{.*}}, %[[C300]] : index
// CHECK:   scf.for
// SMALL: %[[C128:.*]] = arith.constant 128 : index
// SMALL: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %[[C128]],
func.func @rows(%a: memref<1000x300xf32>, %b: memref<1000x300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c300 = arith.constant 300 : index
  %c1000 = arith.constant 1000 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1000, %c300) step (%c1, %c1) {
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %a[%i, %j] : memref<1000x300xf32>
      memref.store %v, %b[%i, %j] : memref<1000x300xf32>
    }
    scf.reduce
  }
  return
}
