"""The forward and backward pass of a transformer block (pre-layer-norm
multi-head self-attention and a GELU MLP, each added to its input; layer
norms without scale and shift, no biases) against PyTorch eager autograd,
at a spread of model shapes, on 1 and 2 threads. Kiln's is a kiln program
whose gradient with respect to the six weight matrices comes from
kiln.value_and_grad of the loss sum(block(x) * g); PyTorch's is the same
forward and torch.autograd.grad. The script checks that both give the same
loss and gradients before timing (kiln-run --bench: median of N calls;
PyTorch: median of N steps) and prints the CPU and one row per shape and
thread count with the ratio torch/kiln (100% = as fast as PyTorch) and
their geometric mean.

Usage: transformer_step.py KILN_RUN [N]   (default 10)
"""
import math
import os
import sys
import tempfile

import numpy as np
import torch

from dot_spread import (kiln_ms, median_ms, print_torch_geometric_mean,
                        set_torch_threads, torch_spread_arguments)
from dot_spread import ttype as t

# (batch, sequence, model width, heads, MLP width): a small GPT's, a
# ViT-S's 197 patches, CLIP's text encoder's 77 tokens, short sequences of
# a narrow model, one long sequence.
SHAPES = [(8, 128, 256, 4, 1024), (2, 197, 384, 6, 1536),
          (4, 77, 192, 3, 768), (16, 64, 128, 2, 512), (1, 512, 512, 8, 2048)]
WEIGHTS = ("wq", "wk", "wv", "wo", "w1", "w2")


class Program:
    """The lines of a kiln function body, each value named %v<n>."""

    def __init__(self):
        self.lines = []

    def __call__(self, op):
        name = f"%v{len(self.lines)}"
        self.lines.append(f"  {name} = {op}")
        return name

    def constant(self, value, shape):
        return self(f"kiln.constant dense<{value:.9e}> : {t(shape)}")


def block_program(b, s, d, h, f):
    """@step: the loss of the block at these sizes and its gradient with
    respect to the weights (value_and_grad of @loss)."""
    e = d // h
    p = Program()
    x_t, scores, heads_t = t((b, s, d)), t((b, h, s, s)), t((b, h, s, e))
    rows, head_rows = t((b, s)), t((b, h, s))

    def layer_norm(x):
        dims = "[0, 1]"
        total = p(f"kiln.reduce_sum {x}, dims = [2] : ({x_t}) -> {rows}")
        mean = p(f"kiln.mul {total}, {p.constant(1 / d, (b, s))} : {rows}")
        centered = p(f"kiln.sub {x}, " + p(
            f"kiln.broadcast_in_dim {mean}, dims = {dims} : ({rows}) -> "
            f"{x_t}") + f" : {x_t}")
        square = p(f"kiln.mul {centered}, {centered} : {x_t}")
        sums = p(f"kiln.reduce_sum {square}, dims = [2] : ({x_t}) -> {rows}")
        var = p(f"kiln.mul {sums}, {p.constant(1 / d, (b, s))} : {rows}")
        scale = p("kiln.rsqrt " + p(
            f"kiln.add {var}, {p.constant(1e-5, (b, s))} : {rows}") +
            f" : {rows}")
        return p(f"kiln.mul {centered}, " + p(
            f"kiln.broadcast_in_dim {scale}, dims = {dims} : ({rows}) -> "
            f"{x_t}") + f" : {x_t}")

    def linear(x, w, k, n):
        return p(f"kiln.dot_general {x}, {w}, contracting = [2] x [0] : "
                 f"({t((b, s, k))}, {t((k, n))}) -> {t((b, s, n))}")

    def split_heads(x):
        r = p(f"kiln.reshape {x} : ({x_t}) -> {t((b, s, h, e))}")
        return p(f"kiln.transpose {r}, permutation = [0, 2, 1, 3] : "
                 f"({t((b, s, h, e))}) -> {heads_t}")

    normed = layer_norm("%x")
    q, k, v = (split_heads(linear(normed, f"%{w}", d, d))
               for w in ("wq", "wk", "wv"))
    logits = p("kiln.mul " + p(
        f"kiln.dot_general {q}, {k}, batching = [0, 1] x [0, 1], "
        f"contracting = [3] x [3] : ({heads_t}, {heads_t}) -> {scores}") +
        f", {p.constant(1 / math.sqrt(e), (b, h, s, s))} : {scores}")
    top = p(f"kiln.reduce_max {logits}, dims = [3] : ({scores}) -> "
            f"{head_rows}")
    top = p("kiln.stop_gradient " + p(
        f"kiln.broadcast_in_dim {top}, dims = [0, 1, 2] : ({head_rows}) -> "
        f"{scores}") + f" : {scores}")
    exps = p("kiln.exp " + p(f"kiln.sub {logits}, {top} : {scores}") +
             f" : {scores}")
    total = p(f"kiln.reduce_sum {exps}, dims = [3] : ({scores}) -> "
              f"{head_rows}")
    probs = p(f"kiln.div {exps}, " + p(
        f"kiln.broadcast_in_dim {total}, dims = [0, 1, 2] : ({head_rows}) "
        f"-> {scores}") + f" : {scores}")
    mixed = p(f"kiln.dot_general {probs}, {v}, batching = [0, 1] x [0, 1], "
              f"contracting = [3] x [2] : ({scores}, {heads_t}) -> {heads_t}")
    merged = p("kiln.reshape " + p(
        f"kiln.transpose {mixed}, permutation = [0, 2, 1, 3] : ({heads_t}) "
        f"-> {t((b, s, h, e))}") + f" : ({t((b, s, h, e))}) -> {x_t}")
    hidden = p(f"kiln.add %x, {linear(merged, '%wo', d, d)} : {x_t}")
    up = linear(layer_norm(hidden), "%w1", d, f)
    up_t = t((b, s, f))
    cube = p("kiln.mul " + p(f"kiln.mul {up}, {up} : {up_t}") +
             f", {up} : {up_t}")
    inner = p(f"kiln.add {up}, " + p(
        f"kiln.mul {cube}, {p.constant(0.044715, (b, s, f))} : {up_t}") +
        f" : {up_t}")
    tanh = p("kiln.tanh " + p(
        f"kiln.mul {inner}, {p.constant(math.sqrt(2 / math.pi), (b, s, f))}"
        f" : {up_t}") + f" : {up_t}")
    gelu = p("kiln.mul " + p(
        f"kiln.mul {up}, {p.constant(0.5, (b, s, f))} : {up_t}") + ", " + p(
        f"kiln.add {tanh}, {p.constant(1.0, (b, s, f))} : {up_t}") +
        f" : {up_t}")
    out = p(f"kiln.add {hidden}, {linear(gelu, '%w2', f, d)} : {x_t}")
    loss = p("kiln.reduce_sum " + p(f"kiln.mul {out}, %g : {x_t}") +
             f", dims = [0, 1, 2] : ({x_t}) -> tensor<f32>")

    weights = [t((d, d))] * 4 + [t((d, f)), t((f, d))]
    types = ", ".join(weights)
    params = ", ".join(f"%{n}: {w}" for n, w in zip(WEIGHTS, weights))
    names = ", ".join(f"%{n}" for n in WEIGHTS)
    results = ", ".join(f"%r#{i}" for i in range(7))
    body = "\n".join(p.lines)
    return f"""func.func @step({params}, %x: {x_t}, %g: {x_t}) -> (tensor<f32>, {types}) {{
  %r:7 = kiln.value_and_grad @loss({names}, %x, %g) {{argnums = array<i64: 0, 1, 2, 3, 4, 5>}} : ({types}, {x_t}, {x_t}) -> (tensor<f32>, {types})
  return {results} : tensor<f32>, {types}
}}

func.func private @loss({params}, %x: {x_t}, %g: {x_t}) -> tensor<f32> {{
{body}
  return {loss} : tensor<f32>
}}
"""


