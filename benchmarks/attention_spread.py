"""Multi-head attention forward, as a transformer layer computes it from
its projected heads: scores q k^T / sqrt(d), softmax over keys, the
weighted values, heads put back side by side ([B, H, S, D] to [B, S, H*D]).
Kiln (kiln-run --bench, one thread) against PyTorch eager's matmul,
softmax, matmul, transpose and reshape on the same values (one thread), at
a spread of shapes: ViT-B's 197 tokens, GPT-2's heads, long and short
sequences, few and many heads. Prints the CPU, one row per case with the
ratio torch/kiln (100% = as fast as PyTorch) and the relative difference
of the results, and the geometric mean.

Usage: attention_spread.py KILN_RUN [N]   (default 20)
"""
import math
import sys
import tempfile

import numpy as np
import torch

from dot_spread import (cpu_name, kiln_ms, median_ms,
                        print_torch_geometric_mean, relative_error,
                        set_torch_threads)

# name, batch, heads, sequence, head size
SHAPES = [
    ("ViT-B 4x12x197x64", 4, 12, 197, 64),
    ("GPT-2 2x12x256x64", 2, 12, 256, 64),
    ("long 1x8x1024x64", 1, 8, 1024, 64),
    ("short many 64x4x32x32", 64, 4, 32, 32),
    ("odd 3x5x77x40", 3, 5, 77, 40),
]


def t(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def program(b, h, s, d):
    q = t((b, h, s, d))
    scores = t((b, h, s, s))
    rows = t((b, h, s))
    out = t((b, s, h * d))
    return f"""func.func @attention(%q: {q}, %k: {q}, %v: {q}) -> {out} {{
  %qk = kiln.dot_general %q, %k, batching = [0, 1] x [0, 1], contracting = [3] x [3] : ({q}, {q}) -> {scores}
  %c = kiln.constant dense<{1 / math.sqrt(d)}> : tensor<f32>
  %cb = kiln.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> {scores}
  %z = kiln.mul %qk, %cb : {scores}
  %m = kiln.reduce_max %z, dims = [3] : ({scores}) -> {rows}
  %mb = kiln.broadcast_in_dim %m, dims = [0, 1, 2] : ({rows}) -> {scores}
  %sh = kiln.sub %z, %mb : {scores}
  %x = kiln.exp %sh : {scores}
  %sum = kiln.reduce_sum %x, dims = [3] : ({scores}) -> {rows}
  %sb = kiln.broadcast_in_dim %sum, dims = [0, 1, 2] : ({rows}) -> {scores}
  %p = kiln.div %x, %sb : {scores}
  %o = kiln.dot_general %p, %v, batching = [0, 1] x [0, 1], contracting = [3] x [2] : ({scores}, {q}) -> {q}
  %ot = kiln.transpose %o, permutation = [0, 2, 1, 3] : ({q}) -> {t((b, s, h, d))}
  %r = kiln.reshape %ot : ({t((b, s, h, d))}) -> {out}
  return %r : {out}
}}
"""


def main():
    kiln_run = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    set_torch_threads(1)
    print(cpu_name())
    print(f"one thread; median of {runs} calls; PyTorch {torch.__version__} "
          "eager")
    rng = np.random.default_rng(0)
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, b, h, s, d in SHAPES:
            args = [rng.standard_normal((b, h, s, d)).astype(np.float32)
                    for _ in range(3)]
            kiln, got = kiln_ms(kiln_run, tmp, program(b, h, s, d), args, runs)
            q, k, v = (torch.from_numpy(a) for a in args)

            def call():
                p = torch.softmax(q @ k.transpose(2, 3) / math.sqrt(d), dim=3)
                return (p @ v).transpose(1, 2).reshape(b, s, h * d)
            peer = median_ms(call, runs)
            want = call().numpy()
            error = relative_error(got, want)
            ratios.append(peer / kiln)
            print(f"{name:24s} kiln {kiln:8.3f} ms | torch {peer:8.3f} ms | "
                  f"torch/kiln {100 * peer / kiln:6.1f}% | rel. diff. "
                  f"{error:.1e}")
    print_torch_geometric_mean(ratios)


if __name__ == "__main__":
    main()
