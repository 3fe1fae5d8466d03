"""GPU benchmarks: Kiln beside PyTorch on the same GPU, in the same run.

usage: python3 bench.py BUNDLE [FOLDER] (made by scripts/gpu-check.sh
bundle; FOLDER, default bench, holds the compiled programs: another one
compares a variant of the compiler on the programs it holds)

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
folder = os.path.join(bundle, sys.argv[2] if len(sys.argv) > 2 else "bench")
CALLS = 30


def kiln_ms(name, args):
    """Median ms per call of bench/NAME.so's entry NAME on `args`, and the
    entry's result."""
    with tempfile.TemporaryDirectory() as tmp:
        inputs = os.path.join(tmp, "in.npz")
        outputs = os.path.join(tmp, "out.npz")
        np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(args)})
        done = subprocess.run(
            [os.path.join(bundle, "kiln-run"),
             os.path.join(folder, name + ".so"), "--entry", name,
             "--input", inputs, "--output", outputs, "--bench", str(CALLS)],
            capture_output=True, text=True,
            env=dict(os.environ, LD_LIBRARY_PATH=bundle))
        found = re.search(r"median ([0-9.]+) ms", done.stdout)
        if not found:
            raise RuntimeError(f"{name}: {done.stderr.strip()}")
        with np.load(outputs) as out:
            return float(found.group(1)), out["out0"]


def relative_error(ours, theirs):
    """max |ours - theirs| relative to max |theirs|."""
    theirs = theirs.double().cpu().numpy()
    scale = max(float(np.abs(theirs).max()), 1e-30)
    return float(np.abs(ours.astype(np.float64) - theirs).max()) / scale


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
    normal = lambda *shape: rng.standard_normal(shape, dtype=np.float32)
    x = normal(4096, 4096)
    a, b, c = (np.array(v, np.float32) for v in (0.5, 0.25, 2.0))
    m1, m2 = normal(1024, 1024), normal(1024, 1024)
    big1, big2 = normal(4096, 4096), normal(4096, 4096)
    odd1, odd2 = normal(1000, 300), normal(300, 777)
    q, k = normal(32, 512, 64), normal(32, 64, 512)
    wide = normal(8192, 1000)
    logits = normal(4096, 1000)
    cuda = lambda *arrays: [torch.from_numpy(t).cuda() for t in arrays]
    tx, tm1, tm2, tb1, tb2, to1, to2, tq, tk, tw, tl = cuda(
        x, m1, m2, big1, big2, odd1, odd2, q, k, wide, logits)
    half1, half2 = tb1.bfloat16(), tb2.bfloat16()
    flops = lambda m, n, k, batch=1: 2 * m * n * k * batch
    rows = [
        ("tanh(a*x+b)*c, 16M f32", "chain", [x, a, b, c],
         lambda: torch.tanh(0.5 * tx + 0.25) * 2.0, 2 * x.nbytes, "GB/s"),
        ("row sums 4096x4096 f32", "rowsum", [x],
         lambda: tx.sum(dim=1), x.nbytes, "GB/s"),
        ("row maxima 8192x1000 f32", "rowmax_odd", [wide],
         lambda: tw.amax(dim=1), wide.nbytes, "GB/s"),
        ("column sums 4096x4096 f32", "colsum", [x],
         lambda: tx.sum(dim=0), x.nbytes, "GB/s"),
        ("sum of 4096x4096 f32", "fullsum", [x],
         lambda: tx.sum(), x.nbytes, "GB/s"),
        ("softmax rows 4096x1000 f32", "softmax", [logits],
         lambda: torch.softmax(tl, dim=1), 2 * logits.nbytes, "GB/s"),
        ("matmul 1024^3 f32 (no TF32)", "matmul", [m1, m2],
         lambda: tm1 @ tm2, flops(1024, 1024, 1024), "TFLOP/s"),
        ("matmul 4096^3 f32 (no TF32)", "matmul4096", [big1, big2],
         lambda: tb1 @ tb2, flops(4096, 4096, 4096), "TFLOP/s"),
        ("matmul 1000x300x777 f32", "matmul_odd", [odd1, odd2],
         lambda: to1 @ to2, flops(1000, 777, 300), "TFLOP/s"),
        ("matmul 4096^3 bf16 -> f32", "matmul_bf16", [big1, big2],
         lambda: half1 @ half2,
         flops(4096, 4096, 4096), "TFLOP/s"),
        ("batched matmul 32x512x64x512 f32", "bmm", [q, k],
         lambda: torch.bmm(tq, tk), flops(512, 512, 64, 32), "TFLOP/s"),
    ]
    print(f"{'case':32} {'kiln ms':>9} {'torch ms':>9} {'kiln rate':>12} "
          f"{'torch rate':>12} {'kiln/torch speed':>17} {'rel. error':>10}")
    for label, name, args, peer, work, unit in rows:
        if not os.path.exists(os.path.join(folder, name + ".so")):
            continue
        ours, result = kiln_ms(name, args)
        theirs = torch_ms(peer)
        error = relative_error(result, peer())
        scale = 1e-9 if unit == "GB/s" else 1e-12
        rate = lambda ms: work / (ms * 1e-3) * scale
        print(f"{label:32} {ours:9.3f} {theirs:9.3f} {rate(ours):8.1f} "
              f"{unit:>3} {rate(theirs):8.1f} {unit:>3} "
              f"{theirs / ours:16.2f}x {error:10.1e}")


main()
