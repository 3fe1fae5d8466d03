"""The README's demo: trains scripts/demo/train.mlir's MLP on three
interleaved spirals by calling its `train_step` entry through the Kiln
runtime's C API (libkiln_runtime.so, through ctypes), printing the loss as
it falls and the final accuracy, after checking the first step's gradients
against PyTorch's autograd: the same program with f64 for f32, compiled in
process (libkiln_runtime_jit.so), must agree with PyTorch in f64 to 1e-5
relative; the f32 artifact's agreement (f32 rounding) is printed. Then
per_example.mlir (beside SOURCE) batches the model with kiln.vmap: every
point's gradient norm, checked against a loop of single-point gradients,
and the losses of an ensemble of three models, checked against numpy.

usage: train.py BUILD_LIB_DIR SOURCE.mlir ARTIFACT [--steps N]"""
import argparse
import ctypes
import os
import sys
import tempfile

import numpy as np

DTYPES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1,
          np.dtype(np.int32): 5, np.dtype(np.int64): 6}
NUMPY = {code: dtype for dtype, code in DTYPES.items()}


class Runtime:
    """The few C API calls the demo needs."""

    def __init__(self, lib_dir):
        ctypes.CDLL(os.path.join(lib_dir, "libkiln_runtime.so"),
                    mode=ctypes.RTLD_GLOBAL)
        lib = self.lib = ctypes.CDLL(
            os.path.join(lib_dir, "libkiln_runtime_jit.so"))
        handle, i64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)
        lib.kiln_status_message.restype = ctypes.c_char_p
        lib.kiln_status_message.argtypes = [handle]
        lib.kiln_status_free.argtypes = [handle]
        lib.kiln_tensor_create.restype = handle
        lib.kiln_tensor_create.argtypes = [ctypes.c_int, ctypes.c_int64, i64p,
                                           handle, ctypes.c_size_t,
                                           ctypes.POINTER(handle)]
        lib.kiln_tensor_free.argtypes = [handle]
        lib.kiln_tensor_dtype.argtypes = [handle]
        lib.kiln_tensor_rank.restype = ctypes.c_int64
        lib.kiln_tensor_rank.argtypes = [handle]
        lib.kiln_tensor_shape.restype = i64p
        lib.kiln_tensor_shape.argtypes = [handle]
        lib.kiln_tensor_data.restype = handle
        lib.kiln_tensor_data.argtypes = [handle]
        lib.kiln_module_load.restype = handle
        lib.kiln_module_load.argtypes = [ctypes.c_char_p,
                                         ctypes.POINTER(handle)]
        lib.kiln_module_compile.restype = handle
        lib.kiln_module_compile.argtypes = [ctypes.c_char_p,
                                            ctypes.POINTER(handle)]
        lib.kiln_module_call.restype = handle
        lib.kiln_module_call.argtypes = [handle, ctypes.c_char_p,
                                         ctypes.c_size_t,
                                         ctypes.POINTER(handle),
                                         ctypes.c_size_t,
                                         ctypes.POINTER(handle)]
        lib.kiln_module_entry_num_results.restype = ctypes.c_int64
        lib.kiln_module_entry_num_results.argtypes = [handle, ctypes.c_char_p]

    def check(self, status):
        if status:
            message = self.lib.kiln_status_message(status).decode()
            self.lib.kiln_status_free(status)
            sys.exit(f"kiln: {message}")

    def load(self, path):
        module = ctypes.c_void_p()
        self.check(self.lib.kiln_module_load(path.encode(),
                                             ctypes.byref(module)))
        return module

    def compile(self, source):
        """Compiles .mlir text in process."""
        with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
            f.write(source)
            f.flush()
            module = ctypes.c_void_p()
            self.check(self.lib.kiln_module_compile(f.name.encode(),
                                                    ctypes.byref(module)))
        return module

    def tensor(self, array):
        array = np.require(array, requirements="C")
        shape = (ctypes.c_int64 * array.ndim)(*array.shape)
        out = ctypes.c_void_p()
        self.check(self.lib.kiln_tensor_create(
            DTYPES[array.dtype], array.ndim, shape,
            array.ctypes.data_as(ctypes.c_void_p), array.nbytes,
            ctypes.byref(out)))
        return out

    def array(self, tensor):
        """A numpy copy of `tensor`, which is freed."""
        rank = self.lib.kiln_tensor_rank(tensor)
        shape = tuple(self.lib.kiln_tensor_shape(tensor)[i]
                      for i in range(rank))
        dtype = NUMPY[self.lib.kiln_tensor_dtype(tensor)]
        count = int(np.prod(shape))
        buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(
            self.lib.kiln_tensor_data(tensor))
        result = np.frombuffer(buffer, dtype).reshape(shape).copy()
        self.lib.kiln_tensor_free(tensor)
        return result

    def call(self, module, entry, args):
        """Calls `entry` on numpy arrays; returns numpy arrays."""
        tensors = [self.tensor(a) for a in args]
        count = self.lib.kiln_module_entry_num_results(module, entry.encode())
        results = (ctypes.c_void_p * count)()
        status = self.lib.kiln_module_call(
            module, entry.encode(), len(tensors),
            (ctypes.c_void_p * len(tensors))(*tensors), count, results)
        for t in tensors:
            self.lib.kiln_tensor_free(t)
        self.check(status)
        return [self.array(ctypes.c_void_p(r)) for r in results]


