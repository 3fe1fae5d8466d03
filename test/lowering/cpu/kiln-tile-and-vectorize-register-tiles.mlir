// RUN: kiln-opt %s --kiln-tile-and-vectorize="register-tile-m=6 register-tile-n=16 parallel-work=0" --split-input-file | FileCheck %s

// AVX2's register tile (compiler/Compiler.cpp): 6 rows of 16. A cache tile
// holds whole register tiles, 60 of its 64 rows: 128 rows are 2 cache tiles
// of 60, a register tile of 6 and the last 2 rows, each tile of a static
// size (64-row cache tiles ended in tiles of dynamic size). The last 2
// rows take twice the columns (32): a power of two times, where 6 / 2 = 3
// times (48) carried vectors of 32 and 16 shuffled together every k step.
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
// CHECK: vector.contract {{.*}} : vector<2x1xf32>, vector<1x32xf32> into vector<2x32xf32>
// CHECK-NOT: ?x
// CHECK: return
func.func @six_rows(%a: tensor<128x64xf32>, %b: tensor<64x48xf32>, %c: tensor<128x48xf32>) -> tensor<128x48xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x48xf32>)
                     outs(%c : tensor<128x48xf32>) -> tensor<128x48xf32>
  return %0 : tensor<128x48xf32>
}

// -----

// 5 rows, whose power of two (8) is more than 6: a register tile of 5 x
// 16 (it was widened to 6 / 8 = 0 times the columns). Like any product of
// fewer rows than a register tile, it streams B: a cache tile of all 512
// columns and K tiles of 8 steps, so that each K tile walks whole rows of
// B (5 x 2048 x 2048 on an AMD Zen 3: 4.05 -> 1.06 ms, from cache tiles of
// 256 x 256 whose register tiles walked down 256 rows 8 KiB apart).
// CHECK-LABEL: func.func @few_rows
// CHECK: scf.for %{{.*}} to %c512 step %c512
// CHECK: scf.for %{{.*}} to %c64 step %c8
// CHECK: scf.for %{{.*}} to %c512{{.*}} step %c16
// CHECK: vector.contract {{.*}} : vector<5x1xf32>, vector<1x16xf32> into vector<5x16xf32>
func.func @few_rows(%a: tensor<5x64xf32>, %b: tensor<64x512xf32>, %c: tensor<5x512xf32>) -> tensor<5x512xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<5x64xf32>, tensor<64x512xf32>)
                     outs(%c : tensor<5x512xf32>) -> tensor<5x512xf32>
  return %0 : tensor<5x512xf32>
}

// -----

// A thin product sums in lanes of 16 in as many accumulators as the
// register tile's registers: 6 of 16 lanes (2 ymm each), 3 rows of its 2
// columns (8 rows of 16 vectors spilled AVX2's 16 registers: 2000 x 300 x
// 5 (nt) 0.191 -> 0.138 ms on an AMD Zen 3); 63 rows in tiles of 3, the
// last row on its own.
// CHECK-LABEL: func.func @thin
// CHECK: scf.for %{{.*}} to %c63 step %c3
// CHECK: arith.mulf {{.*}} : vector<3x2x1x16xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} [2] : vector<3x2x16xf32> to vector<3x2xf32>
// CHECK: arith.mulf {{.*}} : vector<1x2x1x16xf32>
func.func @thin(%a: tensor<64x512xf32>, %b: tensor<512x2xf32>, %c: tensor<64x2xf32>) -> tensor<64x2xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x512xf32>, tensor<512x2xf32>)
                     outs(%c : tensor<64x2xf32>) -> tensor<64x2xf32>
  return %0 : tensor<64x2xf32>
}

// -----

// 8 columns would need 8 vectors of lanes, more than the 6 registers'
// worth: register tiles of 6 x 8 instead.
// CHECK-LABEL: func.func @eight_columns
// CHECK-NOT: vector.multi_reduction
// CHECK: vector.contract {{.*}} : vector<6x1xf32>, vector<1x8xf32> into vector<6x8xf32>
func.func @eight_columns(%a: tensor<60x512xf32>, %b: tensor<512x8xf32>, %c: tensor<60x8xf32>) -> tensor<60x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<60x512xf32>, tensor<512x8xf32>)
                     outs(%c : tensor<60x8xf32>) -> tensor<60x8xf32>
  return %0 : tensor<60x8xf32>
}
