// RUN: kiln-opt %s --kiln-tile-and-vectorize="register-tile-m=6 register-tile-n=16 parallel-work=0" --split-input-file | FileCheck %s

// AVX2's register tile (compiler/Compiler.cpp): 6 rows of 16. A cache tile
// holds whole register tiles, 60 of its 64 rows: 128 rows are 2 cache tiles
// of 60, a register tile of 6 and the last 2 rows, each tile of a static
// size (64-row cache tiles ended in tiles of dynamic size). The last 2
// rows take 3 times the columns (48), as many accumulators.
// CHECK-LABEL: func.func @six_rows
// CHECK-NOT: ?x
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [126, 64] [1, 1]
// CHECK: scf.for %{{.*}} to %c120 step %c60
// CHECK: scf.for %{{.*}} to %c60{{.*}} step %c6
// CHECK: scf.for %{{.*}} to %c48{{.*}} step %c16
// CHECK: vector.contract {{.*}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
// CHECK: tensor.extract_slice %{{.*}}[120, 0] [6, 64] [1, 1]
// CHECK: vector.contract {{.*}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
// CHECK: tensor.extract_slice %{{.*}}[126, 0] [2, 64] [1, 1]
// CHECK: vector.contract {{.*}} : vector<2x1xf32>, vector<1x48xf32> into vector<2x48xf32>
// CHECK-NOT: ?x
// CHECK: return
func.func @six_rows(%a: tensor<128x64xf32>, %b: tensor<64x48xf32>, %c: tensor<128x48xf32>) -> tensor<128x48xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x48xf32>)
                     outs(%c : tensor<128x48xf32>) -> tensor<128x48xf32>
  return %0 : tensor<128x48xf32>
}

// -----

// 5 rows, whose power of two (8) is more than 6: a register tile of 5 x
// 16 (it was widened to 6 / 8 = 0 times the columns).
// CHECK-LABEL: func.func @few_rows
// CHECK: vector.contract {{.*}} : vector<5x1xf32>, vector<1x16xf32> into vector<5x16xf32>
func.func @few_rows(%a: tensor<5x64xf32>, %b: tensor<64x48xf32>, %c: tensor<5x48xf32>) -> tensor<5x48xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<5x64xf32>, tensor<64x48xf32>)
                     outs(%c : tensor<5x48xf32>) -> tensor<5x48xf32>
  return %0 : tensor<5x48xf32>
}
