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

// A result computed in another shape and reshaped (a convolution's product
// [N*H*W, C] returned as [N, H, W, C], a chain of reshapes) is computed
// into the out-parameter seen in that shape.
// CHECK-LABEL: func.func private @expanded
// CHECK-SAME: (%[[X:.*]]: memref<6xf32>, %[[OUT:.*]]: memref<2x3xf32>)
// CHECK-NEXT: %[[VIEW:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK-NEXT: call @g(%[[X]], %[[VIEW]])
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @collapsed_then_expanded
// CHECK-SAME: (%[[X:.*]]: memref<6xf32>, %[[OUT:.*]]: memref<3x2xf32>)
// CHECK-NEXT: %[[FLAT:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1]] : memref<3x2xf32> into memref<6xf32>
// CHECK-NEXT: %[[VIEW:.*]] = memref.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
// CHECK-NEXT: %[[SAME:.*]] = memref.collapse_shape %[[VIEW]] {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK-NEXT: call @g(%[[X]], %[[SAME]])
// CHECK-NEXT: return
func.func private @g(%x: memref<6xf32>, %out: memref<6xf32>) {
  memref.copy %x, %out : memref<6xf32> to memref<6xf32>
  return
}
func.func private @expanded(%x: memref<6xf32>, %out: memref<2x3xf32>) {
  %a = memref.alloc() : memref<6xf32>
  call @g(%x, %a) : (memref<6xf32>, memref<6xf32>) -> ()
  %e = memref.expand_shape %a [[0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
  memref.copy %e, %out : memref<2x3xf32> to memref<2x3xf32>
  return
}
func.func private @collapsed_then_expanded(%x: memref<6xf32>, %out: memref<3x2xf32>) {
  %a = memref.alloc() : memref<2x3xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<2x3xf32> into memref<6xf32>
  call @g(%x, %flat) : (memref<6xf32>, memref<6xf32>) -> ()
  %e = memref.expand_shape %flat [[0, 1]] output_shape [3, 2] : memref<6xf32> into memref<3x2xf32>
  memref.copy %e, %out : memref<3x2xf32> to memref<3x2xf32>
  return
}

// -----

// The reshaped buffer is read after the copy: the copy stays. Copied to
// another out-parameter first, the reshaped out-parameter is copied there.
// CHECK-LABEL: func.func private @reshaped_read_after
// CHECK: memref.alloc
// CHECK: memref.copy
// CHECK-LABEL: func.func private @reshape_read_twice
// CHECK-SAME: (%{{.*}}: memref<6xf32>, %[[OUT:.*]]: memref<2x3xf32>, %[[OUT2:.*]]: memref<2x3xf32>)
// CHECK-NOT: memref.alloc
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %[[OUT]]
// CHECK: %[[SAME:.*]] = memref.expand_shape %[[VIEW]]
// CHECK: memref.copy %[[SAME]], %[[OUT2]]
// CHECK-NEXT: return
func.func private @g(%x: memref<6xf32>, %out: memref<6xf32>) {
  memref.copy %x, %out : memref<6xf32> to memref<6xf32>
  return
}
func.func private @reshaped_read_after(%x: memref<6xf32>, %out: memref<2x3xf32>, %out2: memref<6xf32>) {
  %a = memref.alloc() : memref<6xf32>
  call @g(%x, %a) : (memref<6xf32>, memref<6xf32>) -> ()
  %e = memref.expand_shape %a [[0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
  memref.copy %e, %out : memref<2x3xf32> to memref<2x3xf32>
  call @g(%a, %out2) : (memref<6xf32>, memref<6xf32>) -> ()
  return
}
func.func private @reshape_read_twice(%x: memref<6xf32>, %out: memref<2x3xf32>, %out2: memref<2x3xf32>) {
  %a = memref.alloc() : memref<6xf32>
  call @g(%x, %a) : (memref<6xf32>, memref<6xf32>) -> ()
  %e = memref.expand_shape %a [[0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
  memref.copy %e, %out2 : memref<2x3xf32> to memref<2x3xf32>
  memref.copy %e, %out : memref<2x3xf32> to memref<2x3xf32>
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
