#!/usr/bin/env python3
"""Differential fuzzing: random kiln programs (test/e2e/progen.py), each
compiled (kiln-compile) and run, and run by Kiln's reference interpreter
(kiln_jit_interpret); the compiled and the interpreted results are each
checked against progen's independent numpy reference within its error
bound, and against each other.

Programs are compiled --batch to a module (one function each) to share the
compiler's fixed costs; each batch runs in its own process, so a crash
loses only that batch, which is kept with the reason. Failing programs are
written to --keep (default ./fuzz-failures).

Run it with Debian's interpreter, which has numpy:
  /usr/bin/python3 scripts/fuzz.py [--count N] [--ops N] [--seed S] [--jobs J]
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "test", "e2e"))
import progen  # noqa: E402

DTYPE_CODES = {"f32": 0, "f64": 1, "f16": 2, "bf16": 3, "i1": 4, "i32": 5,
               "i64": 6}
NUMPY_OF_CODE = {0: np.float32, 1: np.float64, 2: np.float16, 3: np.uint16,
                 4: np.bool_, 5: np.int32, 6: np.int64}


class Runtime:
    """The runtime's and the jit library's C API through ctypes."""

    def __init__(self, build):
        lib = ctypes.CDLL(os.path.join(build, "lib", "libkiln_runtime_jit.so"),
                          mode=ctypes.RTLD_GLOBAL)
        p, i64, size = ctypes.c_void_p, ctypes.c_int64, ctypes.c_size_t
        for name, res, args in [
                ("kiln_status_message", ctypes.c_char_p, [p]),
                ("kiln_status_free", None, [p]),
                ("kiln_tensor_create", p, [ctypes.c_int, i64, p, p, size, p]),
                ("kiln_tensor_free", None, [p]),
                ("kiln_tensor_dtype", ctypes.c_int, [p]),
                ("kiln_tensor_rank", i64, [p]),
                ("kiln_tensor_shape", ctypes.POINTER(i64), [p]),
                ("kiln_tensor_data", p, [p]),
                ("kiln_tensor_byte_length", size, [p]),
                ("kiln_module_load", p, [ctypes.c_char_p, p]),
                ("kiln_module_free", None, [p]),
                ("kiln_module_call", p, [p, ctypes.c_char_p, size, p, size, p]),
                ("kiln_jit_create", p, [ctypes.c_char_p, p, p]),
                ("kiln_jit_free", None, [p]),
                ("kiln_jit_interpret", p,
                 [p, ctypes.c_char_p, size, p, size, p])]:
            function = getattr(lib, name)
            function.restype, function.argtypes = res, args
        self.lib = lib

    def check(self, status):
        """Raises the status's message if it is an error."""
        if status:
            message = self.lib.kiln_status_message(status).decode()
            self.lib.kiln_status_free(status)
            raise RuntimeError(message)

    def tensor(self, array, dtype):
        """A new runtime tensor of `array` as `dtype` (bf16 rounded)."""
        if dtype == "bf16":
            data = np.array(progen.to_bf16(array).view(np.uint32) >> 16,
                            np.uint16)
        else:
            data = np.array(array, progen.NP[dtype], order="C")
        shape = (ctypes.c_int64 * max(data.ndim, 1))(*data.shape)
        out = ctypes.c_void_p()
        self.check(self.lib.kiln_tensor_create(
            DTYPE_CODES[dtype], data.ndim, shape, data.ctypes.data,
            data.nbytes, ctypes.byref(out)))
        return out.value

    def array(self, tensor):
        """A runtime tensor's elements as numpy (bf16 as float32)."""
        lib = self.lib
        rank = lib.kiln_tensor_rank(tensor)
        shape = tuple(lib.kiln_tensor_shape(tensor)[d] for d in range(rank))
        code = lib.kiln_tensor_dtype(tensor)
        count = lib.kiln_tensor_byte_length(tensor)
        raw = ctypes.string_at(lib.kiln_tensor_data(tensor), count) \
            if count else b""
        out = np.frombuffer(raw, NUMPY_OF_CODE[code]).reshape(shape).copy()
        if code == DTYPE_CODES["bf16"]:
            out = (out.reshape(-1).astype(np.uint32) << 16).view(
                np.float32).reshape(shape)
        return out

    def run(self, call, handle, entry, tensors, count):
        """`call` (kiln_module_call or kiln_jit_interpret) of `entry`: its
        results as numpy arrays."""
        args = (ctypes.c_void_p * max(len(tensors), 1))(*tensors)
        results = (ctypes.c_void_p * max(count, 1))()
        self.check(call(handle, entry.encode(), len(tensors), args, count,
                        results))
        try:
            return [self.array(results[i]) for i in range(count)]
        finally:
            for i in range(count):
                self.lib.kiln_tensor_free(results[i])


