# Random well-typed programs (progen.py) with fixed seeds, each compiled
# and interpreted (kiln-run --interpret) and compared with its numpy
# reference: 60 programs of 10 ops and 10 of 30 ops. scripts/fuzz.py runs
# more.
# RUN: %numpy_python %s kiln-run
import sys

import progen

kiln_run = sys.argv[1]
failures = 0
for seed, num_ops in [(s, 10) for s in range(60)] + \
        [(s, 30) for s in range(1000, 1010)]:
    for extra in ((), ("--interpret",)):
        failed = progen.check(kiln_run, seed, num_ops, extra)
        if failed:
            failures += 1
            why, text = failed
            print(f"FAIL seed {seed} ({num_ops} ops) {' '.join(extra)}: "
                  f"{why}\n{text}")
print(f"{failures} failures")
sys.exit(1 if failures else 0)
