// RUN: kiln-opt %s --kiln-import-stablehlo --mlir-print-debuginfo | FileCheck %s

// JAX's locations stay, so errors point into the user's Python.
// CHECK-LABEL: func.func @located
// CHECK: kiln.tanh %arg0 : tensor<2xf32> loc(#[[LOC:.*]])
// CHECK: #[[FILE:.*]] = loc("model.py":7:4)
// CHECK: #[[LOC]] = loc("jit(f)/tanh"(#[[FILE]]))
func.func @located(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.tanh %arg0 : tensor<2xf32> loc(#loc2)
  return %0 : tensor<2xf32>
}
#loc1 = loc("model.py":7:4)
#loc2 = loc("jit(f)/tanh"(#loc1))
