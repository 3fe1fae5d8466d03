# .npz and .npy interoperate with numpy both ways: numpy writes, the runtime
# reads and writes back (stored and deflated), numpy reads and compares.
# RUN: %numpy_python %s kiln-npz_tool %t
import os
import subprocess
import sys

import numpy as np

tool, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
rng = np.random.default_rng(1)
arrays = {
    "f32": rng.standard_normal((3, 4)).astype(np.float32),
    "f64": np.array([np.nan, np.inf, -0.0, 1e300]),
    "f16": np.array([[0.5, -2.0]], np.float16),
    "bool": np.array([True, False, True]),
    "i32": np.arange(-5, 5, dtype=np.int32).reshape(2, 5),
    "i64": np.array([2**62, -2**62], np.int64),
    "scalar": np.array(3.25, np.float32),
    "empty": np.zeros((0, 3), np.float32),
    "large": rng.standard_normal(100_000).astype(np.float32),
}
failures = []
for writer, name in [(np.savez, "stored"), (np.savez_compressed, "deflated")]:
    source = os.path.join(tmp, f"numpy_{name}.npz")
    writer(source, **arrays)
    for mode in ("stored", "deflate"):
        back = os.path.join(tmp, f"kiln_{name}_{mode}.npz")
        done = subprocess.run([tool, source, back, mode], capture_output=True,
                              text=True)
        if done.returncode != 0:
            failures.append(f"{name} -> {mode}: {done.stdout}{done.stderr}")
            continue
        with np.load(back) as loaded:
            if sorted(loaded.files) != sorted(arrays):
                failures.append(f"{name} -> {mode}: arrays {loaded.files}")
            for key, want in arrays.items():
                got = loaded[key]
                if (got.dtype != want.dtype or got.shape != want.shape or
                        not np.array_equal(got, want, equal_nan=True)):
                    failures.append(f"{name} -> {mode}: {key} differs")

# A plain .npy from np.save, read by the runtime.
npy = os.path.join(tmp, "plain.npy")
np.save(npy, arrays["i32"])
back = os.path.join(tmp, "plain_back.npz")
done = subprocess.run([tool, npy, back, "stored"], capture_output=True,
                      text=True)
if done.returncode != 0 or done.stdout.strip() != "array i32 [2,5]":
    failures.append(f"npy: {done.stdout}{done.stderr}")
else:
    with np.load(back) as loaded:
        if not np.array_equal(loaded["array"], arrays["i32"]):
            failures.append("npy: values differ")

for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
