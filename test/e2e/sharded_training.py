# The seeds' sharded MLP training step: data parallel over "data", tensor
# parallel over "model" (Megatron's column- then row-split layers), named
# by Flax-style logical axis rules. Differentiated (kiln.value_and_grad),
# then propagated and partitioned, it runs on 8 in-process devices (a 2x4
# mesh) and on 2 (2x1), and equals the same step on one device and numpy.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check_sharded, finish

B, D, H = 16, 8, 32


def program(mesh):
    axes = ", ".join(f'"{a}"={n}' for a, n in (mesh or {}).items())
    rules = '["batch" -> "data", "hidden" -> "model", "embed" -> none]'
    layout = (lambda *names: " {kiln.sharding = #kiln.logical<["
              + ", ".join(f'"{n}"' for n in names) + "]>}") if mesh else (
        lambda *names: "")
    header = (f"module attributes {{kiln.axis_rules = #kiln.axis_rules<@mesh, "
              f"{rules}>}} {{\nkiln.mesh @mesh [{axes}]\n" if mesh
              else "module {\n")
    return header + f"""
func.func private @loss(%w1: tensor<{D}x{H}xf32>, %w2: tensor<{H}x{D}xf32>,
                        %x: tensor<{B}x{D}xf32>, %y: tensor<{B}x{D}xf32>) -> tensor<f32> {{
  %h = kiln.dot_general %x, %w1, contracting = [1] x [0] : (tensor<{B}x{D}xf32>, tensor<{D}x{H}xf32>) -> tensor<{B}x{H}xf32>
  %a = kiln.tanh %h : tensor<{B}x{H}xf32>
  %p = kiln.dot_general %a, %w2, contracting = [1] x [0] : (tensor<{B}x{H}xf32>, tensor<{H}x{D}xf32>) -> tensor<{B}x{D}xf32>
  %e = kiln.sub %p, %y : tensor<{B}x{D}xf32>
  %s = kiln.mul %e, %e : tensor<{B}x{D}xf32>
  %t = kiln.reduce_sum %s, dims = [0, 1] : (tensor<{B}x{D}xf32>) -> tensor<f32>
  %n = kiln.constant dense<{1.0 / (B * D)}> : tensor<f32>
  %l = kiln.mul %t, %n : tensor<f32>
  return %l : tensor<f32>
}}
func.func @step(%w1: tensor<{D}x{H}xf32>{layout("embed", "hidden")},
                %w2: tensor<{H}x{D}xf32>{layout("hidden", "embed")},
                %x: tensor<{B}x{D}xf32>{layout("batch", "embed")},
                %y: tensor<{B}x{D}xf32>{layout("batch", "embed")})
    -> (tensor<f32>, tensor<{D}x{H}xf32>{layout("embed", "hidden")},
        tensor<{H}x{D}xf32>{layout("hidden", "embed")}) {{
  %l, %g1, %g2 = kiln.value_and_grad @loss(%w1, %w2, %x, %y) {{argnums = array<i64: 0, 1>}}
      : (tensor<{D}x{H}xf32>, tensor<{H}x{D}xf32>, tensor<{B}x{D}xf32>, tensor<{B}x{D}xf32>)
      -> (tensor<f32>, tensor<{D}x{H}xf32>, tensor<{H}x{D}xf32>)
  %lr = kiln.constant dense<0.1> : tensor<{D}x{H}xf32>
  %u1 = kiln.mul %g1, %lr : tensor<{D}x{H}xf32>
  %n1 = kiln.sub %w1, %u1 : tensor<{D}x{H}xf32>
  %lr2 = kiln.constant dense<0.1> : tensor<{H}x{D}xf32>
  %u2 = kiln.mul %g2, %lr2 : tensor<{H}x{D}xf32>
  %n2 = kiln.sub %w2, %u2 : tensor<{H}x{D}xf32>
  return %l, %n1, %n2 : tensor<f32>, tensor<{D}x{H}xf32>, tensor<{H}x{D}xf32>
}}
}}
"""


def numpy_step(w1, w2, x, y):
    w1, w2, x, y = (a.astype(np.float64) for a in (w1, w2, x, y))
    h = x @ w1
    a = np.tanh(h)
    e = a @ w2 - y
    loss = (e * e).mean()
    de = 2 * e / e.size
    g2 = a.T @ de
    g1 = x.T @ ((de @ w2.T) * (1 - a * a))
    return [np.float32(loss), (w1 - 0.1 * g1).astype(np.float32),
            (w2 - 0.1 * g2).astype(np.float32)]


def arguments():
    rng = np.random.default_rng(7)
    return [rng.standard_normal(s).astype(np.float32) * 0.5
            for s in ((D, H), (H, D), (B, D), (B, D))]


if __name__ == "__main__":
    args = arguments()
    check_sharded(program(None),
                  [(str(mesh), program(mesh), [])
                   for mesh in ({"data": 2, "model": 4},
                                {"data": 2, "model": 1})],
                  "step", args, numpy_step(*args), rtol=1e-5, atol=1e-6)
    finish()
