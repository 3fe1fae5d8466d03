// The demo program: one SGD step of a 2-layer MLP whose gradient the
// compiler will derive (kiln.value_and_grad). Until the CPU pipeline lands,
// the demo shows kiln-opt verifying it and simplifying it: the transpose
// pair cancels, and the learning-rate arithmetic and its broadcasts fold
// into constants.

func.func @loss(%w1: tensor<784x128xf32>, %w2: tensor<128x10xf32>,
                %x: tensor<32x784xf32>, %y: tensor<32x10xf32>) -> tensor<f32> {
  %h = kiln.dot_general %x, %w1, contracting = [1] x [0]
      : (tensor<32x784xf32>, tensor<784x128xf32>) -> tensor<32x128xf32>
  %a = kiln.tanh %h : tensor<32x128xf32>
  // Written the long way round: (w2^T)^T is w2.
  %w2t = kiln.transpose %w2, permutation = [1, 0] : (tensor<128x10xf32>) -> tensor<10x128xf32>
  %w2tt = kiln.transpose %w2t, permutation = [1, 0] : (tensor<10x128xf32>) -> tensor<128x10xf32>
  %o = kiln.dot_general %a, %w2tt, contracting = [1] x [0]
      : (tensor<32x128xf32>, tensor<128x10xf32>) -> tensor<32x10xf32>
  %d = kiln.sub %o, %y : tensor<32x10xf32>
  %sq = kiln.mul %d, %d : tensor<32x10xf32>
  %sum = kiln.reduce_sum %sq, dims = [0, 1] : (tensor<32x10xf32>) -> tensor<f32>
  %n = kiln.constant dense<320.0> : tensor<f32>
  %mean = kiln.div %sum, %n : tensor<f32>
  return %mean : tensor<f32>
}

func.func @train_step(%w1: tensor<784x128xf32>, %w2: tensor<128x10xf32>,
                      %x: tensor<32x784xf32>, %y: tensor<32x10xf32>)
    -> (tensor<f32>, tensor<784x128xf32>, tensor<128x10xf32>) {
  %l, %g1, %g2 = kiln.value_and_grad @loss(%w1, %w2, %x, %y) {argnums = array<i64: 0, 1>}
      : (tensor<784x128xf32>, tensor<128x10xf32>, tensor<32x784xf32>, tensor<32x10xf32>)
      -> (tensor<f32>, tensor<784x128xf32>, tensor<128x10xf32>)
  // lr = 0.5 * 0.2, folded at compile time.
  %half = kiln.constant dense<0.5> : tensor<f32>
  %fifth = kiln.constant dense<0.2> : tensor<f32>
  %lr = kiln.mul %half, %fifth : tensor<f32>
  %lr1 = kiln.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<784x128xf32>
  %lr2 = kiln.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<128x10xf32>
  %s1 = kiln.mul %lr1, %g1 : tensor<784x128xf32>
  %s2 = kiln.mul %lr2, %g2 : tensor<128x10xf32>
  %w1n = kiln.sub %w1, %s1 : tensor<784x128xf32>
  %w2n = kiln.sub %w2, %s2 : tensor<128x10xf32>
  return %l, %w1n, %w2n : tensor<f32>, tensor<784x128xf32>, tensor<128x10xf32>
}
