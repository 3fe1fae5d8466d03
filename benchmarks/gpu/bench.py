"""GPU benchmarks: Kiln beside PyTorch on the same GPU, in the same run.

usage: python3 bench.py BUNDLE (made by scripts/gpu-check.sh bundle)

Both sides are timed the same way: host wall time per call, synchronized
(Kiln's entries synchronize before returning), median of N calls after a
warm-up. Prints time, rate and Kiln's speed relative to PyTorch."""
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

bundle = sys.argv[1]
CALLS = 30


def kiln_ms(name, args):
    """Median ms per call of bench/NAME.so's entry NAME on `args`."""
    with tempfile.TemporaryDirectory() as tmp:
        inputs = os.path.join(tmp, "in.npz")
        np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(args)})
        done = subprocess.run(
            [os.path.join(bundle, "kiln-run"),
             os.path.join(bundle, "bench", name + ".so"), "--entry", name,
             "--input", inputs, "--bench", str(CALLS)],
            capture_output=True, text=True,
            env=dict(os.environ, LD_LIBRARY_PATH=bundle))
    found = re.search(r"median ([0-9.]+) ms", done.stdout)
    if not found:
        raise RuntimeError(f"{name}: {done.stderr.strip()}")
    return float(found.group(1))


def torch_ms(function):
    """Median ms per synchronized call of `function`, as kiln-run times."""
    import torch
    for _ in range(3):
        function()
    torch.cuda.synchronize()
    times = []
    for _ in range(CALLS):
        start = time.perf_counter()
        function()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[len(times) // 2]


def main():
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    print("GPU:", torch.cuda.get_device_name(0), "| torch", torch.__version__)
    print("CPU:", next((line.split(":", 1)[1].strip()
                        for line in open("/proc/cpuinfo")
                        if line.startswith("model name")), "unknown"))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 4096), dtype=np.float32)
    a, b, c = (np.array(v, np.float32) for v in (0.5, 0.25, 2.0))
    m1 = rng.standard_normal((1024, 1024), dtype=np.float32)
    m2 = rng.standard_normal((1024, 1024), dtype=np.float32)
    tx, tm1, tm2 = (torch.from_numpy(t).cuda() for t in (x, m1, m2))
    rows = [
        ("tanh(a*x+b)*c, 16M f32", "chain", [x, a, b, c],
         lambda: torch.tanh(0.5 * tx + 0.25) * 2.0, 2 * x.nbytes, "GB/s"),
        ("row sums 4096x4096 f32", "rowsum", [x],
         lambda: tx.sum(dim=1), x.nbytes, "GB/s"),
        ("matmul 1024^3 f32 (no TF32)", "matmul", [m1, m2],
         lambda: tm1 @ tm2, 2 * 1024**3, "TFLOP/s"),
    ]
    print(f"{'case':32} {'kiln ms':>9} {'torch ms':>9} {'kiln rate':>12} "
          f"{'torch rate':>12} {'kiln/torch speed':>17}")
    for label, name, args, peer, work, unit in rows:
        ours = kiln_ms(name, args)
        theirs = torch_ms(peer)
        scale = 1e-9 if unit == "GB/s" else 1e-12
        rate = lambda ms: work / (ms * 1e-3) * scale
        print(f"{label:32} {ours:9.3f} {theirs:9.3f} {rate(ours):8.1f} "
              f"{unit:>3} {rate(theirs):8.1f} {unit:>3} "
              f"{theirs / ours:16.2f}x")


main()
