// RUN: kiln-opt %s --kiln-store-narrow-float-bits | FileCheck %s

// A vector of bf16 (or f16) made from integer bits is stored as those bits,
// and the bitcast goes; vectors loaded as bf16, and scalars, stay.
// CHECK-LABEL: llvm.func @bits
// CHECK-NOT: llvm.bitcast %arg1
// CHECK: llvm.store %arg1, %arg0 {alignment = 2 : i64} : vector<64xi16>, !llvm.ptr
// CHECK: llvm.store %arg2, %arg0 {alignment = 2 : i64} : vector<8xi16>, !llvm.ptr
// CHECK: %[[LOADED:.*]] = llvm.load %arg0 : !llvm.ptr -> vector<64xbf16>
// CHECK: llvm.store %[[LOADED]], %arg0 : vector<64xbf16>, !llvm.ptr
// CHECK: %[[SCALAR:.*]] = llvm.bitcast %arg3 : i16 to bf16
// CHECK: llvm.store %[[SCALAR]], %arg0 : bf16, !llvm.ptr
llvm.func @bits(%p: !llvm.ptr, %v: vector<64xi16>, %h: vector<8xi16>, %s: i16) {
  %b = llvm.bitcast %v : vector<64xi16> to vector<64xbf16>
  llvm.store %b, %p {alignment = 2 : i64} : vector<64xbf16>, !llvm.ptr
  %f = llvm.bitcast %h : vector<8xi16> to vector<8xf16>
  llvm.store %f, %p {alignment = 2 : i64} : vector<8xf16>, !llvm.ptr
  %l = llvm.load %p : !llvm.ptr -> vector<64xbf16>
  llvm.store %l, %p : vector<64xbf16>, !llvm.ptr
  %c = llvm.bitcast %s : i16 to bf16
  llvm.store %c, %p : bf16, !llvm.ptr
  llvm.return
}
