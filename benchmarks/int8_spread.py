"""Quantized matmuls: int8 x int8 accumulating in int32 (JAX's
dot_general with preferred_element_type=int32), on round, odd and thin
shapes, on one thread and then two (every peer on as many). Kiln
(kiln-run --bench) against oneDNN's dnnl_gemm_s8s8s32 (through ctypes; it
uses VNNI where the CPU has it) and PyTorch eager on the same values
widened to int32 (PyTorch has no int8 x int8 -> int32 matmul on the CPU).
Prints the CPU, one row per case with each time and the ratio peer / Kiln
(100% = as fast as the peer), on two threads Kiln's speedup over its own
one-thread time, and the geometric means; results are checked equal to
numpy's exact product.

Usage: int8_spread.py KILN_RUN [N]   (N default 20)
"""
import ctypes
import sys
import tempfile

import numpy as np
import torch

from dot_spread import (cpu_name, geometric_mean, kiln_ms, median_ms,
                        set_torch_threads)
from matmul_spread import OneDnn, operands, program, random_odd_shapes

# (name, M, K, N, layout), layouts as in matmul_spread: "nt" reads B as
# [N, K] (a PyTorch Linear's weight, x W^T), "tn" reads A as [K, M].
SHAPES = [
    ("256x512x256", 256, 512, 256, "nn"),
    ("1024^3", 1024, 1024, 1024, "nn"),
    ("batch 8 layer 8x784x512", 8, 784, 512, "nn"),
    ("odd 257x129x63", 257, 129, 63, "nn"),
    ("odd 333x517x111", 333, 517, 111, "nn"),
    ("thin 4096x256x10", 4096, 256, 10, "nn"),
    ("matvec 1024x1024x1", 1024, 1024, 1, "nn"),
    ("vecmat 1x1024x1024", 1, 1024, 1024, "nn"),
    ("weight [N,K] 256x1024x1024 (nt)", 256, 1024, 1024, "nt"),
    ("one row x W^T 1x1024x1024 (nt)", 1, 1024, 1024, "nt"),
] + random_odd_shapes(6, seed=8)


def onednn_call(lib, a, b, layout):
    """C = A B in int32 with dnnl_gemm_s8s8s32 (no offsets, alpha 1), A and
    B stored as `layout` says."""
    m = a.shape[1] if layout == "tn" else a.shape[0]
    n = b.shape[0] if layout == "nt" else b.shape[1]
    k = a.shape[0] if layout == "tn" else a.shape[1]
    c = np.empty((m, n), np.int32)
    offset = ctypes.c_int32(0)
    ta = b"T" if layout == "tn" else b"N"
    tb = b"T" if layout == "nt" else b"N"

    def call():
        status = lib.dnnl_gemm_s8s8s32(
            ta, tb, b"F", m, n, k, 1.0, a.ctypes.data, a.shape[1], 0,
            b.ctypes.data, b.shape[1], 0, 0.0, c.ctypes.data, n,
            ctypes.byref(offset))
        if status != 0:
            raise RuntimeError(f"oneDNN gemm failed with status {status}")
    return call, c


def main():
    kiln_run = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    onednn = OneDnn()
    lib = onednn.lib
    dim = ctypes.c_int64
    lib.dnnl_gemm_s8s8s32.argtypes = [
        ctypes.c_char, ctypes.c_char, ctypes.c_char, dim, dim, dim,
        ctypes.c_float, ctypes.c_void_p, dim, ctypes.c_int8, ctypes.c_void_p,
        dim, ctypes.c_int8, ctypes.c_float, ctypes.c_void_p, dim,
        ctypes.c_void_p]
    lib.dnnl_gemm_s8s8s32.restype = ctypes.c_int
    print(cpu_name())
    one_thread = {}
    with tempfile.TemporaryDirectory() as tmp:
        for threads in (1, 2):
            set_torch_threads(threads)
            onednn.set_threads(threads)
            print(f"{threads} thread(s); median of {runs} calls; "
                  f"{onednn.name} dnnl_gemm_s8s8s32; PyTorch "
                  f"{torch.__version__} on int32; every peer on {threads}")
            rng = np.random.default_rng(0)
            vs_onednn, vs_torch, speedups = [], [], []
            inexact = 0
            for name, m, k, n, layout in SHAPES:
                shape_a, shape_b, _, _ = operands(m, k, n, layout)
                a = rng.integers(-128, 128, shape_a).astype(np.int8)
                b = rng.integers(-128, 128, shape_b).astype(np.int8)
                wide_a, wide_b = (x.astype(np.int64) for x in (a, b))
                exact = ((wide_a.T if layout == "tn" else wide_a) @
                         (wide_b.T if layout == "nt" else wide_b))
                kiln, got = kiln_ms(kiln_run, tmp,
                                    program(m, k, n, layout, "i8", "i32"),
                                    [a, b], runs, threads)
                call, c = onednn_call(lib, a, b, layout)
                dnnl = median_ms(call, runs)
                ta, tb = (torch.from_numpy(x.astype(np.int32)) for x in (a, b))
                ta = ta.t() if layout == "tn" else ta
                tb = tb.t() if layout == "nt" else tb
                peer = median_ms(lambda: ta @ tb, runs)
                if not np.array_equal(got, exact):
                    raise SystemExit(f"{name}: Kiln's result differs from "
                                     f"numpy's")
                # Without VNNI, oneDNN's vpmaddubsw saturates pairs of
                # products at int16 (on an AMD Zen 3): its time stays in
                # the row and the means, flagged and counted.
                exact_peer = np.array_equal(c, exact)
                inexact += not exact_peer
                vs_onednn.append(dnnl / kiln)
                vs_torch.append(peer / kiln)
                line = (f"{name:33s} kiln {kiln:8.3f} ms | oneDNN {dnnl:8.3f} "
                        f"ms ({100 * dnnl / kiln:5.1f}%) | torch int32 "
                        f"{peer:8.3f} ms ({100 * peer / kiln:6.1f}%)")
                if not exact_peer:
                    line += " | oneDNN's result inexact"
                if threads == 1:
                    one_thread[name] = kiln
                else:
                    speedups.append(one_thread[name] / kiln)
                    line += f" | kiln 1t/2t {speedups[-1]:.2f}x"
                print(line)
            summary = (f"geometric mean: {100 * geometric_mean(vs_onednn):.1f}% "
                       f"of oneDNN, {100 * geometric_mean(vs_torch):.1f}% of "
                       f"PyTorch (int32), {len(SHAPES)} shapes")
            if inexact:
                summary += f"; oneDNN's result inexact in {inexact}"
            if speedups:
                summary += (f"; Kiln's two threads against its one: "
                            f"{min(speedups):.2f}-{max(speedups):.2f}x")
            print(summary)


if __name__ == "__main__":
    main()
