"""Writes the demo's weights and batch (arg0..arg5 of @predict) to argv[1],
and the numpy reference results to argv[2]."""
import sys

import numpy as np

rng = np.random.default_rng(2026)
w1 = (rng.standard_normal((64, 128)) / 8).astype(np.float32)
b1 = (rng.standard_normal(128) / 10).astype(np.float32)
w2 = (rng.standard_normal((128, 10)) / 11).astype(np.float32)
b2 = np.zeros(10, np.float32)
x = rng.standard_normal((256, 64)).astype(np.float32)
y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 256)]
np.savez(sys.argv[1], arg0=w1, arg1=b1, arg2=w2, arg3=b2, arg4=x, arg5=y)

scores = np.tanh(x.astype(np.float64) @ w1 + b1) @ w2 + b2
np.savez(sys.argv[2], scores=scores, classes=scores.argmax(1),
         mse=((scores - y) ** 2).mean())
