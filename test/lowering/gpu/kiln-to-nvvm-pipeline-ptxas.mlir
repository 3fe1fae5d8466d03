// REQUIRES: cuda-toolkit
// Every kernel of a loop with a device-computed condition, tiled matmuls
// (odd sizes, batched bf16) and reductions of every strategy (rows in
// groups, split single outputs, f64 and f16 shuffles, columns per thread),
// floating-point remainders (libdevice fmod) and integer powers (a
// function outlining copies into the kernel module) assemble for sm_90 with
// no spills; the report is printed.
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

func.func @mm_odd(%a: tensor<1000x300xf32>, %b: tensor<300x777xf32>) -> tensor<1000x777xf32> {
  %r = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<1000x300xf32>, tensor<300x777xf32>) -> tensor<1000x777xf32>
  return %r : tensor<1000x777xf32>
}

func.func @bmm(%a: tensor<3x33x17xbf16>, %b: tensor<3x40x17xbf16>) -> tensor<3x33x40xf32> {
  %r = kiln.dot_general %a, %b, batching = [0] x [0], contracting = [2] x [2] : (tensor<3x33x17xbf16>, tensor<3x40x17xbf16>) -> tensor<3x33x40xf32>
  return %r : tensor<3x33x40xf32>
}

func.func @rowsum(%x: tensor<4096x4096xf32>) -> tensor<4096xf32> {
  %r = kiln.reduce_sum %x, dims = [1] : (tensor<4096x4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}

func.func @full(%x: tensor<4096x4096xf32>) -> tensor<f32> {
  %r = kiln.reduce_sum %x, dims = [0, 1] : (tensor<4096x4096xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

func.func @colmax(%x: tensor<1000x300xbf16>) -> tensor<300xbf16> {
  %r = kiln.reduce_max %x, dims = [0] : (tensor<1000x300xbf16>) -> tensor<300xbf16>
  return %r : tensor<300xbf16>
}

func.func @rowmin(%x: tensor<7x1000xf64>) -> tensor<7xf64> {
  %r = kiln.reduce_min %x, dims = [1] : (tensor<7x1000xf64>) -> tensor<7xf64>
  return %r : tensor<7xf64>
}

func.func @rowmax_f16(%x: tensor<7x1000xf16>) -> tensor<7xf16> {
  %r = kiln.reduce_max %x, dims = [1] : (tensor<7x1000xf16>) -> tensor<7xf16>
  return %r : tensor<7xf16>
}

func.func @rem(%a: tensor<2x3xf64>, %b: tensor<2x3xf32>) -> (tensor<2x3xf64>, tensor<2x3xf32>) {
  %r = kiln.rem %a, %a : tensor<2x3xf64>
  %s = kiln.rem %b, %b : tensor<2x3xf32>
  return %r, %s : tensor<2x3xf64>, tensor<2x3xf32>
}

func.func @ipow(%a: tensor<7xi32>, %b: tensor<7xi32>) -> tensor<7xi32> {
  %r = kiln.pow %a, %b : tensor<7xi32>
  return %r : tensor<7xi32>
}
