// RUN: kiln-opt %s --split-input-file --kiln-free-in-callees | FileCheck %s

// Every caller frees the buffer it passes right after the call: the callee
// frees it after its own last use, and hands it on to its callee the same
// way.
// CHECK-LABEL: func.func private @leaf
// CHECK-SAME: (%[[R:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK-NEXT: memref.copy %[[R]], %[[OUT]]
// CHECK-NEXT: memref.dealloc %[[R]]
// CHECK-NEXT: %[[T:.*]] = memref.alloc()
// CHECK-LABEL: func.func private @middle
// CHECK-SAME: (%[[R:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK-NEXT: call @leaf(%[[R]], %[[OUT]])
// CHECK-NEXT: return
// CHECK-LABEL: func.func @entry
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK: call @middle(%[[A]],
// CHECK-NOT: memref.dealloc %[[A]]
// CHECK: return
func.func private @leaf(%r: memref<4xf32>, %out: memref<4xf32>) {
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  %t = memref.alloc() : memref<4xf32>
  memref.copy %out, %t : memref<4xf32> to memref<4xf32>
  memref.dealloc %t : memref<4xf32>
  return
}
func.func private @middle(%r: memref<4xf32>, %out: memref<4xf32>) {
  call @leaf(%r, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
func.func @entry(%x: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  call @middle(%a, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// One caller uses the buffer after the call, another passes a view of it
// twice, a public function cannot know its callers: each keeps freeing its
// own buffers.
// CHECK-LABEL: func.func private @read
// CHECK-NOT: memref.dealloc
// CHECK: return
// CHECK-LABEL: func.func private @twice
// CHECK-NOT: memref.dealloc
// CHECK: return
// CHECK-LABEL: func.func @public
// CHECK-NOT: memref.dealloc
// CHECK: return
// CHECK-LABEL: func.func @callers
// CHECK-COUNT-3: memref.dealloc
func.func private @read(%r: memref<4xf32>, %out: memref<4xf32>) {
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  return
}
func.func private @twice(%r: memref<4xf32>, %s: memref<4xf32>) {
  memref.copy %r, %s : memref<4xf32> to memref<4xf32>
  return
}
func.func @public(%r: memref<4xf32>, %out: memref<4xf32>) {
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  return
}
func.func @callers(%x: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  call @read(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  call @read(%a, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %v = memref.cast %b : memref<4xf32> to memref<4xf32>
  call @twice(%b, %v) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.dealloc %b : memref<4xf32>
  %c = memref.alloc() : memref<4xf32>
  call @public(%c, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.dealloc %c : memref<4xf32>
  return
}
