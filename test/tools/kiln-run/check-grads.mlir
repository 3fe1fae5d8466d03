// kiln-run --check-grads compares each float argument's JVP with central
// finite differences and the VJP with the JVP (the dot-product test), and
// fails above the dtype's tolerance: at a jump of floor it must.
// RUN: %numpy_python -c "import numpy as np; r = np.random.default_rng(0); np.savez('%t.mlp.npz', arg0=r.standard_normal((3, 4)).astype(np.float32), arg1=r.standard_normal((5, 3)).astype(np.float32), arg2=r.standard_normal((5, 4)).astype(np.float32)); np.savez('%t.jump.npz', arg0=np.array([1.0, 2.0, -1.0, 3.0]), arg1=np.array(3, np.int32)); np.savez('%t.smooth.npz', arg0=np.array([1.5, 2.25, -1.5, 3.5]), arg1=np.array(3, np.int32)); np.savez('%t.ints.npz', arg0=np.arange(4, dtype=np.int32)); np.savez('%t.scalar.npz', arg0=np.array(1.5, np.float32))"
// RUN: kiln-run %s --entry loss --input %t.mlp.npz --check-grads | FileCheck %s --check-prefix=LOSS
// LOSS: loss: derivatives of result 0 (tensor<f32>)
// LOSS-NEXT: arg0 tensor<3x4xf32>: jvp vs finite differences {{.*}} (tolerance 2e-03, step {{.*}}): ok
// LOSS-NEXT: arg1 tensor<5x3xf32>: {{.*}}: ok
// LOSS-NEXT: arg2 tensor<5x4xf32>: {{.*}}: ok
// RUN: kiln-run %s --entry steps --input %t.smooth.npz --check-grads | FileCheck %s --check-prefix=SMOOTH
// SMOOTH: arg0 tensor<4xf64>: {{.*}} (tolerance 1e-05, {{.*}}): ok
// SMOOTH-NOT: arg1
// RUN: not kiln-run %s --entry steps --input %t.jump.npz --check-grads | FileCheck %s --check-prefix=JUMP
// JUMP: arg0 tensor<4xf64>: jvp vs finite differences 1.00e+00, {{.*}}: FAILED
// RUN: not kiln-run %s --entry ints --input %t.ints.npz --check-grads 2>&1 | FileCheck %s --check-prefix=INTS
// INTS: kiln-run: error: --check-grads: ints has no float argument to differentiate
// RUN: not kiln-run %s --entry vector --input %t.smooth.npz --check-grads 2>&1 | FileCheck %s --check-prefix=VECTOR
// VECTOR: kiln-run: error: --check-grads: the first result of vector must be a float scalar (tensor<f32>, ...); it is tensor<4xf64>
// RUN: not kiln-run %s --entry loop --input %t.scalar.npz --check-grads 2>&1 | FileCheck %s --check-prefix=LOOP
// LOOP: kiln-run: error: --check-grads: {{.*}}check-grads.mlir:[[@LINE+27]]:8: error: 'kiln.while' op cannot be differentiated in reverse mode
// RUN: kiln-compile %s -o %t.so
// RUN: not kiln-run %t.so --entry loss --input %t.mlp.npz --check-grads 2>&1 | FileCheck %s --check-prefix=ARTIFACT
// ARTIFACT: kiln-run: error: --check-grads needs a .mlir source run on the CPU
func.func @loss(%w: tensor<3x4xf32>, %x: tensor<5x3xf32>, %y: tensor<5x4xf32>) -> (tensor<f32>, tensor<5x4xf32>) {
  %h = kiln.dot_general %x, %w, contracting = [1] x [0] : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  %a = kiln.tanh %h : tensor<5x4xf32>
  %d = kiln.sub %a, %y : tensor<5x4xf32>
  %sq = kiln.mul %d, %d : tensor<5x4xf32>
  %l = kiln.reduce_sum %sq, dims = [0, 1] : (tensor<5x4xf32>) -> tensor<f32>
  return %l, %a : tensor<f32>, tensor<5x4xf32>
}
func.func @steps(%x: tensor<4xf64>, %n: tensor<i32>) -> tensor<f64> {
  %f = kiln.floor %x : tensor<4xf64>
  %m = kiln.mul %f, %x : tensor<4xf64>
  %l = kiln.reduce_sum %m, dims = [0] : (tensor<4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @vector(%x: tensor<4xf64>, %n: tensor<i32>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}
func.func @ints(%x: tensor<4xi32>) -> tensor<f32> {
  %c = kiln.convert %x : (tensor<4xi32>) -> tensor<4xf32>
  %l = kiln.reduce_sum %c, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @loop(%x: tensor<f32>) -> tensor<f32> {
  %r = kiln.while (%x) : tensor<f32> cond {
  ^bb0(%v: tensor<f32>):
    %big = kiln.constant dense<10.0> : tensor<f32>
    %p = kiln.compare LT, %v, %big : tensor<f32>
    kiln.yield %p : tensor<i1>
  } do {
  ^bb0(%v: tensor<f32>):
    %w = kiln.add %v, %v : tensor<f32>
    kiln.yield %w : tensor<f32>
  }
  return %r : tensor<f32>
}
