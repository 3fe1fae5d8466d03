// RUN: kiln-opt %s --kiln-copy-repeated-results | FileCheck %s

// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[M:.*]]: memref<4xf32>)
func.func @twice(%m: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>, memref<4xf32>) {
  // CHECK: %[[C1:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  // CHECK: memref.copy %[[M]], %[[C1]]
  // CHECK: %[[C2:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  // CHECK: memref.copy %[[M]], %[[C2]]
  // CHECK: return %[[M]], %[[C1]], %[[C2]]
  return %m, %m, %m : memref<4xf32>, memref<4xf32>, memref<4xf32>
}

// CHECK-LABEL: func.func @distinct
func.func @distinct(%a: memref<4xf32>, %b: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  // CHECK-NOT: memref.copy
  // CHECK: return %{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>
  return %a, %b : memref<4xf32>, memref<4xf32>
}
