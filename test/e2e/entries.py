# Entry points whose results repeat a value or an argument: every result
# gets its own buffer.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check, finish

x = np.arange(5, dtype=np.float32)
check("a computed value returned twice", """
func.func @f(%a: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %0 = kiln.neg %a : tensor<5xf32>
  return %0, %0 : tensor<5xf32>, tensor<5xf32>
}""", "f", [x], [-x, -x])
check("two results that fold to one value", """
func.func @f(%a: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<f32>) {
  %0 = kiln.neg %a : tensor<5xf32>
  %1 = kiln.neg %a : tensor<5xf32>
  %z = kiln.constant dense<0.0> : tensor<5xf32>
  %2 = kiln.add %1, %z : tensor<5xf32>
  %s = kiln.reduce_sum %0, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  return %0, %2, %s : tensor<5xf32>, tensor<5xf32>, tensor<f32>
}""", "f", [x], [-x, -x, np.float32(-10)])
check("an argument returned twice", """
func.func @f(%a: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  return %a, %a : tensor<5xf32>, tensor<5xf32>
}""", "f", [x], [x, x])

finish()
