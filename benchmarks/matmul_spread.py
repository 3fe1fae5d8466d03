"""Matmuls on shapes nobody tuned for, against every peer in one run.

Kiln (kiln-run --bench) against numpy (OpenBLAS), PyTorch eager and oneDNN
(dnnl_sgemm / dnnl_gemm_bf16bf16f32 called through ctypes) on the same
arrays: the shapes of issue 11's table, random odd shapes drawn from a fixed
seed, the transposed forms a matmul's backward pass computes, matrix-vector
and vector-matrix products (one row or a few by a matrix of 16-64 MB, as
decoding one token at a time multiplies), bf16 operands accumulating in f32, on 1 thread
and on 2. Prints the CPU and the peers' kernels, one row per case with each
peer's time and the ratio best peer / Kiln (100% = as fast as the fastest
peer), the geometric mean per thread count, and draws the ratios per case
and peer as a PNG (matplotlib).

Usage: matmul_spread.py KILN_RUN [N] [--plot FILE.png]   (N default 30)
"""
import ctypes
import ctypes.util
import os
import sys
import tempfile

# Peers get the threads the case says, set below; idle OpenMP threads must
# sleep, not spin (see TOOLCHAIN.md).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import torch  # noqa: E402

from dot_spread import cpu_name, geometric_mean, kiln_ms, median_ms  # noqa: E402

# (name, M, K, N, layout): layout "nn" is A[M,K] B[K,N]; "tn" reads A
# transposed (A[K,M], the weight gradient X^T dY); "nt" reads B transposed
# (B[N,K], the input gradient dY W^T).
TABLE = [
    ("issue 100x100x100", 100, 100, 100, "nn"),
    ("issue 257x129x63", 257, 129, 63, "nn"),
    ("issue head 256x512x10", 256, 512, 10, "nn"),
    ("issue vecmat 1x1024x1024", 1, 1024, 1024, "nn"),
    ("issue 256x784x512", 256, 784, 512, "nn"),
    ("matvec 1024x1024x1", 1024, 1024, 1, "nn"),
    ("one row x W^T 1x1024x1024 (nt)", 1, 1024, 1024, "nt"),
    ("thin 256x784x2", 256, 784, 2, "nn"),
    ("thin 2000x300x5 (nt)", 2000, 300, 5, "nt"),
    ("thin 4096x512x8", 4096, 512, 8, "nn"),
    ("square 1024^3", 1024, 1024, 1024, "nn"),
    ("backward dW 784x256x512 (tn)", 784, 256, 512, "tn"),
    ("backward dX 256x512x784 (nt)", 256, 512, 784, "nt"),
    ("attention scores 128x64x128 (nt)", 128, 64, 128, "nt"),
    ("ffn up 256x1024x4096", 256, 1024, 4096, "nn"),
    ("ffn down 256x4096x1024", 256, 4096, 1024, "nn"),
    ("square 2048^3", 2048, 2048, 2048, "nn"),
    ("decode vecmat 1x4096x4096", 1, 4096, 4096, "nn"),
    ("few rows 5x2048x2048", 5, 2048, 2048, "nn"),
    ("decode batch 8x4096x4096", 8, 4096, 4096, "nn"),
    ("small batch 64x1024x1024", 64, 1024, 1024, "nn"),
    ("small batch 20x3000x1500", 20, 3000, 1500, "nn"),
]
BF16 = [("bf16 256x784x512", 256, 784, 512, "nn"),
        ("bf16 1024^3", 1024, 1024, 1024, "nn"),
        ("bf16 257x129x63", 257, 129, 63, "nn"),
        ("bf16 thin 256x784x2", 256, 784, 2, "nn")]
TWO_THREADS = ["issue 257x129x63", "issue 256x784x512", "square 1024^3",
               "backward dW 784x256x512 (tn)", "backward dX 256x512x784 (nt)",
               "ffn up 256x1024x4096", "decode vecmat 1x4096x4096",
               "random 493x633x505 (nn)",
               "random 450x249x581 (nt)", "bf16 256x784x512", "bf16 1024^3"]


def random_odd_shapes(count, seed=2026):
    """`count` shapes with sides drawn from [1, 700) by a fixed seed: nobody
    picked them, so nobody tuned for them."""
    rng = np.random.default_rng(seed)
    shapes = []
    for _ in range(count):
        m, k, n = (int(x) for x in rng.integers(1, 700, 3))
        layout = ["nn", "tn", "nt"][int(rng.integers(0, 3))]
        shapes.append((f"random {m}x{k}x{n} ({layout})", m, k, n, layout))
    return shapes


