#!/usr/bin/env python3
"""Differential fuzzing: random kiln programs (test/e2e/progen.py), each
compiled (kiln-compile) and run, and run by Kiln's reference interpreter
(kiln_jit_interpret); the compiled and the interpreted results are each
checked against progen's independent numpy reference within its error
bound, and against each other. One program in four (whose seed 4
divides) is also checked through transformations, by the interpreter as
oracle: batched with kiln.vmap over two slices (random in_axes and
out_axes, some arguments unbatched; the first slice the program's inputs,
the second random), the interpreted vmap must equal the interpreted
program on each slice (vmap equals the loop) and the compiled vmap's
first slice the numpy reference; and as the body of a 3-step kiln.scan
(random reverse and unroll; an argument whose type a result has is the
carry, the others stacked xs), the interpreted scan must equal the chain
of interpreted calls and the compiled scan's step on the program's inputs
the numpy reference; and, for a smooth program (no floor, compare,
convert, ...) with an f64 first result, kiln.grad of half the sum of
squares of that result by its f64 arguments,
interpreted, against central finite differences along a random direction,
and compiled against interpreted.

Programs are compiled --batch to a module (one function each) to share the
compiler's fixed costs (a module the compiler fails on is compiled program
by program, to name the ones it fails on); each batch runs in its own
process, so a crash loses only that batch, which is kept with the reason.
Failing programs are written to --keep (default ./fuzz-failures).

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
               "i64": 6, "i8": 7, "i16": 8}
NUMPY_OF_CODE = {0: np.float32, 1: np.float64, 2: np.float16, 3: np.uint16,
                 4: np.bool_, 5: np.int32, 6: np.int64, 7: np.int8,
                 8: np.int16}


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


class Checker:
    """Calls of a batch's entries, compiled (`module`) or interpreted
    (`jit`), on numpy arrays."""

    def __init__(self, runtime, module, jit):
        self.runtime, self.module, self.jit = runtime, module, jit

    def call(self, interpreted, entry, arrays, dtypes, count):
        lib = self.runtime.lib
        call, handle = (lib.kiln_jit_interpret, self.jit) if interpreted \
            else (lib.kiln_module_call, self.module)
        tensors = [self.runtime.tensor(a, d) for a, d in zip(arrays, dtypes)]
        try:
            return self.runtime.run(call, handle, entry, tensors, count)
        finally:
            for t in tensors:
                lib.kiln_tensor_free(t)

    def differences(self, case):
        """Why the compiled or interpreted results of `case` differ from
        the reference or from each other, or its vmap from the loop over
        its slices; None if they agree."""
        dtypes = [v.dtype for v in case.args]
        first = [v.ref for v in case.args]
        count = len(case.expected)
        results = {}
        for kind in ("compiled", "interpreted"):
            try:
                results[kind] = self.call(kind == "interpreted", case.entry,
                                          first, dtypes, count)
            except RuntimeError as e:
                return f"{kind}: {e}"
        for i, want in enumerate(case.expected):
            for kind in ("compiled", "interpreted"):
                why = progen.compare(results[kind][i], want)
                if why:
                    return f"{kind} out{i} vs numpy: {why}"
            # Each is within the bound of the exact value: of each other,
            # twice.
            why = progen.compare(results["compiled"][i],
                                 (results["interpreted"][i], 2 * want[1],
                                  want[2]))
            if why:
                return f"compiled out{i} vs interpreted: {why}"
        if not case.has_identities():
            return None
        return self.vmap_differences(case, results["interpreted"]) or \
            self.scan_differences(case) or self.grad_differences(case)

    def vmap_differences(self, case, first_results):
        """Why `case`'s vmap differs from its program on each slice (the
        compiled one on the first, with its reference), or None."""
        dtypes = [v.dtype for v in case.args]
        count = len(case.expected)
        batched = [v.ref if axis < 0 else np.stack([v.ref, second], axis)
                   for v, second, axis in
                   zip(case.args, case.second, case.in_axes)]
        try:
            second_results = self.call(True, case.entry, case.second, dtypes,
                                       count)
            compiled = self.call(False, case.vmap_entry, batched, dtypes,
                                 count)
            interpreted = self.call(True, case.vmap_entry, batched, dtypes,
                                    count)
        except RuntimeError as e:
            return f"vmap: {e}"
        for i, (want, axis) in enumerate(zip(case.expected, case.out_axes)):
            why = progen.compare(np.take(compiled[i], 0, axis), want)
            if why:
                return f"compiled vmap out{i} slice 0 vs numpy: {why}"
            for b, loop in enumerate((first_results, second_results)):
                # The same ops on the same elements: equal up to the
                # rounding of sums accumulated in double.
                why = progen.compare(np.take(interpreted[i], b, axis),
                                     (loop[i], 0.0, want[2]))
                if why:
                    return (f"interpreted vmap out{i} slice {b} vs the "
                            f"program on it: {why}")
        return None


    def grad_differences(self, case):
        """Why `case`'s gradient (interpreted) differs from central finite
        differences of its loss along a random direction, or the compiled
        gradient from the interpreted one; None (also for a program
        without a gradient check)."""
        if not case.grad_args:
            return None
        dtypes = [v.dtype for v in case.args]
        x = [v.ref for v in case.args]
        rng = np.random.default_rng([case.seed, 2])
        direction = {i: rng.standard_normal(x[i].shape)
                     for i in case.grad_args}
        step = 1e-6

        def loss(sign):
            moved = [a + sign * step * direction[i] if i in direction else a
                     for i, a in enumerate(x)]
            return float(self.call(True, "l" + case.entry, moved, dtypes,
                                   1)[0])

        count = len(case.grad_args)
        try:
            interpreted = self.call(True, "g" + case.entry, x, dtypes, count)
            compiled = self.call(False, "g" + case.entry, x, dtypes, count)
            finite = (loss(1) - loss(-1)) / (2 * step)
        except RuntimeError as e:
            return f"grad: {e}"
        if not np.isfinite(finite):
            # A loss with an infinity in it (the minimum of nothing) has no
            # finite difference to check against.
            return None
        terms = [g * direction[i] for g, i in zip(interpreted,
                                                  case.grad_args)]
        along = sum(float(t.sum()) for t in terms)
        scale = 1 + abs(finite) + sum(float(np.abs(t).sum()) for t in terms)
        if not abs(along - finite) <= 1e-6 * scale:
            return (f"interpreted grad along a direction {along!r} vs "
                    f"finite differences {finite!r}")
        for n, (c, i) in enumerate(zip(compiled, interpreted)):
            bound = 1e-9 * (1 + float(np.max(np.abs(i), initial=0)))
            if not np.all(np.abs(c - i) <= bound):
                return f"compiled grad {n} vs interpreted: beyond {bound:.3g}"
        return None

    def scan_differences(self, case):
        """Why `case`'s scan differs from the chain of calls of its
        program (the compiled one at the step on the program's inputs,
        from the reference), or None."""
        dtypes = [v.dtype for v in case.args]
        count = len(case.expected)
        j, k = case.carry if case.carry else (None, None)
        xs = [i for i in range(len(case.args)) if i != j]
        ys = [i for i in range(count) if i != k]
        carry = [case.args[j].ref] if case.carry else []
        scan_args = carry + [np.stack(case.step_args[i]) for i in xs]
        scan_dtypes = [dtypes[i] for i in ([j] if case.carry else []) + xs]
        order = range(case.steps - 1, -1, -1) if case.reverse else \
            range(case.steps)
        try:
            compiled, interpreted = (
                self.call(interpret, case.scan_entry, scan_args, scan_dtypes,
                          len(carry) + len(ys)) for interpret in (False, True))
            chain, steps = carry, {}
            for t in order:
                args = [chain[0] if i == j else case.step_args[i][t]
                        for i in range(len(case.args))]
                steps[t] = self.call(True, case.entry, args, dtypes, count)
                if case.carry:
                    chain = [steps[t][k]]
        except RuntimeError as e:
            return f"scan: {e}"
        loop = chain + [np.stack([steps[t][i] for t in range(case.steps)])
                        for i in ys]
        dtypes_out = [case.expected[i][2]
                      for i in ([k] if case.carry else []) + ys]
        for n, (got, want, dtype) in enumerate(zip(interpreted, loop,
                                                   dtypes_out)):
            why = progen.compare(got, (want, 0.0, dtype))
            if why:
                return f"interpreted scan out{n} vs the chain of calls: {why}"
        for n, i in enumerate(ys):
            why = progen.compare(compiled[len(chain) + n][case.first_step],
                                 case.expected[i])
            if why:
                return (f"compiled scan y{n} at step {case.first_step} vs "
                        f"numpy: {why}")
        return None


SCAN_STEPS = 3
IDENTITIES_EVERY = 4
# Ops whose results jump or carry no derivative: a program with one has no
# gradient check (finite differences mean nothing across a jump).
GRAD_BANNED = ("floor", "ceil", "sign", "compare", "select", "convert",
               "rem", "and", "or", "xor")


class Case:
    """Program `seed`: its function `@p<seed>` and `@vp<seed>`, kiln.vmap
    of it over two slices; its arguments (progen Values), the second
    slice's arguments, and the expected results with their bounds."""

    def __init__(self, seed, ops):
        p = progen.Program(seed)
        text, results = p.build(ops)
        self.seed, self.entry, self.vmap_entry = seed, f"p{seed}", f"vp{seed}"
        self.args = p.args
        self.expected = [(r.ref, r.err, r.dtype) for r in results]
        rng = np.random.default_rng([seed, 1])
        self.second = [p.random_array(v.shape, v.dtype) for v in p.args]
        self.in_axes = [-1 if rng.random() < 0.2 else
                        int(rng.integers(0, v.ref.ndim + 1)) for v in p.args]
        if all(axis < 0 for axis in self.in_axes):
            self.in_axes[0] = 0
        # An unbatched argument is the same in both slices.
        self.second = [v.ref if axis < 0 else second for v, second, axis in
                       zip(p.args, self.second, self.in_axes)]
        self.out_axes = [int(rng.integers(0, np.ndim(r.ref) + 1))
                         for r in results]
        self.scan_case(p, results, rng)
        self.text = text.replace("@f(", f"@{self.entry}(", 1)
        if self.has_identities():
            self.text += self.vmap_text(results) + self.scan_text(results)
            self.text += self.grad_text(text, results)

    def has_identities(self):
        """Whether the program's vmap and scan are checked too: one in
        IDENTITIES_EVERY (they cost the program's compile three times)."""
        return self.seed % IDENTITIES_EVERY == 0

    def grad_text(self, text, results):
        """For a smooth program (no GRAD_BANNED op) whose first result is
        f64: `@lp<seed>`, half the sum of squares of that result, and
        `@gp<seed>`, kiln.grad of it by every f64 argument; "" for another
        program."""
        self.grad_args = [i for i, v in enumerate(self.args)
                          if v.dtype == "f64"]
        smooth = not any(f"kiln.{op} " in text for op in GRAD_BANNED)
        # Without conversions an f64 value depends on f64 arguments only
        # (and indices): the others are held constant.
        if not (smooth and self.grad_args and results[0].dtype == "f64"):
            self.grad_args = []
            return ""
        types = [v.type for v in self.args]
        params = ", ".join(f"%g{i}: {t}" for i, t in enumerate(types))
        names = ", ".join(f"%g{i}" for i in range(len(types)))
        first = results[0]
        dims = ", ".join(map(str, range(first.ref.ndim)))
        grads = ", ".join(types[i] for i in self.grad_args)
        argnums = ", ".join(map(str, self.grad_args))
        return (
            f"func.func @lp{self.seed}({params}) -> tensor<f64> {{\n"
            f"  %o:{len(results)} = func.call @{self.entry}({names}) : "
            f"({', '.join(types)}) -> "
            f"({', '.join(r.type for r in results)})\n"
            f"  %s = kiln.mul %o#0, %o#0 : {first.type}\n"
            f"  %t = kiln.reduce_sum %s, dims = [{dims}] : ({first.type}) -> "
            f"tensor<f64>\n"
            f"  %h = kiln.constant dense<0.5> : tensor<f64>\n"
            f"  %l = kiln.mul %t, %h : tensor<f64>\n"
            f"  return %l : tensor<f64>\n}}\n"
            f"func.func @gp{self.seed}({params}) -> ({grads}) {{\n"
            f"  %r:{len(self.grad_args)} = kiln.grad @lp{self.seed}({names}) "
            f"{{argnums = array<i64: {argnums}>}} : ({', '.join(types)}) -> "
            f"({grads})\n"
            f"  return {', '.join(f'%r#{i}' for i in range(len(self.grad_args)))}"
            f" : {grads}\n}}\n")

    def scan_case(self, p, results, rng):
        """A scan of the program: its carry (argument, result) if an
        argument's type is a result's, the steps' inputs (the program's at
        the step that runs first, random at the others)."""
        self.scan_entry, self.steps = f"sp{self.seed}", SCAN_STEPS
        self.reverse = bool(rng.integers(0, 2))
        self.unroll = int(rng.integers(1, SCAN_STEPS + 1))
        pairs = [(j, k) for j, a in enumerate(p.args)
                 for k, r in enumerate(results)
                 if a.type == r.type]
        self.carry = pairs[int(rng.integers(len(pairs)))] if pairs else None
        self.first_step = SCAN_STEPS - 1 if self.reverse else 0
        self.step_args = [
            [v.ref if t == self.first_step else p.random_array(v.shape,
                                                                v.dtype)
             for t in range(SCAN_STEPS)] for v in p.args]

    def scan_text(self, results):
        """`@sb<seed>`, the program as a step (carry first), and
        `@sp<seed>`, kiln.scan of it."""
        j, k = self.carry if self.carry else (None, None)
        xs = [i for i in range(len(self.args)) if i != j]
        ys = [i for i in range(len(results)) if i != k]
        carry_types = [self.args[j].type] if self.carry else []
        x_types = [self.args[i].type for i in xs]
        y_types = [results[i].type for i in ys]
        stacked = [progen.ttype((SCAN_STEPS,) + self.args[i].shape,
                                self.args[i].dtype) for i in xs]
        stacked_ys = [progen.ttype((SCAN_STEPS,) + np.shape(results[i].ref),
                                   results[i].dtype) for i in ys]
        params = [f"%c: {t}" for t in carry_types] + \
            [f"%x{i}: {t}" for i, t in zip(xs, x_types)]
        call_args = ", ".join("%c" if i == j else f"%x{i}"
                              for i in range(len(self.args)))
        n = len(results)
        step_results = [f"%o#{k}"] if self.carry else []
        step_results += [f"%o#{i}" for i in ys]
        step_types = carry_types + y_types
        scan_types = carry_types + stacked_ys
        names = ", ".join(f"%s{i}" for i in range(len(params)))
        scan_params = ", ".join(
            f"%s{i}: {t}" for i, t in enumerate(carry_types + stacked))
        return (
            f"func.func private @sb{self.seed}({', '.join(params)}) -> "
            f"({', '.join(step_types)}) {{\n"
            f"  %o:{n} = func.call @{self.entry}({call_args}) : "
            f"({', '.join(a.type for a in self.args)}) -> "
            f"({', '.join(r.type for r in results)})\n"
            f"  return {', '.join(step_results)} : {', '.join(step_types)}\n"
            f"}}\n"
            f"func.func @{self.scan_entry}({scan_params}) -> "
            f"({', '.join(scan_types)}) {{\n"
            f"  %r:{len(scan_types)} = kiln.scan @sb{self.seed}({names}) "
            f"{{num_carry = {len(carry_types)} : i64, length = "
            f"{SCAN_STEPS} : i64, reverse = {str(self.reverse).lower()}, "
            f"unroll = {self.unroll} : i64}} : "
            f"({', '.join(carry_types + stacked)}) -> "
            f"({', '.join(scan_types)})\n"
            f"  return {', '.join(f'%r#{i}' for i in range(len(scan_types)))}"
            f" : {', '.join(scan_types)}\n}}\n")

    def vmap_text(self, results):
        def batched(shape, dtype, axis):
            shape = list(shape)
            if axis >= 0:
                shape.insert(axis, 2)
            return progen.ttype(shape, dtype)

        args = [batched(v.shape, v.dtype, a)
                for v, a in zip(self.args, self.in_axes)]
        outs = [batched(np.shape(r.ref), r.dtype, a)
                for r, a in zip(results, self.out_axes)]
        names = ", ".join(f"%b{i}" for i in range(len(args)))
        params = ", ".join(f"%b{i}: {t}" for i, t in enumerate(args))
        returned = ", ".join(f"%r#{i}" for i in range(len(outs)))
        axes = (f"{{in_axes = array<i64: {', '.join(map(str, self.in_axes))}>"
                f", out_axes = array<i64: "
                f"{', '.join(map(str, self.out_axes))}>}}")
        return (f"func.func @{self.vmap_entry}({params}) -> "
                f"({', '.join(outs)}) {{\n"
                f"  %r:{len(outs)} = kiln.vmap @{self.entry}({names}) {axes}"
                f" : ({', '.join(args)}) -> ({', '.join(outs)})\n"
                f"  return {returned} : {', '.join(outs)}\n}}\n")


