"""The demo's sequence models, through the runtime's C API (compiled in
process): the RNN of benchmarks/rnn.mlir (h = tanh(h W + x_t U + b) over
100 steps, batch 32, hidden and input 256: a kiln.scan) and its gradient,
checked against PyTorch's nn.RNN with the same weights (kiln-bench times
the two); then gradient accumulation (accumulate.mlir: a scan over 16
micro-batches of 4 whose body takes each one's gradient), checked against
the whole batch's gradient, with the peak bytes each call allocated.

usage: sequences.py BUILD_LIB_DIR ROOT"""
import ctypes
import os
import sys

import numpy as np
import torch

from train import Runtime


def torch_rnn():
    """nn.RNN's states and gradients, and its weights as rnn.mlir takes
    them."""
    torch.manual_seed(3)
    steps, batch, size = 100, 32, 256
    model = torch.nn.RNN(size, size, nonlinearity="tanh")
    with torch.no_grad():
        model.bias_hh_l0.zero_()
    xs, h0 = torch.randn(steps, batch, size), torch.randn(1, batch, size)
    states, _ = model(xs, h0)
    (states * states).sum().backward()
    args = [model.weight_hh_l0.detach().T.contiguous().numpy(),
            model.weight_ih_l0.detach().T.contiguous().numpy(),
            model.bias_ih_l0.detach().numpy(), h0[0].numpy(), xs.numpy()]
    want = [model.weight_hh_l0.grad.T.numpy(), model.weight_ih_l0.grad.T.numpy(),
            model.bias_ih_l0.grad.numpy()]
    return args, states.detach().numpy(), want


def rnn(kiln, root, reference):
    args, states, want = reference
    with open(os.path.join(root, "benchmarks", "rnn.mlir")) as f:
        module = kiln.compile(f.read())
    got_states = kiln.call(module, "forward", args)[0]
    _, *grads = kiln.call(module, "grad", args)
    state_error = np.max(np.abs(got_states - states)) / np.max(np.abs(states))
    grad_error = max(np.max(np.abs(g - w)) / np.max(np.abs(w))
                     for g, w in zip(grads, want))
    print(f"rnn (100 steps, batch 32, hidden 256, f32) against nn.RNN: states "
          f"{state_error:.1e}, gradients {grad_error:.1e} relative")
    if not (state_error <= 1e-4 and grad_error <= 1e-4):
        sys.exit("the RNN disagrees with nn.RNN")


def accumulation(kiln, root):
    kiln.lib.kiln_last_call_peak_bytes.restype = ctypes.c_uint64
    rng = np.random.default_rng(11)
    w, v = rng.standard_normal((8, 512)) * 0.2, rng.standard_normal(512) * 0.1
    x, y = rng.standard_normal((64, 8)), rng.standard_normal(64)
    with open(os.path.join(root, "scripts", "demo", "accumulate.mlir")) as f:
        module = kiln.compile(f.read())
    full = kiln.call(module, "full", [w, v, x, y])
    full_peak = kiln.lib.kiln_last_call_peak_bytes()
    accumulated = kiln.call(module, "accumulated",
                            [w, v, x.reshape(16, 4, 8), y.reshape(16, 4)])
    accumulated_peak = kiln.lib.kiln_last_call_peak_bytes()
    error = max(np.max(np.abs(a - b)) / np.max(np.abs(b))
                for a, b in zip(accumulated, full))
    print(f"gradient accumulation (16 micro-batches of 4 against the batch of "
          f"64): {error:.1e} relative; peak {accumulated_peak} bytes against "
          f"{full_peak}")
    if not error <= 1e-12:
        sys.exit("the accumulated gradient disagrees with the batch's")
    if not accumulated_peak < full_peak:
        sys.exit("accumulating the gradient does not lower the peak")


def main():
    lib_dir, root = sys.argv[1], sys.argv[2]
    reference = torch_rnn()
    kiln = Runtime(lib_dir)
    rnn(kiln, root, reference)
    accumulation(kiln, root)


if __name__ == "__main__":
    main()