def differences(runtime, module, jit, entry, program):
    """Why the compiled or interpreted results of `entry` differ from the
    reference or from each other, or None."""
    _, inputs, expected = program
    tensors = [runtime.tensor(v.ref, v.dtype) for v in inputs]
    try:
        outputs = {}
        for kind, call, handle in [
                ("compiled", runtime.lib.kiln_module_call, module),
                ("interpreted", runtime.lib.kiln_jit_interpret, jit)]:
            try:
                outputs[kind] = runtime.run(call, handle, entry, tensors,
                                            len(expected))
            except RuntimeError as e:
                return f"{kind}: {e}"
    finally:
        for t in tensors:
            runtime.lib.kiln_tensor_free(t)
    for i, want in enumerate(expected):
        for kind in ("compiled", "interpreted"):
            why = progen.compare(outputs[kind][i], want)
            if why:
                return f"{kind} out{i} vs numpy: {why}"
        ref, err, dtype = want
        # Each is within the bound of the exact value: of each other, twice.
        why = progen.compare(outputs["compiled"][i],
                             (outputs["interpreted"][i], 2 * err, dtype))
        if why:
            return f"compiled out{i} vs interpreted: {why}"
    return None


def batch_programs(first, count, ops):
    """Programs `first` to `first + count - 1`: (seed, entry, text,
    inputs, expected), `inputs` as progen Values."""
    programs = []
    for seed in range(first, first + count):
        p = progen.Program(seed)
        text, results = p.build(ops)
        entry = f"p{seed}"
        programs.append((seed, entry, text.replace("@f(", f"@{entry}(", 1),
                         (text, p.args,
                          [(r.ref, r.err, r.dtype) for r in results])))
    return programs


def run_batch(args):
    """Worker: compiles and checks one batch, printing a JSON line per
    failing program and a last line with the count."""
    runtime = Runtime(args.build)
    programs = batch_programs(args.worker, args.batch, args.ops)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "batch.mlir")
        artifact = os.path.join(tmp, "batch.so")
        compile_cmd = [os.path.join(args.build, "bin", "kiln-compile"),
                       source, "-o", artifact]
        with open(source, "w") as f:
            f.write("".join(p[2] for p in programs))
        done = subprocess.run(compile_cmd, capture_output=True, text=True)
        if done.returncode != 0:
            failures.append({"seed": args.worker, "why":
                             f"kiln-compile failed ({done.returncode}): "
                             f"{done.stderr[-2000:]}"})
        else:
            module, jit = ctypes.c_void_p(), ctypes.c_void_p()
            runtime.check(runtime.lib.kiln_module_load(
                artifact.encode(), ctypes.byref(module)))
            runtime.check(runtime.lib.kiln_jit_create(
                source.encode(), None, ctypes.byref(jit)))
            for seed, entry, _, program in programs:
                why = differences(runtime, module, jit, entry, program)
                if why:
                    failures.append({"seed": seed, "why": why})
            runtime.lib.kiln_jit_free(jit)
            runtime.lib.kiln_module_free(module)
    for failure in failures:
        print(json.dumps(failure), flush=True)
    print(json.dumps({"done": len(programs)}), flush=True)
    return 0


def keep(folder, name, why, text):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("".join(f"// {line}\n" for line in why.splitlines()))
        f.write(text)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(root, "build"))
    parser.add_argument("--count", type=int, default=0, help="0: forever")
    parser.add_argument("--ops", type=int, default=12)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--keep", default="fuzz-failures")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        return run_batch(args)
    started, done, failures = time.time(), 0, 0
    next_first, running = args.seed, []

    def launch():
        nonlocal next_first
        command = [sys.executable, os.path.abspath(__file__), "--worker",
                   str(next_first), "--batch", str(args.batch), "--ops",
                   str(args.ops), "--build", args.build]
        running.append((next_first, subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)))
        next_first += args.batch

    def wanted():
        return not args.count or next_first - args.seed < args.count

    while wanted() and len(running) < args.jobs:
        launch()
    while running:
        first, process = running.pop(0)
        out, err = process.communicate()
        lines = [json.loads(line) for line in out.splitlines()
                 if line.startswith("{")]
        if process.returncode != 0 or not lines or "done" not in lines[-1]:
            failures += 1
            text = "".join(p[2] for p in batch_programs(first, args.batch,
                                                        args.ops))
            path = keep(args.keep, f"batch{first}.mlir",
                        f"batch crashed ({process.returncode}): "
                        f"{err[-2000:]}", text)
            print(f"batch {first}: crashed ({process.returncode}) ({path})",
                  flush=True)
        else:
            done += lines[-1]["done"]
            for failure in lines[:-1]:
                failures += 1
                seed = failure["seed"]
                text = batch_programs(seed, 1, args.ops)[0][2]
                path = keep(args.keep, f"seed{seed}.mlir", failure["why"],
                            text)
                print(f"seed {seed}: {failure['why'].splitlines()[0]} "
                      f"({path})", flush=True)
        if wanted():
            launch()
        if done and done % 1000 < args.batch:
            print(f"{done} programs, {failures} failures, "
                  f"{time.time() - started:.0f} s", flush=True)
    print(f"{done} programs, {failures} failures, "
          f"{time.time() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
