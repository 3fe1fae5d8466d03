"""Runs kiln programs through kiln-run and compares their results with
references computed independently in numpy."""
import os
import subprocess
import sys
import tempfile

import numpy as np

KILN_RUN = sys.argv[1]
_failures = []

_DTYPES = {
    np.float32: "f32", np.float64: "f64", np.float16: "f16",
    np.bool_: "i1", np.int32: "i32", np.int64: "i64",
}


def ttype(shape, dtype):
    """The kiln tensor type of a numpy shape and dtype ("bf16" allowed)."""
    element = dtype if isinstance(dtype, str) else _DTYPES[np.dtype(dtype).type]
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def run(program, entry, args, extra=()):
    """Runs `entry` of `program` (text) on `args`; returns (results, stderr,
    exit status)."""
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "program.mlir")
        inputs = os.path.join(tmp, "in.npz")
        outputs = os.path.join(tmp, "out.npz")
        with open(source, "w") as f:
            f.write(program)
        np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(args)})
        done = subprocess.run(
            [KILN_RUN, source, "--entry", entry, "--input", inputs,
             "--output", outputs, *extra],
            capture_output=True, text=True)
        if done.returncode != 0:
            return None, done.stderr, done.returncode
        with np.load(outputs) as f:
            return [f[f"out{i}"] for i in range(len(f.files))], done.stderr, 0


def check(name, program, entry, args, expected, rtol=0.0, atol=0.0):
    """Runs and compares every result with `expected` (NaN equals NaN);
    records a failure instead of stopping."""
    results, stderr, status = run(program, entry, args)
    if status != 0:
        _failures.append(f"{name}: kiln-run failed ({status}):\n{stderr}")
        return
    if len(results) != len(expected):
        _failures.append(f"{name}: {len(results)} results, expected "
                         f"{len(expected)}")
        return
    for i, (got, want) in enumerate(zip(results, expected)):
        want = np.asarray(want)
        if got.dtype != want.dtype or got.shape != want.shape:
            _failures.append(f"{name}: out{i} is {got.dtype}{got.shape}, "
                             f"expected {want.dtype}{want.shape}")
            continue
        try:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol,
                                       equal_nan=True)
        except AssertionError as e:
            _failures.append(f"{name}: out{i} differs:\n{e}")


def unary(name, op, x, reference, rtol=0.0, atol=0.0, dtype=None):
    """Checks `kiln.<op>` on x against reference(x)."""
    t = ttype(x.shape, dtype or x.dtype)
    program = (f"func.func @f(%x: {t}) -> {t} {{\n"
               f"  %0 = kiln.{op} %x : {t}\n  return %0 : {t}\n}}\n")
    check(name, program, "f", [x], [reference(x)], rtol, atol)


def binary(name, op, x, y, reference, rtol=0.0, atol=0.0):
    """Checks `kiln.<op>` on x, y against reference(x, y)."""
    t = ttype(x.shape, x.dtype)
    program = (f"func.func @f(%x: {t}, %y: {t}) -> {t} {{\n"
               f"  %0 = kiln.{op} %x, %y : {t}\n  return %0 : {t}\n}}\n")
    check(name, program, "f", [x, y], [reference(x, y)], rtol, atol)


def fail(message):
    """Records a failure instead of stopping."""
    _failures.append(message)


def finish():
    """Reports the failures and exits with their status."""
    for failure in _failures:
        print("FAIL", failure)
    print(f"{len(_failures)} failures")
    sys.exit(1 if _failures else 0)
