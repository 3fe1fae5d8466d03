"""Runs kiln programs through kiln-run and compares their results with
references computed independently in numpy.

With $KILN_GPU_BUNDLE set to a folder, every checked program is also
compiled for NVIDIA GPUs (kiln-compile --target=nvptx) into that folder
with its arguments, its numpy reference (for programs checked in pairs,
the CPU's results) and its tolerance, for
scripts/gpu/run_cases.py to run on a machine with a GPU (see
scripts/gpu-check.sh)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

KILN_RUN = sys.argv[1]
_failures = []

_DTYPES = {
    np.float32: "f32", np.float64: "f64", np.float16: "f16",
    np.bool_: "i1", np.int8: "i8", np.int16: "i16", np.int32: "i32",
    np.int64: "i64",
}


def ttype(shape, dtype):
    """The kiln tensor type of a numpy shape and dtype ("bf16" allowed)."""
    element = dtype if isinstance(dtype, str) else _DTYPES[np.dtype(dtype).type]
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def comparator_float(s, a, b):
    """JAX's float comparator body on %a, %b of scalar type `s`: -0.0 and
    NaN canonicalized, then a TOTALORDER less-than."""
    lines = []
    for name in (a, b):
        lines += [
            f"%zero_{name} = stablehlo.constant dense<0.0> : {s}",
            f"%isz_{name} = stablehlo.compare  EQ, %{name}, %zero_{name},  FLOAT : ({s}, {s}) -> tensor<i1>",
            f"%z_{name} = stablehlo.select %isz_{name}, %zero_{name}, %{name} : tensor<i1>, {s}",
            f"%isn_{name} = stablehlo.compare  NE, %{name}, %{name},  FLOAT : ({s}, {s}) -> tensor<i1>",
            f"%nan_{name} = stablehlo.constant dense<0x7FC00000> : {s}",
            f"%c_{name} = stablehlo.select %isn_{name}, %nan_{name}, %z_{name} : tensor<i1>, {s}",
        ]
    lines.append(f"%lt = stablehlo.compare  LT, %c_{a}, %c_{b},  TOTALORDER : ({s}, {s}) -> tensor<i1>")
    return lines


def run(program, entry, args, extra=(), launcher=(), compressed=False):
    """Runs `entry` of `program` (text) on `args` (in a .npz, `compressed`
    or not), through `launcher` (a command line prefix: mpirun) if given;
    returns (results, its output (stdout and stderr), exit status)."""
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "program.mlir")
        inputs = os.path.join(tmp, "in.npz")
        outputs = os.path.join(tmp, "out.npz")
        with open(source, "w") as f:
            f.write(program)
        (np.savez_compressed if compressed else np.savez)(
            inputs, **{f"arg{i}": a for i, a in enumerate(args)})
        done = subprocess.run(
            [*launcher, KILN_RUN, source, "--entry", entry, "--input", inputs,
             "--output", outputs, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            return None, done.stdout, done.returncode
        with np.load(outputs) as f:
            return [f[f"out{i}"] for i in range(len(f.files))], done.stdout, 0


def _peak(text, entry):
    """The bytes of the line "ENTRY: peak N bytes ..." in `text`, or None."""
    for line in text.splitlines():
        if line.startswith(f"{entry}: peak "):
            return int(line.split()[2])
    return None


def _compiler():
    return shutil.which("kiln-compile") or os.path.join(
        os.path.dirname(KILN_RUN), "kiln-compile")


def compile_report(program, kind):
    """kiln-compile --report=KIND of `program`: (stdout, or stderr where it
    failed; whether it succeeded)."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as source:
        source.write(program)
        source.flush()
        done = subprocess.run([_compiler(), source.name, f"--report={kind}",
                               "--emit=kiln", "-o", os.devnull],
                              capture_output=True, text=True)
    return (done.stdout, True) if done.returncode == 0 else (done.stderr, False)


def peak_memory(program, entry, args):
    """The peak bytes of intermediate buffers of `entry`: as kiln-compile
    --report=memory predicts them and as kiln-run --report=memory measures
    a call, with kiln-compile's report; None where a tool failed."""
    report, _ = compile_report(program, "memory")
    _, output, status = run(program, entry, args, ["--report=memory"])
    measured = _peak(output, entry) if status == 0 else None
    return _peak(report, entry), measured, report


def function_runs(program, entry):
    """How many times one call of `entry` runs each function, by name, as
    kiln-compile --report=calls counts them; None where it failed or counted
    inexactly."""
    report, ok = compile_report(program, "calls")
    if not ok or "*" in report:
        return None
    runs, inside = {}, False
    for line in report.splitlines():
        if not line.startswith(" "):
            inside = line.startswith(f"{entry}: ")
        elif inside:
            count, name = line.split()
            runs[name] = int(count)
    return runs


