// A seed for the IR fuzzers: a small model that uses the transformations
// (value_and_grad of a loss that scans an RNN cell, vmap of the cell) and
// control flow, so mutations start from deep, valid programs.
func.func private @cell(%h: tensor<3xf32>, %x: tensor<3xf32>, %w: tensor<3x3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %p = kiln.dot_general %w, %h, contracting = [1] x [0] : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %a = kiln.add %p, %x : tensor<3xf32>
  %n = kiln.tanh %a : tensor<3xf32>
  %s = kiln.reduce_sum %n, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %n, %s : tensor<3xf32>, tensor<f32>
}

func.func private @loss(%w: tensor<3x3xf32>, %h: tensor<3xf32>, %xs: tensor<4x3xf32>) -> tensor<f32> {
  %r:3 = kiln.scan @step(%h, %w, %xs) {num_carry = 2 : i64, length = 4 : i64} : (tensor<3xf32>, tensor<3x3xf32>, tensor<4x3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>, tensor<4xf32>)
  %l = kiln.reduce_sum %r#2, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func private @step(%h: tensor<3xf32>, %w: tensor<3x3xf32>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>, tensor<f32>) {
  %n, %s = call @cell(%h, %x, %w) : (tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>) -> (tensor<3xf32>, tensor<f32>)
  return %n, %w, %s : tensor<3xf32>, tensor<3x3xf32>, tensor<f32>
}

func.func @train(%w: tensor<3x3xf32>, %h: tensor<3xf32>, %xs: tensor<4x3xf32>) -> (tensor<f32>, tensor<3x3xf32>) {
  %l, %g = kiln.value_and_grad @loss(%w, %h, %xs) {argnums = array<i64: 0>} : (tensor<3x3xf32>, tensor<3xf32>, tensor<4x3xf32>) -> (tensor<f32>, tensor<3x3xf32>)
  return %l, %g : tensor<f32>, tensor<3x3xf32>
}

func.func @batch(%hs: tensor<4x3xf32>, %xs: tensor<4x3xf32>, %w: tensor<3x3xf32>) -> (tensor<4x3xf32>, tensor<4xf32>) {
  %n:2 = kiln.vmap @cell(%hs, %xs, %w) {in_axes = array<i64: 0, 0, -1>, out_axes = array<i64: 0, 0>} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<3x3xf32>) -> (tensor<4x3xf32>, tensor<4xf32>)
  return %n#0, %n#1 : tensor<4x3xf32>, tensor<4xf32>
}
