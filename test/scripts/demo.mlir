// The README's demo: the MLP's gradients agree with PyTorch's autograd, and
// SGD through the runtime's C API drives the loss down and fits the spirals;
// kiln.vmap gives every point's gradient norm as a loop of single-point
// gradients does, and an ensemble's losses as numpy does.
// The demo loads libkiln_runtime.so into Python (ctypes), which a
// sanitized build's libraries cannot be loaded into.
// UNSUPPORTED: asan
// RUN: kiln-compile %kiln_src_root/scripts/demo/train.mlir -o %t.kmod
// RUN: %numpy_python %kiln_src_root/scripts/demo/train.py %kiln_lib_dir %kiln_src_root/scripts/demo/train.mlir %t.kmod --steps 300 | FileCheck %s
// CHECK: first step: loss 1.06{{[0-9]+}}; loss and gradients against PyTorch's autograd (f64): {{[0-9.]+}}e-{{1[0-9]}} relative in f64
// CHECK: step    0  loss 1.06
// CHECK: step  299  loss 0.0
// CHECK: training accuracy after 300 steps: 9{{[5-9]}}.{{[0-9]}}%
// CHECK: per-point gradient norms (vmap of grad over 300 points): min {{.*}}; against a loop of single-point gradients: {{.*}} relative
// CHECK: ensemble of 3 models (vmap over parameters): mean losses 1.{{[0-9]+}}, 0.0{{[0-9]+}}, {{.*}}; against numpy: {{.*}} relative
