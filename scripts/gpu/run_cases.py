"""Runs the GPU cases of a bundle (scripts/gpu-check.sh) with kiln-run on
the GPU and compares each result with its numpy reference, as the CPU tests
do (test/e2e/harness.py, copied into the bundle).

usage: python3 run_cases.py BUNDLE"""
import json
import os
import subprocess
import sys
import time

import numpy as np

bundle = sys.argv[1]
kiln_run = os.path.join(bundle, "kiln-run")
sys.argv = [sys.argv[0], kiln_run]
sys.path.insert(0, bundle)
import harness  # noqa: E402

cases = [json.loads(line) for line in open(os.path.join(bundle, "cases",
                                                          "cases.jsonl"))]
env = dict(os.environ, LD_LIBRARY_PATH=bundle)
passed = compile_failures = 0
start = time.time()
for case in cases:
    stem = os.path.join(bundle, "cases", case["stem"])
    if case["compile_error"]:
        compile_failures += 1
        harness.fail(f"{case['name']}: does not compile for the GPU:\n"
                     f"{case['compile_error'][-600:]}")
        continue
    done = subprocess.run([kiln_run, stem + ".so", "--entry", case["entry"],
                           "--input", stem + ".in.npz", "--output",
                           stem + ".out.npz"],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        harness.fail(f"{case['name']}: kiln-run failed ({done.returncode}):"
                     f"\n{done.stderr[-600:]}")
        continue
    before = len(harness._failures)
    with np.load(stem + ".out.npz") as out, np.load(stem + ".ref.npz") as ref:
        harness.compare(case["name"],
                        [out[f"out{i}"] for i in range(len(out.files))],
                        [ref[f"out{i}"] for i in range(len(ref.files))],
                        case["rtol"], case["atol"])
    passed += len(harness._failures) == before
print(f"GPU cases: {passed} of {len(cases)} agree with numpy "
      f"({compile_failures} do not compile for the GPU), "
      f"{time.time() - start:.1f} s")
harness.finish()
