"""Normalizations written with kiln's reductions and elementwise ops
(softmax, log-softmax's logsumexp, layer norm, RMS norm) against PyTorch
eager (one thread) at several shapes, each normalized along its last
dimension: rows of a classifier, a transformer's hidden size, a
vocabulary, odd sizes, [batch, sequence, hidden] activations and
attention's [batch, heads, queries, keys] scores. Each case is timed with kiln-run
--bench (median of N calls) and the median of N torch calls on the same
arrays; prints the CPU and one row per case with the ratio torch/kiln
(100% = as fast as PyTorch) and the geometric mean.

Usage: norm_spread.py KILN_RUN [N]   (default 50)
"""
import tempfile

import numpy as np
import torch

from dot_spread import (kiln_ms, median_ms, print_torch_geometric_mean,
                        relative_error, set_torch_threads,
                        torch_spread_arguments)
from dot_spread import ttype as t

# torch.set_num_threads(1) alone left a 1x1 convolution's product on
# OpenBLAS's two threads (2.8 ms of CPU in 1.4 ms).
set_torch_threads(1)



def reduced(shape):
    """The rows of `shape` (all but its last dimension) and the attributes
    that reduce its last dimension and broadcast a value per row back."""
    lead = shape[:-1]
    rank = len(shape)
    return lead, f"dims = [{rank - 1}]", \
        "dims = [" + ", ".join(map(str, range(rank - 1))) + "]"


def rows(shape, op, name):
    """kiln: a reduction over the last dimension of %x broadcast back."""
    lead, over, back = reduced(shape)
    return (f"%{name} = kiln.{op} %x, {over} : ({t(shape)}) -> {t(lead)}\n"
            f"  %{name}b = kiln.broadcast_in_dim %{name}, {back} : "
            f"({t(lead)}) -> {t(shape)}\n")


def shifted_exps(shape):
    """kiln: %e = exp(x - row max), %s = its row sums."""
    lead, over, _ = reduced(shape)
    return ("  " + rows(shape, "reduce_max", "mx")
            + f"  %d = kiln.sub %x, %mxb : {t(shape)}\n"
            f"  %e = kiln.exp %d : {t(shape)}\n"
            f"  %s = kiln.reduce_sum %e, {over} : ({t(shape)}) -> {t(lead)}\n")


def softmax(shape):
    lead, _, back = reduced(shape)
    return (f"func.func @f(%x: {t(shape)}) -> {t(shape)} {{\n"
            + shifted_exps(shape)
            + f"  %sb = kiln.broadcast_in_dim %s, {back} : ({t(lead)}) -> {t(shape)}\n"
            f"  %y = kiln.div %e, %sb : {t(shape)}\n"
            f"  return %y : {t(shape)}\n}}\n")


def logsumexp(shape):
    lead, _, _ = reduced(shape)
    return (f"func.func @f(%x: {t(shape)}) -> {t(lead)} {{\n"
            + shifted_exps(shape)
            + f"  %l = kiln.log %s : {t(lead)}\n"
            f"  %y = kiln.add %l, %mx : {t(lead)}\n"
            f"  return %y : {t(lead)}\n}}\n")


def row_constant(lead, value, name):
    """kiln: `value` in each row, as %NAME."""
    return f"  %{name} = kiln.constant dense<{value:.9e}> : {t(lead)}\n"


def per_column(shape, name):
    """kiln: the vector %NAME, one value per column, broadcast to rows."""
    n = shape[-1]
    return (f"  %{name}b = kiln.broadcast_in_dim %{name}, dims = "
            f"[{len(shape) - 1}] : ({t((n,))}) -> {t(shape)}\n")


def inverse_rms(shape, name):
    """kiln: %rb, 1 / sqrt(mean of %NAME's squares + %eps) of each row,
    broadcast back (%inv_n holds 1 / the row length)."""
    lead, over, back = reduced(shape)
    return (f"  %sq = kiln.mul %{name}, %{name} : {t(shape)}\n"
            f"  %ss = kiln.reduce_sum %sq, {over} : ({t(shape)}) -> {t(lead)}\n"
            f"  %ms = kiln.mul %ss, %inv_n : {t(lead)}\n"
            f"  %ve = kiln.add %ms, %eps : {t(lead)}\n"
            f"  %r = kiln.rsqrt %ve : {t(lead)}\n"
            f"  %rb = kiln.broadcast_in_dim %r, {back} : ({t(lead)}) -> {t(shape)}\n")


