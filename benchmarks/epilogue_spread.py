"""Matmuls with elementwise epilogues (dense layers), against PyTorch eager
and numpy in one run.

Each case is y = act(x @ w + b) (and, for the residual cases,
y = act(x @ w + b) + r), written in kiln as a dot_general followed by
elementwise ops; Kiln computes the epilogue on each block of the product
while it is in cache. PyTorch runs torch.addmm (bias added inside the GEMM)
and then the activation; numpy runs x @ w + b and the activation. Shapes: a
spread of layer sizes (MLP, transformer, classifier head, odd sizes from a
fixed seed), K below and above one cache tile, on 1 thread and on 2.
Prints the CPU, one row per case with the ratio best peer / Kiln (100% = as
fast as the fastest peer) and the geometric mean per thread count.

Usage: epilogue_spread.py KILN_RUN [N]   (N default 30)
"""
import math
import os
import sys
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import torch  # noqa: E402

from dot_spread import (cpu_name, geometric_mean, kiln_ms,  # noqa: E402
                        median_ms, set_torch_threads)
from matmul_spread import ttype  # noqa: E402

# (name, M, K, N, activation, residual)
CASES = [
    ("mlp 256x784x512 relu", 256, 784, 512, "relu", False),
    ("mlp 1024x1024x1024 relu", 1024, 1024, 1024, "relu", False),
    ("ffn 512x768x3072 gelu", 512, 768, 3072, "gelu", False),
    ("ffn out 512x3072x768 + residual", 512, 3072, 768, "none", True),
    ("head 256x512x10 none", 256, 512, 10, "none", False),
    ("short K 2048x128x512 tanh", 2048, 128, 512, "tanh", False),
    ("odd 257x129x63 relu", 257, 129, 63, "relu", False),
]
TWO_THREADS = ["mlp 1024x1024x1024 relu", "ffn 512x768x3072 gelu"]


def random_layers(count, seed=7):
    """`count` layers with sides drawn from [16, 1200) by a fixed seed."""
    rng = np.random.default_rng(seed)
    return [(f"random {m}x{k}x{n} relu", m, k, n, "relu", False)
            for m, k, n in (map(int, rng.integers(16, 1200, 3))
                            for _ in range(count))]


def kiln_activation(name, value, t):
    """kiln ops applying activation `name` to %`value` of type `t`; returns
    (text, result name)."""
    if name == "none":
        return "", value
    if name == "relu":
        return (f"  %zero = kiln.constant dense<0.0> : {t}\n"
                f"  %act = kiln.max %{value}, %zero : {t}\n"), "act"
    if name == "tanh":
        return f"  %act = kiln.tanh %{value} : {t}\n", "act"
    # gelu, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    return (f"  %c0 = kiln.constant dense<0.044715> : {t}\n"
            f"  %c1 = kiln.constant dense<0.7978845608> : {t}\n"
            f"  %one = kiln.constant dense<1.0> : {t}\n"
            f"  %half = kiln.constant dense<0.5> : {t}\n"
            f"  %x2 = kiln.mul %{value}, %{value} : {t}\n"
            f"  %x3 = kiln.mul %x2, %{value} : {t}\n"
            f"  %x3c = kiln.mul %x3, %c0 : {t}\n"
            f"  %in = kiln.add %{value}, %x3c : {t}\n"
            f"  %ins = kiln.mul %in, %c1 : {t}\n"
            f"  %th = kiln.tanh %ins : {t}\n"
            f"  %th1 = kiln.add %th, %one : {t}\n"
            f"  %hx = kiln.mul %{value}, %half : {t}\n"
            f"  %act = kiln.mul %hx, %th1 : {t}\n"), "act"


def program(m, k, n, activation, residual):
    tx, tw, tb, ty = (ttype((m, k), "f32"), ttype((k, n), "f32"),
                      ttype((n,), "f32"), ttype((m, n), "f32"))
    args = f"%x: {tx}, %w: {tw}, %b: {tb}" + (f", %r: {ty}" if residual else "")
    act, result = kiln_activation(activation, "s", ty)
    text = (f"func.func @dense({args}) -> {ty} {{\n"
            f"  %h = kiln.dot_general %x, %w, contracting = [1] x [0] : "
            f"({tx}, {tw}) -> {ty}\n"
            f"  %bb = kiln.broadcast_in_dim %b, dims = [1] : ({tb}) -> {ty}\n"
            f"  %s = kiln.add %h, %bb : {ty}\n" + act)
    if residual:
        text += f"  %y = kiln.add %{result}, %r : {ty}\n"
        result = "y"
    return text + f"  return %{result} : {ty}\n}}\n"


def numpy_activation(name, y):
    if name == "relu":
        return np.maximum(y, 0)
    if name == "tanh":
        return np.tanh(y)
    if name == "gelu":
        return 0.5 * y * (1 + np.tanh(0.7978845608 * (y + 0.044715 * y**3)))
    return y


def torch_activation(name):
    return {"relu": torch.relu, "tanh": torch.tanh, "none": lambda y: y,
            "gelu": lambda y: torch.nn.functional.gelu(
                y, approximate="tanh")}[name]


def measure(case, threads, kiln_run, tmp, runs, rng):
    name, m, k, n, activation, residual = case
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = (rng.standard_normal((k, n)) / math.sqrt(k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    r = rng.standard_normal((m, n)).astype(np.float32)
    args = [x, w, b] + ([r] if residual else [])
    kiln, got = kiln_ms(kiln_run, tmp, program(m, k, n, activation, residual),
                        args, runs, threads)
    want = numpy_activation(activation, x.astype(np.float64) @ w + b)
    want = want + r if residual else want
    error = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)
    set_torch_threads(threads)
    tx, tw, tb, tr = map(torch.from_numpy, (x, w, b, r))
    act = torch_activation(activation)
    peers = {"torch": median_ms(
        (lambda: act(torch.addmm(tb, tx, tw)) + tr) if residual
        else (lambda: act(torch.addmm(tb, tx, tw))), runs)}
    if threads == 1:
        peers["numpy"] = median_ms(
            (lambda: numpy_activation(activation, x @ w + b) + r) if residual
            else (lambda: numpy_activation(activation, x @ w + b)), runs)
    return kiln, peers, error


def main():
    kiln_run = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    print(cpu_name())
    print(f"peers: torch {torch.__version__} eager (addmm, then the "
          f"activation), numpy {np.__version__} (OpenBLAS); median of "
          f"{runs} calls")
    rng = np.random.default_rng(0)
    cases = CASES + random_layers(4)
    with tempfile.TemporaryDirectory() as tmp:
        for threads in (1, 2):
            ratios = []
            for case in cases:
                if threads == 2 and case[0] not in TWO_THREADS:
                    continue
                kiln, peers, error = measure(case, threads, kiln_run, tmp,
                                             runs, rng)
                if error > 1e-4:
                    raise RuntimeError(f"{case[0]}: Kiln's result is off by "
                                       f"{error}")
                best = min(peers, key=peers.get)
                ratio = peers[best] / kiln
                ratios.append(ratio)
                times = " ".join(f"{p} {t:7.3f}" for p, t in peers.items())
                print(f"{case[0]:34s} [{threads}t] kiln {kiln:7.3f} ms | "
                      f"{times} ms | {best}/kiln {100 * ratio:6.1f}%")
            mean = geometric_mean(ratios)
            print(f"geometric mean, {threads} thread(s): {100 * mean:.1f}% "
                  f"of the best peer")


if __name__ == "__main__":
    main()
