// RUN: not kiln-opt %s --kiln-tile-and-vectorize="register-tile-m=0" 2>&1 | FileCheck %s
// RUN: not kiln-opt %s --kiln-tile-and-vectorize="vector-bytes=0" 2>&1 | FileCheck %s

// A target description with an empty tile or vector register is refused,
// not divided by.
// CHECK: error: kiln-tile-and-vectorize: vector width, vector bytes and tile sizes must be positive
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
