"""The dispatch overhead of PyTorch eager and numpy: `a + b` on two
4-element float32 tensors, a new result each call, one thread. Prints the
median microseconds per call over argv[1] batches of 10,000 calls: torch,
then numpy."""
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)


def per_call_us(add, runs, calls=10000):
    times = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        for _ in range(calls):
            add()
        times.append((time.perf_counter() - start) / calls)
    return sorted(times[1:])[runs // 2] * 1e6


runs = int(sys.argv[1])
ta, tb = torch.ones(4), torch.ones(4)
na, nb = np.ones(4, np.float32), np.ones(4, np.float32)
print(f"{per_call_us(lambda: ta + tb, runs):.4f}")
print(f"{per_call_us(lambda: na + nb, runs):.4f}")
