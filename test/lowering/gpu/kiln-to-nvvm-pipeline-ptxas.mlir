// REQUIRES: cuda-toolkit
// Every kernel of the GPU benchmarks and of a loop with a device-computed
// condition assembles for sm_90 with no spills; the report is printed.
// RUN: kiln-opt %s --kiln-to-nvvm-pipeline=format=ptx | FileCheck %s --check-prefix=BINARY
// RUN: kiln-compile %s --target=nvptx --emit=ptx -o %t.ptx
// RUN: %numpy_python %S/ptxas_report.py %ptxas %t.ptx | FileCheck %s
// RUN: kiln-compile %s --target=nvptx -o %t.so
// RUN: %numpy_python %S/ptxas_report.py --check-artifact %t.so | FileCheck %s --check-prefix=ARTIFACT
// BINARY: gpu.binary @loop_kernel
// BINARY: llvm.func @kiln_entry_loop
// CHECK: {{[0-9]+}} kernels assembled for sm_90, 0 spill stores, 0 spill loads
// ARTIFACT: manifest: device cuda sm_90
func.func @loop(%a: tensor<f32>, %v0: tensor<f32>) -> tensor<f32> {
  %1 = kiln.while (%v0) : tensor<f32> cond {
  ^bb0(%v: tensor<f32>):
    %c = kiln.compare LT, %v, %a : tensor<f32>
    kiln.yield %c : tensor<i1>
  } do {
  ^bb0(%v: tensor<f32>):
    %w = kiln.add %v, %v : tensor<f32>
    kiln.yield %w : tensor<f32>
  }
  return %1 : tensor<f32>
}

func.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %r = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}
