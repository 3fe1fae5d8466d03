// compiled out0 vs numpy: element (0, 2): 2546.84375 vs 2.9061503410339355 (bound 0.000112)
func.func @p36616(%a0: tensor<1xbf16>, %a1: tensor<2x2x5x3xf64>, %a2: tensor<5x7x1xf32>, %a3: tensor<5x3xf32>, %a4: tensor<2x22xf32>) -> (tensor<2x6xf32>, tensor<5x7x1xf32>, tensor<f32>) {
  %v0 = kiln.neg %a1 : tensor<2x2x5x3xf64>
  %v1 = kiln.transpose %a2, permutation = [2, 1, 0] : (tensor<5x7x1xf32>) -> tensor<1x7x5xf32>
  %v2 = kiln.reshape %a0 : (tensor<1xbf16>) -> tensor<1x1x1x1xbf16>
  %v3 = kiln.sub %v0, %a1 : tensor<2x2x5x3xf64>
  %v4 = kiln.neg %v3 : tensor<2x2x5x3xf64>
  %v5 = kiln.slice %v2 [1:1:3, 0:1:3, 1:1:2, 1:1:3] : (tensor<1x1x1x1xbf16>) -> tensor<0x1x0x0xbf16>
  %v6 = kiln.constant dense<0.5> : tensor<f32>
  %v7 = kiln.pad %a2, %v6, low = [1, 2, 1], high = [0, 1, 0], interior = [0, 2, 0] : (tensor<5x7x1xf32>, tensor<f32>) -> tensor<6x22x2xf32>
  %v8 = kiln.abs %v2 : tensor<1x1x1x1xbf16>
  %v9 = kiln.reduce_sum %a2, dims = [2, 1, 0] : (tensor<5x7x1xf32>) -> tensor<f32>
  %v10 = kiln.broadcast_in_dim %v5, dims = [1, 2, 3, 4] : (tensor<0x1x0x0xbf16>) -> tensor<0x0x1x0x0xbf16>
  %v11 = kiln.dot_general %v1, %a3, contracting = [2] x [0] : (tensor<1x7x5xf32>, tensor<5x3xf32>) -> tensor<1x7x3xf32>
  %v12 = kiln.dot_general %v7, %a4, batching = [2] x [0], contracting = [1] x [1] : (tensor<6x22x2xf32>, tensor<2x22xf32>) -> tensor<2x6xf32>
  return %v12, %a2, %v6 : tensor<2x6xf32>, tensor<5x7x1xf32>, tensor<f32>
}
func.func @vp36616(%b0: tensor<2x1xbf16>, %b1: tensor<2x2x5x3xf64>, %b2: tensor<5x2x7x1xf32>, %b3: tensor<5x3xf32>, %b4: tensor<2x2x22xf32>) -> (tensor<2x6x2xf32>, tensor<2x5x7x1xf32>, tensor<2xf32>) {
  %r:3 = kiln.vmap @p36616(%b0, %b1, %b2, %b3, %b4) {in_axes = array<i64: 0, -1, 1, -1, 0>, out_axes = array<i64: 2, 0, 0>} : (tensor<2x1xbf16>, tensor<2x2x5x3xf64>, tensor<5x2x7x1xf32>, tensor<5x3xf32>, tensor<2x2x22xf32>) -> (tensor<2x6x2xf32>, tensor<2x5x7x1xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x6x2xf32>, tensor<2x5x7x1xf32>, tensor<2xf32>
}
func.func private @sb36616(%c: tensor<5x7x1xf32>, %x0: tensor<1xbf16>, %x1: tensor<2x2x5x3xf64>, %x3: tensor<5x3xf32>, %x4: tensor<2x22xf32>) -> (tensor<5x7x1xf32>, tensor<2x6xf32>, tensor<f32>) {
  %o:3 = func.call @p36616(%x0, %x1, %c, %x3, %x4) : (tensor<1xbf16>, tensor<2x2x5x3xf64>, tensor<5x7x1xf32>, tensor<5x3xf32>, tensor<2x22xf32>) -> (tensor<2x6xf32>, tensor<5x7x1xf32>, tensor<f32>)
  return %o#1, %o#0, %o#2 : tensor<5x7x1xf32>, tensor<2x6xf32>, tensor<f32>
}
func.func @sp36616(%s0: tensor<5x7x1xf32>, %s1: tensor<3x1xbf16>, %s2: tensor<3x2x2x5x3xf64>, %s3: tensor<3x5x3xf32>, %s4: tensor<3x2x22xf32>) -> (tensor<5x7x1xf32>, tensor<3x2x6xf32>, tensor<3xf32>) {
  %r:3 = kiln.scan @sb36616(%s0, %s1, %s2, %s3, %s4) {num_carry = 1 : i64, length = 3 : i64, reverse = false, unroll = 3 : i64} : (tensor<5x7x1xf32>, tensor<3x1xbf16>, tensor<3x2x2x5x3xf64>, tensor<3x5x3xf32>, tensor<3x2x22xf32>) -> (tensor<5x7x1xf32>, tensor<3x2x6xf32>, tensor<3xf32>)
  return %r#0, %r#1, %r#2 : tensor<5x7x1xf32>, tensor<3x2x6xf32>, tensor<3xf32>
}
