"""Mutates the StableHLO modules of this folder's tests (a token replaced,
deleted or renumbered, up to three times) and imports each mutant with
`kiln-opt --kiln-import-stablehlo`: every one must be imported or refused
with an error (exit status 0 or 1), never crash or hang.

usage: mutate_exports.py KILN_OPT FOLDER COUNT SEED
"""
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

kiln_opt, folder, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4])
modules = []
for path in sorted(glob.glob(os.path.join(folder, "**", "*.mlir"),
                             recursive=True)):
    with open(path) as f:
        modules += [m for m in f.read().split("// -----") if "stablehlo" in m]
tokens = ["0", "1", "-1", "2", "[]", "[0]", "[1, 0]", "tensor<f32>",
          "tensor<4xi1>", "tensor<2x3xf32>", "%arg0", "dims", "x", ",", "(",
          ")", "{", "}", "GT", "init:", "applies", "stablehlo.add", "i64",
          "ui8", "?", "=", ":", "->"]
rng = random.Random(seed)
failures = 0
with tempfile.TemporaryDirectory() as tmp:
    source = os.path.join(tmp, "mutant.mlir")
    for i in range(count):
        words = re.split(r"(\s+)", rng.choice(modules))
        for _ in range(rng.randint(1, 3)):
            j = rng.randrange(len(words))
            kind = rng.random()
            if kind < 0.4:
                words[j] = rng.choice(tokens)
            elif kind < 0.7:
                words[j] = ""
            else:
                words[j] = re.sub(r"\d+", lambda _: str(rng.choice(
                    [0, 1, 2, 3, 7, 100, -1])), words[j])
        mutant = "".join(words)
        with open(source, "w") as f:
            f.write(mutant)
        try:
            done = subprocess.run([kiln_opt, source, "--kiln-import-stablehlo"],
                                  capture_output=True, text=True, timeout=60)
            status = done.returncode
        except subprocess.TimeoutExpired:
            status = "timeout"
        if status not in (0, 1):
            failures += 1
            print(f"mutant {i} ended with {status}:\n{mutant}")
print(f"{failures} of {count} mutants crashed or hung")
sys.exit(1 if failures else 0)
