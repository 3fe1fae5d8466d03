// An RNN h = tanh(h W + x_t U + b) over 100 steps (hidden size 256, input
// size 256, batch 32), as PyTorch's nn.RNN computes it (W = weight_hh^T,
// U = weight_ih^T, b = bias_ih + bias_hh): @forward returns every step's
// state, @grad the loss (the sum of the squares of the states) and its
// gradient with respect to W, U, b. kiln-bench times both against
// nn.RNN (torch_rnn.py); test/e2e/scan_models.py checks them against it.
func.func private @cell(%w: tensor<256x256xf32>, %u: tensor<256x256xf32>, %b: tensor<256xf32>, %h: tensor<32x256xf32>, %x: tensor<32x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<32x256xf32>, tensor<32x256xf32>) {
  %wh = kiln.dot_general %h, %w, contracting = [1] x [0] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
  %ux = kiln.dot_general %x, %u, contracting = [1] x [0] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
  %s = kiln.add %wh, %ux : tensor<32x256xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : (tensor<256xf32>) -> tensor<32x256xf32>
  %a = kiln.add %s, %bb : tensor<32x256xf32>
  %n = kiln.tanh %a : tensor<32x256xf32>
  return %w, %u, %b, %n, %n : tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<32x256xf32>, tensor<32x256xf32>
}

func.func @forward(%w: tensor<256x256xf32>, %u: tensor<256x256xf32>, %b: tensor<256xf32>, %h0: tensor<32x256xf32>, %xs: tensor<100x32x256xf32>) -> tensor<100x32x256xf32> {
  %r:5 = kiln.scan @cell(%w, %u, %b, %h0, %xs) {num_carry = 4 : i64, length = 100 : i64} : (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<32x256xf32>, tensor<100x32x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<32x256xf32>, tensor<100x32x256xf32>)
  return %r#4 : tensor<100x32x256xf32>
}

func.func private @loss(%w: tensor<256x256xf32>, %u: tensor<256x256xf32>, %b: tensor<256xf32>, %h0: tensor<32x256xf32>, %xs: tensor<100x32x256xf32>) -> tensor<f32> {
  %hs = call @forward(%w, %u, %b, %h0, %xs) : (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<32x256xf32>, tensor<100x32x256xf32>) -> tensor<100x32x256xf32>
  %sq = kiln.mul %hs, %hs : tensor<100x32x256xf32>
  %l = kiln.reduce_sum %sq, dims = [0, 1, 2] : (tensor<100x32x256xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @grad(%w: tensor<256x256xf32>, %u: tensor<256x256xf32>, %b: tensor<256xf32>, %h0: tensor<32x256xf32>, %xs: tensor<100x32x256xf32>) -> (tensor<f32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>) {
  %r:4 = kiln.value_and_grad @loss(%w, %u, %b, %h0, %xs) {argnums = array<i64: 0, 1, 2>} : (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<32x256xf32>, tensor<100x32x256xf32>) -> (tensor<f32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<f32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>
}
