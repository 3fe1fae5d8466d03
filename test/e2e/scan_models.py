# Models written with kiln.scan, differentiated, against PyTorch's autograd
# in f64: an RNN h = tanh(W h + U x_t + b) over 20 steps (value and
# gradient with respect to every parameter and the initial state), and
# grad of a scan whose body calls vmap (gradient accumulation is in
# memory.py, with its peak memory; the benchmark's RNN, 100 steps of 32 x
# 256, is checked against nn.RNN by the demo, test/scripts).
# RUN: %numpy_python %s kiln-run
import numpy as np
import torch

from harness import fail, finish, run

rng = np.random.default_rng(17)
RTOL = 1e-10
T, B, D, H = 20, 4, 8, 16


def close(name, got, want):
    error = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-300)
    if not error <= RTOL:
        fail(f"{name}: relative error {error:.3g}")


# The RNN: the loss is the sum of squares of every step's state.
RNN = f"""
func.func private @cell(%w: tensor<{H}x{H}xf64>, %u: tensor<{D}x{H}xf64>, %b: tensor<{H}xf64>, %h: tensor<{B}x{H}xf64>, %x: tensor<{B}x{D}xf64>) -> (tensor<{H}x{H}xf64>, tensor<{D}x{H}xf64>, tensor<{H}xf64>, tensor<{B}x{H}xf64>, tensor<{B}x{H}xf64>) {{
  %wh = kiln.dot_general %h, %w, contracting = [1] x [0] : (tensor<{B}x{H}xf64>, tensor<{H}x{H}xf64>) -> tensor<{B}x{H}xf64>
  %ux = kiln.dot_general %x, %u, contracting = [1] x [0] : (tensor<{B}x{D}xf64>, tensor<{D}x{H}xf64>) -> tensor<{B}x{H}xf64>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : (tensor<{H}xf64>) -> tensor<{B}x{H}xf64>
  %s = kiln.add %wh, %ux : tensor<{B}x{H}xf64>
  %a = kiln.add %s, %bb : tensor<{B}x{H}xf64>
  %n = kiln.tanh %a : tensor<{B}x{H}xf64>
  return %w, %u, %b, %n, %n : tensor<{H}x{H}xf64>, tensor<{D}x{H}xf64>, tensor<{H}xf64>, tensor<{B}x{H}xf64>, tensor<{B}x{H}xf64>
}}
func.func private @loss(%w: tensor<{H}x{H}xf64>, %u: tensor<{D}x{H}xf64>, %b: tensor<{H}xf64>, %h0: tensor<{B}x{H}xf64>, %xs: tensor<{T}x{B}x{D}xf64>) -> tensor<f64> {{
  %r:5 = kiln.scan @cell(%w, %u, %b, %h0, %xs) {{num_carry = 4 : i64, length = {T} : i64}} : (tensor<{H}x{H}xf64>, tensor<{D}x{H}xf64>, tensor<{H}xf64>, tensor<{B}x{H}xf64>, tensor<{T}x{B}x{D}xf64>) -> (tensor<{H}x{H}xf64>, tensor<{D}x{H}xf64>, tensor<{H}xf64>, tensor<{B}x{H}xf64>, tensor<{T}x{B}x{H}xf64>)
  %sq = kiln.mul %r#4, %r#4 : tensor<{T}x{B}x{H}xf64>
  %l = kiln.reduce_sum %sq, dims = [0, 1, 2] : (tensor<{T}x{B}x{H}xf64>) -> tensor<f64>
  return %l : tensor<f64>
}}
func.func @main(%w: tensor<{H}x{H}xf64>, %u: tensor<{D}x{H}xf64>, %b: tensor<{H}xf64>, %h0: tensor<{B}x{H}xf64>, %xs: tensor<{T}x{B}x{D}xf64>) -> (tensor<f64>, tensor<{H}x{H}xf64>, tensor<{D}x{H}xf64>, tensor<{H}xf64>, tensor<{B}x{H}xf64>) {{
  %r:5 = kiln.value_and_grad @loss(%w, %u, %b, %h0, %xs) {{argnums = array<i64: 0, 1, 2, 3>}} : (tensor<{H}x{H}xf64>, tensor<{D}x{H}xf64>, tensor<{H}xf64>, tensor<{B}x{H}xf64>, tensor<{T}x{B}x{D}xf64>) -> (tensor<f64>, tensor<{H}x{H}xf64>, tensor<{D}x{H}xf64>, tensor<{H}xf64>, tensor<{B}x{H}xf64>)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<f64>, tensor<{H}x{H}xf64>, tensor<{D}x{H}xf64>, tensor<{H}xf64>, tensor<{B}x{H}xf64>
}}
"""
params = [rng.standard_normal((H, H)) * 0.3, rng.standard_normal((D, H)) * 0.3,
          rng.standard_normal(H) * 0.1, rng.standard_normal((B, H))]
