// The dispatch benchmark's function: two 4-element tensors added, so that
// a call's time is the runtime's overhead.
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
