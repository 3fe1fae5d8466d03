// The sum of all 16M elements of a 4096x4096 f32 matrix.
func.func @fullsum(%x: tensor<4096x4096xf32>) -> tensor<f32> {
  %0 = kiln.reduce_sum %x, dims = [0, 1] : (tensor<4096x4096xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
