# Gradients of whole models (kiln.value_and_grad) against PyTorch's
# autograd in f64: an MLP with softmax cross-entropy, layer norm with GELU,
# causal self-attention, and an embedding lookup with repeated ids.
# RUN: %numpy_python %s kiln-run
import numpy as np
import torch

from harness import fail, finish, run

rng = np.random.default_rng(11)
RTOL = 1e-10


def check(name, body, params, inputs, reference):
    """`body` defines @loss(params..., inputs...) -> tensor<f64>; its
    value_and_grad with respect to the params must match `reference`, a
    torch function of the same tensors returning the loss."""
    args = params + inputs
    types = [f"tensor<{''.join(f'{d}x' for d in a.shape)}{dtype(a)}>"
             for a in args]
    names = ", ".join(f"%a{i}" for i in range(len(args)))
    sig = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    grads = ", ".join(types[:len(params)])
    argnums = ", ".join(str(i) for i in range(len(params)))
    program = body + f"""
func.func @main({sig}) -> (tensor<f64>, {grads}) {{
  %r:{len(params) + 1} = kiln.value_and_grad @loss({names}) {{argnums = array<i64: {argnums}>}} : ({", ".join(types)}) -> (tensor<f64>, {grads})
  return {", ".join(f"%r#{i}" for i in range(len(params) + 1))} : tensor<f64>, {grads}
}}
"""
    results, stderr, status = run(program, "main", args)
    if status != 0:
        fail(f"{name}: kiln-run failed:\n{stderr}")
        return
    tensors = [torch.tensor(a, requires_grad=(i < len(params)))
               for i, a in enumerate(args)]
    loss = reference(*tensors)
    loss.backward()
    want = [loss.detach().numpy()] + [t.grad.numpy() for t in tensors[:len(params)]]
    for i, (got, w) in enumerate(zip(results, want)):
        error = np.max(np.abs(got - w)) / max(np.max(np.abs(w)), 1e-300)
        if not error <= RTOL:
            what = "loss" if i == 0 else f"gradient {i - 1}"
            fail(f"{name} {what}: relative error {error:.3g}\ngot  {got}\nwant {w}")


def dtype(a):
    return {"float64": "f64", "int32": "i32"}[str(a.dtype)]


# An MLP with softmax cross-entropy against one-hot labels.
labels = rng.integers(0, 4, 8)
check("mlp softmax cross-entropy", """
func.func private @loss(%w1: tensor<5x7xf64>, %b1: tensor<7xf64>, %w2: tensor<7x4xf64>, %x: tensor<8x5xf64>, %y: tensor<8x4xf64>) -> tensor<f64> {
  %h = kiln.dot_general %x, %w1, contracting = [1] x [0] : (tensor<8x5xf64>, tensor<5x7xf64>) -> tensor<8x7xf64>
  %bb = kiln.broadcast_in_dim %b1, dims = [1] : (tensor<7xf64>) -> tensor<8x7xf64>
  %a = kiln.add %h, %bb : tensor<8x7xf64>
  %t = kiln.tanh %a : tensor<8x7xf64>
  %s = kiln.dot_general %t, %w2, contracting = [1] x [0] : (tensor<8x7xf64>, tensor<7x4xf64>) -> tensor<8x4xf64>
  %m = kiln.reduce_max %s, dims = [1] : (tensor<8x4xf64>) -> tensor<8xf64>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : (tensor<8xf64>) -> tensor<8x4xf64>
  %z = kiln.sub %s, %mb : tensor<8x4xf64>
  %e = kiln.exp %z : tensor<8x4xf64>
  %se = kiln.reduce_sum %e, dims = [1] : (tensor<8x4xf64>) -> tensor<8xf64>
  %lse = kiln.log %se : tensor<8xf64>
  %lb = kiln.broadcast_in_dim %lse, dims = [0] : (tensor<8xf64>) -> tensor<8x4xf64>
  %lp = kiln.sub %z, %lb : tensor<8x4xf64>
  %yl = kiln.mul %y, %lp : tensor<8x4xf64>
  %tot = kiln.reduce_sum %yl, dims = [0, 1] : (tensor<8x4xf64>) -> tensor<f64>
  %n = kiln.constant dense<-8.0> : tensor<f64>
  %l = kiln.div %tot, %n : tensor<f64>
  return %l : tensor<f64>
}""", [rng.standard_normal((5, 7)), rng.standard_normal(7),
       rng.standard_normal((7, 4))],
      [rng.standard_normal((8, 5)), np.eye(4)[labels]],
      lambda w1, b1, w2, x, y: torch.nn.functional.cross_entropy(
          torch.tanh(x @ w1 + b1) @ w2, torch.tensor(labels)))

