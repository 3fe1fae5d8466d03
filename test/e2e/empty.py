# Tensors with a zero-size dimension go through every stage and give numpy's
# results (empty, or the identity of a reduction over nothing).
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check, finish

program = """
func.func @ew(%x: tensor<0xf32>) -> tensor<0xf32> {
  %0 = kiln.exp %x : tensor<0xf32>
  return %0 : tensor<0xf32>
}
func.func @ew2(%x: tensor<3x0xf32>) -> tensor<3x0xf32> {
  %0 = kiln.tanh %x : tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}
func.func @mm(%a: tensor<8x0xf32>, %b: tensor<0x32xf32>) -> tensor<8x32xf32> {
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<8x0xf32>, tensor<0x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
func.func @mm0(%a: tensor<0x4xf32>, %b: tensor<4x0xf32>) -> tensor<0x0xf32> {
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<0x4xf32>, tensor<4x0xf32>) -> tensor<0x0xf32>
  return %0 : tensor<0x0xf32>
}
func.func @prod(%x: tensor<0x5xi32>) -> tensor<5xi32> {
  %0 = kiln.reduce_prod %x, dims = [0] : (tensor<0x5xi32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}
func.func @cat(%x: tensor<0x2xf32>, %y: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = kiln.concatenate %x, %y, dim = 0 : (tensor<0x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
func.func @slice_end(%x: tensor<3x2xf32>) -> tensor<0x2xf32> {
  %0 = kiln.slice %x [3:3, 0:2] : (tensor<3x2xf32>) -> tensor<0x2xf32>
  return %0 : tensor<0x2xf32>
}
func.func @cat_empty(%x: tensor<3x0xf32>) -> tensor<3x0xf32> {
  %0 = kiln.concatenate %x, %x, dim = 1 : (tensor<3x0xf32>, tensor<3x0xf32>) -> tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}
func.func @pad_away(%x: tensor<3x2xf32>, %v: tensor<f32>) -> tensor<3x0xf32> {
  %0 = kiln.pad %x, %v, low = [0, -1], high = [0, -1], interior = [0, 0] : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}
"""
f32 = np.float32
check("exp empty", program, "ew", [np.zeros(0, f32)], [np.zeros(0, f32)])
check("tanh 3x0", program, "ew2", [np.zeros((3, 0), f32)],
      [np.zeros((3, 0), f32)])
check("matmul k=0", program, "mm", [np.zeros((8, 0), f32),
                                    np.zeros((0, 32), f32)],
      [np.zeros((8, 32), f32)])
check("matmul 0x0", program, "mm0", [np.zeros((0, 4), f32),
                                     np.zeros((4, 0), f32)],
      [np.zeros((0, 0), f32)])
check("reduce_prod over nothing", program, "prod",
      [np.zeros((0, 5), np.int32)], [np.ones(5, np.int32)])
y = np.arange(6, dtype=f32).reshape(3, 2)
check("concatenate empty", program, "cat", [np.zeros((0, 2), f32), y], [y])
check("slice at the end", program, "slice_end", [y], [y[3:3]])
check("concatenate to empty", program, "cat_empty", [np.zeros((3, 0), f32)],
      [np.zeros((3, 0), f32)])
check("pad to empty", program, "pad_away", [y, np.float32(1)],
      [np.zeros((3, 0), f32)])
finish()
