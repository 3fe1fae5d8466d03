// RUN: kiln-opt %s --kiln-prepare-entries --split-input-file -verify-diagnostics

// expected-error @+1 {{function @rec is recursive, which Kiln cannot compile (write loops with kiln.while or kiln.scan): @rec -> @rec}}
func.func @rec(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = func.call @rec(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = func.call @g(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
// expected-error @+1 {{@g -> @h -> @g}}
func.func private @g(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = func.call @h(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @h(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = func.call @g(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A transformation op naming its own function is recursion too.
// expected-error @+1 {{function @loss is recursive}}
func.func @loss(%w: tensor<f32>) -> tensor<f32> {
  %g = kiln.grad @loss(%w) : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
