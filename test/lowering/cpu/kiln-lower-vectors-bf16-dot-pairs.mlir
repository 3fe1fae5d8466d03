// RUN: kiln-opt %s --kiln-lower-vectors="bf16-dot-pairs=true" --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-vectors --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: kiln-opt %s --kiln-lower-vectors="bf16-dot-pairs=true" --convert-to-llvm --split-input-file | FileCheck %s --check-prefix=LLVM

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// A k pair: B's two rows are interleaved (as i16 bits) once per 16
// columns, each row's A pair is one i32 broadcast, and every 16 columns of
// a row take one dot.
// CHECK-LABEL: func.func @pair
// CHECK: %[[R0:.*]] = vector.extract %{{.*}}[0] : vector<32xbf16> from vector<2x32xbf16>
// CHECK: %[[B0:.*]] = vector.bitcast %[[R0]] : vector<32xbf16> to vector<32xi16>
// CHECK: %[[R1:.*]] = vector.extract %{{.*}}[1] : vector<32xbf16> from vector<2x32xbf16>
// CHECK: %[[B1:.*]] = vector.bitcast %[[R1]] : vector<32xbf16> to vector<32xi16>
// CHECK-DAG: %[[L0:.*]] = vector.shuffle %[[B0]], %[[B0]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
// CHECK-DAG: %[[L1:.*]] = vector.shuffle %[[B1]], %[[B1]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
// CHECK: %[[LOWBITS:.*]] = vector.interleave %[[L0]], %[[L1]] : vector<16xi16> -> vector<32xi16>
// CHECK: %[[LOW:.*]] = vector.bitcast %[[LOWBITS]] : vector<32xi16> to vector<32xbf16>
// CHECK: vector.interleave
// CHECK: %[[HIGH:.*]] = vector.bitcast
// CHECK: %[[A:.*]] = vector.extract %{{.*}}[0] : vector<2xbf16> from vector<2x2xbf16>
// CHECK: %[[WORD:.*]] = vector.bitcast %[[A]] : vector<2xbf16> to vector<1xi32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %{{.*}} : i32 to vector<16xi32>
// CHECK: %[[PAIRS:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// CHECK: x86vector.avx512.dot %{{.*}}, %[[PAIRS]], %[[LOW]] : vector<32xbf16> -> vector<16xf32>
// CHECK: x86vector.avx512.dot %{{.*}}, %{{.*}}, %[[HIGH]] : vector<32xbf16> -> vector<16xf32>
// CHECK-COUNT-2: x86vector.avx512.dot
// CHECK-NOT: x86vector.avx512.dot
// CHECK-NOT: vector.contract
// NONE-LABEL: func.func @pair
// NONE-NOT: x86vector
// NONE: vector.fma
// LLVM-LABEL: llvm.func @pair
// LLVM-COUNT-4: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
func.func @pair(%a: vector<2x2xbf16>, %b: vector<2x32xbf16>, %c: vector<2x32xf32>) -> vector<2x32xf32> {
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<2x2xbf16>, vector<2x32xbf16> into vector<2x32xf32>
  return %r : vector<2x32xf32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// An odd last k step pairs with zeros; 21 columns run as 16 and as 5 padded
// to 8 lanes (a 256-bit dot).
// CHECK-LABEL: func.func @odd
// CHECK-DAG: %[[Z16:.*]] = arith.constant dense<0> : vector<16xi16>
// CHECK-DAG: %[[Z2:.*]] = arith.constant dense<0> : vector<2xi16>
// CHECK: vector.interleave %{{.*}}, %[[Z16]] : vector<16xi16> -> vector<32xi16>
// CHECK: vector.interleave {{.*}} : vector<8xi16> -> vector<16xi16>
// CHECK: vector.shuffle %{{.*}}, %[[Z2]] [0, 3] : vector<2xi16>, vector<2xi16>
// CHECK: x86vector.avx512.dot {{.*}} : vector<32xbf16> -> vector<16xf32>
// CHECK: x86vector.avx512.dot {{.*}} : vector<16xbf16> -> vector<8xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4] : vector<8xf32>, vector<8xf32>
// LLVM-LABEL: llvm.func @odd
// LLVM: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// LLVM: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.256"
func.func @odd(%a: vector<1x1xbf16>, %b: vector<1x21xbf16>, %c: vector<1x21xf32>) -> vector<1x21xf32> {
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<1x1xbf16>, vector<1x21xbf16> into vector<1x21xf32>
  return %r : vector<1x21xf32>
}

// -----

// A batch of one (a batch_matmul's register tile) drops its batch.
// CHECK-LABEL: func.func @batch_of_one
// CHECK: x86vector.avx512.dot {{.*}} : vector<32xbf16> -> vector<16xf32>
// CHECK: vector.insert %{{.*}} [0] : vector<1x16xf32> into vector<1x1x16xf32>
// CHECK-NOT: vector.contract
func.func @batch_of_one(%a: vector<1x1x2xbf16>, %b: vector<1x2x16xbf16>, %c: vector<1x1x16xf32>) -> vector<1x1x16xf32> {
  %r = vector.contract {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<1x1x2xbf16>, vector<1x2x16xbf16> into vector<1x1x16xf32>
  return %r : vector<1x1x16xf32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// Three k steps, f32 operands or a product that is not a sum are not pairs.
// CHECK-LABEL: func.func @not_pairs
// CHECK-NOT: x86vector
// CHECK: return
func.func @not_pairs(%a: vector<1x3xbf16>, %b: vector<3x16xbf16>, %c: vector<1x16xf32>,
                     %fa: vector<1x2xf32>, %fb: vector<2x16xf32>) -> (vector<1x16xf32>, vector<1x16xf32>, vector<1x16xf32>) {
  %r = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<1x3xbf16>, vector<3x16xbf16> into vector<1x16xf32>
  %f = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %fa, %fb, %c : vector<1x2xf32>, vector<2x16xf32> into vector<1x16xf32>
  %m = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<maxnumf>} %fa, %fb, %c : vector<1x2xf32>, vector<2x16xf32> into vector<1x16xf32>
  return %r, %f, %m : vector<1x16xf32>, vector<1x16xf32>, vector<1x16xf32>
}

// -----

#lhs_t = affine_map<(m, n, k) -> (m, k)>
#rhs_t = affine_map<(m, n, k) -> (n, k)>
#acc_t = affine_map<(m, n, k) -> (m, n)>

// A panel's pairs packed as [32, 2] (kiln::packMatmulPanels), read as one
// row: each 16 columns' pairs are a slice of the row, the dot's operand as
// it is, with nothing interleaved.
// CHECK-LABEL: func.func @packed_pairs(
// CHECK-SAME: %{{.*}}: vector<2x2xbf16>, %[[ROW:.*]]: vector<64xbf16>
// CHECK-NOT: vector.interleave
// CHECK: %[[LOW:.*]] = vector.shuffle %[[ROW]], %[[ROW]] [0, 1, {{.*}}, 31] : vector<64xbf16>, vector<64xbf16>
// CHECK: %[[HIGH:.*]] = vector.shuffle %[[ROW]], %[[ROW]] [32, 33, {{.*}}, 63] : vector<64xbf16>, vector<64xbf16>
// CHECK-NOT: vector.interleave
// CHECK: x86vector.avx512.dot %{{.*}}, %{{.*}}, %[[LOW]] : vector<32xbf16> -> vector<16xf32>
// CHECK: x86vector.avx512.dot %{{.*}}, %{{.*}}, %[[HIGH]] : vector<32xbf16> -> vector<16xf32>
// CHECK-COUNT-2: x86vector.avx512.dot
// CHECK-NOT: vector.contract
// NONE-LABEL: func.func @packed_pairs
// NONE-NOT: x86vector
func.func @packed_pairs(%a: vector<2x2xbf16>, %b: vector<64xbf16>, %c: vector<2x32xf32>) -> vector<2x32xf32> {
  %pairs = vector.shape_cast %b : vector<64xbf16> to vector<32x2xbf16>
  %r = vector.contract {indexing_maps = [#lhs_t, #rhs_t, #acc_t], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %pairs, %c : vector<2x2xbf16>, vector<32x2xbf16> into vector<2x32xf32>
  return %r : vector<2x32xf32>
}
