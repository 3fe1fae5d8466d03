"""Convolutions and poolings as JAX exports them (stablehlo.convolution in
NHWC/HWIO, stablehlo.reduce_window), imported by kiln-run, against PyTorch
eager's conv2d and pooling in its own NCHW layout (one thread), at a spread
of shapes: LeNet's, ResNet's stem (7x7 stride 2 on RGB), 3x3 and 1x1
layers, first layers on RGB (64 x 64, CIFAR's) and grayscale (MNIST's)
images, a strided one, a depthwise one, output layers of few features (an
image's 3, a mask's 1), odd sizes, feature counts that are not multiples of 16
(MobileNet's 24 and 40, a 5x5 of 12 to 20). Kiln is timed with
kiln-run --bench (median of N calls), PyTorch by the median of N calls on
the same values; prints the CPU, one row per case with the ratio
torch/kiln (100% = as fast as PyTorch) and the relative difference of the
results, and the geometric mean.

Usage: conv_spread.py KILN_RUN [N]   (default 20)
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
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def conv_program(x, k, stride, pad, groups):
    n, h, w, _ = x
    kh, kw, _, o = k
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (w + 2 * pad - kw) // stride + 1
    out = (n, oh, ow, o)
    return (f"func.func @main(%x: {t(x)}, %k: {t(k)}) -> {t(out)} {{\n"
            f"  %0 = stablehlo.convolution(%x, %k) dim_numbers = "
            f"[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = "
            f"[{stride}, {stride}], pad = [[{pad}, {pad}], [{pad}, {pad}]]}} "
            f"{{batch_group_count = 1 : i64, feature_group_count = {groups} "
            f": i64}} : ({t(x)}, {t(k)}) -> {t(out)}\n"
            f"  return %0 : {t(out)}\n}}\n")


def pool_program(x, size, stride, pad, body, init):
    n, h, w, c = x
    out = (n, (h + 2 * pad - size) // stride + 1,
           (w + 2 * pad - size) // stride + 1, c)
    return (f"func.func @main(%x: {t(x)}) -> {t(out)} {{\n"
            f"  %init = stablehlo.constant dense<{init}> : tensor<f32>\n"
            f"  %0 = \"stablehlo.reduce_window\"(%x, %init) <{{padding = "
            f"dense<[[0, 0], [{pad}, {pad}], [{pad}, {pad}], [0, 0]]> : "
            f"tensor<4x2xi64>, window_dimensions = array<i64: 1, {size}, "
            f"{size}, 1>, window_strides = array<i64: 1, {stride}, {stride}, "
            f"1>}}> ({{\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
            f"    %m = stablehlo.{body} %a, %b : tensor<f32>\n"
            f"    stablehlo.return %m : tensor<f32>\n  }}) : ({t(x)}, "
            f"tensor<f32>) -> {t(out)}\n  return %0 : {t(out)}\n}}\n")


# name, input NHWC, kernel HWIO, stride, padding, groups
CONVS = [
    ("LeNet conv1", (32, 28, 28, 1), (5, 5, 1, 6), 1, 0, 1),
    ("LeNet conv2", (32, 14, 14, 6), (5, 5, 6, 16), 1, 0, 1),
    ("ResNet stem 7x7/2 RGB", (2, 224, 224, 3), (7, 7, 3, 64), 2, 3, 1),
    ("RGB 3x3", (8, 64, 64, 3), (3, 3, 3, 32), 1, 1, 1),
    ("CIFAR RGB 3x3, 64", (32, 32, 32, 3), (3, 3, 3, 64), 1, 1, 1),
    ("MNIST 3x3 SAME, 32", (32, 28, 28, 1), (3, 3, 1, 32), 1, 1, 1),
    ("ResNet 3x3, 64", (8, 56, 56, 64), (3, 3, 64, 64), 1, 1, 1),
    ("ResNet 3x3, 128", (8, 28, 28, 128), (3, 3, 128, 128), 1, 1, 1),
    ("3x3 stride 2", (8, 56, 56, 64), (3, 3, 64, 128), 2, 1, 1),
    ("1x1, 256 to 64", (8, 28, 28, 256), (1, 1, 256, 64), 1, 0, 1),
    ("depthwise 3x3", (8, 56, 56, 64), (3, 3, 1, 64), 1, 1, 64),
    ("output layer 3x3, 64 to 3", (8, 64, 64, 64), (3, 3, 64, 3), 1, 1, 1),
    ("mask 3x3, 32 to 1", (4, 128, 128, 32), (3, 3, 32, 1), 1, 1, 1),
    ("odd sizes", (3, 17, 23, 5), (3, 3, 5, 7), 1, 1, 1),
    ("MobileNet 3x3, 24 to 40", (8, 28, 28, 24), (3, 3, 24, 40), 1, 1, 1),
    ("MobileNet 1x1, 40 to 24", (8, 28, 28, 40), (1, 1, 40, 24), 1, 0, 1),
    ("5x5, 12 to 20", (8, 32, 32, 12), (5, 5, 12, 20), 1, 2, 1),
]
# name, input NHWC, window, stride, padding, body
POOLS = [
    ("max pool 2x2", (8, 56, 56, 64), 2, 2, 0, "maximum"),
    ("sum pool 3x3 SAME", (8, 28, 28, 128), 3, 1, 1, "add"),
]


def main():
    kiln_run = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    print(cpu_name())
    print(f"one thread; median of {runs} calls; PyTorch {torch.__version__} "
          "eager (NCHW)")
    rng = np.random.default_rng(0)
    ratios = []

    def report(name, kiln, peer, got, want):
        error = relative_error(got, want)
        ratios.append(peer / kiln)
        print(f"{name:20s} kiln {kiln:9.3f} ms | torch {peer:9.3f} ms | "
              f"torch/kiln {100 * peer / kiln:6.1f}% | rel. diff. {error:.1e}")

    with tempfile.TemporaryDirectory() as tmp:
        for name, x, k, stride, pad, groups in CONVS:
            xs = rng.standard_normal(x).astype(np.float32)
            ks = rng.standard_normal(k).astype(np.float32)
            kiln, got = kiln_ms(kiln_run, tmp,
                                conv_program(x, k, stride, pad, groups),
                                [xs, ks], runs)
            tx = torch.from_numpy(xs).permute(0, 3, 1, 2).contiguous()
            tk = torch.from_numpy(ks).permute(3, 2, 0, 1).contiguous()
            call = lambda: torch.nn.functional.conv2d(
                tx, tk, stride=stride, padding=pad, groups=groups)
            peer = median_ms(call, runs)
            report(name, kiln, peer, got, call().permute(0, 2, 3, 1).numpy())
        for name, x, size, stride, pad, body in POOLS:
            xs = rng.standard_normal(x).astype(np.float32)
            init = "0xFF800000" if body == "maximum" else "0.0"
            kiln, got = kiln_ms(kiln_run, tmp,
                                pool_program(x, size, stride, pad, body, init),
                                [xs], runs)
            tx = torch.from_numpy(xs).permute(0, 3, 1, 2).contiguous()
            if body == "maximum":
                call = lambda: torch.nn.functional.max_pool2d(tx, size, stride)
            else:
                call = lambda: torch.nn.functional.avg_pool2d(
                    tx, size, stride, pad, count_include_pad=True) * (
                        size * size)
            peer = median_ms(call, runs)
            report(name, kiln, peer, got, call().permute(0, 2, 3, 1).numpy())
    print_torch_geometric_mean(ratios)


if __name__ == "__main__":
    main()
