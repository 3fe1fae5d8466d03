// tanh(a*x+b)*c over 16M floats (a, b, c scalars): one fused kernel that
// reads x once and writes the result once.
func.func @chain(%x: tensor<4096x4096xf32>, %a: tensor<f32>, %b: tensor<f32>,
                 %c: tensor<f32>) -> tensor<4096x4096xf32> {
  %ab = kiln.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<4096x4096xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [] : (tensor<f32>) -> tensor<4096x4096xf32>
  %cb = kiln.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4096x4096xf32>
  %0 = kiln.mul %ab, %x : tensor<4096x4096xf32>
  %1 = kiln.add %0, %bb : tensor<4096x4096xf32>
  %2 = kiln.tanh %1 : tensor<4096x4096xf32>
  %3 = kiln.mul %2, %cb : tensor<4096x4096xf32>
  return %3 : tensor<4096x4096xf32>
}
