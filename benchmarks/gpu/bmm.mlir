// Batched f32 matmul, attention-like: 32 x (512x64 times 64x512).
func.func @bmm(%a: tensor<32x512x64xf32>, %b: tensor<32x64x512xf32>) -> tensor<32x512x512xf32> {
  %0 = kiln.dot_general %a, %b, batching = [0] x [0], contracting = [2] x [1] : (tensor<32x512x64xf32>, tensor<32x64x512xf32>) -> tensor<32x512x512xf32>
  return %0 : tensor<32x512x512xf32>
}
