"""kiln.dot_general in every layout against numpy (OpenBLAS, one thread):
transposed operands, matrix-vector products, batch dimensions that do not
lead, several contracting dimensions, odd sizes; f32 and f64. Each case is timed with
kiln-run --bench (median of N calls into the same results) and numpy's
einsum with optimize=True (BLAS) on the same arrays; prints the CPU and one
row per case with the ratio numpy/kiln (100% = as fast as numpy).

Usage: dot_spread.py KILN_RUN [N]   (default 50)
"""
import ctypes
import math
import os
import platform
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

# name, lhs shape, rhs shape, lhs batch, rhs batch, lhs contract, rhs
# contract, einsum subscripts.
CASES = [
    ("nn 256x256x256", (256, 256), (256, 256), [], [], [1], [0], "mk,kn->mn"),
    ("nt 32x256 . 256x256^T", (32, 256), (256, 256), [], [], [1], [1], "mk,nk->mn"),
    ("tn 32x256^T . 32x256", (32, 256), (32, 256), [], [], [0], [0], "km,kn->mn"),
    ("tt 200x96^T . 130x200^T", (200, 96), (130, 200), [], [], [0], [1], "km,nk->mn"),
    ("matvec 512x512 . 512", (512, 512), (512,), [], [], [1], [0], "mk,k->m"),
    ("vecmat 512 . 512x512", (512,), (512, 512), [], [], [0], [0], "k,kn->n"),
    ("odd nt 127x333 . 65x333^T", (127, 333), (65, 333), [], [], [1], [1], "mk,nk->mn"),
    ("batch mid 64x8x32 . 8x32x64", (64, 8, 32), (8, 32, 64), [1], [0], [2], [1], "mbk,bkn->bmn"),
    ("attention 8x128x64 . 8x128x64^T", (8, 128, 64), (8, 128, 64), [0], [0], [2], [2], "bmk,bnk->bmn"),
    ("two contracting 16x32x64 . 32x64x48", (16, 32, 64), (32, 64, 48), [], [], [1, 2], [0, 1], "mij,ijn->mn"),
    ("f64 nn 256x256x256", (256, 256), (256, 256), [], [], [1], [0], "mk,kn->mn"),
    ("f64 odd nt 127x333 . 65x333^T", (127, 333), (65, 333), [], [], [1], [1], "mk,nk->mn"),
]


def result_shape(lhs, rhs, lb, rb, lc, rc):
    free_l = [d for i, d in enumerate(lhs) if i not in lb and i not in lc]
    free_r = [d for i, d in enumerate(rhs) if i not in rb and i not in rc]
    return [lhs[i] for i in lb] + free_l + free_r


