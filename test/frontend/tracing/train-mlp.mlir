// The demo's MLP trained from C++ alone (kiln/trace.hpp): its traced step
// gives the textual program's first step (scripts/demo/train.mlir) on the
// same parameters and batch, and its loss falls below half (the example
// exits 1 otherwise).
// RUN: kiln-train-mlp-example %kiln_src_root/scripts/demo/train.mlir | FileCheck %s

// CHECK: first step: loss [[LOSS:[0-9.]+]] traced, [[LOSS]] textual; parameters differ by at most {{0.00e\+00|[0-9]\.[0-9]+e-(0[6-9]|[1-9][0-9])}}
// CHECK: step 0: loss
// CHECK: loss fell from
