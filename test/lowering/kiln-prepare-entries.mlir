// RUN: kiln-opt %s --kiln-prepare-entries | FileCheck %s

// CHECK-LABEL: func.func @entry
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {bufferization.writable = false})
// CHECK-SAME: attributes {llvm.emit_c_interface}
func.func @entry(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// Private functions and declarations are not entries.
// CHECK-LABEL: func.func private @helper
// CHECK-NOT: llvm.emit_c_interface
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @external(%x: tensor<4xf32>) -> tensor<4xf32>
