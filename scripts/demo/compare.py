"""Compares kiln-run's results (argv[1]) with numpy's (argv[2])."""
import sys

import numpy as np

kiln, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
error = np.abs(kiln["out0"] - ref["scores"]).max()
agree = (kiln["out1"] == ref["classes"]).mean()
print(f"max |kiln - numpy| over the scores: {error:.2e}")
print(f"predicted classes agreeing with numpy: {agree:.1%}")
print(f"mean squared error: kiln {float(kiln['out2']):.6f}, "
      f"numpy {float(ref['mse']):.6f}")
sys.exit(0 if error < 1e-4 and agree == 1.0 else 1)
