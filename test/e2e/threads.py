# Parallel loops: ops large enough to pay for threads run in chunks that
# kiln-run --threads N shares among N threads, and so do normalizations
# fused by blocks of rows. Each program gives numpy's
# result (computed independently, in float64 where it rounds) with 1, 2 and
# 3 threads (more than this machine's CPUs: blocking threads must cope),
# and the same bits with each: a chunk's work does not depend on the count.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import compare, fail, finish, run, ttype

rng = np.random.default_rng(41)


def program(args, result, body):
    """A function @f of `args` (numpy arrays) returning `result`'s type
    with `body` (kiln ops on %a0, %a1, ... ending in %r)."""
    params = ", ".join(f"%a{i}: {ttype(a.shape, a.dtype)}"
                       for i, a in enumerate(args))
    t = ttype(result.shape, result.dtype)
    return (f"func.func @f({params}) -> {t} {{\n{body}\n"
            f"  return %r : {t}\n}}\n")


def sig(args, result):
    return ("(" + ", ".join(ttype(a.shape, a.dtype) for a in args) + ") -> "
            + ttype(result.shape, result.dtype))


def dot(a, b, dims, want):
    return program([a, b], want,
                   f"  %r = kiln.dot_general %a0, %a1, {dims} : "
                   f"{sig([a, b], want)}")


def f32(shape):
    return rng.standard_normal(shape).astype(np.float32)


def matmul_case(name, a, b, dims, reference):
    want = reference(a.astype(np.float64), b.astype(np.float64))
    return name, dot(a, b, dims, want.astype(a.dtype)), [a, b], \
        want.astype(a.dtype)


CASES = []
# A prime number of rows (whole register tiles in chunks, the last row on
# the calling thread), a batch matmul (chunks of the batch), vector-matrix
# products of a B of 4 MiB or more, of one row or a few (K split into 8
# pieces, chunks of the pieces, whose partial rows then add up: 4096 = 8 x
# 512, 1000 = 8 x 125 and 3 rows by 2048 = 8 x 256 in f32, 1024 = 8 x 128
# by 1 and 5 rows in f64), B packed into panels by chunks of them (B's
# rows 4 KiB apart, 8.6 MB: K split into 1024 + 1024 + 52 steps so that
# each chunk's part of packed B fits a thread's buffers), the backward
# pass's transposed operand, an exact integer matmul.
A, B = f32((257, 600)), f32((600, 300))
CASES.append(matmul_case("matmul 257x600x300", A, B,
                         "contracting = [1] x [0]", lambda a, b: a @ b))
A, B = f32((4, 128, 256)), f32((4, 256, 96))
CASES.append(matmul_case("batch matmul 4x128x256x96", A, B,
                         "batching = [0] x [0], contracting = [2] x [1]",
                         lambda a, b: a @ b))
for a, b in [(f32((1, 4096)), f32((4096, 4096))),
             (f32((1, 1000)), f32((1000, 5003))),
             (f32((3, 2048)), f32((2048, 1024))),
             (rng.standard_normal((1, 1024)), rng.standard_normal((1024, 1024))),
             (rng.standard_normal((5, 1024)), rng.standard_normal((1024, 768)))]:
    CASES.append(matmul_case(
        f"rows by matrix {'x'.join(map(str, a.shape))}x{b.shape[1]} {a.dtype}",
        a, b,
        "contracting = [1] x [0]", lambda a, b: a @ b))
A, B = f32((128, 2100)), f32((2100, 1024))
CASES.append(matmul_case("packed panels 128x2100x1024", A, B,
                         "contracting = [1] x [0]", lambda a, b: a @ b))
A, B = f32((512, 384)), f32((512, 256))
CASES.append(matmul_case("transposed lhs 384x512x256", A, B,
                         "contracting = [0] x [0]", lambda a, b: a.T @ b))
IA = rng.integers(-20, 20, (256, 256)).astype(np.int32)
IB = rng.integers(-20, 20, (256, 256)).astype(np.int32)
CASES.append(("i32 matmul 256^3", dot(IA, IB, "contracting = [1] x [0]",
                                      IA @ IB), [IA, IB], IA @ IB))