def _bundle(name, program, entry, args, expected, rtol, atol):
    """Adds a GPU case to $KILN_GPU_BUNDLE (case-N.so, .in.npz, .ref.npz and
    a line of cases.jsonl); a program that does not compile for the GPU is
    recorded with the compiler's message."""
    folder = os.environ["KILN_GPU_BUNDLE"]
    os.makedirs(folder, exist_ok=True)
    listing = os.path.join(folder, "cases.jsonl")
    index = sum(1 for _ in open(listing)) if os.path.exists(listing) else 0
    stem = os.path.join(folder, f"case-{index}")
    compiler = _compiler()
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "program.mlir")
        with open(source, "w") as f:
            f.write(program)
        done = subprocess.run([compiler, source, "--target=nvptx",
                               "-o", stem + ".so"],
                              capture_output=True, text=True)
    np.savez(stem + ".in.npz", **{f"arg{i}": a for i, a in enumerate(args)})
    np.savez(stem + ".ref.npz",
             **{f"out{i}": np.asarray(e) for i, e in enumerate(expected)})
    case = {"name": name, "stem": os.path.basename(stem), "entry": entry,
            "rtol": rtol, "atol": atol,
            "compile_error": done.stderr if done.returncode else None}
    with open(listing, "a") as f:
        f.write(json.dumps(case) + "\n")


# Each checked program runs compiled, then interpreted by the reference
# interpreter (kiln-run --interpret), both against the same reference.
_MODES = (("", ()), (" (interpreted)", ("--interpret",)))


def check(name, program, entry, args, expected, rtol=0.0, atol=0.0,
          interpret=True, extra=()):
    """Runs compiled and (if `interpret`) interpreted, with kiln-run's
    flags `extra`, and compares every result with `expected` (NaN equals
    NaN); records a failure instead of stopping."""
    if os.environ.get("KILN_GPU_BUNDLE"):
        _bundle(name, program, entry, args, expected, rtol, atol)
    for mode, flags in _MODES[:2 if interpret else 1]:
        results, stderr, status = run(program, entry, args, (*flags, *extra))
        if status != 0:
            _failures.append(f"{name}{mode}: kiln-run failed ({status}):\n"
                             f"{stderr}")
            continue
        compare(name + mode, results, expected, rtol, atol)


def check_pairs(name, program, entry, args, rtol=0.0, atol=0.0):
    """Runs `entry` compiled and interpreted, whose results come in pairs
    (a value, then its reference computed another way), and compares each
    pair; records a failure instead of stopping."""
    for mode, flags in _MODES:
        results, stderr, status = run(program, entry, args, flags)
        if status != 0:
            _failures.append(f"{name}{mode}: kiln-run failed ({status}):\n"
                             f"{stderr}")
            continue
        if os.environ.get("KILN_GPU_BUNDLE") and not flags:
            # The GPU must agree with the CPU path, up to the order in which
            # it sums.
            _bundle(name, program, entry, args, results, max(rtol, 1e-4),
                    max(atol, 1e-5))
        for k in range(0, len(results), 2):
            compare(f"{name}{mode} (pair {k // 2})", [results[k]],
                    [results[k + 1]], rtol, atol)


def compare(name, results, expected, rtol=0.0, atol=0.0):
    """Compares every result with `expected` (NaN equals NaN); records a
    failure instead of stopping. Whether all agreed."""
    if len(results) != len(expected):
        _failures.append(f"{name}: {len(results)} results, expected "
                         f"{len(expected)}")
        return False
    agreed = True
    for i, (got, want) in enumerate(zip(results, expected)):
        want = np.asarray(want)
        if got.dtype != want.dtype or got.shape != want.shape:
            _failures.append(f"{name}: out{i} is {got.dtype}{got.shape}, "
                             f"expected {want.dtype}{want.shape}")
            agreed = False
            continue
        try:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol,
                                       equal_nan=True)
        except AssertionError as e:
            _failures.append(f"{name}: out{i} differs:\n{e}")
            agreed = False
    return agreed


def check_sharded(unsharded, sharded, entry, args, reference, rtol, atol):
    """Runs `entry` of the program `unsharded` and compares it with
    `reference` (rtol, atol), then each (label, program, kiln-run flags) of
    `sharded` with the unsharded run (1e-6: partial sums may be ordered
    otherwise); records failures instead of stopping."""
    single, output, status = run(unsharded, entry, args)
    if status != 0:
        _failures.append(f"one device: kiln-run failed:\n{output}")
        return
    compare("one device vs the reference", single, reference, rtol, atol)
    for label, program, flags in sharded:
        results, output, status = run(program, entry, args, flags)
        if status != 0:
            _failures.append(f"{label}: kiln-run failed:\n{output}")
        else:
            compare(f"{label} vs one device", results, single, 1e-6, 1e-6)


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


def convert(src, dst, x, expected):
    """Checks `kiln.convert` of x from element type `src` to `dst` (kiln's
    names) against `expected`."""
    a, r = ttype(x.shape, src), ttype(x.shape, dst)
    check(f"convert {src} to {dst}", f"""
func.func @f(%x: {a}) -> {r} {{
  %0 = kiln.convert %x : ({a}) -> {r}
  return %0 : {r}
}}""", "f", [x], [expected])


def fail(message):
    """Records a failure instead of stopping."""
    _failures.append(message)


def finish():
    """Reports the failures and exits with their status."""
    for failure in _failures:
        print("FAIL", failure)
    print(f"{len(_failures)} failures")
    sys.exit(1 if _failures else 0)
