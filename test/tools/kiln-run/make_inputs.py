"""Writes the .npz inputs of errors.mlir next to the path prefix argv[1]."""
import sys

import numpy as np

prefix = sys.argv[1]
x = np.array([1, 2, 3, 4], np.float32)
y = np.array([10, 20, 30, 40], np.float32)
np.savez(prefix + ".good.npz", arg0=x, arg1=y)
np.savez(prefix + ".missing.npz", arg0=x)
np.savez(prefix + ".extra.npz", arg0=x, arg1=y, arg2=y)
np.savez(prefix + ".dtype.npz", arg0=x, arg1=y.astype(np.float64))
np.savez(prefix + ".shape.npz", arg0=x[:3], arg1=y)
np.savez(prefix + ".rank.npz", arg0=x, arg1=y.reshape(2, 2))
