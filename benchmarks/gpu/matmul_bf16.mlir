// bf16 matmul 4096^3 accumulating in f32 (no tensor cores yet).
func.func @matmul_bf16(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
