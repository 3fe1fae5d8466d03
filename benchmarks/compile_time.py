"""Compile time against program size: kiln-compile on chains of n
elementwise ops (add, mul, tanh over tensor<1024xf32>) for doubling n, with
the time per op and the growth from one size to the next (2.0 is linear);
then a kiln.scan of an RNN cell and its gradient at lengths 10 and 100,000
(one loop: the time should not grow), beside the same scan fully unrolled
(unroll = length) at lengths 10, 20 and 40, whose time grows with length.

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


def scan(length, unroll):
    """The gradient of the sum of an RNN's states over `length` steps."""
    h = "tensor<16xf32>"
    return f"""
func.func private @cell(%w: tensor<16x16xf32>, %h: {h}, %x: {h}) -> (tensor<16x16xf32>, {h}, {h}) {{
  %wh = kiln.dot_general %h, %w, contracting = [0] x [0] : ({h}, tensor<16x16xf32>) -> {h}
  %a = kiln.add %wh, %x : {h}
  %n = kiln.tanh %a : {h}
  return %w, %n, %n : tensor<16x16xf32>, {h}, {h}
}}
func.func private @loss(%w: tensor<16x16xf32>, %h: {h}, %xs: tensor<{length}x16xf32>) -> tensor<f32> {{
  %r:3 = kiln.scan @cell(%w, %h, %xs) {{num_carry = 2 : i64, length = {length} : i64, unroll = {unroll} : i64}} : (tensor<16x16xf32>, {h}, tensor<{length}x16xf32>) -> (tensor<16x16xf32>, {h}, tensor<{length}x16xf32>)
  %l = kiln.reduce_sum %r#2, dims = [0, 1] : (tensor<{length}x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}}
func.func @grad(%w: tensor<16x16xf32>, %h: {h}, %xs: tensor<{length}x16xf32>) -> tensor<16x16xf32> {{
  %g = kiln.grad @loss(%w, %h, %xs) : (tensor<16x16xf32>, {h}, tensor<{length}x16xf32>) -> tensor<16x16xf32>
  return %g : tensor<16x16xf32>
}}
"""


def timed_compile(compiler, tmp, name, text):
    source = os.path.join(tmp, name + ".mlir")
    with open(source, "w") as f:
        f.write(text)
    start = time.perf_counter()
    subprocess.run([compiler, source, "-o", os.path.join(tmp, "a.so")],
                   check=True)
    return time.perf_counter() - start


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
        print("grad of a scanned RNN cell (16 units)")
        print(f"{'length':>7} {'unroll':>7} {'seconds':>8}")
        for length, unroll in [(10, 1), (100000, 1), (10, 10), (20, 20),
                               (40, 40)]:
            seconds = timed_compile(compiler, tmp, f"scan{length}_{unroll}",
                                    scan(length, unroll))
            print(f"{length:>7} {unroll:>7} {seconds:>8.2f}")


if __name__ == "__main__":
    main()
