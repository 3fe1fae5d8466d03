// RUN: kiln-opt %s --kiln-bool-vectors-as-bytes | FileCheck %s

// Vectors of i1 move through memory as bytes, one per element as a tensor
// of i1 holds them: loads narrow the bytes they read, stores widen what
// they write; masks stay bits, and scalars and other vectors are left.
// CHECK-LABEL: llvm.func @bools
llvm.func @bools(%p: !llvm.ptr, %q: !llvm.ptr, %m: vector<8xi1>, %f: vector<8xf32>, %ptrs: vector<8x!llvm.ptr>) {
  // CHECK: %[[BYTES:.*]] = llvm.load %arg0 {alignment = 1 : i64} : !llvm.ptr -> vector<8xi8>
  // CHECK: %[[BITS:.*]] = llvm.trunc %[[BYTES]] : vector<8xi8> to vector<8xi1>
  %0 = llvm.load %p {alignment = 1 : i64} : !llvm.ptr -> vector<8xi1>
  // CHECK: %[[WIDE:.*]] = llvm.zext %[[BITS]] : vector<8xi1> to vector<8xi8>
  // CHECK: llvm.store %[[WIDE]], %arg1 {alignment = 1 : i64} : vector<8xi8>, !llvm.ptr
  llvm.store %0, %q {alignment = 1 : i64} : vector<8xi1>, !llvm.ptr
  // CHECK: %[[PASS:.*]] = llvm.zext %arg2 : vector<8xi1> to vector<8xi8>
  // CHECK: %[[MLOAD:.*]] = llvm.intr.masked.load %arg0, %arg2, %[[PASS]] {alignment = 1 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xi8>) -> vector<8xi8>
  // CHECK: %[[MBITS:.*]] = llvm.trunc %[[MLOAD]] : vector<8xi8> to vector<8xi1>
  %1 = llvm.intr.masked.load %p, %m, %m {alignment = 1 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xi1>) -> vector<8xi1>
  // CHECK: %[[MWIDE:.*]] = llvm.zext %[[MBITS]] : vector<8xi1> to vector<8xi8>
  // CHECK: llvm.intr.masked.store %[[MWIDE]], %arg1, %arg2 {alignment = 1 : i32} : vector<8xi8>, vector<8xi1> into !llvm.ptr
  llvm.intr.masked.store %1, %q, %m {alignment = 1 : i32} : vector<8xi1>, vector<8xi1> into !llvm.ptr
  // CHECK: %[[GATHERED:.*]] = llvm.intr.masked.gather %arg4, %arg2, %{{.*}} {alignment = 1 : i32} : (vector<8x!llvm.ptr>, vector<8xi1>, vector<8xi8>) -> vector<8xi8>
  // CHECK: llvm.trunc %[[GATHERED]] : vector<8xi8> to vector<8xi1>
  %2 = llvm.intr.masked.gather %ptrs, %m, %m {alignment = 1 : i32} : (vector<8x!llvm.ptr>, vector<8xi1>, vector<8xi1>) -> vector<8xi1>
  // CHECK: %[[SCATTERED:.*]] = llvm.zext %{{.*}} : vector<8xi1> to vector<8xi8>
  // CHECK: llvm.intr.masked.scatter %[[SCATTERED]], %arg4, %arg2 {alignment = 1 : i32} : vector<8xi8>, vector<8xi1> into vector<8x!llvm.ptr>
  llvm.intr.masked.scatter %2, %ptrs, %m {alignment = 1 : i32} : vector<8xi1>, vector<8xi1> into vector<8x!llvm.ptr>
  // CHECK: llvm.load %arg0 : !llvm.ptr -> i1
  // CHECK: llvm.load %arg0 : !llvm.ptr -> vector<8xf32>
  // CHECK-NOT: llvm.trunc
  %3 = llvm.load %p : !llvm.ptr -> i1
  %4 = llvm.load %p : !llvm.ptr -> vector<8xf32>
  llvm.return
}
