// tanh(a * x + b) * c over 16M floats: one fused, memory-bound loop.
func.func @chain(%x: tensor<16777216xf32>, %a: tensor<f32>, %b: tensor<f32>,
                 %c: tensor<f32>) -> tensor<16777216xf32> {
  %ab = kiln.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<16777216xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [] : (tensor<f32>) -> tensor<16777216xf32>
  %cb = kiln.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<16777216xf32>
  %0 = kiln.mul %ab, %x : tensor<16777216xf32>
  %1 = kiln.add %0, %bb : tensor<16777216xf32>
  %2 = kiln.tanh %1 : tensor<16777216xf32>
  %3 = kiln.mul %2, %cb : tensor<16777216xf32>
  return %3 : tensor<16777216xf32>
}
