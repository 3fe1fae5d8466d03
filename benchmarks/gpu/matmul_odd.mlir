// f32 matmul of odd sizes: 1000x300 times 300x777.
func.func @matmul_odd(%a: tensor<1000x300xf32>, %b: tensor<300x777xf32>) -> tensor<1000x777xf32> {
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<1000x300xf32>, tensor<300x777xf32>) -> tensor<1000x777xf32>
  return %0 : tensor<1000x777xf32>
}
