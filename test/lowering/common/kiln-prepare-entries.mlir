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
