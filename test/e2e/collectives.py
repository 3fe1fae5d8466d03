# A program partitioned by hand (its entry's arguments and results say
# which layout they are parts of, as with jax.shard_map) runs once per
# device of its mesh, each a thread; its collectives move data between the
# threads as jax.lax's psum, all_gather, psum_scatter, all_to_all and
# ppermute do. Compared with numpy on the whole arrays.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check, finish

PART = '#kiln.sharding<@mesh, [{"x"}, {}]>'
COLS = '#kiln.sharding<@mesh, [{}, {"x"}]>'
WHOLE = '#kiln.sharding<@mesh, [{}, {}]>'

PROGRAM = f"""
kiln.mesh @mesh ["x"=4]
func.func @f(%p: tensor<2x8xf32> {{kiln.part = {PART}}})
    -> (tensor<2x8xf32> {{kiln.part = {WHOLE}}},
        tensor<2x8xf32> {{kiln.part = {WHOLE}}},
        tensor<8x8xf32> {{kiln.part = {WHOLE}}},
        tensor<2x2xf32> {{kiln.part = {COLS}}},
        tensor<8x2xf32> {{kiln.part = {COLS}}},
        tensor<2x8xf32> {{kiln.part = {PART}}},
        tensor<2x8xi32> {{kiln.part = {PART}}}) {{
  %sum = kiln.all_reduce sum %p over @mesh ["x"] : tensor<2x8xf32>
  %max = kiln.all_reduce max %p over @mesh ["x"] : tensor<2x8xf32>
  %all = kiln.all_gather %p over @mesh ["x"], dim = 0
      : (tensor<2x8xf32>) -> tensor<8x8xf32>
  %scattered = kiln.reduce_scatter sum %p over @mesh ["x"], dim = 1
      : (tensor<2x8xf32>) -> tensor<2x2xf32>
  %columns = kiln.all_to_all %p over @mesh ["x"], split = 1, concat = 0
      : (tensor<2x8xf32>) -> tensor<8x2xf32>
  %ring = kiln.collective_permute %p over @mesh ["x"],
      pairs = [0, 1, 1, 2, 2, 3, 3, 0] : tensor<2x8xf32>
  %i = kiln.axis_index over @mesh ["x"] : tensor<i32>
  %places = kiln.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<2x8xi32>
  return %sum, %max, %all, %scattered, %columns, %ring, %places
      : tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x8xf32>, tensor<2x2xf32>,
        tensor<8x2xf32>, tensor<2x8xf32>, tensor<2x8xi32>
}}
"""

rng = np.random.default_rng(5)
x = rng.standard_normal((8, 8)).astype(np.float32)
parts = x.reshape(4, 2, 8)
total = parts.astype(np.float64).sum(axis=0).astype(np.float32)
places = np.repeat(np.arange(4, dtype=np.int32), 2)[:, None] * np.ones(
    (1, 8), np.int32)
# Partitioned programs (kiln.part) run on the mesh's devices only: the
# reference interpreter runs whole programs.
check("collectives", PROGRAM, "f", [x],
      [total, parts.max(axis=0), x, total, x, np.roll(x, 2, axis=0), places],
      rtol=1e-6, atol=1e-6, interpret=False)

# A permutation that leaves a device without a source gives it zeros.
SHIFT = f"""
kiln.mesh @mesh ["x"=4]
func.func @f(%p: tensor<2x8xf32> {{kiln.part = {PART}}})
    -> (tensor<2x8xf32> {{kiln.part = {PART}}}) {{
  %s = kiln.collective_permute %p over @mesh ["x"], pairs = [0, 1, 1, 2, 2, 3]
      : tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}}
"""
shifted = np.roll(x, 2, axis=0)
shifted[:2] = 0
check("shift", SHIFT, "f", [x], [shifted], interpret=False)
finish()
