# The transformations compose with sharding: vmap whose batch axis is
# sharded (the per-example function's constraint keeps the batch whole
# inside, as JAX's vmap does without spmd_axis_name; the batch is split
# around it), scan over a sharded carry, and grad of a function whose
# arguments are sharded, each on 4 in-process devices (a 2x2 mesh) against
# the same program without shardings and against numpy.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check_sharded, finish

SPLIT = '{kiln.sharding = #kiln.sharding<@mesh, [{"a"}, {"b"}]>}'


def program(sharded):
    mesh = 'kiln.mesh @mesh ["a"=2, "b"=2]\n' if sharded else ""
    split = (lambda layout: " " + layout) if sharded else (lambda _: "")
    constraint = ('%c = kiln.sharding_constraint %x <@mesh, [{"b"}]> : '
                  'tensor<8xf32>' if sharded else
                  '%c = kiln.neg %x : tensor<8xf32>\n  %c2 = kiln.neg %c : '
                  'tensor<8xf32>')
    use = "%c" if sharded else "%c2"
    return mesh + f"""
func.func private @example(%x: tensor<8xf32>, %w: tensor<8x8xf32>) -> tensor<8xf32> {{
  {constraint}
  %h = kiln.dot_general %w, {use}, contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %t = kiln.tanh %h : tensor<8xf32>
  return %t : tensor<8xf32>
}}
func.func private @cell(%h: tensor<8x8xf32>, %x: tensor<8xf32>) -> (tensor<8x8xf32>, tensor<f32>) {{
  %xb = kiln.broadcast_in_dim %x, dims = [1] : (tensor<8xf32>) -> tensor<8x8xf32>
  %s = kiln.add %h, %xb : tensor<8x8xf32>
  %n = kiln.tanh %s : tensor<8x8xf32>
  %r = kiln.reduce_sum %n, dims = [0, 1] : (tensor<8x8xf32>) -> tensor<f32>
  return %n, %r : tensor<8x8xf32>, tensor<f32>
}}
func.func private @loss(%w: tensor<8x8xf32>, %xs: tensor<8x8xf32>) -> tensor<f32> {{
  %p = kiln.dot_general %xs, %w, contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = kiln.tanh %p : tensor<8x8xf32>
  %s = kiln.mul %t, %t : tensor<8x8xf32>
  %l = kiln.reduce_sum %s, dims = [0, 1] : (tensor<8x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}}
func.func @main(%xs: tensor<8x8xf32>{split(SPLIT)}, %w: tensor<8x8xf32>{split(SPLIT)},
                %h0: tensor<8x8xf32>{split(SPLIT)}, %seq: tensor<6x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<6xf32>, tensor<8x8xf32>{split(SPLIT)}) {{
  %v = kiln.vmap @example(%xs, %w) {{in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}}
      : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %hn, %ys = kiln.scan @cell(%h0, %seq) {{num_carry = 1 : i64, length = 6 : i64}}
      : (tensor<8x8xf32>, tensor<6x8xf32>) -> (tensor<8x8xf32>, tensor<6xf32>)
  %g = kiln.grad @loss(%w, %xs) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %v, %hn, %ys, %g : tensor<8x8xf32>, tensor<8x8xf32>, tensor<6xf32>, tensor<8x8xf32>
}}
"""


def reference(xs, w, h0, seq):
    xs, w, h0, seq = (a.astype(np.float64) for a in (xs, w, h0, seq))
    v = np.tanh(xs @ w.T)
    h, ys = h0, []
    for x in seq:
        h = np.tanh(h + x[None, :])
        ys.append(h.sum())
    t = np.tanh(xs @ w)
    g = xs.T @ (2 * t * (1 - t * t))
    return [v.astype(np.float32), h.astype(np.float32),
            np.array(ys, np.float32), g.astype(np.float32)]


rng = np.random.default_rng(3)
args = [rng.standard_normal(s).astype(np.float32) * 0.5
        for s in ((8, 8), (8, 8), (8, 8), (6, 8))]
check_sharded(program(False), [("4 devices", program(True), ["--devices", "4"])],
              "main", args, reference(*args), rtol=1e-5, atol=1e-5)
finish()