def run_batch(args):
    """Worker: compiles and checks one batch, printing a JSON line per
    failing program and a last line with the count."""
    runtime = Runtime(args.build)
    cases = [Case(seed, args.ops)
             for seed in range(args.worker, args.worker + args.batch)]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "batch.mlir")
        artifact = os.path.join(tmp, "batch.so")

        def compiles(some):
            """Whether `some` cases compile as one module (into
            `artifact`); else kiln-compile's error."""
            with open(source, "w") as f:
                f.write("".join(case.text for case in some))
            done = subprocess.run(
                [os.path.join(args.build, "bin", "kiln-compile"), source,
                 "-o", artifact], capture_output=True, text=True)
            return None if done.returncode == 0 else \
                f"kiln-compile failed ({done.returncode}): " \
                f"{done.stderr[-2000:]}"

        if compiles(cases):
            # Each case alone finds those the compiler fails on; the rest
            # run together.
            for case in list(cases):
                why = compiles([case])
                if why:
                    failures.append({"seed": case.seed, "why": why})
                    cases.remove(case)
            if cases and compiles(cases):
                cases = []
        if cases:
            module, jit = ctypes.c_void_p(), ctypes.c_void_p()
            runtime.check(runtime.lib.kiln_module_load(
                artifact.encode(), ctypes.byref(module)))
            runtime.check(runtime.lib.kiln_jit_create(
                source.encode(), None, ctypes.byref(jit)))
            checker = Checker(runtime, module, jit)
            for case in cases:
                why = checker.differences(case)
                if why:
                    failures.append({"seed": case.seed, "why": why})
            runtime.lib.kiln_jit_free(jit)
            runtime.lib.kiln_module_free(module)
    for failure in failures:
        print(json.dumps(failure), flush=True)
    print(json.dumps({"done": args.batch}), flush=True)
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
            text = "".join(Case(seed, args.ops).text for seed in
                           range(first, first + args.batch))
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
                text = Case(seed, args.ops).text
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