# Matmul epilogues, blocks of the product computed and biased on threads:
# 640 rows in blocks of 64 (4 blocks of 160 rows would be too few chunks
# to share), the columns of whole panels of 600 (the last few split off
# with their part of the epilogue); a batch, a
# block per batch; B rows 4 KiB apart, packed into panels before the
# blocks that threads share.
for lead, (m, k, n) in [((), (640, 384, 600)), ((4,), (96, 256, 192)),
                        ((), (512, 128, 1024))]:
    A, B, C = f32(lead + (m, k)), f32(lead + (k, n)), f32((n,))
    want = np.maximum(np.matmul(A.astype(np.float64), B) + C, 0)
    ta, tb, tc = (ttype(x.shape, x.dtype) for x in (A, B, C))
    tr = ttype(want.shape, np.float32)
    batching = "batching = [0] x [0], " if lead else ""
    CASES.append((f"matmul epilogue {lead + (m, k, n)}", program(
        [A, B, C], want.astype(np.float32), f"""
  %p = kiln.dot_general %a0, %a1, {batching}contracting = [{1 + len(lead)}] x [{len(lead)}] : ({ta}, {tb}) -> {tr}
  %cb = kiln.broadcast_in_dim %a2, dims = [{1 + len(lead)}] : ({tc}) -> {tr}
  %s = kiln.add %p, %cb : {tr}
  %zero = kiln.constant dense<0.0> : {tr}
  %r = kiln.max %s, %zero : {tr}"""), [A, B, C], want.astype(np.float32)))

# An SGD update of a weight gradient, W - 0.05 X^T dY: blocks of 56 rows
# by 256 columns, each transposing its rows of X^T on its thread.
X, DY, W = f32((256, 784)), f32((256, 512)), f32((784, 512))
want = W - 0.05 * (X.astype(np.float64).T @ DY)
tx, tdy, tw = (ttype(a.shape, a.dtype) for a in (X, DY, W))
CASES.append(("weight update W - 0.05 X^T dY", program([X, DY, W], W, f"""
  %g = kiln.dot_general %a0, %a1, contracting = [0] x [0] : ({tx}, {tdy}) -> {tw}
  %lr = kiln.constant dense<0.05> : {tw}
  %s = kiln.mul %g, %lr : {tw}
  %r = kiln.sub %a2, %s : {tw}"""), [X, DY, W], want.astype(np.float32)))

# A fused elementwise chain over 1000 x 1001 f32 and 512 x 2048 f64.
X = f32((1000, 1001))
t = ttype(X.shape, X.dtype)
CASES.append(("tanh(2x) * x, f32", program(
    [X], X, f"  %s = kiln.add %a0, %a0 : {t}\n  %h = kiln.tanh %s : {t}\n"
            f"  %r = kiln.mul %h, %a0 : {t}"), [X],
    (np.tanh(2 * X.astype(np.float64)) * X).astype(np.float32)))
D = rng.standard_normal((512, 2048))
t = ttype(D.shape, D.dtype)
CASES.append(("x * x - x, f64", program(
    [D], D, f"  %m = kiln.mul %a0, %a0 : {t}\n  %r = kiln.sub %m, %a0 : {t}"),
    [D], D * D - D))

# NHWC to CHWN (a kernel gradient's input), 6.4 MB: chunks of whole 16 x 8
# blocks of the transpose, 56 rows and 40 channels (2 blocks and 8 left
# over).
for shape in [(8, 56, 56, 64), (8, 56, 56, 40)]:
    X = f32(shape)
    want = X.transpose(3, 1, 2, 0)
    CASES.append((f"NHWC to CHWN {'x'.join(map(str, shape))}", program(
        [X], want, f"  %r = kiln.transpose %a0, permutation = [3, 1, 2, 0]"
                   f" : {sig([X], want)}"), [X], want))

