// RUN: kiln-opt %s --kiln-prepare-entries | FileCheck %s

// CHECK-LABEL: func.func @entry
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {bufferization.writable = false})
// The signature {length, #args, #results, per tensor: dtype, rank, dims}
// with f32 = 0, i32 = 5, i64 = 6 (kiln_dtype_t).
// CHECK-SAME: attributes {kiln.buffer_alignment = 64 : i64, kiln.entry_signature = array<i64: 9, 1, 1, 0, 1, 4, 0, 1, 4>, llvm.emit_c_interface}
func.func @entry(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// CHECK-LABEL: func.func @two
// CHECK-SAME: kiln.entry_signature = array<i64: 13, 2, 1, 5, 0, 6, 3, 2, 1, 7, 5, 1, 3>
func.func @two(%k: tensor<i32>, %x: tensor<2x1x7xi64>) -> tensor<3xi32> {
  %0 = kiln.constant dense<1> : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// Private functions and declarations are not entries.
// CHECK-LABEL: func.func private @helper
// CHECK-NOT: llvm.emit_c_interface
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @external(%x: tensor<4xf32>) -> tensor<4xf32>

// Donated arguments (kiln.donate): each is given the first result of its
// type no earlier one took; that result is materialized in the argument,
// which becomes writable, and the entry records which argument each result
// reuses (-1: none). The mark itself is dropped, as kiln.static is; %b has
// no result of its type left.
// CHECK-LABEL: func.func @donates
// CHECK-SAME: (%[[W:.*]]: tensor<4xf32> {bufferization.writable = true}, %[[G:.*]]: tensor<4xf32> {bufferization.writable = false}, %[[B:.*]]: tensor<2xf32> {bufferization.writable = false}, %{{.*}}: tensor<f32> {bufferization.writable = false})
// CHECK-SAME: kiln.donated_buffers = array<i64: -1, 0>
// CHECK: %[[NEW:.*]] = kiln.sub %[[W]], %[[G]]
// CHECK: %[[INTO:.*]] = bufferization.materialize_in_destination %[[NEW]] in %[[W]]
// CHECK: return %{{.*}}, %[[INTO]]
// CHECK-NOT: kiln.donate
// CHECK-NOT: kiln.static
func.func @donates(%w: tensor<4xf32> {kiln.donate}, %g: tensor<4xf32>, %b: tensor<2xf32> {kiln.donate}, %k: tensor<f32> {kiln.static}) -> (tensor<f32>, tensor<4xf32>) {
  %n = kiln.sub %w, %g : tensor<4xf32>
  %s = kiln.reduce_sum %b, dims = [0] : (tensor<2xf32>) -> tensor<f32>
  return %s, %n : tensor<f32>, tensor<4xf32>
}
