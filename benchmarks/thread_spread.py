"""Kiln on 1 and 2 threads (kiln-run --threads) against PyTorch eager on 1
and 2 threads (torch.set_num_threads), side by side in one run: matmuls
from small to large (odd and thin ones too), elementwise chains from
256K to 4M elements, softmax and layer norm. Prints the CPU, one row per
case (Kiln's speedup from 1 to 2 threads; the ratio torch/kiln at 2
threads, 100% = as fast as PyTorch) and the geometric means. Ops Kiln
estimates below 150 us run on one thread (waking sleeping threads costs
tens of microseconds), so small cases show a speedup near 1.

Usage: thread_spread.py KILN_RUN [N]   (default 30)
"""
import os
import sys
import tempfile

# PyTorch's OpenMP threads must sleep, not spin, when idle (see TOOLCHAIN).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402
import torch  # noqa: E402

from dot_spread import (cpu_name, geometric_mean, kiln_ms,  # noqa: E402
                        median_ms, relative_error, set_torch_threads, ttype)
from norm_spread import layer_norm, softmax, torch_layer_norm, torch_softmax  # noqa: E402


def matmul(m, k, n):
    a, b, r = ttype((m, k)), ttype((k, n)), ttype((m, n))
    return (f"func.func @f(%a: {a}, %b: {b}) -> {r} {{\n"
            f"  %r = kiln.dot_general %a, %b, contracting = [1] x [0] : "
            f"({a}, {b}) -> {r}\n  return %r : {r}\n}}\n")


def chain(n):
    t = ttype((n,))
    return (f"func.func @f(%x: {t}) -> {t} {{\n"
            f"  %s = kiln.add %x, %x : {t}\n  %h = kiln.tanh %s : {t}\n"
            f"  %r = kiln.mul %h, %x : {t}\n  return %r : {t}\n}}\n")


def torch_chain(x):
    return torch.tanh(x + x) * x


# name, kiln program, torch function, argument shapes.
CASES = [(f"matmul {m}x{k}x{n}", matmul(m, k, n), torch.matmul,
          [(m, k), (k, n)])
         for m, k, n in [(128, 128, 128), (256, 256, 256), (257, 600, 300),
                         (512, 512, 512), (1024, 1024, 1024), (1, 4096, 4096),
                         (4096, 256, 10)]]
CASES += [(f"tanh(2x)*x {n}", chain(n), torch_chain, [(n,)])
          for n in [1 << 18, 1 << 20, 1 << 22]]
CASES += [(f"softmax {m}x{n}", softmax((m, n)), torch_softmax, [(m, n)])
          for m, n in [(512, 1000), (2048, 1000)]]
CASES += [(f"layer norm {m}x{n}", layer_norm((m, n)), torch_layer_norm,
           [(m, n), (n,), (n,)]) for m, n in [(1024, 768), (4096, 1024)]]


def main():
    kiln_run = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    print(cpu_name())
    print(f"median of {runs} calls; PyTorch {torch.__version__} eager")
    rng = np.random.default_rng(0)
    speedups, ratios = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, source, reference, shapes in CASES:
            args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
            tensors = [torch.from_numpy(a) for a in args]
            kiln, peer = {}, {}
            for threads in (1, 2):
                kiln[threads], got = kiln_ms(kiln_run, tmp, source, args, runs,
                                             threads)
                set_torch_threads(threads)
                peer[threads] = median_ms(lambda: reference(*tensors), runs)
                want = reference(*[t.double() for t in tensors]).numpy()
                error = relative_error(got, want)
                if error > 1e-3:
                    sys.exit(f"{name}: Kiln's result is off by {error:.1e}")
            speedups.append(kiln[1] / kiln[2])
            ratios.append(peer[2] / kiln[2])
            print(f"{name:22s} kiln {kiln[1]:8.4f} / {kiln[2]:8.4f} ms "
                  f"(x{speedups[-1]:4.2f}) | torch {peer[1]:8.4f} / "
                  f"{peer[2]:8.4f} ms | 2 threads torch/kiln "
                  f"{100 * ratios[-1]:6.1f}%")
    for what, values in [("Kiln's 2-thread speedup", speedups),
                         ("torch/kiln at 2 threads", ratios)]:
        geomean = geometric_mean(values)
        print(f"geometric mean of {what}: {geomean:.2f} over {len(values)} "
              f"cases (min {min(values):.2f}, max {max(values):.2f})")


if __name__ == "__main__":
    main()
