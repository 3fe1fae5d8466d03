// The demo program: an MLP classifier (2 -> 64 -> 64 -> 3, tanh) trained
// with SGD on softmax cross-entropy. `train_step` takes the parameters and
// a batch and returns the updated parameters and the loss; its gradient
// comes from kiln.value_and_grad of `loss`, which kiln-expand-transforms
// turns into an ordinary backward pass at compile time.

func.func private @scores(%w1: tensor<2x64xf32>, %b1: tensor<64xf32>,
                          %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                          %w3: tensor<64x3xf32>, %b3: tensor<3xf32>,
                          %x: tensor<300x2xf32>) -> tensor<300x3xf32> {
  %h1 = kiln.dot_general %x, %w1, contracting = [1] x [0]
      : (tensor<300x2xf32>, tensor<2x64xf32>) -> tensor<300x64xf32>
  %c1 = kiln.broadcast_in_dim %b1, dims = [1] : (tensor<64xf32>) -> tensor<300x64xf32>
  %a1 = kiln.add %h1, %c1 : tensor<300x64xf32>
  %t1 = kiln.tanh %a1 : tensor<300x64xf32>
  %h2 = kiln.dot_general %t1, %w2, contracting = [1] x [0]
      : (tensor<300x64xf32>, tensor<64x64xf32>) -> tensor<300x64xf32>
  %c2 = kiln.broadcast_in_dim %b2, dims = [1] : (tensor<64xf32>) -> tensor<300x64xf32>
  %a2 = kiln.add %h2, %c2 : tensor<300x64xf32>
  %t2 = kiln.tanh %a2 : tensor<300x64xf32>
  %h3 = kiln.dot_general %t2, %w3, contracting = [1] x [0]
      : (tensor<300x64xf32>, tensor<64x3xf32>) -> tensor<300x3xf32>
  %c3 = kiln.broadcast_in_dim %b3, dims = [1] : (tensor<3xf32>) -> tensor<300x3xf32>
  %s = kiln.add %h3, %c3 : tensor<300x3xf32>
  return %s : tensor<300x3xf32>
}

// Mean softmax cross-entropy against one-hot labels %y, with the
// log-sum-exp shifted by each row's maximum.
func.func private @loss(%w1: tensor<2x64xf32>, %b1: tensor<64xf32>,
                        %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                        %w3: tensor<64x3xf32>, %b3: tensor<3xf32>,
                        %x: tensor<300x2xf32>, %y: tensor<300x3xf32>)
    -> tensor<f32> {
  %s = call @scores(%w1, %b1, %w2, %b2, %w3, %b3, %x)
      : (tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<64x3xf32>, tensor<3xf32>, tensor<300x2xf32>) -> tensor<300x3xf32>
  %m = kiln.reduce_max %s, dims = [1] : (tensor<300x3xf32>) -> tensor<300xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : (tensor<300xf32>) -> tensor<300x3xf32>
  %z = kiln.sub %s, %mb : tensor<300x3xf32>
  %e = kiln.exp %z : tensor<300x3xf32>
  %se = kiln.reduce_sum %e, dims = [1] : (tensor<300x3xf32>) -> tensor<300xf32>
  %lse = kiln.log %se : tensor<300xf32>
  %lb = kiln.broadcast_in_dim %lse, dims = [0] : (tensor<300xf32>) -> tensor<300x3xf32>
  %logp = kiln.sub %z, %lb : tensor<300x3xf32>
  %yl = kiln.mul %y, %logp : tensor<300x3xf32>
  %total = kiln.reduce_sum %yl, dims = [0, 1] : (tensor<300x3xf32>) -> tensor<f32>
  %n = kiln.constant dense<-300.0> : tensor<f32>
  %l = kiln.div %total, %n : tensor<f32>
  return %l : tensor<f32>
}

