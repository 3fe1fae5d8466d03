# What scripts/fuzz.py found, each named after the seed whose program
# showed it, with references computed in numpy (compiled and interpreted,
# through harness.check).
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check, finish, ttype

rng = np.random.default_rng(16)


def take_rows(name, table, ids):
    """kiln.take along dim 0 of `table` (rows wider than a tile of 64
    columns) against numpy's clipped indexing."""
    out = (ids.shape + table.shape[1:])
    program = f"""
func.func @f(%t: {ttype(table.shape, table.dtype)}, %i: {ttype(ids.shape, ids.dtype)})
    -> {ttype(out, table.dtype)} {{
  %r = kiln.take %t[%i], dim = 0 : ({ttype(table.shape, table.dtype)}, {ttype(ids.shape, ids.dtype)}) -> {ttype(out, table.dtype)}
  return %r : {ttype(out, table.dtype)}
}}
"""
    expected = table[np.clip(ids, 0, table.shape[0] - 1)]
    check(name, program, "f", [table, ids], [expected])


# seed1005677: a gather split into 64 whole columns and the rest read the
# rest's columns from 0 (the split did not shift linalg.index).
take_rows("seed1005677 (1 x 90, scalar index)",
          rng.standard_normal((1, 90)), np.array(-1, np.int32))
take_rows("seed1005677 (3 x 70 f32, 2 indices)",
          rng.standard_normal((3, 70)).astype(np.float32),
          np.array([2, 7], np.int32))
take_rows("seed1005677 (5 x 130 i32, 2 x 2 indices)",
          rng.integers(-9, 9, (5, 130)).astype(np.int32),
          np.array([[4, -1], [0, 3]], np.int32))

# seed1002205 and seed1007893 were the fuzzer's own reference (numpy's
# cast of 2^63 to int64, a float64 quotient of int64s); Kiln's results,
# derived here by hand, were right: saturation, and -2^63 rem 3 = -2
# (2^63 = 3 * 3074457345618258602 + 2).
SATURATE = """
func.func @f(%x: tensor<3xf32>, %a: tensor<2xi64>, %b: tensor<2xi64>)
    -> (tensor<3xi64>, tensor<2xi64>, tensor<2xi64>) {
  %i = kiln.convert %x : (tensor<3xf32>) -> tensor<3xi64>
  %q = kiln.div %a, %b : tensor<2xi64>
  %r = kiln.rem %a, %b : tensor<2xi64>
  return %i, %q, %r : tensor<3xi64>, tensor<2xi64>, tensor<2xi64>
}
"""
low, high = np.iinfo(np.int64).min, np.iinfo(np.int64).max
check("seed1002205 and seed1007893", SATURATE, "f",
      [np.array([np.inf, -np.inf, np.nan], np.float32),
       np.array([low, low], np.int64), np.array([3, -3], np.int64)],
      [np.array([high, low, 0], np.int64),
       np.array([-3074457345618258602, 3074457345618258602], np.int64),
       np.array([-2, -2], np.int64)])
# seed2013336: a sum over an empty dimension, read through a slice, crashed
# the compiler when fused into its reader.
for dtype, np_dtype in (("f32", np.float32), ("bf16", np.float32)):
    EMPTY_SUM = f"""
func.func @f(%x: tensor<7x0x17x{dtype}>) -> tensor<16x{dtype}> {{
  %s = kiln.reduce_sum %x, dims = [0, 1] : (tensor<7x0x17x{dtype}>) -> tensor<17x{dtype}>
  %h = kiln.constant dense<0.5> : tensor<{dtype}>
  %p = kiln.pad %s, %h, low = [-1], high = [0], interior = [0] : (tensor<17x{dtype}>, tensor<{dtype}>) -> tensor<16x{dtype}>
  %n = kiln.neg %p : tensor<16x{dtype}>
  return %n : tensor<16x{dtype}>
}}
"""
    check(f"seed2013336 ({dtype})", EMPTY_SUM, "f",
          [np.zeros((7, 0, 17), np_dtype)], [np.full(16, -0.0, np_dtype)])
