#!/usr/bin/env python3
"""Runs random kiln programs (test/e2e/progen.py) against their numpy
references until stopped or for --count programs, and writes each failing
program to --keep (default ./fuzz-failures) with the reason.

Run it with Debian's interpreter, which has numpy:
  /usr/bin/python3 scripts/fuzz.py [--count N] [--ops N] [--seed S]
"""
import argparse
import os
import sys
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "test", "e2e"))
import progen  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kiln-run", default=os.path.join(root, "build",
                                                           "bin", "kiln-run"))
    parser.add_argument("--count", type=int, default=0, help="0: forever")
    parser.add_argument("--ops", type=int, default=12)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--keep", default="fuzz-failures")
    args = parser.parse_args()
    seed, done, failures = args.seed, 0, 0
    while not args.count or done < args.count:
        failed = progen.check(args.kiln_run, seed, args.ops)
        if failed:
            failures += 1
            why, text = failed
            os.makedirs(args.keep, exist_ok=True)
            path = os.path.join(args.keep, f"seed{seed}.mlir")
            with open(path, "w") as f:
                f.write("".join(f"// {line}\n" for line in why.splitlines()))
                f.write(text)
            print(f"seed {seed}: {why.splitlines()[0]} ({path})", flush=True)
        done += 1
        seed += 1
        if done % 100 == 0:
            print(f"{done} programs, {failures} failures", flush=True)
    print(f"{done} programs, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
