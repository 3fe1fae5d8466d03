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
