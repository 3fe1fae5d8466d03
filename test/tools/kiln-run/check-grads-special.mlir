// --check-grads through CHLO's special functions as JAX exports them:
// zeta, bessel_i1e and polygamma import as kiln ops, so their derivatives
// come from those ops' rules and agree with finite differences in both
// arguments (x on both sides of zeta's Euler-Maclaurin split, q between
// 0.5 and 9).
// RUN: %numpy_python -c "import numpy as np; np.savez('%t.npz', arg0=np.array([2.0, 3.5, 1.5, 6.0]), arg1=np.array([1.0, 0.5, 9.0, 2.5]))"
// RUN: kiln-run %s --entry main --input %t.npz --check-grads | FileCheck %s
// CHECK: main: derivatives of result 0 (tensor<f64>)
// CHECK-NEXT: arg0 tensor<4xf64>: jvp vs finite differences {{.*}}: ok
// CHECK-NEXT: arg1 tensor<4xf64>: jvp vs finite differences {{.*}}: ok
module @jit_f {
  func.func public @main(%arg0: tensor<4xf64>, %arg1: tensor<4xf64>) -> tensor<f64> {
    %0 = chlo.zeta %arg0, %arg1 : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %1 = chlo.bessel_i1e %arg1 : tensor<4xf64> -> tensor<4xf64>
    %n = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf64>
    %p = chlo.polygamma %n, %arg1 : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %2 = stablehlo.add %0, %1 : tensor<4xf64>
    %3 = stablehlo.add %2, %p : tensor<4xf64>
    %z = stablehlo.constant dense<0.0> : tensor<f64>
    %s = stablehlo.reduce(%3 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf64>, tensor<f64>) -> tensor<f64>
    return %s : tensor<f64>
  }
}
