"""Convolution gradients in the form JAX exports them, against PyTorch.

jax.grad of a convolution exports two more stablehlo.convolution ops: the
input gradient, the output gradient convolved with the reversed kernel
(in and out features swapped) over an input dilated by the stride
(lhs_dilate), and the kernel gradient, the input convolved with the output
gradient, the input's features as the batch and its batch as the features
(window dilation = the stride). Kiln imports them (kiln-run) and is timed
with kiln-run --bench (median of N calls) against torch.nn.grad's
conv2d_input and conv2d_weight (what autograd runs) on the same values,
one thread, over the layers of conv_spread that train: ResNet's 3x3 of 64
and 128 features, a 3x3 stride 2, LeNet's second layer, an RGB first
layer, a 1x1 and a 1x1 stride 2 (ResNet's downsampling projection).
Prints the CPU, one row per case with the ratio torch/kiln (100% = as fast
as PyTorch) and the results' relative difference, and the geometric mean.

Usage: conv_grad_spread.py KILN_RUN [N]   (default 10)
"""
import tempfile

import numpy as np
import torch

from conv_spread import t
from dot_spread import (kiln_ms, median_ms, print_torch_geometric_mean,
                        relative_error, set_torch_threads,
                        torch_spread_arguments)

set_torch_threads(1)

# name, input NHWC, kernel HWIO, stride, padding
LAYERS = [
    ("ResNet 3x3, 64", (8, 56, 56, 64), (3, 3, 64, 64), 1, 1),
    ("ResNet 3x3, 128", (8, 28, 28, 128), (3, 3, 128, 128), 1, 1),
    ("3x3 stride 2, 64 to 128", (8, 56, 56, 64), (3, 3, 64, 128), 2, 1),
    ("LeNet conv2", (32, 14, 14, 6), (5, 5, 6, 16), 1, 0),
    ("RGB 3x3", (8, 64, 64, 3), (3, 3, 3, 32), 1, 1),
    ("1x1, 256 to 64", (8, 28, 28, 256), (1, 1, 256, 64), 1, 0),
    ("1x1 stride 2, 64 to 128", (8, 56, 56, 64), (1, 1, 64, 128), 2, 0),
]


def convolution(lhs, rhs, out, dims, pad, lhs_dilate=1, rhs_dilate=1):
    return (f"stablehlo.convolution(%a, %b) dim_numbers = {dims}, window = "
            f"{{stride = [1, 1], pad = [[{pad[0][0]}, {pad[0][1]}], "
            f"[{pad[1][0]}, {pad[1][1]}]], lhs_dilate = [{lhs_dilate}, "
            f"{lhs_dilate}], rhs_dilate = [{rhs_dilate}, {rhs_dilate}]}} "
            f"{{batch_group_count = 1 : i64, feature_group_count = 1 : i64}}"
            f" : ({t(lhs)}, {t(rhs)}) -> {t(out)}")


def input_gradient(g, k, x, stride, pad):
    """JAX's transpose of the convolution's input: the output gradient g,
    dilated by the stride, convolved with the reversed kernel."""
    pads = []
    for d in (0, 1):
        low = k[d] - 1 - pad
        pads.append((low, x[1 + d] + k[d] - 1 - ((g[1 + d] - 1) * stride + 1)
                     - low))
    conv = convolution(g, k, x, "[b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f]",
                       pads, lhs_dilate=stride)
    return (f"func.func @main(%g: {t(g)}, %k: {t(k)}) -> {t(x)} {{\n"
            f"  %b = stablehlo.reverse %k, dims = [0, 1] : {t(k)}\n"
            f"  %0 = {conv.replace('(%a, %b)', '(%g, %b)')}\n"
            f"  return %0 : {t(x)}\n}}\n")


def kernel_gradient(x, g, k, stride, pad):
    """JAX's transpose of the convolution's kernel: the input, its batch
    as the features, convolved with the output gradient."""
    pads = [(pad, k[d] - 1 + (g[1 + d] - 1) * stride + 1 - x[1 + d] - pad)
            for d in (0, 1)]
    conv = convolution(x, g, k, "[f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f]",
                       pads, rhs_dilate=stride)
    return (f"func.func @main(%a: {t(x)}, %b: {t(g)}) -> {t(k)} {{\n"
            f"  %0 = {conv}\n  return %0 : {t(k)}\n}}\n")


def main():
    kiln_run, runs = torch_spread_arguments(10)
    rng = np.random.default_rng(0)
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, x, k, stride, pad in LAYERS:
            g = (x[0], (x[1] + 2 * pad - k[0]) // stride + 1,
                 (x[2] + 2 * pad - k[1]) // stride + 1, k[3])
            xs, ks, gs = (rng.standard_normal(s).astype(np.float32)
                          for s in (x, k, g))
            tx, tk, tg = (torch.from_numpy(a.transpose(p).copy()) for a, p in
                          ((xs, (0, 3, 1, 2)), (ks, (3, 2, 0, 1)),
                           (gs, (0, 3, 1, 2))))
            cases = [
                ("input gradient", input_gradient(g, k, x, stride, pad),
                 [gs, ks], lambda: torch.nn.grad.conv2d_input(
                     tx.shape, tk, tg, stride=stride, padding=pad),
                 (0, 2, 3, 1)),
                ("kernel gradient", kernel_gradient(x, g, k, stride, pad),
                 [xs, gs], lambda: torch.nn.grad.conv2d_weight(
                     tx, tk.shape, tg, stride=stride, padding=pad),
                 (2, 3, 1, 0))]
            for kind, source, args, peer, to_nhwc in cases:
                kiln, got = kiln_ms(kiln_run, tmp, source, args, runs)
                torch_ms = median_ms(peer, runs)
                want = peer().numpy().transpose(to_nhwc)
                error = relative_error(got.astype(np.float64),
                                       want.astype(np.float64))
                ratios.append(torch_ms / kiln)
                print(f"{name + ', ' + kind:42s} kiln {kiln:8.3f} ms | torch "
                      f"{torch_ms:8.3f} ms | torch/kiln "
                      f"{100 * torch_ms / kiln:6.1f}% | rel. error "
                      f"{error:.1e}", flush=True)
    print_torch_geometric_mean(ratios)


if __name__ == "__main__":
    main()