# seed6190: a reduce_max over a dimension of 0 failed to compile: its
# lanes' split sliced the empty input, and upstream's verifier rejects an
# offset of 0 in a dimension of size 0.
EMPTY_MAX = """
func.func @f(%x: tensor<3x0x1x17x17xi8>) -> tensor<1xi8> {
  %c = kiln.concatenate %x, %x, dim = 0 : (tensor<3x0x1x17x17xi8>, tensor<3x0x1x17x17xi8>) -> tensor<6x0x1x17x17xi8>
  %r = kiln.reduce_max %c, dims = [3, 0, 1, 4] : (tensor<6x0x1x17x17xi8>) -> tensor<1xi8>
  return %r : tensor<1xi8>
}
"""
check("seed6190", EMPTY_MAX, "f", [np.zeros((3, 0, 1, 17, 17), np.int8)],
      [np.full(1, -128, np.int8)])
# seed4015143: exp of a NaN that LLVM could compute from constants (inf -
# inf, the inf the minimum of nothing) left the result unwritten: the
# approximation converted the NaN to an integer, which is poison.
for op in ("exp", "expm1", "logistic", "tanh"):
    NAN_FROM_CONSTANTS = f"""
func.func @f(%x: tensor<0x1x5xf32>) -> (tensor<1x5xf32>, tensor<1x5xf32>) {{
  %m = kiln.reduce_min %x, dims = [0] : (tensor<0x1x5xf32>) -> tensor<1x5xf32>
  %d = kiln.sub %m, %m : tensor<1x5xf32>
  %r = kiln.{op} %d : tensor<1x5xf32>
  return %r, %m : tensor<1x5xf32>, tensor<1x5xf32>
}}
"""
    check(f"seed4015143 ({op})", NAN_FROM_CONSTANTS, "f",
          [np.zeros((0, 1, 5), np.float32)],
          [np.full((1, 5), np.nan, np.float32),
           np.full((1, 5), np.inf, np.float32)])
# seed8035439: pads that crop everything of their operand (a 0 x 1 one to
# 1 x 1, then that to 2 x 2) left a vector write wider than its 1 x 1
# destination unlowered: the compile failed. Every element is the padding.
CROPPED_PADS = """
func.func @f(%a: tensor<0x1xi64>) -> tensor<2x2xi64> {
  %three = kiln.constant dense<3> : tensor<i64>
  %p = kiln.pad %a, %three, low = [1, 1], high = [0, -1], interior = [0, 0] : (tensor<0x1xi64>, tensor<i64>) -> tensor<1x1xi64>
  %m = kiln.max %p, %p : tensor<1x1xi64>
  %n = kiln.and %m, %p : tensor<1x1xi64>
  %q = kiln.pad %n, %three, low = [-1, 2], high = [2, -1], interior = [0, 0] : (tensor<1x1xi64>, tensor<i64>) -> tensor<2x2xi64>
  return %q : tensor<2x2xi64>
}
"""
check("seed8035439", CROPPED_PADS, "f", [np.zeros((0, 1), np.int64)],
      [np.full((2, 2), 3, np.int64)])

# seed1592: a reverse of the middle and last dimensions feeding a sum over
# the middle one (its rows fused into the max after it) failed to compile:
# upstream's tiling kept the reverse's map d -> 2 - d against a slice of
# one of its 3 rows.
REVERSED_SUMS = """
func.func @f(%a: tensor<2x3x7xi16>) -> (tensor<2x7xi16>, tensor<2xi16>) {
  %r = kiln.reverse %a, dims = [1, 2] : tensor<2x3x7xi16>
  %s = kiln.reduce_sum %r, dims = [1] : (tensor<2x3x7xi16>) -> tensor<2x7xi16>
  %m = kiln.reduce_max %s, dims = [1] : (tensor<2x7xi16>) -> tensor<2xi16>
  return %s, %m : tensor<2x7xi16>, tensor<2xi16>
}
"""
SHORTS = rng.integers(-99, 99, (2, 3, 7)).astype(np.int16)
REVERSED_SUM = SHORTS[:, ::-1, ::-1].sum(1, dtype=np.int16)
check("seed1592", REVERSED_SUMS, "f", [SHORTS],
      [REVERSED_SUM, REVERSED_SUM.max(1)])

