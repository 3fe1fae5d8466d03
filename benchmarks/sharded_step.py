"""mlp_step.py's SGD step (a 784 -> 512 -> 10 MLP) data parallel on
in-process devices: on one device with one thread, on one device with two
threads (its loops parallel), and on two devices (threads) of one thread
each, its batch split over the mesh axis "data" and the gradients
all-reduced. Checks that the three give the same updated parameters, then
prints the CPU, each median and the speedup of 2 devices over 1, and the
bytes each device sends per step through collectives next to the fewest
the shardings need (the gradients' all-reduce: 2 (n - 1) / n of their
bytes in a ring, as NCCL's and MPI's all-reduce send).

Usage: sharded_step.py KILN_RUN [N] [BATCH...]   (default 30 steps, batches
256 and 2048: a small step and a large one)
"""
import os
import re
import subprocess
import sys
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402

from dot_spread import cpu_name, kiln_ms  # noqa: E402
from mlp_step import C, D, H, program, step_arguments  # noqa: E402


def collective_bytes(kiln_opt, source_text):
    """Per kind, the bytes of the operands of the collectives one device
    runs per step, from the partitioned program."""
    done = subprocess.run([kiln_opt, "--kiln-sharding-pipeline", "-"],
                          input=source_text, capture_output=True, text=True,
                          check=True)
    sizes = {"f32": 4, "f64": 8, "i32": 4, "i64": 8, "bf16": 2, "f16": 2}
    totals = {}
    for kind, shape in re.findall(
            r"kiln\.(all_reduce|all_gather|reduce_scatter|all_to_all)"
            r"[^:]*: (?:\()?tensor<([^>]*)>", done.stdout):
        dims = shape.split("x")
        count = int(np.prod([int(d) for d in dims[:-1]])) if dims[:-1] else 1
        totals[kind] = totals.get(kind, 0) + count * sizes[dims[-1]]
    return totals


def compare(kiln_run, kiln_opt, runs, B):
    args, _ = step_arguments(B)
    print(f"batch {B}, {D} -> {H} -> {C}:")
    with tempfile.TemporaryDirectory() as tmp:
        one, w1_one = kiln_ms(kiln_run, tmp, program(None, B), args, runs, 1)
        one2, w1_one2 = kiln_ms(kiln_run, tmp, program(None, B), args, runs, 2)
        two, w1_two = kiln_ms(kiln_run, tmp, program(2, B), args, runs, 2)
    error = np.max(np.abs(w1_two - w1_one)) / np.max(np.abs(w1_one))
    if error > 1e-5 or np.max(np.abs(w1_one2 - w1_one)) > 1e-5:
        sys.exit(f"the sharded step's updated w1 is off by {error:.1e}")
    print(f"  1 device, 1 thread:       {one:8.3f} ms")
    print(f"  1 device, 2 threads:      {one2:8.3f} ms  "
          f"({one / one2:.2f}x over 1 thread)")
    print(f"  2 devices, 1 thread each: {two:8.3f} ms  ({one / two:.2f}x over "
          f"1 device on 1 thread, {one2 / two:.2f}x over 1 device on 2)")
    sent = collective_bytes(kiln_opt, program(2, B))
    grads = 4 * (D * H + H + H * C + C)
    n = 2
    total = sum(sent.values())
    print("  collectives per device per step: " + ", ".join(
        f"{kind} of {size} bytes" for kind, size in sorted(sent.items())))
    print(f"  bytes sent per device: {total * 2 * (n - 1) // n} in a ring "
          f"all-reduce; the shardings need {grads * 2 * (n - 1) // n} "
          f"(the gradients, {grads} bytes)")


def main():
    kiln_run = sys.argv[1]
    kiln_opt = os.path.join(os.path.dirname(kiln_run), "kiln-opt")
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    batches = [int(b) for b in sys.argv[3:]] or [256, 2048]
    print(cpu_name())
    print(f"median of {runs} steps")
    for B in batches:
        compare(kiln_run, kiln_opt, runs, B)


if __name__ == "__main__":
    main()
