"""Writes the .npz inputs of errors.mlir next to the path prefix argv[1]."""
import sys
import warnings

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
# Bools whose bytes are 2 and 255: numpy reads them as True.
odd_bools = np.array([2, 0, 255, 1], np.uint8).view(np.bool_)
np.savez(prefix + ".bools.npz", arg0=odd_bools, arg1=x, arg2=y)
# Two members named arg0: numpy keeps the last, Kiln refuses both.
import zipfile
np.savez(prefix + ".dup.npz", arg0=x, arg1=y)
with zipfile.ZipFile(prefix + ".dup.npz", "a") as z:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z.writestr("arg0.npy", z.read("arg1.npy"))
np.savez(prefix + ".neg.npz", arg0=x)
