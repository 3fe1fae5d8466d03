// The README's demo: the MLP forward pass compiles, runs, and agrees with
// numpy.
// RUN: %numpy_python %kiln_src_root/scripts/demo/make_data.py %t.in.npz %t.ref.npz
// RUN: kiln-compile %kiln_src_root/scripts/demo/mlp.mlir -o %t.kmod
// RUN: kiln-run %t.kmod --entry predict --input %t.in.npz --output %t.out.npz
// RUN: %numpy_python %kiln_src_root/scripts/demo/compare.py %t.out.npz %t.ref.npz | FileCheck %s
// CHECK: predicted classes agreeing with numpy: 100.0%
