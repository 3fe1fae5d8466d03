// RUN: kiln-opt %s --kiln-gpu-device-buffers | FileCheck %s

memref.global "private" constant @c : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// Host allocations are device allocations; a constant is copied to the
// device at the start and freed before the return; kernels keep theirs.
// CHECK-LABEL: func.func @f
// CHECK: %[[DEV:.*]] = gpu.alloc  () : memref<4xf32>
// CHECK: %[[HOST:.*]] = memref.get_global @c
// CHECK: gpu.memcpy  %[[DEV]], %[[HOST]]
// CHECK: %[[BUF:.*]] = gpu.alloc  () : memref<4xf32>
// CHECK: gpu.launch
// CHECK:   memref.load %[[DEV]]
// CHECK:   memref.alloca
// CHECK: gpu.dealloc  %[[BUF]]
// CHECK: gpu.dealloc  %[[DEV]]
// CHECK-NEXT: return
func.func @f() {
  %m = memref.alloc() : memref<4xf32>
  %g = memref.get_global @c : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %v0 = memref.load %g[%c0] : memref<4xf32>
    %p = memref.alloca() : memref<f32>
    memref.store %v0, %m[%c0] : memref<4xf32>
    gpu.terminator
  }
  memref.dealloc %m : memref<4xf32>
  return
}
