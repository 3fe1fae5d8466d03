// RUN: kiln-opt %s --kiln-emit-entry-wrappers | FileCheck %s

llvm.func @_mlir_ciface_f(%a: !llvm.ptr, %b: !llvm.ptr) {
  llvm.return
}

// CHECK-LABEL: llvm.func @kiln_entry_f(%{{.*}}: !llvm.ptr)
// CHECK: %[[P0:.*]] = llvm.getelementptr %arg0[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[A:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[P1:.*]] = llvm.getelementptr %arg0[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[B:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @_mlir_ciface_f(%[[A]], %[[B]])
// CHECK-NEXT: llvm.fence seq_cst
// CHECK-NEXT: llvm.return

// The signature kiln-prepare-entries put on the entry becomes a global the
// runtime checks the manifest against.
llvm.func @g(%a: !llvm.ptr) attributes {kiln.entry_signature = array<i64: 6, 0, 1, 3, 1, 8>} {
  llvm.return
}
llvm.func @_mlir_ciface_g(%a: !llvm.ptr) {
  llvm.return
}
// CHECK-LABEL: llvm.func @kiln_entry_g
// CHECK: llvm.mlir.global external constant @kiln_signature_g(dense<[6, 0, 1, 3, 1, 8]> : tensor<6xi64>) {{.*}} : !llvm.array<6 x i64>
// CHECK-NOT: @kiln_signature_f
