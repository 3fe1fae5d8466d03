// Softmax over rows of 4096x1000 f32.
func.func @softmax(%x: tensor<4096x1000xf32>) -> tensor<4096x1000xf32> {
  %m = kiln.reduce_max %x, dims = [1] : (tensor<4096x1000xf32>) -> tensor<4096xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : (tensor<4096xf32>) -> tensor<4096x1000xf32>
  %d = kiln.sub %x, %mb : tensor<4096x1000xf32>
  %e = kiln.exp %d : tensor<4096x1000xf32>
  %s = kiln.reduce_sum %e, dims = [1] : (tensor<4096x1000xf32>) -> tensor<4096xf32>
  %sb = kiln.broadcast_in_dim %s, dims = [0] : (tensor<4096xf32>) -> tensor<4096x1000xf32>
  %y = kiln.div %e, %sb : tensor<4096x1000xf32>
  return %y : tensor<4096x1000xf32>
}
