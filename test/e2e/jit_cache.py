# kiln-run's jit cache on disk, across processes: a second run of a program
# compiles nothing (its log says it loaded the entry from disk); a corrupt,
# truncated, foreign or unreadable entry is reported, removed and
# recompiled, never run; a changed argument shape is explained; two
# processes sharing an empty cache both run correctly and leave whole
# entries; the folder keeps to its byte budget; a static argument's value
# is part of the key; an entry with a dynamic dimension compiles once per
# shape, saying which argument's shape changed.
# RUN: %numpy_python %s kiln-run
import glob
import os
import shutil
import struct
import subprocess
import tempfile
import zlib

import numpy as np

from harness import KILN_RUN, compare, fail, finish

PROGRAM = """
func.func @scale(%x: tensor<{n}xf32>, %k: tensor<f32>) -> tensor<{n}xf32> {{
  %b = kiln.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<{n}xf32>
  %y = kiln.mul %x, %b : tensor<{n}xf32>
  %z = kiln.tanh %y : tensor<{n}xf32>
  return %z : tensor<{n}xf32>
}}
"""


def kiln_run(folder, source, n, cache, extra=(), env=None, k=0.75):
    """Runs @scale of `source` on a fixed input and factor `k` through
    `cache`; returns (its log lines, exit status), checking the result
    against numpy."""
    x = np.linspace(-2, 2, n).astype(np.float32)
    inputs = os.path.join(folder, f"in{n}.npz")
    outputs = os.path.join(folder, f"out{n}-{os.getpid()}.npz")
    np.savez(inputs, arg0=x, arg1=np.float32(k))
    done = subprocess.run(
        [KILN_RUN, source, "--entry", "scale", "--input", inputs, "--output",
         outputs, "--cache-dir", cache, "--explain-cache", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=env)
    if done.returncode == 0:
        with np.load(outputs) as f:
            compare(f"{source} n={n}", [f["out0"]],
                    [np.tanh(x.astype(np.float64) * k).astype(np.float32)],
                    rtol=1e-6, atol=1e-6)
    return done.stdout.splitlines(), done.returncode


def expect(name, lines, status, *fragments):
    """Fails unless the run succeeded and its log has every fragment."""
    text = "\n".join(lines)
    if status != 0:
        fail(f"{name}: kiln-run failed ({status}):\n{text}")
        return
    for fragment in fragments:
        if fragment not in text:
            fail(f"{name}: the log lacks {fragment!r}:\n{text}")


def entries(cache):
    return sorted(glob.glob(os.path.join(cache, "*.kiln-jit")))


with tempfile.TemporaryDirectory() as folder:
    cache = os.path.join(folder, "cache")
    source = os.path.join(folder, "scale.mlir")
    with open(source, "w") as f:
        f.write(PROGRAM.format(n=8))

    lines, status = kiln_run(folder, source, 8, cache)
    expect("first run", lines, status,
           "cache miss: the cache holds no compiled @scale; compiling",
           "compiled in")
    [entry] = entries(cache)
    lines, status = kiln_run(folder, source, 8, cache)
    expect("second run", lines, status, "loaded from the disk cache")
    if any("compiled in" in line for line in lines):
        fail("second run compiled again:\n" + "\n".join(lines))

    # Damaged entries: each is reported, removed and recompiled.
    original = open(entry, "rb").read()
    # The entry's parts (runtime/jit/CompileCache.h): an artifact changed
    # and compressed again keeps a valid stream but fails the checksum.
    key_end = 12 + struct.unpack_from("<I", original, 8)[0]
    size, _ = struct.unpack_from("<QQ", original, key_end)
    digest_end = key_end + 16 + 32
    artifact = bytearray(zlib.decompress(original[digest_end:]))
    artifact[len(artifact) // 2] ^= 1
    changed = zlib.compress(bytes(artifact))
    damages = {
        "corrupt (checksum mismatch)": original[:key_end] + struct.pack(
            "<QQ", size, len(changed)) + original[key_end + 16:digest_end] +
        changed,
        "corrupt (cannot be inflated": original[:-40] + bytes(
            b ^ 0xFF for b in original[-40:-20]) + original[-20:],
        "truncated": original[:len(original) // 2],
        "not a Kiln cache entry": b"\x7fELF" + original[4:],
        "corrupt (a key of": original[:8] + b"\xff\xff\xff\x7f" + original[12:],
    }
    for why, damaged in damages.items():
        with open(entry, "wb") as f:
            f.write(damaged)
        lines, status = kiln_run(folder, source, 8, cache)
        expect(f"entry damaged ({why})", lines, status,
               why if why.startswith("corrupt") else f"is {why}",
               "removed, recompiling", "compiled in")
        if open(entry, "rb").read() != original:
            fail(f"entry damaged ({why}): the recompiled entry differs")

    # A foreign entry: another program's, copied over this one's name.
    other_source = os.path.join(folder, "other.mlir")
    with open(other_source, "w") as f:
        f.write(PROGRAM.format(n=16))
    other_cache = os.path.join(folder, "other-cache")
    kiln_run(folder, other_source, 16, other_cache)
    [other] = entries(other_cache)
    shutil.copyfile(other, entry)
    lines, status = kiln_run(folder, source, 8, cache)
    expect("foreign entry", lines, status,
           "is written for another key (argument 0 tensor<8xf32> vs "
           "tensor<16xf32>; the IR of the entry", "compiled in")

    # A changed argument shape: the miss says which argument changed.
    with open(source, "w") as f:
        f.write(PROGRAM.format(n=12))
    lines, status = kiln_run(folder, source, 12, cache)
    expect("changed shape", lines, status,
           "cache miss: the closest cached @scale differs: argument 0 "
           "tensor<12xf32> vs tensor<8xf32>")

    # Two processes at once on an empty cache: both right, whole entries.
    shared = os.path.join(folder, "shared")
    inputs = os.path.join(folder, "in12.npz")
    runs = [subprocess.Popen(
        [KILN_RUN, source, "--entry", "scale", "--input", inputs, "--output",
         os.path.join(folder, f"concurrent{i}.npz"), "--cache-dir", shared],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for i in range(2)]
    want = np.tanh(np.linspace(-2, 2, 12) * 0.75).astype(np.float32)
    for i, run in enumerate(runs):
        output, _ = run.communicate()
        if run.returncode != 0:
            fail(f"concurrent run {i} failed:\n{output}")
            continue
        with np.load(os.path.join(folder, f"concurrent{i}.npz")) as f:
            compare(f"concurrent run {i}", [f["out0"]], [want], rtol=1e-6,
                    atol=1e-6)
    [shared_entry] = entries(shared)
    lines, status = kiln_run(folder, source, 12, shared)
    expect("after concurrent runs", lines, status, "loaded from the disk cache")
    if glob.glob(os.path.join(shared, "*.tmp-*")):
        fail("concurrent runs left temporary files")

    # A budget smaller than two entries: storing the second evicts the first.
    env = dict(os.environ, KILN_CACHE_MAX_BYTES=str(
        os.path.getsize(shared_entry) + 100))
    with open(other_source, "w") as f:
        f.write(PROGRAM.format(n=16))
    lines, status = kiln_run(folder, other_source, 16, shared, env=env)
    expect("budget", lines, status, "evicted " + shared_entry)
    if len(entries(shared)) != 1:
        fail(f"budget: the folder holds {entries(shared)}")

    # Without a disk cache nothing is written.
    empty = os.path.join(folder, "unused")
    lines, status = kiln_run(folder, source, 12, empty, ["--no-disk-cache"])
    expect("no disk cache", lines, status, "compiled in")
    if os.path.exists(empty):
        fail("--no-disk-cache wrote a cache folder")

    # A static factor (a bf16 given as float32, as kiln-run reads them):
    # each value is compiled once and found again by value.
    static_source = os.path.join(folder, "static.mlir")
    with open(static_source, "w") as f:
        f.write(PROGRAM.format(n=8).replace(
            "%k: tensor<f32>", "%kb: tensor<bf16> {kiln.static}").replace(
            "%b = kiln", "%k = kiln.convert %kb : (tensor<bf16>) -> "
            "tensor<f32>\n  %b = kiln"))
    static_cache = os.path.join(folder, "static-cache")
    lines, status = kiln_run(folder, static_source, 8, static_cache, k=0.75)
    expect("static 0.75", lines, status, "compiled in")
    lines, status = kiln_run(folder, static_source, 8, static_cache, k=0.75)
    expect("static 0.75 again", lines, status, "loaded from the disk cache")
    lines, status = kiln_run(folder, static_source, 8, static_cache, k=0.5)
    expect("static 0.5", lines, status,
           "the closest cached @scale differs: static argument 1 bf16[] "
           "dense<5.000000e-01> vs bf16[] dense<7.500000e-01>", "compiled in")

    # A dynamic dimension: each shape compiles a specialization once, the
    # second's miss names the argument whose shape changed, and a later
    # process finds both on disk.
    dynamic_source = os.path.join(folder, "dynamic.mlir")
    with open(dynamic_source, "w") as f:
        f.write(PROGRAM.format(n="?").replace(
            "dims = [] : (tensor<f32>)",
            "dims = [], like %x : (tensor<f32>, tensor<?xf32>)"))
    dynamic_cache = os.path.join(folder, "dynamic-cache")
    lines, status = kiln_run(folder, dynamic_source, 8, dynamic_cache)
    expect("dynamic n=8", lines, status,
           "@scale(tensor<8xf32>, tensor<f32>): compiled in")
    lines, status = kiln_run(folder, dynamic_source, 13, dynamic_cache)
    expect("dynamic n=13", lines, status,
           "the closest cached @scale differs: argument 0 tensor<13xf32> vs "
           "tensor<8xf32>; compiling", "compiled in")
    for n in (8, 13):
        lines, status = kiln_run(folder, dynamic_source, n, dynamic_cache)
        expect(f"dynamic n={n} again", lines, status,
               "loaded from the disk cache")

finish()
