// RUN: kiln-opt %s --kiln-lower-vectors="int-madd-pairs=true" --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-vectors="int-dot-pairs=true int-madd-pairs=true" --split-input-file | FileCheck %s --check-prefix=VNNI
// RUN: kiln-opt %s --kiln-lower-vectors="int-madd-pairs=true" --convert-to-llvm --split-input-file | FileCheck %s --check-prefix=LLVM

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// An int8 k pair into i32 on AVX2: B's two rows, sign-extended to i16, are
// interleaved once per 8 columns, each row's A pair (sign-extended) is one
// i32 broadcast, and every 8 columns of a row take one vpmaddwd and an add.
// CHECK-LABEL: func.func @int8_pair
// CHECK: %[[R0:.*]] = vector.extract %{{.*}}[0] : vector<32xi8> from vector<2x32xi8>
// CHECK: arith.extsi %[[R0]] : vector<32xi8> to vector<32xi16>
// CHECK: %[[B0:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<8xi16> -> vector<16xi16>
// CHECK-COUNT-3: vector.interleave %{{.*}}, %{{.*}} : vector<8xi16> -> vector<16xi16>
// CHECK: %[[A:.*]] = arith.extsi %{{.*}} : vector<2xi8> to vector<2xi16>
// CHECK: %[[WORD:.*]] = vector.bitcast %[[A]] : vector<2xi16> to vector<1xi32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %{{.*}} : i32 to vector<8xi32>
// CHECK: %[[PAIRS:.*]] = vector.bitcast %[[SPLAT]] : vector<8xi32> to vector<16xi16>
// CHECK: %[[SUM:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7] : vector<32xi32>, vector<32xi32>
// CHECK: %[[PRODUCTS:.*]] = llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%[[PAIRS]], %[[B0]]) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// CHECK: arith.addi %[[SUM]], %[[PRODUCTS]] : vector<8xi32>
// CHECK-COUNT-7: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
// CHECK-NOT: llvm.call_intrinsic
// CHECK-NOT: vector.contract
// VNNI-LABEL: func.func @int8_pair
// VNNI-NOT: pmadd
// VNNI: llvm.x86.avx512.vpdpwssd.512
// LLVM-LABEL: llvm.func @int8_pair
// LLVM-COUNT-8: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
func.func @int8_pair(%a: vector<2x2xi8>, %b: vector<2x32xi8>, %c: vector<2x32xi32>) -> vector<2x32xi32> {
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<2x2xi8>, vector<2x32xi8> into vector<2x32xi32>
  return %r : vector<2x32xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// int16 operands pair as they are; an odd last step pairs with zeros; 11
// columns are 8 lanes of AVX2's instruction and 3 on 4 of SSE2's.
// CHECK-LABEL: func.func @int16_odd
// CHECK-NOT: arith.extsi
// CHECK: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"({{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.sse2.pmadd.wd"({{.*}}) : (vector<8xi16>, vector<8xi16>) -> vector<4xi32>
// CHECK: arith.addi %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK-NOT: vector.contract
func.func @int16_odd(%a: vector<1x1xi16>, %b: vector<1x11xi16>, %c: vector<1x11xi32>) -> vector<1x11xi32> {
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<1x1xi16>, vector<1x11xi16> into vector<1x11xi32>
  return %r : vector<1x11xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// vpmaddwd multiplies pairs: a contraction over four k steps, and int32
// operands, are not its.
// CHECK-LABEL: func.func @int8_four_steps
// CHECK-NOT: pmadd
// CHECK: arith.muli
// CHECK-LABEL: func.func @int32_pair
// CHECK-NOT: pmadd
// CHECK: arith.muli
func.func @int8_four_steps(%a: vector<2x4xi8>, %b: vector<4x16xi8>, %c: vector<2x16xi32>) -> vector<2x16xi32> {
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<2x4xi8>, vector<4x16xi8> into vector<2x16xi32>
  return %r : vector<2x16xi32>
}

func.func @int32_pair(%a: vector<2x2xi32>, %b: vector<2x16xi32>, %c: vector<2x16xi32>) -> vector<2x16xi32> {
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<2x2xi32>, vector<2x16xi32> into vector<2x16xi32>
  return %r : vector<2x16xi32>
}

// -----

#lhs_t = affine_map<(m, n, k) -> (m, k)>
#rhs_t = affine_map<(m, n, k) -> (n, k)>
#acc_t = affine_map<(m, n, k) -> (m, n)>

// A panel's int16 pairs packed as [16, 2] (kiln::packMatmulPanels), read
// as one row: each 8 columns' pairs are a slice of the row, vpmaddwd's
// operand as it is, with nothing interleaved.
// CHECK-LABEL: func.func @packed_pairs(
// CHECK-SAME: %{{.*}}: vector<2x2xi16>, %[[ROW:.*]]: vector<32xi16>
// CHECK-NOT: vector.interleave
// CHECK: %[[LOW:.*]] = vector.shuffle %[[ROW]], %[[ROW]] [0, 1, {{.*}}, 15] : vector<32xi16>, vector<32xi16>
// CHECK: %[[HIGH:.*]] = vector.shuffle %[[ROW]], %[[ROW]] [16, 17, {{.*}}, 31] : vector<32xi16>, vector<32xi16>
// CHECK-NOT: vector.interleave
// CHECK: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%{{.*}}, %[[LOW]]) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%{{.*}}, %[[HIGH]]) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
// CHECK-NOT: vector.contract
// With VNNI, the row is vpdpwssd's operand whole, a row of A at a time.
// VNNI-LABEL: func.func @packed_pairs(
// VNNI-SAME: %{{.*}}: vector<2x2xi16>, %[[ROW:.*]]: vector<32xi16>
// VNNI-NOT: vector.interleave
// VNNI-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.vpdpwssd.512"(%{{.*}}, %{{.*}}, %[[ROW]]) : (vector<16xi32>, vector<32xi16>, vector<32xi16>) -> vector<16xi32>
// VNNI-NOT: vector.contract
func.func @packed_pairs(%a: vector<2x2xi16>, %b: vector<32xi16>, %c: vector<2x16xi32>) -> vector<2x16xi32> {
  %pairs = vector.shape_cast %b : vector<32xi16> to vector<16x2xi16>
  %r = vector.contract {indexing_maps = [#lhs_t, #rhs_t, #acc_t], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %pairs, %c : vector<2x2xi16>, vector<16x2xi16> into vector<2x16xi32>
  return %r : vector<2x16xi32>
}
