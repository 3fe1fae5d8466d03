// Gradient accumulation: the gradient of a one-hidden-layer regression
// (8 -> 512 -> 1, tanh, squared error, f64) over a batch of 64, taken
// whole (@full) and as a scan over 16 micro-batches of 4 that sums each
// one's gradient (@accumulated). Both give the same gradient; the scan
// holds one micro-batch's activations at a time. Used by the demo
// (scripts/demo/sequences.py) and test/e2e/memory.py.
func.func private @loss4(%w: tensor<8x512xf64>, %v: tensor<512xf64>, %x: tensor<4x8xf64>, %y: tensor<4xf64>) -> tensor<f64> {
  %a = kiln.dot_general %x, %w, contracting = [1] x [0] : (tensor<4x8xf64>, tensor<8x512xf64>) -> tensor<4x512xf64>
  %t = kiln.tanh %a : tensor<4x512xf64>
  %p = kiln.dot_general %t, %v, contracting = [1] x [0] : (tensor<4x512xf64>, tensor<512xf64>) -> tensor<4xf64>
  %d = kiln.sub %p, %y : tensor<4xf64>
  %sq = kiln.mul %d, %d : tensor<4xf64>
  %l = kiln.reduce_sum %sq, dims = [0] : (tensor<4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func private @loss64(%w: tensor<8x512xf64>, %v: tensor<512xf64>, %x: tensor<64x8xf64>, %y: tensor<64xf64>) -> tensor<f64> {
  %a = kiln.dot_general %x, %w, contracting = [1] x [0] : (tensor<64x8xf64>, tensor<8x512xf64>) -> tensor<64x512xf64>
  %t = kiln.tanh %a : tensor<64x512xf64>
  %p = kiln.dot_general %t, %v, contracting = [1] x [0] : (tensor<64x512xf64>, tensor<512xf64>) -> tensor<64xf64>
  %d = kiln.sub %p, %y : tensor<64xf64>
  %sq = kiln.mul %d, %d : tensor<64xf64>
  %l = kiln.reduce_sum %sq, dims = [0] : (tensor<64xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func private @micro(%w: tensor<8x512xf64>, %v: tensor<512xf64>, %gw: tensor<8x512xf64>, %gv: tensor<512xf64>, %x: tensor<4x8xf64>, %y: tensor<4xf64>) -> (tensor<8x512xf64>, tensor<512xf64>, tensor<8x512xf64>, tensor<512xf64>) {
  %d:2 = kiln.grad @loss4(%w, %v, %x, %y) {argnums = array<i64: 0, 1>} : (tensor<8x512xf64>, tensor<512xf64>, tensor<4x8xf64>, tensor<4xf64>) -> (tensor<8x512xf64>, tensor<512xf64>)
  %sw = kiln.add %gw, %d#0 : tensor<8x512xf64>
  %sv = kiln.add %gv, %d#1 : tensor<512xf64>
  return %w, %v, %sw, %sv : tensor<8x512xf64>, tensor<512xf64>, tensor<8x512xf64>, tensor<512xf64>
}
func.func @accumulated(%w: tensor<8x512xf64>, %v: tensor<512xf64>, %xs: tensor<16x4x8xf64>, %ys: tensor<16x4xf64>) -> (tensor<8x512xf64>, tensor<512xf64>) {
  %zw = kiln.constant dense<0.0> : tensor<8x512xf64>
  %zv = kiln.constant dense<0.0> : tensor<512xf64>
  %r:4 = kiln.scan @micro(%w, %v, %zw, %zv, %xs, %ys) {num_carry = 4 : i64, length = 16 : i64} : (tensor<8x512xf64>, tensor<512xf64>, tensor<8x512xf64>, tensor<512xf64>, tensor<16x4x8xf64>, tensor<16x4xf64>) -> (tensor<8x512xf64>, tensor<512xf64>, tensor<8x512xf64>, tensor<512xf64>)
  return %r#2, %r#3 : tensor<8x512xf64>, tensor<512xf64>
}
func.func @full(%w: tensor<8x512xf64>, %v: tensor<512xf64>, %x: tensor<64x8xf64>, %y: tensor<64xf64>) -> (tensor<8x512xf64>, tensor<512xf64>) {
  %d:2 = kiln.grad @loss64(%w, %v, %x, %y) {argnums = array<i64: 0, 1>} : (tensor<8x512xf64>, tensor<512xf64>, tensor<64x8xf64>, tensor<64xf64>) -> (tensor<8x512xf64>, tensor<512xf64>)
  return %d#0, %d#1 : tensor<8x512xf64>, tensor<512xf64>
}