xs = rng.standard_normal((T, B, D))
results, stderr, status = run(RNN, "main", params + [xs])
if status != 0:
    fail(f"rnn: kiln-run failed:\n{stderr}")
else:
    w, u, b, h = [torch.tensor(p, requires_grad=True) for p in params]
    state, loss = h, 0
    for t in range(T):
        state = torch.tanh(state @ w + torch.tensor(xs[t]) @ u + b)
        loss = loss + (state * state).sum()
    loss.backward()
    close("rnn loss", results[0], loss.detach().numpy())
    for name, got, p in zip(["W", "U", "b", "h0"], results[1:], [w, u, b, h]):
        close(f"rnn gradient of {name}", got, p.grad.numpy())

# grad of a scan of a vmap: each step batches a per-example function over
# its micro-batch and accumulates; the gradient of the square of the total.
NESTED = """
func.func private @unit(%w: tensor<3xf64>, %x: tensor<3xf64>) -> tensor<f64> {
  %m = kiln.mul %w, %x : tensor<3xf64>
  %t = kiln.tanh %m : tensor<3xf64>
  %s = kiln.reduce_sum %t, dims = [0] : (tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func private @step(%w: tensor<3xf64>, %acc: tensor<f64>, %xs: tensor<4x3xf64>) -> (tensor<3xf64>, tensor<f64>, tensor<f64>) {
  %l = kiln.vmap @unit(%w, %xs) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>} : (tensor<3xf64>, tensor<4x3xf64>) -> tensor<4xf64>
  %s = kiln.reduce_sum %l, dims = [0] : (tensor<4xf64>) -> tensor<f64>
  %a = kiln.add %acc, %s : tensor<f64>
  return %w, %a, %s : tensor<3xf64>, tensor<f64>, tensor<f64>
}
func.func private @loss(%w: tensor<3xf64>, %xs: tensor<5x4x3xf64>) -> tensor<f64> {
  %z = kiln.constant dense<0.0> : tensor<f64>
  %r:3 = kiln.scan @step(%w, %z, %xs) {num_carry = 2 : i64, length = 5 : i64} : (tensor<3xf64>, tensor<f64>, tensor<5x4x3xf64>) -> (tensor<3xf64>, tensor<f64>, tensor<5xf64>)
  %q = kiln.mul %r#1, %r#1 : tensor<f64>
  return %q : tensor<f64>
}
func.func @main(%w: tensor<3xf64>, %xs: tensor<5x4x3xf64>) -> tensor<3xf64> {
  %g = kiln.grad @loss(%w, %xs) : (tensor<3xf64>, tensor<5x4x3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
"""
w, nx = rng.standard_normal(3), rng.standard_normal((5, 4, 3))
results, stderr, status = run(NESTED, "main", [w, nx])
if status != 0:
    fail(f"grad of scan of vmap: kiln-run failed:\n{stderr}")
else:
    tw = torch.tensor(w, requires_grad=True)
    (torch.tanh(tw * torch.tensor(nx)).sum() ** 2).backward()
    close("grad of scan of vmap", results[0], tw.grad.numpy())

finish()
