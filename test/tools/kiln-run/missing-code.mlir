// A call of a function that has no body fails to link in the JIT: kiln-run
// reports it and exits 1 (it used to crash freeing the failed program).
// RUN: %numpy_python %S/make_inputs.py %t
// RUN: not kiln-run %s --entry f --input %t.good.npz 2>&1 | FileCheck %s
// CHECK: kiln-run: error: entry f: its code is missing: {{.*}}
func.func private @missing(tensor<4xf32>) -> tensor<4xf32>
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @missing(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
