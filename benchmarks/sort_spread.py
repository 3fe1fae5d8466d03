"""Sorts in the form JAX exports them (`stablehlo.sort` with jnp.sort's
comparator, which canonicalizes NaN and -0.0 and compares in TOTALORDER;
jnp.argsort's, which carries an iota; a descending integer sort) and
lax.top_k (`chlo.top_k`), imported by kiln-run, against numpy's stable
sort and PyTorch's `torch.sort(stable=True)` and `torch.topk` on one
thread, at shapes models sort: rows of a vocabulary (top-p and top-k
sampling), of a batch of scores, odd lengths. Each case is timed with
kiln-run --bench (median of N calls) and the median of N peer calls on the
same array, and checked equal to numpy's stable sort; prints the CPU and
one row per case with the ratio best peer / kiln (100% = as fast as the
fastest peer) and the geometric means.

Usage: sort_spread.py KILN_RUN [N]   (default 20)
"""
import os
import sys
import tempfile

import numpy as np
import torch

from dot_spread import (cpu_name, geometric_mean, kiln_ms, median_ms,
                        set_torch_threads)
from dot_spread import ttype as t

# jnp.sort's comparator, as the end-to-end tests write it.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "e2e"))
from harness import comparator_float  # noqa: E402

set_torch_threads(1)



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


def top_k_program(shape, k):
    """The module of lax.top_k of floats along the last axis (the values
    returned)."""
    x, out = t(shape, "f32"), t(shape[:-1] + (k,), "f32")
    indices = t(shape[:-1] + (k,), "i32")
    return f'''func.func @main(%x: {x}) -> {out} {{
    %0:2 = chlo.top_k(%x, k = {k}) : {x} -> ({out}, {indices})
    return %0#0 : {out}
}}
'''


# kind, shape, k (top_k).
CASES = [
    ("sort", (256, 1024), None),
    ("sort", (1, 50257), None),
    ("sort", (64, 50257), None),
    ("sort", (1000, 37), None),
    ("sort", (4096, 128), None),
    ("sort", (8, 65536), None),
    ("sort", (33, 4099), None),
    ("argsort", (256, 1000), None),
    ("argsort", (1, 50257), None),
    ("argsort", (100, 257), None),
    ("int desc", (512, 1000), None),
    ("int desc", (16, 10007), None),
    ("top_k", (1, 50257), 50),
    ("top_k", (64, 50257), 50),
    ("top_k", (128, 32000), 40),
    ("top_k", (256, 1000), 5),
    ("top_k", (1, 50257), 1),
]


def peers(kind, x, k):
    """numpy's stable sort of `x`'s rows (the reference), and each peer's
    call by name."""
    tx = torch.from_numpy(x)
    if kind == "top_k":
        order = np.argsort(-x, axis=-1, kind="stable")[:, :k]
        return (lambda: np.take_along_axis(x, order, axis=-1),
                {"torch": lambda: torch.topk(tx, k, dim=-1)[0]})
    if kind == "argsort":
        reference = lambda: np.argsort(x, axis=-1, kind="stable")  # noqa
        return reference, {
            "numpy": reference,
            "torch": lambda: torch.sort(tx, dim=-1, stable=True)[1]}
    if kind == "int desc":
        reference = lambda: -np.sort(-x, axis=-1, kind="stable")  # noqa
        return reference, {
            "numpy": reference,
            "torch": lambda: torch.sort(tx, dim=-1, descending=True,
                                        stable=True)[0]}
    reference = lambda: np.sort(x, axis=-1, kind="stable")  # noqa
    return reference, {
        "numpy": reference,
        "torch": lambda: torch.sort(tx, dim=-1, stable=True)[0]}


def main():
    kiln_run = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    print(cpu_name())
    print(f"one thread; median of {runs} calls; numpy {np.__version__}, "
          f"PyTorch {torch.__version__}")
    rng = np.random.default_rng(0)
    ratios = {"sort": [], "top_k": []}
    with tempfile.TemporaryDirectory() as tmp:
        for kind, shape, k in CASES:
            if kind == "int desc":
                x = rng.integers(-1000, 1000, shape).astype(np.int32)
            else:
                x = rng.standard_normal(shape).astype(np.float32)
            program = (top_k_program(shape, k) if kind == "top_k"
                       else sort_program(shape, kind))
            kiln, got = kiln_ms(kiln_run, tmp, program, [x], runs)
            reference, calls = peers(kind, x, k)
            want = reference()
            if not np.array_equal(got, want.astype(got.dtype)):
                sys.exit(f"{kind} {shape}: Kiln's result differs from numpy's")
            times = {name: median_ms(call, runs)
                     for name, call in calls.items()}
            best = min(times.values())
            ratios["top_k" if kind == "top_k" else "sort"].append(best / kiln)
            name = kind if k is None else f"top {k}"
            peer_times = " | ".join(f"{peer} {ms:8.3f}"
                                    for peer, ms in times.items())
            print(f"{name:8s} {'x'.join(map(str, shape)):>10s} kiln "
                  f"{kiln:8.3f} ms | {peer_times} | best/kiln "
                  f"{100 * best / kiln:6.1f}%")
    for group, values in ratios.items():
        print(f"{group}: geometric mean {100 * geometric_mean(values):.1f}% "
              f"of the best peer (min {100 * min(values):.1f}%, max "
              f"{100 * max(values):.1f}%)")


if __name__ == "__main__":
    main()
