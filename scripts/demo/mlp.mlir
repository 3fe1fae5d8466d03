// The demo program: the forward pass of a 2-layer MLP classifier over a
// batch, returning class scores, predicted classes and the mean squared
// error against one-hot labels.

func.func @predict(%w1: tensor<64x128xf32>, %b1: tensor<128xf32>,
                   %w2: tensor<128x10xf32>, %b2: tensor<10xf32>,
                   %x: tensor<256x64xf32>, %y: tensor<256x10xf32>)
    -> (tensor<256x10xf32>, tensor<256xi32>, tensor<f32>) {
  %h = kiln.dot_general %x, %w1, contracting = [1] x [0]
      : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  %b1b = kiln.broadcast_in_dim %b1, dims = [1] : (tensor<128xf32>) -> tensor<256x128xf32>
  %hb = kiln.add %h, %b1b : tensor<256x128xf32>
  %a = kiln.tanh %hb : tensor<256x128xf32>
  %o = kiln.dot_general %a, %w2, contracting = [1] x [0]
      : (tensor<256x128xf32>, tensor<128x10xf32>) -> tensor<256x10xf32>
  %b2b = kiln.broadcast_in_dim %b2, dims = [1] : (tensor<10xf32>) -> tensor<256x10xf32>
  %scores = kiln.add %o, %b2b : tensor<256x10xf32>
  %classes = kiln.argmax %scores, dim = 1 : (tensor<256x10xf32>) -> tensor<256xi32>
  %d = kiln.sub %scores, %y : tensor<256x10xf32>
  %sq = kiln.mul %d, %d : tensor<256x10xf32>
  %sum = kiln.reduce_sum %sq, dims = [0, 1] : (tensor<256x10xf32>) -> tensor<f32>
  %n = kiln.constant dense<2560.0> : tensor<f32>
  %mse = kiln.div %sum, %n : tensor<f32>
  return %scores, %classes, %mse : tensor<256x10xf32>, tensor<256xi32>, tensor<f32>
}