def layer_norm(shape):
    lead, over, back = reduced(shape)
    n = shape[-1]
    return (f"func.func @f(%x: {t(shape)}, %g: {t((n,))}, %b: {t((n,))}) -> {t(shape)} {{\n"
            + row_constant(lead, 1.0 / n, "inv_n")
            + row_constant(lead, 1e-5, "eps")
            + f"  %s = kiln.reduce_sum %x, {over} : ({t(shape)}) -> {t(lead)}\n"
            f"  %mean = kiln.mul %s, %inv_n : {t(lead)}\n"
            f"  %meanb = kiln.broadcast_in_dim %mean, {back} : ({t(lead)}) -> {t(shape)}\n"
            f"  %xc = kiln.sub %x, %meanb : {t(shape)}\n"
            + inverse_rms(shape, "xc")
            + per_column(shape, "g") + per_column(shape, "b")
            + f"  %y0 = kiln.mul %xc, %rb : {t(shape)}\n"
            f"  %y1 = kiln.mul %y0, %gb : {t(shape)}\n"
            f"  %y = kiln.add %y1, %bb : {t(shape)}\n"
            f"  return %y : {t(shape)}\n}}\n")


def rms_norm(shape):
    lead, _, _ = reduced(shape)
    n = shape[-1]
    return (f"func.func @f(%x: {t(shape)}, %g: {t((n,))}) -> {t(shape)} {{\n"
            + row_constant(lead, 1.0 / n, "inv_n")
            + row_constant(lead, 1e-6, "eps")
            + inverse_rms(shape, "x")
            + per_column(shape, "g")
            + f"  %y0 = kiln.mul %x, %rb : {t(shape)}\n"
            f"  %y = kiln.mul %y0, %gb : {t(shape)}\n"
            f"  return %y : {t(shape)}\n}}\n")


def torch_softmax(x):
    return torch.softmax(x, dim=-1)


def torch_logsumexp(x):
    return torch.logsumexp(x, dim=-1)


def torch_layer_norm(x, g, b):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), g, b, 1e-5)


def torch_rms_norm(x, g):
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * g


# name, kiln program, torch function, shape, number of per-column vectors.
KINDS = {
    "softmax": (softmax, torch_softmax, 0),
    "logsumexp": (logsumexp, torch_logsumexp, 0),
    "layer norm": (layer_norm, torch_layer_norm, 2),
    "rms norm": (rms_norm, torch_rms_norm, 1),
}
# The last dimension is normalized; the others are rows: a transformer's
# [batch, sequence, hidden] (batch 1 at inference), attention's [batch,
# heads, queries, keys] scores.
SHAPES = {
    "softmax": [(512, 1000), (64, 50257), (1000, 37), (4096, 128),
                (2, 12, 256, 256), (1, 8, 77, 77)],
    "logsumexp": [(512, 1000), (256, 10), (33, 4099), (4, 100, 1000)],
    "layer norm": [(1024, 768), (256, 4096), (4096, 64), (127, 509),
                   (1, 1024, 768), (8, 128, 768), (3, 50, 257)],
    "rms norm": [(1024, 768), (2048, 4096), (129, 1023), (1, 512, 4096),
                 (4, 256, 1024)],
}


def main():
    kiln_run, runs = torch_spread_arguments(50)
    rng = np.random.default_rng(0)
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind, (program, reference, vectors) in KINDS.items():
            for shape in SHAPES[kind]:
                n = shape[-1]
                args = [rng.standard_normal(shape).astype(np.float32)]
                args += [rng.standard_normal(n).astype(np.float32)
                         for _ in range(vectors)]
                kiln, got = kiln_ms(kiln_run, tmp, program(shape), args, runs)
                tensors = [torch.from_numpy(a) for a in args]
                want = reference(*[a.double() for a in tensors]).numpy()
                error = relative_error(got, want)
                peer = median_ms(lambda: reference(*tensors), runs)
                ratios.append(peer / kiln)
                size = "x".join(map(str, shape))
                print(f"{kind:10s} {size:>15s} kiln {kiln:8.4f} ms | torch "
                      f"{peer:8.4f} ms | torch/kiln {100 * peer / kiln:6.1f}% | "
                      f"rel. error {error:.1e}")
    print_torch_geometric_mean(ratios)


if __name__ == "__main__":
    main()
