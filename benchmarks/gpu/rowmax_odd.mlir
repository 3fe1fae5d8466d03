// Row maxima of 8192x1000 f32 (a softmax's first reduction).
func.func @rowmax_odd(%x: tensor<8192x1000xf32>) -> tensor<8192xf32> {
  %0 = kiln.reduce_max %x, dims = [1] : (tensor<8192x1000xf32>) -> tensor<8192xf32>
  return %0 : tensor<8192xf32>
}
