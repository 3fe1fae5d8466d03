// RUN: kiln-opt %s --split-input-file --kiln-write-results-in-place | FileCheck %s

// A result a call computes into a buffer of the caller's, then copied into
// the caller's out-parameter, is computed into the out-parameter.
// CHECK-LABEL: func.func private @passes_up
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK-NEXT: call @g(%[[X]], %[[OUT]])
// CHECK-NEXT: return
func.func private @g(%x: memref<4xf32>, %out: memref<4xf32>) {
  memref.copy %x, %out : memref<4xf32> to memref<4xf32>
  return
}
func.func private @passes_up(%x: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  call @g(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// The buffer is read after the copy, the out-parameter is used elsewhere,
// or the types differ: the copies stay.
// CHECK-LABEL: func.func private @read_after
// CHECK: memref.alloc
// CHECK: memref.copy
// CHECK-LABEL: func.func private @used_elsewhere
// CHECK: memref.alloc
// CHECK: memref.copy
// CHECK-LABEL: func.func private @other_layout
// CHECK: memref.alloc
// CHECK: memref.copy
func.func private @g(%x: memref<4xf32>, %out: memref<4xf32>) {
  memref.copy %x, %out : memref<4xf32> to memref<4xf32>
  return
}
func.func private @read_after(%x: memref<4xf32>, %out: memref<4xf32>, %out2: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  call @g(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  call @g(%a, %out2) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
func.func private @used_elsewhere(%x: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  call @g(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  call @g(%x, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  return
}
func.func private @other_layout(%x: memref<4xf32>, %out: memref<4xf32, strided<[2]>>) {
  %a = memref.alloc() : memref<4xf32>
  call @g(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %a, %out : memref<4xf32> to memref<4xf32, strided<[2]>>
  return
}

// -----

// A result that reuses a donated argument's buffer (kiln.donated_buffers:
// result 0 reuses argument 0) is already there: the copy of the argument
// into the out-parameter goes, the runtime passing the argument's buffer
// as that out-parameter. Result 1's copy stays.
// CHECK-LABEL: func.func @donated
// CHECK-NOT: memref.copy %arg0, %arg2
// CHECK: memref.copy %arg1, %arg3
func.func @donated(%w: memref<4xf32>, %g: memref<4xf32>, %out: memref<4xf32>, %out2: memref<4xf32>) attributes {kiln.donated_buffers = array<i64: 0, -1>} {
  memref.copy %w, %out : memref<4xf32> to memref<4xf32>
  memref.copy %g, %out2 : memref<4xf32> to memref<4xf32>
  return
}
