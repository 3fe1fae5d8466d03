"""Sorts in the form JAX exports them (`stablehlo.sort` with jnp.sort's
comparator, which canonicalizes NaN and -0.0 and compares in TOTALORDER;
jnp.argsort's, which carries an iota; a descending integer sort), imported
by kiln-run, against numpy's stable sort and PyTorch's `torch.sort(stable=
True)` on one thread, at shapes models sort: rows of a vocabulary (top-p
sampling), of a batch of scores, odd lengths. Each case is timed with
kiln-run --bench (median of N calls) and the median of N peer calls on the
same array, and checked equal to numpy's; prints the CPU and one row per
case with the ratio best peer / kiln (100% = as fast as the faster peer)
and the geometric mean.

Usage: sort_spread.py KILN_RUN [N]   (default 20)
"""
import os
import sys
import tempfile

import numpy as np
import torch

from dot_spread import (cpu_name, geometric_mean, kiln_ms, median_ms,
                        set_torch_threads)

# jnp.sort's comparator, as the end-to-end tests write it.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "e2e"))
from harness import comparator_float  # noqa: E402

set_torch_threads(1)


def t(shape, element):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def sort_program(shape, kind):
    """The module of one sort along the last axis: "sort" (floats),
    "argsort" (floats and an iota, the indices returned) or "int desc"."""
    dim = len(shape) - 1
    if kind == "int desc":
        types, scalars = [t(shape, "i32")], ["tensor<i32>"]
        body = ["%lt = stablehlo.compare  GT, %p0, %q0,  SIGNED : "
                "(tensor<i32>, tensor<i32>) -> tensor<i1>"]
    else:
        types, scalars = [t(shape, "f32")], ["tensor<f32>"]
        body = comparator_float("tensor<f32>", "p0", "q0")
    iota = ""
    args = "%x"
    if kind == "argsort":
        types.append(t(shape, "i32"))
        scalars.append("tensor<i32>")
        iota = f"%i = stablehlo.iota dim = {dim} : {types[1]}\n    "
        args = "%x, %i"
    block = ", ".join(f"%p{k}: {s}, %q{k}: {s}" for k, s in enumerate(scalars))
    lines = "\n      ".join(body)
    results = ", ".join(types)
    out = f"%0#{len(types) - 1}"
    return f'''func.func @main(%x: {types[0]}) -> {types[-1]} {{
    {iota}%0:{len(types)} = "stablehlo.sort"({args}) <{{dimension = {dim} : i64, is_stable = true}}> ({{
    ^bb0({block}):
      {lines}
      stablehlo.return %lt : tensor<i1>
    }}) : ({results}) -> ({results})
    return {out} : {types[-1]}
}}
'''


CASES = [
    ("sort", (256, 1024)),
    ("sort", (1, 50257)),
    ("sort", (64, 50257)),
    ("sort", (1000, 37)),
    ("sort", (4096, 128)),
    ("sort", (8, 65536)),
    ("sort", (33, 4099)),
    ("argsort", (256, 1000)),
    ("argsort", (1, 50257)),
    ("argsort", (100, 257)),
    ("int desc", (512, 1000)),
    ("int desc", (16, 10007)),
]


def peers(kind, x):
    """numpy's and PyTorch's stable sorts of `x`'s rows, as calls."""
    tx = torch.from_numpy(x)
    if kind == "argsort":
        return (lambda: np.argsort(x, axis=-1, kind="stable"),
                lambda: torch.sort(tx, dim=-1, stable=True)[1])
    if kind == "int desc":
        return (lambda: -np.sort(-x, axis=-1, kind="stable"),
                lambda: torch.sort(tx, dim=-1, descending=True,
                                   stable=True)[0])
    return (lambda: np.sort(x, axis=-1, kind="stable"),
            lambda: torch.sort(tx, dim=-1, stable=True)[0])


def main():
    kiln_run = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    print(cpu_name())
    print(f"one thread; median of {runs} calls; numpy {np.__version__}, "
          f"PyTorch {torch.__version__}")
    rng = np.random.default_rng(0)
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind, shape in CASES:
            if kind == "int desc":
                x = rng.integers(-1000, 1000, shape).astype(np.int32)
            else:
                x = rng.standard_normal(shape).astype(np.float32)
            kiln, got = kiln_ms(kiln_run, tmp, sort_program(shape, kind),
                                [x], runs)
            numpy_call, torch_call = peers(kind, x)
            want = numpy_call()
            if not np.array_equal(got, want.astype(got.dtype)):
                sys.exit(f"{kind} {shape}: Kiln's result differs from numpy's")
            numpy_time = median_ms(numpy_call, runs)
            torch_time = median_ms(torch_call, runs)
            best = min(numpy_time, torch_time)
            ratios.append(best / kiln)
            print(f"{kind:8s} {'x'.join(map(str, shape)):>10s} kiln "
                  f"{kiln:8.3f} ms | numpy {numpy_time:8.3f} | torch "
                  f"{torch_time:8.3f} | best/kiln {100 * best / kiln:6.1f}%")
    print(f"geometric mean {100 * geometric_mean(ratios):.1f}% of the best "
          f"peer (min {100 * min(ratios):.1f}%, max {100 * max(ratios):.1f}%)")


if __name__ == "__main__":
    main()
