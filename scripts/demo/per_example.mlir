// Beside the training demo: the demo's MLP (2 -> 64 -> 64 -> 3, tanh) on
// one point at a time, batched by kiln.vmap. `grad_norms` is the norm of
// each point's own gradient (what differentially private SGD clips), a
// vmap of a grad; `ensemble_losses` evaluates several models at once, a
// vmap over the parameters of a vmap over the points.

// Softmax cross-entropy of one point %x against its one-hot label %y.
func.func private @example_loss(%w1: tensor<2x64xf32>, %b1: tensor<64xf32>,
                                %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                                %w3: tensor<64x3xf32>, %b3: tensor<3xf32>,
                                %x: tensor<2xf32>, %y: tensor<3xf32>)
    -> tensor<f32> {
  %h1 = kiln.dot_general %x, %w1, contracting = [0] x [0]
      : (tensor<2xf32>, tensor<2x64xf32>) -> tensor<64xf32>
  %a1 = kiln.add %h1, %b1 : tensor<64xf32>
  %t1 = kiln.tanh %a1 : tensor<64xf32>
  %h2 = kiln.dot_general %t1, %w2, contracting = [0] x [0]
      : (tensor<64xf32>, tensor<64x64xf32>) -> tensor<64xf32>
  %a2 = kiln.add %h2, %b2 : tensor<64xf32>
  %t2 = kiln.tanh %a2 : tensor<64xf32>
  %h3 = kiln.dot_general %t2, %w3, contracting = [0] x [0]
      : (tensor<64xf32>, tensor<64x3xf32>) -> tensor<3xf32>
  %s = kiln.add %h3, %b3 : tensor<3xf32>
  %m = kiln.reduce_max %s, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  %mb = kiln.broadcast_in_dim %m, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %z = kiln.sub %s, %mb : tensor<3xf32>
  %e = kiln.exp %z : tensor<3xf32>
  %se = kiln.reduce_sum %e, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  %lse = kiln.log %se : tensor<f32>
  %yz = kiln.mul %y, %z : tensor<3xf32>
  %picked = kiln.reduce_sum %yz, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  %l = kiln.sub %lse, %picked : tensor<f32>
  return %l : tensor<f32>
}

// The Euclidean norm of one point's gradient with respect to every
// parameter.
func.func @example_grad_norm(%w1: tensor<2x64xf32>, %b1: tensor<64xf32>,
                             %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                             %w3: tensor<64x3xf32>, %b3: tensor<3xf32>,
                             %x: tensor<2xf32>, %y: tensor<3xf32>)
    -> tensor<f32> {
  %g1, %gb1, %g2, %gb2, %g3, %gb3 = kiln.grad @example_loss(
      %w1, %b1, %w2, %b2, %w3, %b3, %x, %y)
      {argnums = array<i64: 0, 1, 2, 3, 4, 5>}
      : (tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<64x3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>)
      -> (tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>,
          tensor<64x3xf32>, tensor<3xf32>)
  %q1 = kiln.mul %g1, %g1 : tensor<2x64xf32>
  %s1 = kiln.reduce_sum %q1, dims = [0, 1] : (tensor<2x64xf32>) -> tensor<f32>
  %qb1 = kiln.mul %gb1, %gb1 : tensor<64xf32>
  %sb1 = kiln.reduce_sum %qb1, dims = [0] : (tensor<64xf32>) -> tensor<f32>
  %q2 = kiln.mul %g2, %g2 : tensor<64x64xf32>
  %s2 = kiln.reduce_sum %q2, dims = [0, 1] : (tensor<64x64xf32>) -> tensor<f32>
  %qb2 = kiln.mul %gb2, %gb2 : tensor<64xf32>
  %sb2 = kiln.reduce_sum %qb2, dims = [0] : (tensor<64xf32>) -> tensor<f32>
  %q3 = kiln.mul %g3, %g3 : tensor<64x3xf32>
  %s3 = kiln.reduce_sum %q3, dims = [0, 1] : (tensor<64x3xf32>) -> tensor<f32>
  %qb3 = kiln.mul %gb3, %gb3 : tensor<3xf32>
  %sb3 = kiln.reduce_sum %qb3, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  %t1 = kiln.add %s1, %sb1 : tensor<f32>
  %t2 = kiln.add %s2, %sb2 : tensor<f32>
  %t3 = kiln.add %s3, %sb3 : tensor<f32>
  %t12 = kiln.add %t1, %t2 : tensor<f32>
  %t = kiln.add %t12, %t3 : tensor<f32>
  %n = kiln.sqrt %t : tensor<f32>
  return %n : tensor<f32>
}

// Every point's gradient norm at once.
func.func @grad_norms(%w1: tensor<2x64xf32>, %b1: tensor<64xf32>,
                      %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                      %w3: tensor<64x3xf32>, %b3: tensor<3xf32>,
                      %xs: tensor<300x2xf32>, %ys: tensor<300x3xf32>)
    -> tensor<300xf32> {
  %n = kiln.vmap @example_grad_norm(%w1, %b1, %w2, %b2, %w3, %b3, %xs, %ys)
      {in_axes = array<i64: -1, -1, -1, -1, -1, -1, 0, 0>,
       out_axes = array<i64: 0>}
      : (tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<64x3xf32>, tensor<3xf32>, tensor<300x2xf32>, tensor<300x3xf32>)
      -> tensor<300xf32>
  return %n : tensor<300xf32>
}

// One model's loss on every point.
func.func private @losses(%w1: tensor<2x64xf32>, %b1: tensor<64xf32>,
                          %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                          %w3: tensor<64x3xf32>, %b3: tensor<3xf32>,
                          %xs: tensor<300x2xf32>, %ys: tensor<300x3xf32>)
    -> tensor<300xf32> {
  %l = kiln.vmap @example_loss(%w1, %b1, %w2, %b2, %w3, %b3, %xs, %ys)
      {in_axes = array<i64: -1, -1, -1, -1, -1, -1, 0, 0>,
       out_axes = array<i64: 0>}
      : (tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<64x3xf32>, tensor<3xf32>, tensor<300x2xf32>, tensor<300x3xf32>)
      -> tensor<300xf32>
  return %l : tensor<300xf32>
}

// Three models' losses on every point: their parameters stacked.
func.func @ensemble_losses(%w1: tensor<3x2x64xf32>, %b1: tensor<3x64xf32>,
                           %w2: tensor<3x64x64xf32>, %b2: tensor<3x64xf32>,
                           %w3: tensor<3x64x3xf32>, %b3: tensor<3x3xf32>,
                           %xs: tensor<300x2xf32>, %ys: tensor<300x3xf32>)
    -> tensor<3x300xf32> {
  %l = kiln.vmap @losses(%w1, %b1, %w2, %b2, %w3, %b3, %xs, %ys)
      {in_axes = array<i64: 0, 0, 0, 0, 0, 0, -1, -1>,
       out_axes = array<i64: 0>}
      : (tensor<3x2x64xf32>, tensor<3x64xf32>, tensor<3x64x64xf32>,
         tensor<3x64xf32>, tensor<3x64x3xf32>, tensor<3x3xf32>,
         tensor<300x2xf32>, tensor<300x3xf32>) -> tensor<3x300xf32>
  return %l : tensor<3x300xf32>
}
