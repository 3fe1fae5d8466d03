"""PyTorch's nn.RNN (tanh) over 100 steps, hidden and input size 256, batch
32, on argv[2] threads (default 1): prints the median milliseconds of
argv[1] runs of the forward pass (no autograd), then of the forward and backward pass of the
sum of the squares of the states (benchmarks/rnn.mlir's @forward, @grad)."""
import sys
import time

import torch

runs = int(sys.argv[1])
torch.set_num_threads(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
T, B, H = 100, 32, 256
rnn = torch.nn.RNN(H, H, nonlinearity="tanh")
x = torch.randn(T, B, H)
h0 = torch.randn(1, B, H)


def median(f):
    f()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return sorted(times)[runs // 2] * 1e3


def forward():
    with torch.no_grad():
        rnn(x, h0)


def gradient():
    rnn.zero_grad()
    out, _ = rnn(x, h0)
    (out * out).sum().backward()


print(f"{median(forward):.4f} {median(gradient):.4f}")