def spirals(rng, per_class=100, classes=3):
    """Three interleaved spiral arms in the plane, with noise."""
    points, labels = [], []
    for c in range(classes):
        r = np.linspace(0.0, 1.0, per_class)
        angle = np.linspace(c * 4.0, (c + 1) * 4.0, per_class)
        angle += rng.standard_normal(per_class) * 0.2
        points.append(np.stack([r * np.sin(angle), r * np.cos(angle)], 1))
        labels.append(np.full(per_class, c))
    return (np.concatenate(points).astype(np.float32),
            np.concatenate(labels))


def initial_parameters(rng):
    def layer(fan_in, fan_out):
        w = rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)
        return [w.astype(np.float32), np.zeros(fan_out, np.float32)]
    return layer(2, 64) + layer(64, 64) + layer(64, 3)


def torch_gradients(params, x, y):
    """The loss and its gradients from PyTorch's autograd, in f64."""
    import torch
    p = [torch.tensor(a, dtype=torch.float64, requires_grad=True)
         for a in params]
    h = torch.tanh(torch.tensor(x, dtype=torch.float64) @ p[0] + p[1])
    h = torch.tanh(h @ p[2] + p[3])
    scores = h @ p[4] + p[5]
    loss = torch.nn.functional.cross_entropy(
        scores, torch.tensor(y.argmax(1)))
    loss.backward()
    return loss.item(), [t.grad.numpy() for t in p]


def worst_error(results, want_loss, want_grads):
    """The largest relative error of the loss and of each gradient in
    `results` (the loss, then the gradients)."""
    loss, grads = results[0], results[1:]
    return max([abs(float(loss) - want_loss) / abs(want_loss)] +
               [np.max(np.abs(g - w)) / np.max(np.abs(w))
                for g, w in zip(grads, want_grads)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lib_dir")
    parser.add_argument("source")
    parser.add_argument("artifact")
    parser.add_argument("--steps", type=int, default=400)
    args = parser.parse_args()
    kiln = Runtime(args.lib_dir)
    module = kiln.load(args.artifact)
    rng = np.random.default_rng(2026)
    x, labels = spirals(rng)
    y = np.eye(3, dtype=np.float32)[labels]
    params = initial_parameters(rng)

    want_loss, want_grads = torch_gradients(params, x, y)
    with open(args.source) as f:
        module64 = kiln.compile(f.read().replace("f32", "f64"))
    wide = [a.astype(np.float64) for a in params + [x, y]]
    error64 = worst_error(kiln.call(module64, "loss_and_grads", wide),
                          want_loss, want_grads)
    error32 = worst_error(kiln.call(module, "loss_and_grads", params + [x, y]),
                          want_loss, want_grads)
    print(f"first step: loss {want_loss:.6f}; loss and gradients against "
          f"PyTorch's autograd (f64): {error64:.1e} relative in f64, "
          f"{error32:.1e} in f32")
    if not error64 <= 1e-5:
        sys.exit("gradients disagree with PyTorch")

    lr = np.array(1.0, np.float32)
    for step in range(args.steps):
        *params, loss = kiln.call(module, "train_step", params + [x, y, lr])
        if step % 50 == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {float(loss):.4f}")
    predicted = kiln.call(module, "predict", params + [x])[0]
    accuracy = np.mean(predicted == labels)
    print(f"training accuracy after {args.steps} steps: {100 * accuracy:.1f}%")
    per_example(kiln, os.path.join(os.path.dirname(args.source),
                                   "per_example.mlir"),
                params, initial_parameters(np.random.default_rng(2026)), x, y)


def numpy_losses(params, x, y):
    """Each point's softmax cross-entropy under `params`, in numpy (f64)."""
    w1, b1, w2, b2, w3, b3 = [p.astype(np.float64) for p in params]
    s = np.tanh(np.tanh(x @ w1 + b1) @ w2 + b2) @ w3 + b3
    z = s - s.max(axis=1, keepdims=True)
    return np.log(np.exp(z).sum(axis=1)) - (y * z).sum(axis=1)


def per_example(kiln, source, trained, initial, x, y):
    """vmap beside training: each point's gradient norm (a vmap of a grad)
    against a loop of single-point gradients, and the losses of an
    ensemble of three models (a vmap over the parameters) against numpy."""
    with open(source) as f:
        module = kiln.compile(f.read())
    norms = kiln.call(module, "grad_norms", trained + [x, y])[0]
    looped = np.array([kiln.call(module, "example_grad_norm",
                                 trained + [x[i], y[i]])[0]
                       for i in range(len(x))])
    difference = np.max(np.abs(norms - looped) / np.abs(looped))
    print(f"per-point gradient norms (vmap of grad over {len(x)} points): "
          f"min {norms.min():.4f}, median {np.median(norms):.4f}, "
          f"max {norms.max():.4f}; against a loop of single-point gradients: "
          f"{difference:.1e} relative")
    if not difference <= 1e-5:
        sys.exit("per-point gradient norms disagree with the loop")
    rng = np.random.default_rng(7)
    models = [initial, trained,
              [p + 0.1 * rng.standard_normal(p.shape).astype(np.float32)
               for p in trained]]
    stacked = [np.stack(ps) for ps in zip(*models)]
    losses = kiln.call(module, "ensemble_losses", stacked + [x, y])[0]
    want = np.stack([numpy_losses(m, x, y) for m in models])
    error = np.max(np.abs(losses - want) / np.maximum(np.abs(want), 1.0))
    print("ensemble of 3 models (vmap over parameters): mean losses " +
          ", ".join(f"{l:.4f}" for l in losses.mean(axis=1)) +
          f"; against numpy: {error:.1e} relative")
    if not error <= 1e-4:
        sys.exit("ensemble losses disagree with numpy")


if __name__ == "__main__":
    main()
