// A call of a function that has no body cannot be compiled: kiln-run
// reports where it is declared and exits 1 (the code once failed to link
// in the JIT, and crashed freeing the failed program).
// RUN: %numpy_python %S/make_inputs.py %t
// RUN: not kiln-run %s --entry f --input %t.good.npz 2>&1 | FileCheck %s
// CHECK: kiln-run: error: {{.*}}missing-code.mlir:7:1: error: function @missing has no body, and entry @f calls it: it cannot be compiled
func.func private @missing(tensor<4xf32>) -> tensor<4xf32>
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @missing(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
