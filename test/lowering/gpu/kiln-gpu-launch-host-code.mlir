// RUN: kiln-opt %s --kiln-gpu-launch-host-code | FileCheck %s

// Scalar code between kernels runs in a one-thread kernel.
// CHECK-LABEL: func.func @scalar
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK:   memref.load
// CHECK:   math.exp
// CHECK:   memref.store
// CHECK:   gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @scalar(%a: memref<f32>, %b: memref<f32>) {
  %v = memref.load %a[] : memref<f32>
  %e = math.exp %v : f32
  memref.store %e, %b[] : memref<f32>
  return
}

// A loop that allocates stays on the host; its condition, computed from
// device memory, comes back through a scratch buffer and a copy into a
// host alloca at the function's entry.
// CHECK-LABEL: func.func @loop
// CHECK: %[[HOST:.*]] = memref.alloca() : memref<i1>
// CHECK: scf.while
// CHECK:   %[[SCRATCH:.*]] = memref.alloc() : memref<i1>
// CHECK:   gpu.launch
// CHECK:     arith.cmpf
// CHECK:     memref.store %{{.*}}, %[[SCRATCH]][] : memref<i1>
// CHECK:   gpu.memcpy  %[[HOST]], %[[SCRATCH]]
// CHECK:   %[[C:.*]] = memref.load %[[HOST]][] : memref<i1>
// CHECK:   memref.dealloc %[[SCRATCH]]
// CHECK:   scf.condition(%[[C]])
func.func @loop(%a: memref<f32>, %limit: f32) {
  scf.while : () -> () {
    %v = memref.load %a[] : memref<f32>
    %c = arith.cmpf olt, %v, %limit : f32
    scf.condition(%c)
  } do {
    %t = memref.alloc() : memref<f32>
    %v = memref.load %a[] : memref<f32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %a[] : memref<f32>
    memref.dealloc %t : memref<f32>
    scf.yield
  }
  return
}

// A scalar loop with no allocation runs whole in one kernel.
// CHECK-LABEL: func.func @device_loop
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: gpu.launch
// CHECK-NEXT: scf.while
func.func @device_loop(%a: memref<f32>, %limit: f32) {
  scf.while : () -> () {
    %v = memref.load %a[] : memref<f32>
    %c = arith.cmpf olt, %v, %limit : f32
    scf.condition(%c)
  } do {
    %v = memref.load %a[] : memref<f32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %a[] : memref<f32>
    scf.yield
  }
  return
}

// Kernels and allocations stay where they are.
// CHECK-LABEL: func.func @kernel
// CHECK: memref.alloc
// CHECK-NEXT: arith.constant
// CHECK-NEXT: gpu.launch
// CHECK-NOT: gpu.launch
func.func @kernel(%n: index) {
  %m = memref.alloc() : memref<4xf32>
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    gpu.terminator
  }
  memref.dealloc %m : memref<4xf32>
  return
}

// A view at a device-computed offset (a dynamic_slice) stays on the host:
// the offset is computed in a one-thread kernel and copied back, and the
// view is made from the copy.
// CHECK-LABEL: func.func @dynamic_view
// CHECK: %[[HOST:.*]] = memref.alloca() : memref<index>
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<index>
// CHECK: gpu.launch
// CHECK:   memref.load %arg0[]
// CHECK:   arith.index_cast
// CHECK:   memref.store %{{.*}}, %[[SCRATCH]][]
// CHECK: gpu.memcpy %[[HOST]], %[[SCRATCH]]
// CHECK: %[[OFFSET:.*]] = memref.load %[[HOST]][]
// CHECK: memref.subview %arg1[%[[OFFSET]]] [2] [1]
func.func @dynamic_view(%i: memref<i64>, %xs: memref<10xf32>) -> memref<2xf32, strided<[1], offset: ?>> {
  %v = memref.load %i[] : memref<i64>
  %o = arith.index_cast %v : i64 to index
  %s = memref.subview %xs[%o] [2] [1] : memref<10xf32> to memref<2xf32, strided<[1], offset: ?>>
  return %s : memref<2xf32, strided<[1], offset: ?>>
}
