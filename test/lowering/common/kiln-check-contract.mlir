// RUN: kiln-opt %s --split-input-file --verify-diagnostics \
// RUN:   --kiln-check-contract="allowed-dialects=func,arith stage=my-stage"

func.func @ok(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  return %0 : i32
}

// -----

func.func @left(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.exp' was left unlowered by my-stage: no pattern of this stage lowers it}}
  %0 = kiln.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @loss(%w: tensor<4xf32>) -> tensor<f32>
func.func @transform(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.grad' was left unlowered by my-stage: kiln-expand-transforms does not expand this transformation yet (it expands kiln.jvp)}}
  %0 = kiln.grad @loss(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
