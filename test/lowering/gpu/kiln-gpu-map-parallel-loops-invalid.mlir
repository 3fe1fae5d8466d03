// RUN: kiln-opt %s --kiln-gpu-map-parallel-loops -split-input-file -verify-diagnostics

func.func @nested(%a: memref<64x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    // expected-error @+1 {{'scf.parallel' op is nested in another scf.parallel, which kiln-gpu-map-parallel-loops does not map yet}}
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      memref.store %f, %a[%i, %j] : memref<64x8xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}
