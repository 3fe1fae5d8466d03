// Column sums of a 4096x4096 f32 matrix.
func.func @colsum(%x: tensor<4096x4096xf32>) -> tensor<4096xf32> {
  %0 = kiln.reduce_sum %x, dims = [0] : (tensor<4096x4096xf32>) -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
