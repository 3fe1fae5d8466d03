"""Normalizations written with kiln's reductions and elementwise ops
(softmax, log-softmax's logsumexp, layer norm, RMS norm) against PyTorch
eager (one thread) at several shapes: rows of a classifier, a transformer's
hidden size, a vocabulary, odd sizes. Each case is timed with kiln-run
--bench (median of N calls) and the median of N torch calls on the same
arrays; prints the CPU and one row per case with the ratio torch/kiln
(100% = as fast as PyTorch) and the geometric mean.

Usage: norm_spread.py KILN_RUN [N]   (default 50)
"""
import sys
import tempfile

import numpy as np
import torch

from dot_spread import (cpu_name, kiln_ms, median_ms,
                        print_torch_geometric_mean, relative_error,
                        set_torch_threads)

# torch.set_num_threads(1) alone left a 1x1 convolution's product on
# OpenBLAS's two threads (2.8 ms of CPU in 1.4 ms).
set_torch_threads(1)


def t(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def rows(m, n, op, name):
    """kiln: a reduction over rows of an MxN tensor broadcast back."""
    return (f"%{name} = kiln.{op} %x, dims = [1] : ({t((m, n))}) -> {t((m,))}\n"
            f"  %{name}b = kiln.broadcast_in_dim %{name}, dims = [0] : "
            f"({t((m,))}) -> {t((m, n))}\n")


def shifted_exps(m, n):
    """kiln: %e = exp(x - row max), %s = its row sums."""
    return ("  " + rows(m, n, "reduce_max", "mx")
            + f"  %d = kiln.sub %x, %mxb : {t((m, n))}\n"
            f"  %e = kiln.exp %d : {t((m, n))}\n"
            f"  %s = kiln.reduce_sum %e, dims = [1] : ({t((m, n))}) -> {t((m,))}\n")


def softmax(m, n):
    return (f"func.func @f(%x: {t((m, n))}) -> {t((m, n))} {{\n"
            + shifted_exps(m, n)
            + f"  %sb = kiln.broadcast_in_dim %s, dims = [0] : ({t((m,))}) -> {t((m, n))}\n"
            f"  %y = kiln.div %e, %sb : {t((m, n))}\n"
            f"  return %y : {t((m, n))}\n}}\n")


def logsumexp(m, n):
    return (f"func.func @f(%x: {t((m, n))}) -> {t((m,))} {{\n"
            + shifted_exps(m, n)
            + f"  %l = kiln.log %s : {t((m,))}\n"
            f"  %y = kiln.add %l, %mx : {t((m,))}\n"
            f"  return %y : {t((m,))}\n}}\n")


def row_constant(m, value, name):
    """kiln: `value` in each of m rows, as %NAME."""
    return f"  %{name} = kiln.constant dense<{value:.9e}> : {t((m,))}\n"


def layer_norm(m, n):
    return (f"func.func @f(%x: {t((m, n))}, %g: {t((n,))}, %b: {t((n,))}) -> {t((m, n))} {{\n"
            + row_constant(m, 1.0 / n, "inv_n")
            + row_constant(m, 1e-5, "eps")
            + 
            f"  %s = kiln.reduce_sum %x, dims = [1] : ({t((m, n))}) -> {t((m,))}\n"
            f"  %mean = kiln.mul %s, %inv_n : {t((m,))}\n"
            f"  %meanb = kiln.broadcast_in_dim %mean, dims = [0] : ({t((m,))}) -> {t((m, n))}\n"
            f"  %xc = kiln.sub %x, %meanb : {t((m, n))}\n"
            f"  %sq = kiln.mul %xc, %xc : {t((m, n))}\n"
            f"  %ss = kiln.reduce_sum %sq, dims = [1] : ({t((m, n))}) -> {t((m,))}\n"
            f"  %var = kiln.mul %ss, %inv_n : {t((m,))}\n"
            f"  %ve = kiln.add %var, %eps : {t((m,))}\n"
            f"  %r = kiln.rsqrt %ve : {t((m,))}\n"
            f"  %rb = kiln.broadcast_in_dim %r, dims = [0] : ({t((m,))}) -> {t((m, n))}\n"
            f"  %gb = kiln.broadcast_in_dim %g, dims = [1] : ({t((n,))}) -> {t((m, n))}\n"
            f"  %bb = kiln.broadcast_in_dim %b, dims = [1] : ({t((n,))}) -> {t((m, n))}\n"
            f"  %y0 = kiln.mul %xc, %rb : {t((m, n))}\n"
            f"  %y1 = kiln.mul %y0, %gb : {t((m, n))}\n"
            f"  %y = kiln.add %y1, %bb : {t((m, n))}\n"
            f"  return %y : {t((m, n))}\n}}\n")


def rms_norm(m, n):
    return (f"func.func @f(%x: {t((m, n))}, %g: {t((n,))}) -> {t((m, n))} {{\n"
            + row_constant(m, 1.0 / n, "inv_n")
            + row_constant(m, 1e-6, "eps")
            + 
            f"  %sq = kiln.mul %x, %x : {t((m, n))}\n"
            f"  %ss = kiln.reduce_sum %sq, dims = [1] : ({t((m, n))}) -> {t((m,))}\n"
            f"  %ms = kiln.mul %ss, %inv_n : {t((m,))}\n"
            f"  %ve = kiln.add %ms, %eps : {t((m,))}\n"
            f"  %r = kiln.rsqrt %ve : {t((m,))}\n"
            f"  %rb = kiln.broadcast_in_dim %r, dims = [0] : ({t((m,))}) -> {t((m, n))}\n"
            f"  %gb = kiln.broadcast_in_dim %g, dims = [1] : ({t((n,))}) -> {t((m, n))}\n"
            f"  %y0 = kiln.mul %x, %rb : {t((m, n))}\n"
            f"  %y = kiln.mul %y0, %gb : {t((m, n))}\n"
            f"  return %y : {t((m, n))}\n}}\n")


def torch_softmax(x):
    return torch.softmax(x, dim=1)


def torch_logsumexp(x):
    return torch.logsumexp(x, dim=1)


def torch_layer_norm(x, g, b):
    return torch.nn.functional.layer_norm(x, (x.shape[1],), g, b, 1e-5)


def torch_rms_norm(x, g):
    return x * torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-6) * g


