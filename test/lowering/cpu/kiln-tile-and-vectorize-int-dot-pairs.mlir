// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0 int-dot-pairs=true" --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-tile-and-vectorize="parallel-work=0" --split-input-file | FileCheck %s --check-prefix=NONE

// int8 -> i32 register tiles cover k pairs (for VNNI's vpdpwssd): an odd
// K's last step runs as a tile of its own, accumulating onto the pairs'.
// CHECK-LABEL: func.func @int8_pairs
// CHECK: scf.for {{.*}} step %c2
// CHECK: vector.contract {{.*}} : vector<8x2xi8>, vector<2x32xi8> into vector<8x32xi32>
// CHECK: vector.contract {{.*}} : vector<8x1xi8>, vector<1x32xi8> into vector<8x32xi32>
// NONE-LABEL: func.func @int8_pairs
// NONE: vector.contract {{.*}} : vector<8x1xi8>, vector<1x32xi8> into vector<8x32xi32>
// NONE-NOT: vector<8x2xi8>
func.func @int8_pairs(%a: tensor<16x7xi8>, %b: tensor<7x32xi8>, %c: tensor<16x32xi32>) -> tensor<16x32xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x7xi8>, tensor<7x32xi8>) outs(%c : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %0 : tensor<16x32xi32>
}

// -----

// int32 products do not pair.
// CHECK-LABEL: func.func @int32_steps
// CHECK: vector.contract {{.*}} : vector<8x1xi32>, vector<1x32xi32> into vector<8x32xi32>
func.func @int32_steps(%a: tensor<8x6xi32>, %b: tensor<6x32xi32>, %c: tensor<8x32xi32>) -> tensor<8x32xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x6xi32>, tensor<6x32xi32>) outs(%c : tensor<8x32xi32>) -> tensor<8x32xi32>
  return %0 : tensor<8x32xi32>
}
