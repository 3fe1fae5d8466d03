// RUN: kiln-opt %s --split-input-file -verify-diagnostics --kiln-import-stablehlo

// A backend's own function cannot run on Kiln's targets.
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{stablehlo.custom_call @Sharding: a backend's own function, which Kiln cannot import}}
  %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = ""} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A reduction whose body is not one of kiln's reductions.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{stablehlo.reduce: Kiln imports reductions of one tensor (not i1) whose body applies add, multiply, maximum or minimum}}
  %0 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %s = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

// Element types kiln has no ops for are refused where they appear.
func.func @main(%arg0: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{'kiln.add' op operand #0 must be}}
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{unknown keyword 'GREATER'}}
  %0 = stablehlo.compare GREATER, %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
