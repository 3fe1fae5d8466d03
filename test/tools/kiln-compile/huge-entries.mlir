// An entry taking or returning a tensor of 2^63 bytes or more could never
// be called: kiln-compile refuses it at the function, before anything is
// allocated (kiln-opt refuses it too: kiln-check-tensor-sizes).
// RUN: not kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s

// CHECK: huge-entries.mlir:[[# @LINE + 1]]:1: error: public function @huge's argument #0 has type 'tensor<9223372036854775807x9223372036854775807xf32>', of 2^63 bytes or more: no machine can hold it
func.func @huge(%x: tensor<9223372036854775807x9223372036854775807xf32>) -> tensor<9223372036854775807x9223372036854775807xf32> {
  return %x : tensor<9223372036854775807x9223372036854775807xf32>
}
