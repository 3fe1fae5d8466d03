#!/usr/bin/env python3
"""Runs StableHLO's interpreter tests (openxla/stablehlo
stablehlo/tests/interpret/*.mlir) through Kiln.

usage: stablehlo_interpret.py KILN_RUN DIR [--require N]

Each test is a function without arguments whose `check.expect_*` ops state
the values it must compute. Each is rewritten to return the checked values
beside the expected ones (`check.expect_eq_const %x, dense<..>` becomes a
constant returned next to %x), imported and run by kiln-run, and the pairs
compared with numpy: exactly for `expect_eq`, to 1e-4 for `expect_almost_eq`
and `expect_close`. A test Kiln cannot import (an op it does not cover, an
element type such as ui8 or complex) is counted as not covered, with the
reason; a covered test whose values differ is a failure, except where the
test's comment says its result is implementation-defined (integer division
by zero and overflow: Kiln gives XLA's values, as JAX does), which is
reported beside the values. Prints a line per file and a summary; exits 1
on any failure, or if fewer than N tests pass (--require).
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

CHECK = re.compile(
    r'^(\s*)(?:check\.(expect_\w+?)(_const)?\s+(%[\w#]+)\s*,\s*(.*?)\s*:\s*'
    r'(tensor<[^>]*>)\s*$'
    r'|"check\.(expect_\w+?)(_const)?"\((%[\w#]+)(?:,\s*(%[\w#]+))?\)\s*'
    r'(?:<\{value = (.*?) : (tensor<[^>]*>)\}>)?.*$)')
# Comments may break the word across lines.
IMPLEMENTATION_DEFINED = re.compile(r"implementation-\s*(?://\s*)?defined")
RETURN = re.compile(r'^(\s*)(?:func\.)?return\s*$|^(\s*)"func\.return"\(\)')
FUNC = re.compile(r'func\.func (?:public |private )?@([\w.]+)\(\)'
                  r'|"func\.func".*sym_name = "([\w.]+)"')


def joined_checks(text):
    """The lines of `text`, a check op written over several lines joined
    into one (tests spell multi-dimensional expected values that way)."""
    lines = []
    for line in text.splitlines():
        if lines and lines[-1].lstrip().startswith("check.") and (
                lines[-1].count("<") > lines[-1].count(">") or
                lines[-1].rstrip().endswith(",")):
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return lines


def rewrite(text):
    """The test's functions, each rewritten to return (checked, expected)
    pairs: [(name, kind per pair)], and the program text."""
    out, kinds, functions = [], [], []
    for line in joined_checks(text):
        match = CHECK.match(line)
        if match and match.group(2):
            indent, kind, const, value, other, type_ = (
                match.group(1), match.group(2), match.group(3),
                match.group(4), match.group(5), match.group(6))
        elif match and match.group(7):
            indent, kind, const, value = ("  ", match.group(7),
                                          match.group(8), match.group(9))
            other = match.group(10) if not const else match.group(11)
            type_ = match.group(12)
        else:
            ret = RETURN.match(line)
            if ret and functions:
                indent = ret.group(1) or ret.group(2) or "  "
                pairs = functions[-1][1]
                values = ", ".join(v for pair in pairs for v in pair[:2])
                types = ", ".join(t for pair in pairs for t in (pair[2],) * 2)
                out.append(f"{indent}func.return {values} : {types}"
                           if pairs else line)
                continue
            found = FUNC.search(line)
            if found:
                functions.append((found.group(1) or found.group(2), [],
                                  len(out)))
            out.append(line)
            continue
        if kind == "expect_serialized_eq" or type_ is None and const:
            raise ValueError(f"check.{kind}: not supported by this runner")
        pairs = functions[-1][1]
        if const:
            name = f"%kiln_expected_{len(pairs)}"
            out.append(f"{indent}{name} = stablehlo.constant {other} : "
                       f"{type_}")
            other = name
        elif type_ is None:
            raise ValueError(f"check.{kind}: the operand type is not given")
        pairs.append((value, other, type_, kind))
    # The signatures return the pairs.
    for name, pairs, header in functions:
        types = ", ".join(t for pair in pairs for t in (pair[2],) * 2)
        out[header] = (out[header].replace("function_type = () -> ()",
                                           f"function_type = () -> ({types})")
                       .replace(f"@{name}()", f"@{name}() -> ({types})"))
        kinds.append((name, [pair[3] for pair in pairs]))
    return kinds, "\n".join(out)


def run_chunk(kiln_run, text, tmp):
    """(passed, failures, not covered reasons, implementation-defined
    differences) of one module."""
    try:
        functions, program = rewrite(text)
    except ValueError as error:
        return 0, [], [str(error)], []
    free = IMPLEMENTATION_DEFINED.search(text) is not None
    source = os.path.join(tmp, "test.mlir")
    with open(source, "w") as f:
        f.write(program)
    passed, failures, uncovered, differences = 0, [], [], []
    for name, kinds in functions:
        if not kinds:
            continue
        output = os.path.join(tmp, "out.npz")
        done = subprocess.run([kiln_run, source, "--entry", name, "--output",
                               output, "--no-disk-cache"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            why = done.stderr.strip().splitlines()
            reason = why[0] if why else f"exit status {done.returncode}"
            if done.returncode < 0 or "error" not in reason:
                failures.append(f"{name}: kiln-run crashed: {reason}")
            else:
                uncovered.append(f"{name}: {reason}")
            continue
        with np.load(output) as f:
            results = [f[f"out{i}"] for i in range(len(f.files))]
        ok = True
        for i, kind in enumerate(kinds):
            got, want = results[2 * i], results[2 * i + 1]
            if kind == "expect_eq":
                same = got.shape == want.shape and np.array_equal(
                    got, want, equal_nan=got.dtype.kind == "f")
            else:
                same = got.shape == want.shape and np.allclose(
                    got, want, rtol=1e-4, atol=1e-4, equal_nan=True)
            if not same:
                (differences if free else failures).append(
                    f"{name}: check {i} ({kind}): got {got!r}, "
                    f"expected {want!r}")
                ok = False
        passed += ok
    return passed, failures, uncovered, differences


def main():
    args = sys.argv[1:]
    require = 0
    if "--require" in args:
        at = args.index("--require")
        require = int(args[at + 1])
        del args[at:at + 2]
    if len(args) != 2:
        print(__doc__)
        return 2
    kiln_run, folder = args
    if not os.path.isdir(folder):
        print(f"SKIPPED: {folder} is not a folder of StableHLO interpreter "
              "tests (stablehlo/tests/interpret of openxla/stablehlo)")
        return 0
    total_passed, total_failures, total_uncovered = 0, [], 0
    total_differences = []
    with tempfile.TemporaryDirectory() as tmp:
        for file in sorted(os.listdir(folder)):
            if not file.endswith(".mlir"):
                continue
            with open(os.path.join(folder, file)) as f:
                chunks = f.read().split("\n// -----")
            passed, failures, uncovered, differences = 0, [], [], []
            for chunk in chunks:
                p, fails, unc, diff = run_chunk(kiln_run, chunk, tmp)
                passed += p
                failures += fails
                uncovered += unc
                differences += diff
            total_passed += passed
            total_failures += [f"{file}: {failure}" for failure in failures]
            total_differences += [f"{file}: {diff}" for diff in differences]
            total_uncovered += len(uncovered)
            print(f"{file}: {passed} passed, {len(failures)} failed, "
                  f"{len(differences)} implementation-defined, "
                  f"{len(uncovered)} not covered"
                  + (f" ({uncovered[0]})" if uncovered else ""))
    for difference in total_differences:
        print("IMPLEMENTATION-DEFINED", difference)
    for failure in total_failures:
        print("FAIL", failure)
    print(f"{total_passed} passed, {len(total_failures)} failed, "
          f"{len(total_differences)} implementation-defined, "
          f"{total_uncovered} not covered")
    if total_failures or total_passed < require:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