# seed3023: a take of rows from a pad's first column (of 3, its rows 2
# apart) gathered by offsets linearized as if the column were contiguous:
# rows 3 and 7 read elements 3 and 7 of the padded buffer instead of 9 and
# 21.
TAKE_FROM_PAD = """
func.func @f(%a: tensor<6x3xf32>, %i: tensor<3xi32>) -> tensor<3x1xf32> {
  %half = kiln.constant dense<0.5> : tensor<f32>
  %p = kiln.pad %a, %half, low = [1, 0], high = [0, -2], interior = [1, 0] : (tensor<6x3xf32>, tensor<f32>) -> tensor<12x1xf32>
  %r = kiln.take %p[%i], dim = 0 : (tensor<12x1xf32>, tensor<3xi32>) -> tensor<3x1xf32>
  return %r : tensor<3x1xf32>
}
"""
PADDED_ROWS = rng.standard_normal((6, 3)).astype(np.float32)
PADDED = np.full((12, 1), 0.5, np.float32)
PADDED[1::2, 0] = PADDED_ROWS[:, 0]
check("seed3023", TAKE_FROM_PAD, "f",
      [PADDED_ROWS, np.array([3, 7, 12], np.int32)],
      [PADDED[[3, 7, 11]]])

# seed20265495: a take of rows from a tensor that is also padded with
# interior padding (bufferization computes the tensor in place in the
# pad's buffer, its rows 6 elements apart there) gathered by offsets
# linearized as if that buffer were contiguous: the lowering of gathers
# from strided views now delinearizes them by the view's shape.
TAKE_AND_PAD = """
func.func @f(%x: tensor<2x3x1xf32>, %i: tensor<3xi32>) -> (tensor<3x6x2xf32>, tensor<3x3x1xf32>) {
  %n = kiln.neg %x : tensor<2x3x1xf32>
  %t = kiln.take %n[%i], dim = 0 : (tensor<2x3x1xf32>, tensor<3xi32>) -> tensor<3x3x1xf32>
  %three = kiln.constant dense<3.0> : tensor<f32>
  %p = kiln.pad %n, %three, low = [0, 0, 1], high = [1, -1, 0], interior = [0, 2, 0] : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<3x6x2xf32>
  return %p, %t : tensor<3x6x2xf32>, tensor<3x3x1xf32>
}
"""
TAKEN = rng.standard_normal((2, 3, 1)).astype(np.float32)
TAKEN_PADDED = np.full((3, 6, 2), 3.0, np.float32)
# Rows 0 and 1 of the middle dimension land 3 apart; row 2 is cropped.
TAKEN_PADDED[0:2, [0, 3], 1] = -TAKEN[:, 0:2, 0]
check("seed20265495", TAKE_AND_PAD, "f",
      [TAKEN, np.array([1, -4, 5], np.int32)],
      [TAKEN_PADDED, -TAKEN[[1, 0, 1]]])

# seed36616: a batched product of one column (2 batches of 6 x 22 by 22 x
# 1, summed in lanes along K) read its accumulator, a [6, 1] slice of the
# [2, 6, 1] expansion of the [2, 6] result, along the result's first
# dimension (rows b to b + 5 of 2): upstream's folding of a transfer_read
# through an expand_shape takes the vector's dimensions for the source's
# last ones. Such reads now go row by row.
BATCHED_COLUMN = """
func.func @f(%a: tensor<5x7x1xf32>, %w: tensor<2x22xf32>) -> tensor<2x6xf32> {
  %half = kiln.constant dense<0.5> : tensor<f32>
  %p = kiln.pad %a, %half, low = [1, 2, 1], high = [0, 1, 0], interior = [0, 2, 0] : (tensor<5x7x1xf32>, tensor<f32>) -> tensor<6x22x2xf32>
  %d = kiln.dot_general %p, %w, batching = [2] x [0], contracting = [1] x [1] : (tensor<6x22x2xf32>, tensor<2x22xf32>) -> tensor<2x6xf32>
  return %d : tensor<2x6xf32>
}
"""
COLUMNS = rng.standard_normal((5, 7, 1)).astype(np.float32)
WEIGHTS = rng.standard_normal((2, 22)).astype(np.float32)
SPREAD = np.full((6, 22, 2), 0.5, np.float32)
SPREAD[1:, 2:21:3, 1] = COLUMNS[:, :, 0]
check("seed36616", BATCHED_COLUMN, "f", [COLUMNS, WEIGHTS],
      [np.einsum("mkb,bk->bm", SPREAD.astype(np.float64),
                 WEIGHTS.astype(np.float64)).astype(np.float32)],
      rtol=1e-5, atol=1e-5)
finish()
