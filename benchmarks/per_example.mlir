// A per-example loss (softmax cross-entropy of a 64 -> 128 -> 10 MLP) over
// a batch of 256, three ways: @loss on one example (called 256 times),
// kiln.vmap of @loss, and the same computation written batched by hand.
func.func @loss(%w1: tensor<64x128xf32>, %b1: tensor<128xf32>, %w2: tensor<128x10xf32>, %x: tensor<64xf32>, %y: tensor<10xf32>) -> tensor<f32> {
  %h = kiln.dot_general %x, %w1, contracting = [0] x [0] : (tensor<64xf32>, tensor<64x128xf32>) -> tensor<128xf32>
  %a = kiln.add %h, %b1 : tensor<128xf32>
  %t = kiln.tanh %a : tensor<128xf32>
  %s = kiln.dot_general %t, %w2, contracting = [0] x [0] : (tensor<128xf32>, tensor<128x10xf32>) -> tensor<10xf32>
  %m = kiln.reduce_max %s, dims = [0] : (tensor<10xf32>) -> tensor<f32>
  %mb = kiln.broadcast_in_dim %m, dims = [] : (tensor<f32>) -> tensor<10xf32>
  %z = kiln.sub %s, %mb : tensor<10xf32>
  %e = kiln.exp %z : tensor<10xf32>
  %se = kiln.reduce_sum %e, dims = [0] : (tensor<10xf32>) -> tensor<f32>
  %lse = kiln.log %se : tensor<f32>
  %yz = kiln.mul %y, %z : tensor<10xf32>
  %picked = kiln.reduce_sum %yz, dims = [0] : (tensor<10xf32>) -> tensor<f32>
  %l = kiln.sub %lse, %picked : tensor<f32>
  return %l : tensor<f32>
}

func.func @vmapped(%w1: tensor<64x128xf32>, %b1: tensor<128xf32>, %w2: tensor<128x10xf32>, %xs: tensor<256x64xf32>, %ys: tensor<256x10xf32>) -> tensor<256xf32> {
  %l = kiln.vmap @loss(%w1, %b1, %w2, %xs, %ys) {in_axes = array<i64: -1, -1, -1, 0, 0>, out_axes = array<i64: 0>} : (tensor<64x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<256x64xf32>, tensor<256x10xf32>) -> tensor<256xf32>
  return %l : tensor<256xf32>
}

func.func @batched(%w1: tensor<64x128xf32>, %b1: tensor<128xf32>, %w2: tensor<128x10xf32>, %xs: tensor<256x64xf32>, %ys: tensor<256x10xf32>) -> tensor<256xf32> {
  %h = kiln.dot_general %xs, %w1, contracting = [1] x [0] : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  %bb = kiln.broadcast_in_dim %b1, dims = [1] : (tensor<128xf32>) -> tensor<256x128xf32>
  %a = kiln.add %h, %bb : tensor<256x128xf32>
  %t = kiln.tanh %a : tensor<256x128xf32>
  %s = kiln.dot_general %t, %w2, contracting = [1] x [0] : (tensor<256x128xf32>, tensor<128x10xf32>) -> tensor<256x10xf32>
  %m = kiln.reduce_max %s, dims = [1] : (tensor<256x10xf32>) -> tensor<256xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : (tensor<256xf32>) -> tensor<256x10xf32>
  %z = kiln.sub %s, %mb : tensor<256x10xf32>
  %e = kiln.exp %z : tensor<256x10xf32>
  %se = kiln.reduce_sum %e, dims = [1] : (tensor<256x10xf32>) -> tensor<256xf32>
  %lse = kiln.log %se : tensor<256xf32>
  %yz = kiln.mul %ys, %z : tensor<256x10xf32>
  %picked = kiln.reduce_sum %yz, dims = [1] : (tensor<256x10xf32>) -> tensor<256xf32>
  %l = kiln.sub %lse, %picked : tensor<256xf32>
  return %l : tensor<256xf32>
}