# Layer norm (over the last dimension, eps 1e-5) with a scale and a shift,
# then GELU (tanh approximation), weighted by fixed %r.
check("layer norm with gelu", """
func.func private @loss(%x: tensor<6x8xf64>, %g: tensor<8xf64>, %b: tensor<8xf64>, %r: tensor<6x8xf64>) -> tensor<f64> {
  %s = kiln.reduce_sum %x, dims = [1] : (tensor<6x8xf64>) -> tensor<6xf64>
  %k = kiln.constant dense<0.125> : tensor<6xf64>
  %mu = kiln.mul %s, %k : tensor<6xf64>
  %mub = kiln.broadcast_in_dim %mu, dims = [0] : (tensor<6xf64>) -> tensor<6x8xf64>
  %xc = kiln.sub %x, %mub : tensor<6x8xf64>
  %sq = kiln.mul %xc, %xc : tensor<6x8xf64>
  %ss = kiln.reduce_sum %sq, dims = [1] : (tensor<6x8xf64>) -> tensor<6xf64>
  %var = kiln.mul %ss, %k : tensor<6xf64>
  %eps = kiln.constant dense<1.0e-5> : tensor<6xf64>
  %ve = kiln.add %var, %eps : tensor<6xf64>
  %inv = kiln.rsqrt %ve : tensor<6xf64>
  %invb = kiln.broadcast_in_dim %inv, dims = [0] : (tensor<6xf64>) -> tensor<6x8xf64>
  %n = kiln.mul %xc, %invb : tensor<6x8xf64>
  %gb = kiln.broadcast_in_dim %g, dims = [1] : (tensor<8xf64>) -> tensor<6x8xf64>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : (tensor<8xf64>) -> tensor<6x8xf64>
  %ng = kiln.mul %n, %gb : tensor<6x8xf64>
  %y = kiln.add %ng, %bb : tensor<6x8xf64>
  %y2 = kiln.mul %y, %y : tensor<6x8xf64>
  %y3 = kiln.mul %y2, %y : tensor<6x8xf64>
  %c1 = kiln.constant dense<0.044715> : tensor<6x8xf64>
  %c3 = kiln.mul %y3, %c1 : tensor<6x8xf64>
  %in = kiln.add %y, %c3 : tensor<6x8xf64>
  %c2 = kiln.constant dense<0.7978845608028654> : tensor<6x8xf64>
  %in2 = kiln.mul %in, %c2 : tensor<6x8xf64>
  %th = kiln.tanh %in2 : tensor<6x8xf64>
  %one = kiln.constant dense<1.0> : tensor<6x8xf64>
  %th1 = kiln.add %th, %one : tensor<6x8xf64>
  %half = kiln.constant dense<0.5> : tensor<6x8xf64>
  %hy = kiln.mul %y, %half : tensor<6x8xf64>
  %gelu = kiln.mul %hy, %th1 : tensor<6x8xf64>
  %w = kiln.mul %gelu, %r : tensor<6x8xf64>
  %l = kiln.reduce_sum %w, dims = [0, 1] : (tensor<6x8xf64>) -> tensor<f64>
  return %l : tensor<f64>
}""", [rng.standard_normal((6, 8)), rng.standard_normal(8),
       rng.standard_normal(8)], [rng.standard_normal((6, 8))],
      lambda x, g, b, r: torch.sum(torch.nn.functional.gelu(
          torch.nn.functional.layer_norm(x, (8,), g, b, 1e-5),
          approximate="tanh") * r))

