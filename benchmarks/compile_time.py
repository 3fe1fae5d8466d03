"""Compile time against program size: kiln-compile on chains of n
elementwise ops (add, mul, tanh over tensor<1024xf32>) for doubling n, with
the time per op and the growth from one size to the next (2.0 is linear).

Usage: compile_time.py KILN_COMPILE [N ...]   (default 1250 2500 5000 10000)
"""
import os
import platform
import subprocess
import sys
import tempfile
import time


def chain(n):
    lines = ["func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {"]
    prev = "%x"
    for i in range(n):
        op = ("add", "mul", "tanh")[i % 3]
        args = f"{prev}" if op == "tanh" else f"{prev}, %x"
        lines.append(f"  %v{i} = kiln.{op} {args} : tensor<1024xf32>")
        prev = f"%v{i}"
    lines.append(f"  return {prev} : tensor<1024xf32>\n}}\n")
    return "\n".join(lines)


def cpu():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    compiler = sys.argv[1]
    sizes = [int(n) for n in sys.argv[2:]] or [1250, 2500, 5000, 10000]
    print(f"CPU: {cpu()}")
    print(f"{'ops':>7} {'seconds':>8} {'ms/op':>6} {'growth':>7}")
    previous = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            source = os.path.join(tmp, f"chain{n}.mlir")
            with open(source, "w") as f:
                f.write(chain(n))
            start = time.perf_counter()
            subprocess.run([compiler, source, "-o", os.path.join(tmp, "a.so")],
                           check=True)
            seconds = time.perf_counter() - start
            growth = f"{seconds / previous:.2f}" if previous else ""
            print(f"{n:>7} {seconds:>8.2f} {1000 * seconds / n:>6.2f} "
                  f"{growth:>7}")
            previous = seconds


if __name__ == "__main__":
    main()