def ttype(shape, element):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def operands(m, k, n, layout):
    """The stored shapes of A and B and dot_general's contracting dims."""
    a = (k, m) if layout == "tn" else (m, k)
    b = (n, k) if layout == "nt" else (k, n)
    return a, b, [0 if layout == "tn" else 1], [1 if layout == "nt" else 0]


def program(m, k, n, layout, element, result="f32"):
    a, b, lc, rc = operands(m, k, n, layout)
    ta, tb, tr = ttype(a, element), ttype(b, element), ttype((m, n), result)
    return (f"func.func @mm(%a: {ta}, %b: {tb}) -> {tr} {{\n"
            f"  %r = kiln.dot_general %a, %b, contracting = {lc} x {rc} : "
            f"({ta}, {tb}) -> {tr}\n  return %r : {tr}\n}}\n")


def to_bf16(x):
    """float32 rounded to bf16 (nearest even), as float32."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


# dnnl_status_t's dnnl_unimplemented.
DNNL_UNIMPLEMENTED = 3


class OneDnn:
    """oneDNN's GEMM entry points (row-major, C API) through ctypes."""

    def __init__(self):
        path = ctypes.util.find_library("dnnl") or "libdnnl.so.2"
        self.lib = ctypes.CDLL(path)
        dim, f32 = ctypes.c_int64, ctypes.c_float
        args = [ctypes.c_char, ctypes.c_char, dim, dim, dim, f32,
                ctypes.c_void_p, dim, ctypes.c_void_p, dim, f32,
                ctypes.c_void_p, dim]
        for name in ("dnnl_sgemm", "dnnl_gemm_bf16bf16f32"):
            getattr(self.lib, name).argtypes = args
            getattr(self.lib, name).restype = ctypes.c_int
        gomp = ctypes.CDLL(ctypes.util.find_library("gomp") or "libgomp.so.1")
        self.set_threads = gomp.omp_set_num_threads

        class Version(ctypes.Structure):
            _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int),
                        ("patch", ctypes.c_int)]
        self.lib.dnnl_version.restype = ctypes.POINTER(Version)
        v = self.lib.dnnl_version().contents
        self.name = f"oneDNN {v.major}.{v.minor}.{v.patch}"

    def gemm(self, a, b, layout, bf16):
        """A call computing C = op(A) op(B) into a buffer of its own, and the
        buffer; (None, None) where oneDNN has no kernel for it on this CPU
        (bf16 without AVX-512)."""
        m = a.shape[1] if layout == "tn" else a.shape[0]
        n = b.shape[0] if layout == "nt" else b.shape[1]
        k = a.shape[0] if layout == "tn" else a.shape[1]
        if bf16:
            a = (a.view(np.uint32) >> 16).astype(np.uint16)
            b = (b.view(np.uint32) >> 16).astype(np.uint16)
        c = np.empty((m, n), np.float32)
        ta = b"T" if layout == "tn" else b"N"
        tb = b"T" if layout == "nt" else b"N"
        fn = self.lib.dnnl_gemm_bf16bf16f32 if bf16 else self.lib.dnnl_sgemm
        lda, ldb = a.shape[1], b.shape[1]

        def status():
            # The closure keeps the (converted) arrays alive.
            return fn(ta, tb, m, n, k, 1.0, a.ctypes.data, lda,
                      b.ctypes.data, ldb, 0.0, c.ctypes.data, n)

        def call():
            if (code := status()) != 0:
                raise RuntimeError(f"oneDNN gemm failed with status {code}")
        if status() == DNNL_UNIMPLEMENTED:
            return None, None
        return call, c


def torch_call(a, b, layout, bf16):
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    if bf16:
        ta, tb = ta.bfloat16(), tb.bfloat16()
    ta = ta.t() if layout == "tn" else ta
    tb = tb.t() if layout == "nt" else tb
    return lambda: torch.matmul(ta, tb)


def numpy_call(a, b, layout):
    a = a.T if layout == "tn" else a
    b = b.T if layout == "nt" else b
    return lambda: a @ b