# Causal self-attention of one head: softmax(q k^T / 2 + mask) v, weighted.
check("causal attention", """
func.func private @loss(%wq: tensor<4x4xf64>, %wk: tensor<4x4xf64>, %wv: tensor<4x4xf64>, %x: tensor<5x4xf64>, %r: tensor<5x4xf64>) -> tensor<f64> {
  %q = kiln.dot_general %x, %wq, contracting = [1] x [0] : (tensor<5x4xf64>, tensor<4x4xf64>) -> tensor<5x4xf64>
  %k = kiln.dot_general %x, %wk, contracting = [1] x [0] : (tensor<5x4xf64>, tensor<4x4xf64>) -> tensor<5x4xf64>
  %v = kiln.dot_general %x, %wv, contracting = [1] x [0] : (tensor<5x4xf64>, tensor<4x4xf64>) -> tensor<5x4xf64>
  %s = kiln.dot_general %q, %k, contracting = [1] x [1] : (tensor<5x4xf64>, tensor<5x4xf64>) -> tensor<5x5xf64>
  %half = kiln.constant dense<0.5> : tensor<5x5xf64>
  %ss = kiln.mul %s, %half : tensor<5x5xf64>
  %i = kiln.iota dim = 0 : tensor<5x5xi32>
  %j = kiln.iota dim = 1 : tensor<5x5xi32>
  %causal = kiln.compare GE, %i, %j : tensor<5x5xi32>
  %neg = kiln.constant dense<-1.0e9> : tensor<5x5xf64>
  %masked = kiln.select %causal, %ss, %neg : tensor<5x5xi1>, tensor<5x5xf64>
  %m = kiln.reduce_max %masked, dims = [1] : (tensor<5x5xf64>) -> tensor<5xf64>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : (tensor<5xf64>) -> tensor<5x5xf64>
  %z = kiln.sub %masked, %mb : tensor<5x5xf64>
  %e = kiln.exp %z : tensor<5x5xf64>
  %se = kiln.reduce_sum %e, dims = [1] : (tensor<5x5xf64>) -> tensor<5xf64>
  %seb = kiln.broadcast_in_dim %se, dims = [0] : (tensor<5xf64>) -> tensor<5x5xf64>
  %p = kiln.div %e, %seb : tensor<5x5xf64>
  %o = kiln.dot_general %p, %v, contracting = [1] x [0] : (tensor<5x5xf64>, tensor<5x4xf64>) -> tensor<5x4xf64>
  %w = kiln.mul %o, %r : tensor<5x4xf64>
  %l = kiln.reduce_sum %w, dims = [0, 1] : (tensor<5x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}""", [rng.standard_normal((4, 4)) for _ in range(3)],
      [rng.standard_normal((5, 4)), rng.standard_normal((5, 4))],
      lambda wq, wk, wv, x, r: torch.sum(
          torch.softmax((x @ wq) @ (x @ wk).T / 2 + torch.triu(
              torch.full((5, 5), -1e9, dtype=torch.float64), 1), 1)
          @ (x @ wv) * r))

# An embedding lookup with a repeated id: the table's gradient accumulates.
ids = np.array([3, 0, 3, 7, 9, 3], np.int32)
check("embedding lookup", """
func.func private @loss(%table: tensor<10x4xf64>, %ids: tensor<6xi32>, %r: tensor<6x4xf64>) -> tensor<f64> {
  %e = kiln.take %table[%ids], dim = 0 : (tensor<10x4xf64>, tensor<6xi32>) -> tensor<6x4xf64>
  %t = kiln.tanh %e : tensor<6x4xf64>
  %w = kiln.mul %t, %r : tensor<6x4xf64>
  %l = kiln.reduce_sum %w, dims = [0, 1] : (tensor<6x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}""", [rng.standard_normal((10, 4))], [ids, rng.standard_normal((6, 4))],
      lambda table, i, r: torch.sum(
          torch.tanh(torch.nn.functional.embedding(i.long(), table)) * r))

finish()
