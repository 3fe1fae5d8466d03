# Sharded programs run with one device per process (mpirun -np N kiln-run:
# MPI ranks, each reading only its parts of the arguments, moving buffers
# through Kiln's MPI transport, kiln/mpi.h) and with one device per thread
# (kiln-run alone): the ranks' results equal the
# threads' bit for bit, and one device's (or numpy's) to 1e-6. Covers every
# collective over groups of one and of both axes of a 2x2 mesh, every
# primitive of sharded_execution.py under random shardings, and the sharded
# training step of sharded_training.py on 4 ranks.
# REQUIRES: mpi
# RUN: %numpy_python %s kiln-run "%mpirun"
import random
import shlex
import sys

import numpy as np

import sharded_execution
import sharded_training
from harness import compare, fail, finish, run

MPIRUN = shlex.split(sys.argv[2])


def check_ranks(label, text, entry, args, ranks, reference, tolerance):
    """Runs `entry` of `text` on `ranks` MPI ranks, each reading its parts of
    the arguments from a stored and from a compressed .npz, and on as many
    threads: equal to the bit, and to `reference` within `tolerance`."""
    threads, output, status = run(text, entry, args)
    if status != 0:
        fail(f"{label} on threads: kiln-run failed:\n{output}")
        return
    for compressed in (False, True):
        processes, output, status = run(
            text, entry, args, launcher=[*MPIRUN, "-np", str(ranks)],
            compressed=compressed)
        name = f"{label} on {ranks} ranks{' (compressed)' * compressed}"
        if status != 0:
            fail(f"{name}: mpirun kiln-run failed:\n{output}")
            return
        compare(f"{name} vs threads", processes, threads)
        compare(f"{name} vs the reference", processes, reference, tolerance,
                tolerance)


PART = '#kiln.sharding<@mesh, [{"x"}, {"y"}]>'
WHOLE = '#kiln.sharding<@mesh, [{}, {}]>'
COLLECTIVES = f"""
kiln.mesh @mesh ["x"=2, "y"=2]
func.func @f(%p: tensor<4x4xf32> {{kiln.part = {PART}}})
    -> (tensor<4x4xf32> {{kiln.part = #kiln.sharding<@mesh, [{{"x"}}, {{}}]>}},
        tensor<8x4xf32> {{kiln.part = #kiln.sharding<@mesh, [{{}}, {{"y"}}]>}},
        tensor<4x1xf32> {{kiln.part = {PART}}},
        tensor<4x4xf32> {{kiln.part = {PART}}},
        tensor<4x4xf32> {{kiln.part = {PART}}},
        tensor<4x4xi32> {{kiln.part = {PART}}}) {{
  %rows = kiln.all_reduce max %p over @mesh ["y"] : tensor<4x4xf32>
  %cols = kiln.all_gather %p over @mesh ["x"], dim = 0
      : (tensor<4x4xf32>) -> tensor<8x4xf32>
  %sum = kiln.reduce_scatter sum %p over @mesh ["x", "y"], dim = 1
      : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %moved = kiln.all_to_all %p over @mesh ["y"], split = 0, concat = 0
      : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %ring = kiln.collective_permute %p over @mesh ["x", "y"],
      pairs = [0, 1, 1, 3, 3, 2] : tensor<4x4xf32>
  %i = kiln.axis_index over @mesh ["y", "x"] : tensor<i32>
  %places = kiln.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
  return %rows, %cols, %sum, %moved, %ring, %places
      : tensor<4x4xf32>, tensor<8x4xf32>, tensor<4x1xf32>, tensor<4x4xf32>,
        tensor<4x4xf32>, tensor<4x4xi32>
}}
"""

rng = np.random.default_rng(11)
x = rng.standard_normal((8, 8)).astype(np.float32)
blocks = x.reshape(2, 4, 2, 4).transpose(0, 2, 1, 3)  # [x][y] parts
rows = np.concatenate([np.maximum(blocks[i, 0], blocks[i, 1])
                       for i in range(2)], axis=0)
cols = np.concatenate([np.concatenate([blocks[0, j], blocks[1, j]], axis=0)
                       for j in range(2)], axis=1)
total = blocks.astype(np.float64).sum(axis=(0, 1)).astype(np.float32)
sums = np.block([[total[:, 0:1], total[:, 1:2]], [total[:, 2:3], total[:, 3:4]]])
moved = np.block([[np.concatenate([blocks[i, 0][2 * j:2 * j + 2],
                                   blocks[i, 1][2 * j:2 * j + 2]])
                   for j in range(2)] for i in range(2)])
# Device d = 2 * x + y receives from its source's part: 0 -> 1 -> 3 -> 2.
source = {1: 0, 3: 1, 2: 3}
ring = np.block([[blocks[divmod(source[2 * i + j], 2)] if 2 * i + j in source
                  else np.zeros((4, 4), np.float32) for j in range(2)]
                 for i in range(2)])
places = np.block([[np.full((4, 4), 2 * j + i, np.int32) for j in range(2)]
                   for i in range(2)])
check_ranks("collectives", COLLECTIVES, "f", [x], 4,
            [rows, cols, sums, moved, ring, places], 1e-6)

# Every primitive under random shardings on a 2x2 mesh.
choices = random.Random(17)
for case in sharded_execution.CASES:
    args = sharded_execution.arguments(case, choices)
    single, output, status = run(
        sharded_execution.program(case, None, choices), "f", args)
    if status != 0:
        fail(f"{case[0]} on one device: kiln-run failed:\n{output}")
        continue
    check_ranks(case[0], sharded_execution.program(
        case, {"x": 2, "y": 2}, choices), "f", args, 4, single, 1e-6)

# The training step, data and tensor parallel.
args = sharded_training.arguments()
check_ranks("training step", sharded_training.program(
    {"data": 2, "model": 2}), "step", args, 4,
    sharded_training.numpy_step(*args), 1e-5)

# As many ranks as the mesh has devices, or a clear error.
_, output, status = run(sharded_training.program({"data": 2, "model": 2}),
                        "step", args, launcher=[*MPIRUN, "-np", "2"])
if status == 0 or "runs on 4 devices (the devices of its mesh), and mpirun " \
        "started 2 processes: start one per device" not in output:
    fail(f"2 ranks for a mesh of 4: expected a clear error, got status "
         f"{status}:\n{output}")
finish()
