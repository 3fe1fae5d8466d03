# A program annotated with meshes, argument and result shardings and
# sharding constraints runs on one device as the same program without
# them: the layouts change where values live, never what they are.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check, finish

PROGRAM = """
kiln.mesh @mesh ["data"=2, "model"=4]
func.func @layer(%x: tensor<8x16xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}]>},
                 %w: tensor<16x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{}, {"model"}]>})
    -> (tensor<8x32xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {?}]>}) {
  %y = kiln.dot_general %x, %w, contracting = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %c = kiln.sharding_constraint %y <@mesh, [{"data"}, {"model"}]> : tensor<8x32xf32>
  %t = kiln.tanh %c : tensor<8x32xf32>
  return %t : tensor<8x32xf32>
}
"""

rng = np.random.default_rng(3)
x = rng.standard_normal((8, 16)).astype(np.float32)
w = rng.standard_normal((16, 32)).astype(np.float32)
check("annotated layer", PROGRAM, "layer", [x, w],
      [np.tanh(x.astype(np.float64) @ w).astype(np.float32)],
      rtol=1e-5, atol=1e-6)
finish()