# Reductions: over rows (softmax), over columns (the reduced dimension is
# not the one split).
X = f32((2048, 1000))
m, n = X.shape
tx, tr = ttype((m, n), X.dtype), ttype((m,), X.dtype)
e = np.exp(X.astype(np.float64) - X.max(axis=1, keepdims=True))
CASES.append(("softmax 2048x1000", program([X], X, f"""
  %mx = kiln.reduce_max %a0, dims = [1] : ({tx}) -> {tr}
  %mb = kiln.broadcast_in_dim %mx, dims = [0] : ({tr}) -> {tx}
  %d = kiln.sub %a0, %mb : {tx}
  %e = kiln.exp %d : {tx}
  %s = kiln.reduce_sum %e, dims = [1] : ({tx}) -> {tr}
  %sb = kiln.broadcast_in_dim %s, dims = [0] : ({tr}) -> {tx}
  %r = kiln.div %e, %sb : {tx}"""), [X],
    (e / e.sum(axis=1, keepdims=True)).astype(np.float32)))
X = f32((2048, 1000))
want = X.astype(np.float64).sum(axis=0).astype(np.float32)
CASES.append(("column sums 2048x1000", program(
    [X], want, f"  %r = kiln.reduce_sum %a0, dims = [0] : {sig([X], want)}"),
    [X], want))

# Normalizations fused by blocks of rows (kiln-tile-and-vectorize's rows
# fusion): on threads when large, in a loop when small.
for m, n in [(2048, 768), (64, 96)]:
    X, G, Bv = f32((m, n)), f32((n,)), f32((n,))
    tx, tr, tv = (ttype((m, n), X.dtype), ttype((m,), X.dtype),
                  ttype((n,), X.dtype))
    x64 = X.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    want = ((x64 - mean) / np.sqrt(var + 1e-5) * G + Bv).astype(np.float32)
    CASES.append((f"layer norm {m}x{n}", program([X, G, Bv], X, f"""
  %inv = kiln.constant dense<{1.0 / n:.9e}> : {tr}
  %eps = kiln.constant dense<1.0e-05> : {tr}
  %s = kiln.reduce_sum %a0, dims = [1] : ({tx}) -> {tr}
  %mean = kiln.mul %s, %inv : {tr}
  %mb = kiln.broadcast_in_dim %mean, dims = [0] : ({tr}) -> {tx}
  %xc = kiln.sub %a0, %mb : {tx}
  %sq = kiln.mul %xc, %xc : {tx}
  %ss = kiln.reduce_sum %sq, dims = [1] : ({tx}) -> {tr}
  %var = kiln.mul %ss, %inv : {tr}
  %ve = kiln.add %var, %eps : {tr}
  %rs = kiln.rsqrt %ve : {tr}
  %rb = kiln.broadcast_in_dim %rs, dims = [0] : ({tr}) -> {tx}
  %gb = kiln.broadcast_in_dim %a1, dims = [1] : ({tv}) -> {tx}
  %bb = kiln.broadcast_in_dim %a2, dims = [1] : ({tv}) -> {tx}
  %y0 = kiln.mul %xc, %rb : {tx}
  %y1 = kiln.mul %y0, %gb : {tx}
  %r = kiln.add %y1, %bb : {tx}"""), [X, G, Bv], want))

for name, source, args, want in CASES:
    exact = np.issubdtype(want.dtype, np.integer)
    first = None
    for threads in (1, 2, 3):
        results, output, status = run(source, "f", args,
                                      ["--threads", str(threads)])
        if status != 0:
            fail(f"{name}, {threads} threads: kiln-run failed ({status}):\n"
                 f"{output}")
            break
        compare(f"{name}, {threads} threads", results, [want],
                rtol=0 if exact else 2e-4, atol=0 if exact else 2e-4)
        if first is None:
            first = results[0]
        elif not np.array_equal(first, results[0], equal_nan=True):
            fail(f"{name}: {threads} threads give other bits than 1")

# A thread count is at least 1.
_, output, status = run(CASES[0][1], "f", CASES[0][2], ["--threads", "0"])
if status == 0 or "--threads: '0' is not a count (1 to 1000000000)" not in output:
    fail(f"--threads 0: status {status}, output {output!r}")
finish()
