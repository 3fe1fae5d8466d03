# Constants and data movement run through kiln-run, compared with numpy.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check, finish, ttype

x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
tx = ttype(x.shape, x.dtype)


def single(name, body, args, expected, result_type):
    """A function of `args` whose body (using %a0, %a1, ...) ends in %r."""
    params = ", ".join(f"%a{i}: {ttype(a.shape, a.dtype)}"
                       for i, a in enumerate(args))
    program = (f"func.func @f({params}) -> {result_type} {{\n{body}\n"
               f"  return %r : {result_type}\n}}\n")
    check(name, program, "f", args, [expected])


single("constant", "  %r = kiln.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>",
       [], np.array([[1, 2], [3, 4]], np.int64), "tensor<2x2xi64>")
single("iota i32", "  %r = kiln.iota dim = 1 : tensor<2x3xi32>", [],
       np.broadcast_to(np.arange(3, dtype=np.int32), (2, 3)), "tensor<2x3xi32>")
single("iota f32", "  %r = kiln.iota dim = 0 : tensor<3x2xf32>", [],
       np.repeat(np.arange(3, dtype=np.float32)[:, None], 2, 1),
       "tensor<3x2xf32>")

v = np.array([1.0, 2.0, 3.0], np.float32)
single("broadcast_in_dim", "  %r = kiln.broadcast_in_dim %a0, dims = [1] : "
       "(tensor<3xf32>) -> tensor<2x3xf32>", [v], np.broadcast_to(v, (2, 3)),
       "tensor<2x3xf32>")
single("broadcast size-1", "  %r = kiln.broadcast_in_dim %a0, dims = [0, 2] : "
       "(tensor<2x1xf32>) -> tensor<2x4x3xf32>",
       [np.array([[5.0], [6.0]], np.float32)],
       np.broadcast_to(np.array([5.0, 6.0], np.float32)[:, None, None],
                       (2, 4, 3)), "tensor<2x4x3xf32>")
single("broadcast scalar", "  %r = kiln.broadcast_in_dim %a0, dims = [] : "
       "(tensor<i32>) -> tensor<2x2xi32>", [np.array(7, np.int32)],
       np.full((2, 2), 7, np.int32), "tensor<2x2xi32>")

single("reshape", f"  %r = kiln.reshape %a0 : ({tx}) -> tensor<6x4xf32>", [x],
       x.reshape(6, 4), "tensor<6x4xf32>")
single("reshape to scalar", "  %r = kiln.reshape %a0 : (tensor<1x1xf32>) -> "
       "tensor<f32>", [np.array([[3.5]], np.float32)],
       np.array(3.5, np.float32), "tensor<f32>")
single("reshape from scalar", "  %r = kiln.reshape %a0 : (tensor<f32>) -> "
       "tensor<1x1x1xf32>", [np.array(3.5, np.float32)],
       np.full((1, 1, 1), 3.5, np.float32), "tensor<1x1x1xf32>")
# Reshapes that add dimensions, feeding elementwise ops and broadcasts.
v = np.arange(6, dtype=np.float32)
check("reshape then exp", """
func.func @f(%a: tensor<6xf32>) -> tensor<2x3xf32> {
  %0 = kiln.reshape %a : (tensor<6xf32>) -> tensor<2x3xf32>
  %1 = kiln.exp %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}""", "f", [v], [np.exp(v.astype(np.float64)).astype(np.float32).reshape(2, 3)],
      rtol=2e-6)
check("reshape to Nx1 then broadcast", """
func.func @f(%a: tensor<6xf32>) -> tensor<6x4xf32> {
  %0 = kiln.reshape %a : (tensor<6xf32>) -> tensor<6x1xf32>
  %1 = kiln.broadcast_in_dim %0, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x4xf32>
  return %1 : tensor<6x4xf32>
}""", "f", [v], [np.broadcast_to(v.reshape(6, 1), (6, 4))])
single("transpose", f"  %r = kiln.transpose %a0, permutation = [2, 0, 1] : "
       f"({tx}) -> tensor<4x2x3xf32>", [x], x.transpose(2, 0, 1),
       "tensor<4x2x3xf32>")
# A batch of 8 or 4 moved last (NHWC to CHWN) transposes in blocks of 16
# x 8 or 16 x 4 padded to 16 x 16 in registers; features past the last
# whole block (40 = 32 + 8) as rows; 8- and 16-bit elements widened.
for shape, dtype in [((8, 3, 5, 40), np.float32), ((4, 2, 3, 16), np.float32),
                     ((8, 2, 2, 48), np.int8), ((4, 3, 2, 32), np.float16)]:
    a = (np.arange(np.prod(shape)) % 251).astype(dtype).reshape(shape)
    moved = a.transpose(3, 1, 2, 0)
    single(f"transpose {shape} {dtype.__name__}, batch last",
           f"  %r = kiln.transpose %a0, permutation = [3, 1, 2, 0] : "
           f"({ttype(shape, dtype)}) -> {ttype(moved.shape, dtype)}", [a],
           moved, ttype(moved.shape, dtype))
single("slice", f"  %r = kiln.slice %a0 [0:2, 1:3, 0:4:3] : ({tx}) -> "
       "tensor<2x2x2xf32>", [x], x[0:2, 1:3, 0:4:3], "tensor<2x2x2xf32>")