# name, kiln program, torch function, shape, number of per-column vectors.
KINDS = {
    "softmax": (softmax, torch_softmax, 0),
    "logsumexp": (logsumexp, torch_logsumexp, 0),
    "layer norm": (layer_norm, torch_layer_norm, 2),
    "rms norm": (rms_norm, torch_rms_norm, 1),
}
SHAPES = {
    "softmax": [(512, 1000), (64, 50257), (1000, 37), (4096, 128)],
    "logsumexp": [(512, 1000), (256, 10), (33, 4099)],
    "layer norm": [(1024, 768), (256, 4096), (4096, 64), (127, 509)],
    "rms norm": [(1024, 768), (2048, 4096), (129, 1023)],
}


def main():
    kiln_run = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    print(cpu_name())
    print(f"one thread; median of {runs} calls; PyTorch {torch.__version__} eager")
    rng = np.random.default_rng(0)
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind, (program, reference, vectors) in KINDS.items():
            for m, n in SHAPES[kind]:
                args = [rng.standard_normal((m, n)).astype(np.float32)]
                args += [rng.standard_normal(n).astype(np.float32)
                         for _ in range(vectors)]
                kiln, got = kiln_ms(kiln_run, tmp, program(m, n), args, runs)
                tensors = [torch.from_numpy(a) for a in args]
                want = reference(*[a.double() for a in tensors]).numpy()
                error = relative_error(got, want)
                peer = median_ms(lambda: reference(*tensors), runs)
                ratios.append(peer / kiln)
                print(f"{kind:10s} {m:5d}x{n:<6d} kiln {kiln:8.4f} ms | torch "
                      f"{peer:8.4f} ms | torch/kiln {100 * peer / kiln:6.1f}% | "
                      f"rel. error {error:.1e}")
    print_torch_geometric_mean(ratios)


if __name__ == "__main__":
    main()