def torch_step(weights, x, g, h):
    """The loss and its gradients with respect to `weights`."""
    wq, wk, wv, wo, w1, w2 = weights
    b, s, d = x.shape
    norm = torch.nn.functional.layer_norm

    def split(z):
        return z.reshape(b, s, h, d // h).transpose(1, 2)
    normed = norm(x, (d,))
    q, k, v = split(normed @ wq), split(normed @ wk), split(normed @ wv)
    probs = torch.softmax(q @ k.transpose(2, 3) / math.sqrt(d // h), dim=3)
    hidden = x + (probs @ v).transpose(1, 2).reshape(b, s, d) @ wo
    up = norm(hidden, (d,)) @ w1
    out = hidden + torch.nn.functional.gelu(up, approximate="tanh") @ w2
    loss = (out * g).sum()
    return [loss] + list(torch.autograd.grad(loss, weights))


def arguments(rng, b, s, d, f):
    """The six weights (scaled by 1/sqrt(fan-in)), x and g."""
    shapes = [(d, d)] * 4 + [(d, f), (f, d)]
    weights = [(rng.standard_normal(shape) / math.sqrt(shape[0]))
               .astype(np.float32) for shape in shapes]
    return weights + [rng.standard_normal((b, s, d)).astype(np.float32)
                      for _ in range(2)]


def main():
    kiln_run, runs = torch_spread_arguments(10, "1 and 2 threads")
    rng = np.random.default_rng(0)
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for b, s, d, h, f in SHAPES:
            args = arguments(rng, b, s, d, f)
            weights = [torch.from_numpy(w).requires_grad_(True)
                       for w in args[:6]]
            x, g = (torch.from_numpy(a) for a in args[6:])
            for threads in (1, 2):
                kiln, _ = kiln_ms(kiln_run, tmp, block_program(b, s, d, h, f),
                                  args, runs, threads)
                set_torch_threads(threads)
                if threads == 1:
                    with np.load(os.path.join(tmp, "out.npz")) as out:
                        got = [out[f"out{i}"] for i in range(7)]
                    want = [w.detach().numpy()
                            for w in torch_step(weights, x, g, h)]
                    error = max(np.linalg.norm(a - w) / np.linalg.norm(w)
                                for a, w in zip(got, want))
                    if error > 1e-4:
                        sys.exit(f"Kiln's loss or gradients at {b}x{s}x{d} "
                                 f"are off by {error:.1e}")
                peer = median_ms(lambda: torch_step(weights, x, g, h), runs)
                ratios.append(peer / kiln)
                print(f"batch {b:2d} x {s:3d} tokens, width {d:3d}, {h} heads, "
                      f"MLP {f:4d}, {threads} thread(s): kiln {kiln:8.2f} ms "
                      f"| torch {peer:8.2f} ms | torch/kiln "
                      f"{100 * peer / kiln:6.1f}%", flush=True)
    print_torch_geometric_mean(ratios)


if __name__ == "__main__":
    main()