# dynamic_slice clamps its start indices into range.
m = np.arange(20, dtype=np.int32).reshape(5, 4)
tm = ttype(m.shape, m.dtype)
for i, j in [(1, 2), (4, -3), (-100, 100)]:
    ci, cj = min(max(i, 0), 5 - 2), min(max(j, 0), 4 - 3)
    single(f"dynamic_slice {i},{j}",
           f"  %r = kiln.dynamic_slice %a0 [%a1, %a2], sizes = [2, 3] : "
           f"({tm}, tensor<i32>, tensor<i64>) -> tensor<2x3xi32>",
           [m, np.array(i, np.int32), np.array(j, np.int64)],
           m[ci:ci + 2, cj:cj + 3], "tensor<2x3xi32>")
    expected = m.copy()
    expected[ci:ci + 2, cj:cj + 3] = -1
    single(f"dynamic_update_slice {i},{j}",
           f"  %r = kiln.dynamic_update_slice %a0, %a1 [%a2, %a3] : "
           f"({tm}, tensor<2x3xi32>, tensor<i32>, tensor<i32>) -> {tm}",
           [m, np.full((2, 3), -1, np.int32), np.array(i, np.int32),
            np.array(j, np.int32)], expected, tm)

a = np.ones((2, 3), np.float32)
b = np.arange(6, dtype=np.float32).reshape(2, 3)
single("concatenate 0", "  %r = kiln.concatenate %a0, %a1, %a0, dim = 0 : "
       "(tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>",
       [a, b], np.concatenate([a, b, a], 0), "tensor<6x3xf32>")
single("concatenate 1", "  %r = kiln.concatenate %a0, %a1, dim = 1 : "
       "(tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>",
       [a, b], np.concatenate([a, b], 1), "tensor<2x6xf32>")
# Along the last dimension, the inputs' copies run row by row together
# (kiln-vectorize-copies): odd widths (masked tails), an input twice, and
# rows of images (NHWC features).
c = np.arange(64 * 37, dtype=np.float32).reshape(64, 37)
d = -np.arange(64 * 100, dtype=np.float32).reshape(64, 100)
single("concatenate 1, three inputs of odd widths",
       "  %r = kiln.concatenate %a0, %a1, %a0, dim = 1 : (tensor<64x37xf32>, "
       "tensor<64x100xf32>, tensor<64x37xf32>) -> tensor<64x174xf32>",
       [c, d], np.concatenate([c, d, c], 1), "tensor<64x174xf32>")
# bf16 rows of odd widths (given as float32, exact in bf16): their rests
# are copied in power-of-two pieces (LLVM 22 could not compile masked bf16
# stores on CPUs with AVX-512 BF16).
check("concatenate 1, bf16 inputs of odd widths", """
func.func @f(%a: tensor<64x37xbf16>, %b: tensor<64x100xbf16>) -> tensor<64x174xbf16> {
  %r = kiln.concatenate %a, %b, %a, dim = 1 : (tensor<64x37xbf16>, tensor<64x100xbf16>, tensor<64x37xbf16>) -> tensor<64x174xbf16>
  return %r : tensor<64x174xbf16>
}""", "f", [c % 256, d % 256], [np.concatenate([c % 256, d % 256, c % 256], 1)])
e = np.arange(2 * 5 * 7 * 19, dtype=np.float32).reshape(2, 5, 7, 19)
f = -np.arange(2 * 5 * 7 * 13, dtype=np.float32).reshape(2, 5, 7, 13)
single("concatenate 3 (image features)",
       "  %r = kiln.concatenate %a1, %a0, dim = 3 : (tensor<2x5x7x13xf32>, "
       "tensor<2x5x7x19xf32>) -> tensor<2x5x7x32xf32>",
       [e, f], np.concatenate([f, e], 3), "tensor<2x5x7x32xf32>")


def pad_reference(x, value, low, high, interior):
    """jax.lax.pad semantics built from numpy primitives."""
    for d in range(x.ndim):
        n = x.shape[d]
        spread = 0 if n == 0 else n + (n - 1) * interior[d]
        shape = list(x.shape)
        shape[d] = spread
        out = np.full(shape, value, x.dtype)
        index = [slice(None)] * x.ndim
        index[d] = slice(0, spread, interior[d] + 1)
        out[tuple(index)] = x
        before = [(0, 0)] * x.ndim
        before[d] = (max(low[d], 0), max(high[d], 0))
        out = np.pad(out, before, constant_values=value)
        crop = [slice(None)] * x.ndim
        crop[d] = slice(max(-low[d], 0), out.shape[d] - max(-high[d], 0))
        x = out[tuple(crop)]
    return x


for low, high, interior in [([1, 0], [0, 2], [0, 0]),
                            ([0, 1], [1, 0], [1, 2]),
                            ([-1, 2], [1, -2], [1, 0])]:
    want = pad_reference(b, -1.0, low, high, interior)
    shape = "x".join(str(d) for d in want.shape)
    single(f"pad {low} {high} {interior}",
           f"  %r = kiln.pad %a0, %a1, low = {low}, high = {high}, "
           f"interior = {interior} : (tensor<2x3xf32>, tensor<f32>) -> "
           f"tensor<{shape}xf32>", [b, np.array(-1.0, np.float32)], want,
           f"tensor<{shape}xf32>")

# Without interior padding only the border is filled: every side of a 3-D
# operand, one side cropped, one side not padded.
for low, high in [([1, 2, 1], [2, 1, 3]), ([0, -1, 2], [1, 1, 0])]:
    want = pad_reference(x, 7.0, low, high, [0, 0, 0])
    shape = "x".join(str(d) for d in want.shape)
    single(f"pad {low} {high} border",
           f"  %r = kiln.pad %a0, %a1, low = {low}, high = {high}, "
           f"interior = [0, 0, 0] : ({tx}, tensor<f32>) -> "
           f"tensor<{shape}xf32>", [x, np.array(7.0, np.float32)], want,
           f"tensor<{shape}xf32>")

single("reverse", f"  %r = kiln.reverse %a0, dims = [0, 2] : {tx}", [x],
       x[::-1, :, ::-1], tx)

finish()
