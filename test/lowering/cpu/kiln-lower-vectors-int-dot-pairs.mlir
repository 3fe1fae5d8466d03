// RUN: kiln-opt %s --kiln-lower-vectors="int-dot-pairs=true" --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-vectors --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: kiln-opt %s --kiln-lower-vectors="int-dot-pairs=true" --convert-to-llvm --split-input-file | FileCheck %s --check-prefix=LLVM

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// An int8 k pair into i32: B's two rows, sign-extended to i16, are
// interleaved once per 16 columns, each row's A pair (sign-extended) is
// one i32 broadcast, and every 16 columns of a row take one vpdpwssd.
// CHECK-LABEL: func.func @int8_pair
// CHECK: %[[R0:.*]] = vector.extract %{{.*}}[0] : vector<32xi8> from vector<2x32xi8>
// CHECK: %[[W0:.*]] = arith.extsi %[[R0]] : vector<32xi8> to vector<32xi16>
// CHECK: %[[R1:.*]] = vector.extract %{{.*}}[1] : vector<32xi8> from vector<2x32xi8>
// CHECK: %[[W1:.*]] = arith.extsi %[[R1]] : vector<32xi8> to vector<32xi16>
// CHECK: %[[LOW:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<16xi16> -> vector<32xi16>
// CHECK: %[[HIGH:.*]] = vector.interleave
// CHECK: %[[A:.*]] = arith.extsi %{{.*}} : vector<2xi8> to vector<2xi16>
// CHECK: %[[WORD:.*]] = vector.bitcast %[[A]] : vector<2xi16> to vector<1xi32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %{{.*}} : i32 to vector<16xi32>
// CHECK: %[[PAIRS:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xi16>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpwssd.512"(%{{.*}}, %[[PAIRS]], %[[LOW]]) : (vector<16xi32>, vector<32xi16>, vector<32xi16>) -> vector<16xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpwssd.512"(%{{.*}}, %{{.*}}, %[[HIGH]])
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.vpdpwssd.512"
// CHECK-NOT: vector.contract
// NONE-LABEL: func.func @int8_pair
// NONE-NOT: vpdpwssd
// NONE: arith.muli
// LLVM-LABEL: llvm.func @int8_pair
// LLVM-COUNT-4: llvm.call_intrinsic "llvm.x86.avx512.vpdpwssd.512"
func.func @int8_pair(%a: vector<2x2xi8>, %b: vector<2x32xi8>, %c: vector<2x32xi32>) -> vector<2x32xi32> {
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<2x2xi8>, vector<2x32xi8> into vector<2x32xi32>
  return %r : vector<2x32xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// int16 operands pair as they are; an odd last step pairs with zeros and
// 5 columns run on 8 lanes (the 256-bit instruction).
// CHECK-LABEL: func.func @int16_odd
// CHECK-NOT: arith.extsi
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpwssd.256"({{.*}}) : (vector<8xi32>, vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// CHECK-NOT: vector.contract
func.func @int16_odd(%a: vector<1x1xi16>, %b: vector<1x5xi16>, %c: vector<1x5xi32>) -> vector<1x5xi32> {
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<1x1xi16>, vector<1x5xi16> into vector<1x5xi32>
  return %r : vector<1x5xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// int8 products in their own type (wrapping bytes) are not VNNI's.
// CHECK-LABEL: func.func @int8_into_int8
// CHECK-NOT: vpdpwssd
func.func @int8_into_int8(%a: vector<2x2xi8>, %b: vector<2x16xi8>, %c: vector<2x16xi8>) -> vector<2x16xi8> {
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<2x2xi8>, vector<2x16xi8> into vector<2x16xi8>
  return %r : vector<2x16xi8>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// A biased int8 product (sext(A) by zext(B xor 0x80)) over a k quad: B's
// four biased rows are interleaved bytewise, then as 16-bit pairs, once
// per 16 columns; each row's four A bytes are one i32 broadcast; every 16
// columns of a row take one vpdpbusd, B's unsigned bytes first.
// CHECK-LABEL: func.func @int8_quad
// CHECK: %[[X:.*]] = arith.xori %{{.*}}, %{{.*}} : vector<4x32xi8>
// CHECK: %[[R0:.*]] = vector.extract %[[X]][0] : vector<32xi8> from vector<4x32xi8>
// CHECK: %[[R3:.*]] = vector.extract %[[X]][3] : vector<32xi8> from vector<4x32xi8>
// CHECK: %[[P01:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<16xi8> -> vector<32xi8>
// CHECK: %[[W01:.*]] = vector.bitcast %[[P01]] : vector<32xi8> to vector<16xi16>
// CHECK: %[[P23:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<16xi8> -> vector<32xi8>
// CHECK: %[[W23:.*]] = vector.bitcast %[[P23]] : vector<32xi8> to vector<16xi16>
// CHECK: %[[Q:.*]] = vector.interleave %[[W01]], %[[W23]] : vector<16xi16> -> vector<32xi16>
// CHECK: %[[LOW:.*]] = vector.bitcast %[[Q]] : vector<32xi16> to vector<64xi8>
// CHECK: %[[HIGH:.*]] = vector.bitcast %{{.*}} : vector<32xi16> to vector<64xi8>
// CHECK: %[[ROW:.*]] = vector.extract %{{.*}}[0] : vector<4xi8> from vector<2x4xi8>
// CHECK: %[[WORD:.*]] = vector.bitcast %[[ROW]] : vector<4xi8> to vector<1xi32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %{{.*}} : i32 to vector<16xi32>
// CHECK: %[[QUADS:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<64xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %[[LOW]], %[[QUADS]]) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %[[HIGH]], %{{.*}})
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT: vector.contract
// NONE-LABEL: func.func @int8_quad
// NONE-NOT: vpdpbusd
// NONE: arith.muli
// LLVM-LABEL: llvm.func @int8_quad
// LLVM-COUNT-4: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
func.func @int8_quad(%a: vector<2x4xi8>, %b: vector<4x32xi8>, %c: vector<2x32xi32>) -> vector<2x32xi32> {
  %bias = arith.constant dense<-128> : vector<4x32xi8>
  %x = arith.xori %b, %bias : vector<4x32xi8>
  %lhs = arith.extsi %a : vector<2x4xi8> to vector<2x4xi32>
  %rhs = arith.extui %x : vector<4x32xi8> to vector<4x32xi32>
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %c : vector<2x4xi32>, vector<4x32xi32> into vector<2x32xi32>
  return %r : vector<2x32xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// Three k steps: B's fourth row and A's fourth byte are zeros; 5 columns
// run on 8 lanes (the 256-bit instruction).
// CHECK-LABEL: func.func @int8_quad_odd
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.256"({{.*}}) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// CHECK-NOT: vector.contract
func.func @int8_quad_odd(%a: vector<1x3xi8>, %b: vector<3x5xi8>, %c: vector<1x5xi32>) -> vector<1x5xi32> {
  %bias = arith.constant dense<-128> : vector<3x5xi8>
  %x = arith.xori %b, %bias : vector<3x5xi8>
  %lhs = arith.extsi %a : vector<1x3xi8> to vector<1x3xi32>
  %rhs = arith.extui %x : vector<3x5xi8> to vector<3x5xi32>
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %c : vector<1x3xi32>, vector<3x5xi32> into vector<1x5xi32>
  return %r : vector<1x5xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// vpdpbusd multiplies unsigned bytes of B by signed bytes of A: unsigned
// bytes of A are not its.
// CHECK-LABEL: func.func @int8_unsigned_lhs
// CHECK-NOT: vpdpbusd
// CHECK: arith.muli
func.func @int8_unsigned_lhs(%a: vector<1x4xi8>, %b: vector<4x16xi8>, %c: vector<1x16xi32>) -> vector<1x16xi32> {
  %lhs = arith.extui %a : vector<1x4xi8> to vector<1x4xi32>
  %rhs = arith.extsi %b : vector<4x16xi8> to vector<4x16xi32>
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %c : vector<1x4xi32>, vector<4x16xi32> into vector<1x16xi32>
  return %r : vector<1x16xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (n, k)>
#acc = affine_map<(m, n, k) -> (m, n)>

// B packed as [N, 4] (each column's k quad in a row, unsigned): every 16
// rows are vpdpbusd's operand as they are, no interleaving; 20 columns take
// a 512-bit and a 128-bit instruction.
// CHECK-LABEL: func.func @int8_packed
// CHECK-NOT: vector.interleave
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.128"
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.128"
// CHECK-NOT: vector.contract
func.func @int8_packed(%a: vector<2x4xi8>, %b: vector<20x4xi8>, %c: vector<2x20xi32>) -> vector<2x20xi32> {
  %lhs = arith.extsi %a : vector<2x4xi8> to vector<2x4xi32>
  %rhs = arith.extui %b : vector<20x4xi8> to vector<20x4xi32>
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %c : vector<2x4xi32>, vector<20x4xi32> into vector<2x20xi32>
  return %r : vector<2x20xi32>
}

// -----

#a = affine_map<(r, l, j) -> (r, l, j)>
#x = affine_map<(r, l, j) -> (l, j)>
#acc = affine_map<(r, l, j) -> (r, l)>

// An int8 matrix-vector product in lanes of quads: each row's 64 bytes of
// A + 128 (unsigned, first) and x's 64 bytes (signed) take one vpdpbusd
// into the row's 16 lanes; 8 lanes take the 256-bit instruction.
// CHECK-LABEL: func.func @int8_lane_quads
// CHECK: %[[ROW:.*]] = vector.extract %arg0[0] : vector<64xi8> from vector<2x64xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %[[ROW]], %arg1) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT: vector.contract
// CHECK-LABEL: func.func @int8_lane_quads_narrow
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.256"({{.*}}) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// CHECK-NOT: vector.contract
func.func @int8_lane_quads(%a: vector<2x64xi8>, %x: vector<64xi8>, %c: vector<2x16xi32>) -> vector<2x16xi32> {
  %a3 = vector.shape_cast %a : vector<2x64xi8> to vector<2x16x4xi8>
  %x2 = vector.shape_cast %x : vector<64xi8> to vector<16x4xi8>
  %lhs = arith.extui %a3 : vector<2x16x4xi8> to vector<2x16x4xi32>
  %rhs = arith.extsi %x2 : vector<16x4xi8> to vector<16x4xi32>
  %r = vector.contract {indexing_maps = [#a, #x, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %c : vector<2x16x4xi32>, vector<16x4xi32> into vector<2x16xi32>
  return %r : vector<2x16xi32>
}
func.func @int8_lane_quads_narrow(%a: vector<1x8x4xi8>, %x: vector<8x4xi8>, %c: vector<1x8xi32>) -> vector<1x8xi32> {
  %lhs = arith.extui %a : vector<1x8x4xi8> to vector<1x8x4xi32>
  %rhs = arith.extsi %x : vector<8x4xi8> to vector<8x4xi32>
  %r = vector.contract {indexing_maps = [#a, #x, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %c : vector<1x8x4xi32>, vector<8x4xi32> into vector<1x8xi32>
  return %r : vector<1x8xi32>
}
