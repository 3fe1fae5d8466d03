// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'kiln.jvp' op callee @gone does not exist}}
  %0:2 = kiln.jvp @gone(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A nested symbol reference is not a callee.
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{custom op 'kiln.checkpoint' invalid kind of attribute specified}}
  %0 = kiln.checkpoint @a::@b(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
