// RUN: kiln-opt %s --kiln-copies-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @copy
func.func @copy(%a: memref<2xf32, strided<[2]>>, %b: memref<2xf32>) {
  // CHECK: linalg.copy ins(%{{.*}} : memref<2xf32, strided<[2]>>) outs(%{{.*}} : memref<2xf32>)
  // CHECK-NOT: memref.copy
  memref.copy %a, %b : memref<2xf32, strided<[2]>> to memref<2xf32>
  return
}
