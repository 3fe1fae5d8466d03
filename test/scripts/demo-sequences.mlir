// The README's demo, second part: the RNN written with kiln.scan agrees with
// PyTorch's nn.RNN (states and gradients), and gradient accumulation over
// 16 micro-batches gives the batch's gradient with a lower peak (the
// script exits with an error otherwise).
// The demo loads libkiln_runtime.so into Python (ctypes), which a
// sanitized build's libraries cannot be loaded into.
// UNSUPPORTED: asan
// RUN: %numpy_python %kiln_src_root/scripts/demo/sequences.py %kiln_lib_dir %kiln_src_root | FileCheck %s
// CHECK: rnn (100 steps, batch 32, hidden 256, f32) against nn.RNN: states {{[0-9.]+}}e-{{0[5-9]|1[0-9]}}, gradients {{[0-9.]+}}e-{{0[5-9]|1[0-9]}} relative
// CHECK: gradient accumulation (16 micro-batches of 4 against the batch of 64): {{[0-9.]+}}e-{{1[2-9]}} relative; peak {{[0-9]+}} bytes against {{[0-9]+}}