def ttype(shape, element="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def program(lhs, rhs, lb, rb, lc, rc, element):
    out = result_shape(lhs, rhs, lb, rb, lc, rc)
    a, b, r = ttype(lhs, element), ttype(rhs, element), ttype(out, element)
    batching = f"batching = {lb} x {rb}, " if lb else ""
    return (f"func.func @dot(%a: {a}, %b: {b}) -> {r} {{\n"
            f"  %d = kiln.dot_general %a, %b, {batching}contracting = {lc} x {rc} : "
            f"({a}, {b}) -> {r}\n"
            f"  return %d : {r}\n}}\n")


def median_ms(call, runs):
    """The median of `runs` timed calls of `call`, after one untimed."""
    call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return sorted(times)[runs // 2] * 1e3


def numpy_ms(subscripts, a, b, runs):
    path = np.einsum_path(subscripts, a, b, optimize="optimal")[0]
    return median_ms(lambda: np.einsum(subscripts, a, b, optimize=path), runs)


def _openblas_libraries():
    """The OpenBLAS libraries loaded in this process (numpy's and PyTorch's
    BLAS here: Debian's pthread build, as libblas.so.3 and under its own
    name), each with openblas_set_num_threads."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f
                 if "openblas" in line and ".so" in line}
    libraries = []
    for path in sorted(paths):
        library = ctypes.CDLL(path)
        if hasattr(library, "openblas_set_num_threads"):
            libraries.append(library)
    return libraries


def set_torch_threads(threads):
    """PyTorch's threads: torch.set_num_threads, and OpenBLAS's own pool,
    which runs PyTorch's matmuls here and which torch.set_num_threads does
    not govern (with it alone, a "one-thread" MLP step ran its products on
    two: 2.6-4.1 ms where one thread takes 4.7)."""
    import torch
    torch.set_num_threads(threads)
    for library in _openblas_libraries():
        library.openblas_set_num_threads(threads)


def geometric_mean(values):
    """The geometric mean of positive `values` (ratios to a peer)."""
    return math.exp(sum(map(math.log, values)) / len(values))


def print_torch_geometric_mean(ratios):
    """Prints the geometric mean of `ratios` (PyTorch's time over Kiln's)."""
    print(f"geometric mean of torch/kiln: {100 * geometric_mean(ratios):.1f}% "
          f"over {len(ratios)} cases")


def relative_error(got, want):
    """The largest difference of `got` from `want`, relative to `want`'s
    largest magnitude."""
    return np.max(np.abs(got - want)) / np.max(np.abs(want))


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def torch_spread_arguments(default_runs, threads="one thread"):
    """KILN_RUN and the calls timed per case (argv[2], else
    `default_runs`) of a spread against PyTorch eager; prints the CPU and
    how each case is timed (on `threads`)."""
    import torch
    kiln_run = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else default_runs
    print(cpu_name())
    print(f"{threads}; median of {runs} calls; PyTorch {torch.__version__} "
          "eager")
    return kiln_run, runs


def kiln_ms(kiln_run, tmp, source_text, args, runs, threads=1):
    """Times the first function of `source_text` on `args` with kiln-run
    --bench on `threads` threads, its files in folder `tmp`: (median ms,
    its first result)."""
    source = os.path.join(tmp, "case.mlir")
    inputs = os.path.join(tmp, "in.npz")
    outputs = os.path.join(tmp, "out.npz")
    with open(source, "w") as f:
        f.write(source_text)
    np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(args)})
    entry = source_text.split("func.func @", 1)[1].split("(", 1)[0]
    # $KILN_CPU_OPTIONS: kiln-to-cpu-pipeline options, for comparing
    # schedules in runs alternated on the same machine.
    options = os.environ.get("KILN_CPU_OPTIONS")
    done = subprocess.run([kiln_run, source, "--entry", entry, "--input",
                           inputs, "--output", outputs, "--bench", str(runs),
                           "--threads", str(threads)] +
                          (["--cpu-options", options] if options else []),
                          capture_output=True, text=True, check=True)
    with np.load(outputs) as f:
        return float(done.stdout.split("median ")[1].split()[0]), f["out0"]


def main():
    kiln_run = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    print(cpu_name())
    print(f"one thread; median of {runs} calls; numpy einsum (BLAS)")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        for name, lhs, rhs, lb, rb, lc, rc, subscripts in CASES:
            element = "f64" if name.startswith("f64") else "f32"
            a = rng.standard_normal(lhs).astype(element.replace("f", "float"))
            b = rng.standard_normal(rhs).astype(element.replace("f", "float"))
            source = program(lhs, rhs, lb, rb, lc, rc, element)
            kiln, got = kiln_ms(kiln_run, tmp, source, [a, b], runs)
            want = np.einsum(subscripts, a.astype(np.float64), b.astype(np.float64))
            error = relative_error(got, want)
            peer = numpy_ms(subscripts, a, b, runs)
            flop = 2 * np.prod(result_shape(lhs, rhs, lb, rb, lc, rc)) * np.prod([lhs[i] for i in lc])
            print(f"{name:38s} kiln {kiln:8.4f} ms {flop / kiln / 1e6:6.1f} GFLOP/s | "
                  f"numpy {peer:8.4f} ms | numpy/kiln {100 * peer / kiln:6.1f}% | "
                  f"rel. error {error:.1e}")


if __name__ == "__main__":
    main()
