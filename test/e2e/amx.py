# bf16 products accumulating in f32 at the edges of AMX tiles (16 rows, 16
# k pairs, panels of 32 columns; cache tiles of 256 pairs): on a CPU with
# AMX they multiply AMX tiles, elsewhere vdpbf16ps's register tiles or
# widened f32 ones, against numpy in float64, on 1 and 2 threads. Where the
# CPU has AMX, the artifact of a bf16 product names AMX among the features
# it needs (the loader then asks the kernel for AMX tile data) and that of
# an f32 one does not.
# RUN: %numpy_python %s kiln-run
import os
import subprocess
import tempfile

import numpy as np

from harness import check, fail, finish, ttype, KILN_RUN
from progen import to_bf16

rng = np.random.default_rng(7)


def product(lhs, rhs, lc, rc, subscripts, element):
    batching = "batching = [0] x [0], " if len(lhs) == 3 else ""
    out = np.einsum(subscripts, np.zeros(lhs), np.zeros(rhs)).shape
    return f"""
func.func @f(%a: {ttype(lhs, element)}, %b: {ttype(rhs, element)}) -> {ttype(out, "f32")} {{
  %r = kiln.dot_general %a, %b, {batching}contracting = {lc} x {rc}
      : ({ttype(lhs, element)}, {ttype(rhs, element)}) -> {ttype(out, "f32")}
  return %r : {ttype(out, "f32")}
}}"""


# Rows: whole register tiles of 32 and a last tile of 16 (144), rows past
# the last 16 (150: 6 padded to 16). K: 16 pairs, pairs past the last 16
# (100 steps: 48 + 2 padded to 16), cache tiles of 256 pairs and a rest
# (1100 steps: 256 + 256 + 32 + 6). B transposed, A transposed, a batch. N not a multiple
# of 32 and an odd K (B padded with zeros into whole panels of pairs). 48
# and 20 rows (B packed from 16 rows on AMX).
for lhs, rhs, lc, rc, subscripts in [
        ((128, 32), (32, 32), [1], [0], "mk,kn->mn"),
        ((144, 100), (100, 64), [1], [0], "mk,kn->mn"),
        ((150, 64), (64, 96), [1], [0], "mk,kn->mn"),
        ((160, 1100), (1100, 64), [1], [0], "mk,kn->mn"),
        ((256, 784), (512, 784), [1], [1], "mk,nk->mn"),
        ((96, 176), (96, 32), [0], [0], "km,kn->mn"),
        ((2, 144, 64), (2, 64, 32), [2], [1], "bmk,bkn->bmn"),
        ((257, 129), (129, 63), [1], [0], "mk,kn->mn"),
        ((2, 130, 33), (2, 33, 40), [2], [1], "bmk,bkn->bmn"),
        ((48, 100), (100, 40), [1], [0], "mk,kn->mn"),
        ((20, 301), (301, 200), [1], [0], "mk,kn->mn")]:
    # Small integers keep every sum exact in f32, whatever its order and
    # however the CPU rounds a pair's products (on an AMD Zen 5, without
    # AMX, sums of 1100 products of normal values came out 8e-5 from
    # float64's, past a tolerance of 1e-5).
    A = to_bf16(rng.integers(-8, 8, lhs).astype(np.float32))
    B = to_bf16(rng.integers(-8, 8, rhs).astype(np.float32))
    want = np.einsum(subscripts, A.astype(np.float64), B).astype(np.float32)
    for threads in ("1", "2"):
        check(f"bf16 {subscripts} {lhs} {rhs} on {threads} thread(s)",
              product(lhs, rhs, lc, rc, subscripts, "bf16"), "f", [A, B],
              [want], interpret=False, extra=("--threads", threads))


def has_amx():
    with open("/proc/cpuinfo") as f:
        flags = next((line for line in f if line.startswith("flags")), "")
    return {"amx_tile", "amx_bf16"} <= set(flags.split())


def needs_amx(program):
    """Whether kiln-compile's artifact of `program` names AMX tiles among
    the CPU features it needs (its manifest is text in the artifact)."""
    compiler = os.path.join(os.path.dirname(KILN_RUN), "kiln-compile")
    with tempfile.TemporaryDirectory() as tmp:
        source, artifact = (os.path.join(tmp, n) for n in ("p.mlir", "p.so"))
        with open(source, "w") as f:
            f.write(program)
        subprocess.run([compiler, source, "-o", artifact], check=True)
        with open(artifact, "rb") as f:
            return b"amx-tile" in f.read()


if has_amx():
    shapes = ((128, 64), (64, 32), [1], [0], "mk,kn->mn")
    if not needs_amx(product(*shapes, "bf16")):
        fail("a bf16 product compiled on a CPU with AMX does not use it")
    if needs_amx(product(*shapes, "f32")):
        fail("an f32 product's artifact says it needs AMX")

finish()
