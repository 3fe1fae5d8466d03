// A pass that reports its own error is not named again (a silent failure
// is named: see test/unit/LoweringTest.cpp).
// RUN: not kiln-opt %s --kiln-check-contract="allowed-dialects=func" 2>&1 | FileCheck %s

// CHECK: error: 'kiln.exp' was left unlowered by lowering
// CHECK-NOT: pass 'kiln-check-contract' failed
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
