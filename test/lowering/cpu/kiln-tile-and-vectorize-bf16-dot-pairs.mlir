// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 bf16-dot-pairs=true" | FileCheck %s
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0" | FileCheck %s --check-prefix=NONE

// bf16 -> f32 register tiles of k pairs take any shape: rows past the last
// 8 run as a tile of 4, the 21 columns as power-of-two widths (16, 4, 1),
// and the odd K's last step as a tile of its own, accumulating onto the
// pairs' result.
// CHECK-LABEL: func.func @bf16_pairs
// CHECK: scf.for {{.*}} step %c2
// CHECK: vector.contract {{.*}} : vector<8x2xbf16>, vector<2x16xbf16> into vector<8x16xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xbf16>, vector<1x16xbf16> into vector<8x16xf32>
// CHECK: vector.contract {{.*}} : vector<8x2xbf16>, vector<2x4xbf16> into vector<8x4xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xbf16>, vector<1x4xbf16> into vector<8x4xf32>
// CHECK: vector.contract {{.*}} : vector<8x2xbf16>, vector<2x1xbf16> into vector<8x1xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xbf16>, vector<1x1xbf16> into vector<8x1xf32>
// CHECK: vector.contract {{.*}} : vector<4x2xbf16>, vector<2x16xbf16> into vector<4x16xf32>
// CHECK-NOT: linalg.matmul
// Without pairs, bf16 tiles must be whole (8 x 32): off them, the operands
// are widened to f32 first (copies left to the loop lowering) and the
// product tiled as an f32 one.
// NONE-LABEL: func.func @bf16_pairs
// NONE: arith.extf %{{.*}} : bf16 to f32
// NONE: arith.extf %{{.*}} : bf16 to f32
// NONE: vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// NONE-NOT: linalg.matmul
func.func @bf16_pairs(%a: tensor<20x7xbf16>, %b: tensor<7x21xbf16>, %c: tensor<20x21xf32>) -> tensor<20x21xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<20x7xbf16>, tensor<7x21xbf16>) outs(%c : tensor<20x21xf32>) -> tensor<20x21xf32>
  return %0 : tensor<20x21xf32>
}

// f16 products do not pair: whole 8 x 32 tiles of single k steps, which
// convert the f16 elements they read...
// CHECK-LABEL: func.func @f16_steps
// CHECK-NOT: arith.extf %{{.*}} : f16 to f32
// CHECK: vector.contract {{.*}} : vector<8x1xf16>, vector<1x32xf16> into vector<8x32xf32>
func.func @f16_steps(%a: tensor<8x6xf16>, %b: tensor<6x64xf16>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x6xf16>, tensor<6x64xf16>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// ... where fewer than two register tiles' rows would convert each element
// of B at most twice; from two, the operands are widened to f32 once.
// CHECK-LABEL: func.func @f16_widened
// CHECK: arith.extf %{{.*}} : vector<1x{{[0-9]+}}xf16> to vector<1x{{[0-9]+}}xf32>
// CHECK: arith.extf %{{.*}} : vector<1x64xf16> to vector<1x64xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT: xf16>, vector<1x32xf16>
func.func @f16_widened(%a: tensor<16x6xf16>, %b: tensor<6x64xf16>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x6xf16>, tensor<6x64xf16>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// f16 products off whole tiles (M = 20, N = 21) widen their operands to
// f32 and take the f32 schedule: a vector of 21 f16 would not legalize.
// CHECK-LABEL: func.func @f16_odd
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK-NOT: linalg.matmul
func.func @f16_odd(%a: tensor<20x7xf16>, %b: tensor<7x21xf16>, %c: tensor<20x21xf32>) -> tensor<20x21xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<20x7xf16>, tensor<7x21xf16>) outs(%c : tensor<20x21xf32>) -> tensor<20x21xf32>
  return %0 : tensor<20x21xf32>
}

// bf16 thin products sum in f32 lanes along K, each operand widened as it
// is read, where they pay against register tiles: with pairs, those fill
// 2N lanes a step, so lanes pay as for twice the columns: 2 columns (4)
// sum in lanes, 8 (16) stay register tiles of k pairs; without pairs both
// sum in lanes.
// CHECK-LABEL: func.func @thin_bf16
// CHECK: arith.extf {{.*}} : vector<8x2x1x16xbf16> to vector<8x2x1x16xf32>
// CHECK: arith.mulf {{.*}} : vector<8x2x1x16xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} [2] : vector<8x2x16xf32> to vector<8x2xf32>
// NONE-LABEL: func.func @thin_bf16
// NONE: vector.multi_reduction <add>, {{.*}} [2] : vector<8x2x16xf32> to vector<8x2xf32>
func.func @thin_bf16(%a: tensor<40x256xbf16>, %b: tensor<256x2xbf16>, %c: tensor<40x2xf32>) -> tensor<40x2xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<40x256xbf16>, tensor<256x2xbf16>) outs(%c : tensor<40x2xf32>) -> tensor<40x2xf32>
  return %0 : tensor<40x2xf32>
}

// CHECK-LABEL: func.func @thin_bf16_eight
// CHECK-NOT: vector.multi_reduction
// CHECK: vector.contract {{.*}} : vector<8x2xbf16>, vector<2x8xbf16> into vector<8x8xf32>
// NONE-LABEL: func.func @thin_bf16_eight
// NONE: vector.multi_reduction <add>, {{.*}} [2] : vector<2x8x16xf32> to vector<2x8xf32>
func.func @thin_bf16_eight(%a: tensor<40x512xbf16>, %b: tensor<512x8xbf16>, %c: tensor<40x8xf32>) -> tensor<40x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<40x512xbf16>, tensor<512x8xbf16>) outs(%c : tensor<40x8xf32>) -> tensor<40x8xf32>
  return %0 : tensor<40x8xf32>
}
