// --check-grads and --check-vmap on a file whose functions sit in an
// explicit module, as JAX exports them (module @jit_f { ... }): the checks'
// functions go inside it, beside the entry. The entry is a loss over an
// imported stablehlo.sort, whose order is a kiln.while under stop_gradient
// and whose values are a gather: both derivatives and vmap hold. So do a
// router's over chlo.top_k (the values gathered at the indices found).
// RUN: %numpy_python -c "import numpy as np; r = np.random.default_rng(0); np.savez('%t.one.npz', arg0=r.permutation(np.arange(6, dtype=np.float32)) + 0.25 * r.standard_normal(6).astype(np.float32)); np.savez('%t.batch.npz', arg0=r.standard_normal((3, 6)).astype(np.float32))"
// RUN: kiln-run %s --entry main --input %t.one.npz --check-grads | FileCheck %s --check-prefix=GRADS
// GRADS: main: derivatives of result 0 (tensor<f32>)
// GRADS-NEXT: arg0 tensor<6xf32>: jvp vs finite differences {{.*}}: ok
// RUN: kiln-run %s --entry main --input %t.batch.npz --check-vmap | FileCheck %s --check-prefix=VMAP
// VMAP: out0 tensor<f32>: worst difference {{.*}}: ok
// RUN: kiln-run %s --entry router --input %t.batch.npz --check-grads | FileCheck %s --check-prefix=ROUTER
// ROUTER: router: derivatives of result 0 (tensor<f32>)
// ROUTER-NEXT: arg0 tensor<3x6xf32>: jvp vs finite differences {{.*}}: ok
module @jit_f {
  func.func public @main(%arg0: tensor<6xf32>) -> tensor<f32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<6xf32>) -> tensor<6xf32>
    %w = stablehlo.iota dim = 0 : tensor<6xf32>
    %p = stablehlo.multiply %0, %w : tensor<6xf32>
    %q = stablehlo.multiply %p, %0 : tensor<6xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
    return %s : tensor<f32>
  }
  func.func public @router(%arg0: tensor<3x6xf32>) -> tensor<f32> {
    %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<3x6xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
    %e = stablehlo.exponential %values : tensor<3x2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x2xf32>, tensor<f32>) -> tensor<f32>
    return %s : tensor<f32>
  }
}