def measure(case, threads, bf16, kiln_run, tmp, runs, onednn, rng):
    name, m, k, n, layout = case
    shape_a, shape_b, _, _ = operands(m, k, n, layout)
    a = rng.standard_normal(shape_a).astype(np.float32)
    b = rng.standard_normal(shape_b).astype(np.float32)
    if bf16:
        a, b = to_bf16(a), to_bf16(b)
    kiln, got = kiln_ms(kiln_run, tmp, program(m, k, n, layout,
                                               "bf16" if bf16 else "f32"),
                        [a, b], runs, threads)
    want = numpy_call(a.astype(np.float64), b.astype(np.float64), layout)()
    error = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)
    # OpenBLAS stays on one thread (set above, for numpy): on two vCPUs its
    # workers, spinning after PyTorch's products, took oneDNN's second
    # thread (set_torch_threads made oneDNN's two-thread cases run at its
    # one-thread speed); oneDNN is the two-thread peer here.
    torch.set_num_threads(threads)
    onednn.set_threads(threads)
    peers = {"torch": median_ms(torch_call(a, b, layout, bf16), runs)}
    call, c = onednn.gemm(a, b, layout, bf16)
    if call:
        peers["oneDNN"] = median_ms(call, runs)
        onednn_error = (np.max(np.abs(c - want)) /
                        max(np.max(np.abs(want)), 1e-30))
        if onednn_error > 1e-3:
            raise RuntimeError(f"{name}: oneDNN's result is off by "
                               f"{onednn_error}")
    if not bf16 and threads == 1:
        peers["numpy"] = median_ms(numpy_call(a, b, layout), runs)
    return kiln, peers, error


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("no plot: matplotlib is not installed (python3-matplotlib)")
        return
    names = [f"{r[0]} [{r[1]}t]" for r in rows]
    peers = ["numpy", "torch", "oneDNN"]
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(rows) + 1.5))
    height = 0.8 / len(peers)
    for i, peer in enumerate(peers):
        ratios = [100 * r[3][peer] / r[2] if peer in r[3] else 0 for r in rows]
        ax.barh([y + i * height for y in range(len(rows))], ratios, height,
                label=f"{peer} time / Kiln time")
    ax.axvline(100, color="black", linewidth=0.8)
    ax.set_yticks([y + height for y in range(len(rows))])
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xticks([12.5, 25, 50, 100, 200, 400, 800])
    ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_xlabel("peer time / Kiln time, % (right of 100: Kiln faster)")
    ax.set_title(f"Kiln matmuls vs peers, {cpu_name()}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot: {path}")


def main():
    args = [a for a in sys.argv[1:]]
    plot_path = "matmul_spread.png"
    if "--plot" in args:
        plot_path = args.pop(args.index("--plot") + 1)
        args.remove("--plot")
    kiln_run = args[0]
    runs = int(args[1]) if len(args) > 1 else 30
    onednn = OneDnn()
    print(cpu_name())
    print(f"median of {runs} calls; peers: numpy {np.__version__} "
          f"(OpenBLAS, coretype {os.environ.get('OPENBLAS_CORETYPE', 'auto')}, "
          f"1 thread only), PyTorch {torch.__version__} eager "
          f"(torch.matmul; bf16 through oneDNN, results in bf16), "
          f"{onednn.name} (dnnl_sgemm, dnnl_gemm_bf16bf16f32)")
    rng = np.random.default_rng(0)
    cases = [(c, False) for c in TABLE + random_odd_shapes(8)] + \
        [(c, True) for c in BF16]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for threads in (1, 2):
            ratios = []
            for case, bf16 in cases:
                if threads == 2 and case[0] not in TWO_THREADS:
                    continue
                kiln, peers, error = measure(case, threads, bf16, kiln_run,
                                             tmp, runs, onednn, rng)
                best = min(peers, key=peers.get)
                ratio = peers[best] / kiln
                ratios.append(ratio)
                rows.append((case[0], threads, kiln, peers))
                shown = " ".join(f"{p} {t:8.4f}" for p, t in peers.items())
                print(f"{threads}t {case[0]:34s} kiln {kiln:8.4f} ms | "
                      f"{shown} | best {best} / kiln {100 * ratio:6.1f}% | "
                      f"rel. error {error:.1e}")
            mean = geometric_mean(ratios)
            print(f"{threads} thread(s): geometric mean of best peer / kiln "
                  f"{100 * mean:.1f}% over {len(ratios)} cases (min "
                  f"{100 * min(ratios):.1f}%, max {100 * max(ratios):.1f}%)")
    plot(rows, plot_path)


if __name__ == "__main__":
    main()