// The loss and its gradient with respect to every parameter.
func.func @loss_and_grads(%w1: tensor<2x64xf32>, %b1: tensor<64xf32>,
                          %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                          %w3: tensor<64x3xf32>, %b3: tensor<3xf32>,
                          %x: tensor<300x2xf32>, %y: tensor<300x3xf32>)
    -> (tensor<f32>, tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>,
        tensor<64xf32>, tensor<64x3xf32>, tensor<3xf32>) {
  %l, %g1, %gb1, %g2, %gb2, %g3, %gb3 = kiln.value_and_grad @loss(
      %w1, %b1, %w2, %b2, %w3, %b3, %x, %y)
      {argnums = array<i64: 0, 1, 2, 3, 4, 5>}
      : (tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<64x3xf32>, tensor<3xf32>, tensor<300x2xf32>, tensor<300x3xf32>)
      -> (tensor<f32>, tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>,
          tensor<64xf32>, tensor<64x3xf32>, tensor<3xf32>)
  return %l, %g1, %gb1, %g2, %gb2, %g3, %gb3
      : tensor<f32>, tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>,
        tensor<64xf32>, tensor<64x3xf32>, tensor<3xf32>
}

// One SGD step with learning rate %lr: the new parameters, then the loss
// before the step.
func.func @train_step(%w1: tensor<2x64xf32>, %b1: tensor<64xf32>,
                      %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                      %w3: tensor<64x3xf32>, %b3: tensor<3xf32>,
                      %x: tensor<300x2xf32>, %y: tensor<300x3xf32>,
                      %lr: tensor<f32>)
    -> (tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>,
        tensor<64x3xf32>, tensor<3xf32>, tensor<f32>) {
  %l, %g1, %gb1, %g2, %gb2, %g3, %gb3 = call @loss_and_grads(
      %w1, %b1, %w2, %b2, %w3, %b3, %x, %y)
      : (tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<64x3xf32>, tensor<3xf32>, tensor<300x2xf32>, tensor<300x3xf32>)
      -> (tensor<f32>, tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>,
          tensor<64xf32>, tensor<64x3xf32>, tensor<3xf32>)
  %r_n1 = kiln.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<2x64xf32>
  %s_n1 = kiln.mul %g1, %r_n1 : tensor<2x64xf32>
  %n1 = kiln.sub %w1, %s_n1 : tensor<2x64xf32>
  %r_nb1 = kiln.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<64xf32>
  %s_nb1 = kiln.mul %gb1, %r_nb1 : tensor<64xf32>
  %nb1 = kiln.sub %b1, %s_nb1 : tensor<64xf32>
  %r_n2 = kiln.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
  %s_n2 = kiln.mul %g2, %r_n2 : tensor<64x64xf32>
  %n2 = kiln.sub %w2, %s_n2 : tensor<64x64xf32>
  %r_nb2 = kiln.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<64xf32>
  %s_nb2 = kiln.mul %gb2, %r_nb2 : tensor<64xf32>
  %nb2 = kiln.sub %b2, %s_nb2 : tensor<64xf32>
  %r_n3 = kiln.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<64x3xf32>
  %s_n3 = kiln.mul %g3, %r_n3 : tensor<64x3xf32>
  %n3 = kiln.sub %w3, %s_n3 : tensor<64x3xf32>
  %r_nb3 = kiln.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %s_nb3 = kiln.mul %gb3, %r_nb3 : tensor<3xf32>
  %nb3 = kiln.sub %b3, %s_nb3 : tensor<3xf32>
  return %n1, %nb1, %n2, %nb2, %n3, %nb3, %l
      : tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>,
        tensor<64x3xf32>, tensor<3xf32>, tensor<f32>
}

// The predicted class of every point.
func.func @predict(%w1: tensor<2x64xf32>, %b1: tensor<64xf32>,
                   %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                   %w3: tensor<64x3xf32>, %b3: tensor<3xf32>,
                   %x: tensor<300x2xf32>) -> tensor<300xi32> {
  %s = call @scores(%w1, %b1, %w2, %b2, %w3, %b3, %x)
      : (tensor<2x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>,
         tensor<64x3xf32>, tensor<3xf32>, tensor<300x2xf32>) -> tensor<300x3xf32>
  %c = kiln.argmax %s, dim = 1 : (tensor<300x3xf32>) -> tensor<300xi32>
  return %c : tensor<300xi32>
}
