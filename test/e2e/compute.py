# Contractions, reductions, argmax and gathers run through kiln-run,
# compared with numpy.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check, finish, ttype
from progen import to_bf16

rng = np.random.default_rng(0)


def single(name, op_text, args, expected, rtol=0.0, atol=0.0):
    """A function applying one op (`%r = ...` over %a0, ...) to `args`."""
    params = ", ".join(f"%a{i}: {ttype(a.shape, a.dtype)}"
                       for i, a in enumerate(args))
    rt = ttype(expected.shape, expected.dtype)
    program = (f"func.func @f({params}) -> {rt} {{\n  %r = {op_text}\n"
               f"  return %r : {rt}\n}}\n")
    check(name, program, "f", args, [expected], rtol, atol)


def sig(args, result):
    return ("(" + ", ".join(ttype(a.shape, a.dtype) for a in args) + ") -> "
            + ttype(result.shape, result.dtype))


# dot_general: a plain matmul, a batch matmul, and general dimension numbers.
A = rng.standard_normal((17, 33)).astype(np.float32)
B = rng.standard_normal((33, 9)).astype(np.float32)
want = (A.astype(np.float64) @ B).astype(np.float32)
single("matmul", f"kiln.dot_general %a0, %a1, contracting = [1] x [0] : "
       f"{sig([A, B], want)}", [A, B], want, rtol=1e-5, atol=1e-5)
# Shapes the CPU schedule tiles into 8 x 32 register tiles (with and without
# whole cache tiles, K a multiple of 256 or not), and into tiles whose rows
# are pieces of 16 lanes and fewer (8 x 24, 8 x 20, 8 x 17; f64 8 x 12 and
# 8 x 9), stored in those pieces, alone or after 32 columns (56, 52), rows
# past the last tile (37, 45) included; the latter from generators of their
# own, which keep the cases below as they were.
tiles24 = np.random.default_rng(24)
pieces = np.random.default_rng(20)
for gen, (m, k, n), dtype in (
        [(rng, s, np.float32)
         for s in [(64, 96, 160), (128, 512, 256), (8, 1, 32)]] +
        [(tiles24, s, np.float32)
         for s in [(64, 40, 24), (37, 300, 56), (6272, 40, 24)]] +
        [(pieces, s, np.float32)
         for s in [(6272, 40, 20), (45, 130, 52), (64, 33, 17)]] +
        [(pieces, s, np.float64) for s in [(64, 70, 12), (45, 33, 9)]] +
        # Columns past the last whole panel of 32: the whole panels'
        # product splits off and packs B, the rest runs on its own.
        [(np.random.default_rng(33), s, np.float32)
         for s in [(130, 100, 505), (257, 70, 333), (128, 64, 784)]] +
        # From 32 rows, B rows 2 KiB apart pack (33 rows: 5 register tiles
        # of 6 and 3 rows), and so do the whole panels of a B over 512 KiB
        # split from its last 13 columns.
        [(np.random.default_rng(32), s, np.float32)
         for s in [(33, 90, 512), (116, 270, 509)]]):
    SA = gen.standard_normal((m, k)).astype(dtype)
    SB = gen.standard_normal((k, n)).astype(dtype)
    want = (SA.astype(np.float64) @ SB).astype(dtype)
    single(f"matmul {m}x{k}x{n}", "kiln.dot_general %a0, %a1, contracting = "
           f"[1] x [0] : {sig([SA, SB], want)}", [SA, SB], want, rtol=1e-4,
           atol=1e-4)
# The register tiles the compiler picks for each host (compiler/Compiler.cpp:
# 8 x 32 on AVX-512, 6 x 16 on AVX2), whichever this machine has: rows of
# 6 leave rows past every cache tile of 64, and the few-row widening
# (fewer rows than a tile: 3, 5, 7 on tiles of 8 and 6, streaming B in K
# tiles of 8 steps across all of N).
tile_rng = np.random.default_rng(66)
for tile in ("register-tile-m=8 register-tile-n=32",
             "register-tile-m=6 register-tile-n=16"):
    for (lead, m, k, n, layout), dtype in (
            [(((), 257, 129, 63, "nn"), np.float32),
             (((), 130, 100, 505, "nn"), np.float32),
             (((), 200, 256, 64, "tn"), np.float32),
             (((), 100, 70, 90, "nt"), np.float32),
             (((), 3, 300, 100, "nn"), np.float32),
             (((), 5, 64, 37, "nn"), np.float32),
             (((), 5, 300, 777, "nn"), np.float32),
             (((), 7, 130, 300, "nt"), np.float32),
             (((), 64, 512, 2, "nn"), np.float32),
             (((), 301, 300, 5, "nt"), np.float32),
             (((), 100, 300, 8, "nn"), np.float32),
             (((3,), 37, 40, 20, "nn"), np.float32),
             (((), 45, 33, 40, "nn"), np.float64),
             (((2,), 25, 36, 20, "nn"), np.int16),
             (((2,), 13, 20, 24, "nn"), "bf16")]):
        shape_a = lead + ((k, m) if layout == "tn" else (m, k))
        shape_b = lead + ((n, k) if layout == "nt" else (k, n))
        if dtype == np.int16:
            TA, TB = (tile_rng.integers(-300, 300, s).astype(np.int16)
                      for s in (shape_a, shape_b))
            out = np.int32
        else:
            TA, TB = (tile_rng.standard_normal(s) for s in (shape_a, shape_b))
            TA, TB = ((to_bf16(TA), to_bf16(TB)) if dtype == "bf16"
                      else (TA.astype(dtype), TB.astype(dtype)))
            out = np.float32 if dtype == "bf16" else dtype
        wa = np.swapaxes(TA, -1, -2) if layout == "tn" else TA
        wb = np.swapaxes(TB, -1, -2) if layout == "nt" else TB
        want = np.matmul(wa.astype(np.float64), wb.astype(np.float64))
        want = want.astype(out)
        element = "bf16" if dtype == "bf16" else TA.dtype
        ta, tb = ttype(TA.shape, element), ttype(TB.shape, element)
        tr = ttype(want.shape, out)
        batching = "batching = [0] x [0], " if lead else ""
        contracting = (f"[{len(lead) + (0 if layout == 'tn' else 1)}] x "
                       f"[{len(lead) + (1 if layout == 'nt' else 0)}]")
        tolerance = 0 if dtype == np.int16 else 1e-4
        check(f"matmul {lead + (m, k, n)} {layout} {element} on {tile}", f"""
func.func @f(%a: {ta}, %b: {tb}) -> {tr} {{
  %r = kiln.dot_general %a, %b, {batching}contracting = {contracting}
      : ({ta}, {tb}) -> {tr}
  return %r : {tr}
}}""", "f", [TA, TB], [want], rtol=tolerance, atol=tolerance,
              interpret=False, extra=("--cpu-options", tile))
# A batch matmul the schedule tiles, one batch at a time.
SA = rng.standard_normal((3, 16, 40)).astype(np.float32)
SB = rng.standard_normal((3, 40, 64)).astype(np.float32)
want = np.einsum("bmk,bkn->bmn", SA.astype(np.float64), SB).astype(np.float32)
single("batch matmul scheduled", "kiln.dot_general %a0, %a1, batching = [0] x "
       f"[0], contracting = [2] x [1] : {sig([SA, SB], want)}", [SA, SB], want,
       rtol=1e-4, atol=1e-4)
# B's rows 4 KiB apart (1024 or 2048 floats) and 128 rows or more: B is
# packed into panels of 32 columns first (kiln-tile-and-vectorize's
# pack-panels): rows past the last register tile (130), a K of no whole K
# tile (9) and one past them (2500: B of 10 MB, so chunks of panels, each
# packing its part, the product split along K into 1024 + 1024 + 452 steps
# for the parts to fit a thread's buffers), chunks for threads (256 x 256 x
# 1024), a batch, and B read transposed (x W^T, the panels packed from its
# rows; of a batch too). Compiled only: the interpreter would take minutes.
for name, lhs, rhs, dims, subscripts in [
        ("130x9x1024", (130, 9), (9, 1024), "contracting = [1] x [0]",
         "mk,kn->mn"),
        ("128x2500x1024", (128, 2500), (2500, 1024), "contracting = [1] x [0]",
         "mk,kn->mn"),
        ("256x256x1024", (256, 256), (256, 1024), "contracting = [1] x [0]",
         "mk,kn->mn"),
        ("batch 2x136x40x2048", (2, 136, 40), (2, 40, 2048),
         "batching = [0] x [0], contracting = [2] x [1]", "bmk,bkn->bmn"),
        ("160x48x1024 (nt)", (160, 48), (1024, 48), "contracting = [1] x [1]",
         "mk,nk->mn"),
        ("batch 3x130x96x512 (nt)", (3, 130, 96), (3, 512, 96),
         "batching = [0] x [0], contracting = [2] x [2]", "bmk,bnk->bmn")]:
    PA = rng.standard_normal(lhs).astype(np.float32)
    PB = rng.standard_normal(rhs).astype(np.float32)
    want = np.einsum(subscripts, PA.astype(np.float64), PB).astype(np.float32)
    rt = ttype(want.shape, want.dtype)
    check(f"packed panels {name}",
          f"func.func @f(%a: {ttype(lhs, PA.dtype)}, %b: {ttype(rhs, PB.dtype)})"
          f" -> {rt} {{\n  %r = kiln.dot_general %a, %b, {dims} : "
          f"{sig([PA, PB], want)}\n  return %r : {rt}\n}}\n", "f", [PA, PB],
          [want], rtol=1e-4, atol=1e-4, interpret=False)
# Thin products (2 to 8 columns, K long enough) sum in vector lanes along
# K: K with and without a last part group (300 = 18 x 16 + 12), rows past
# the last register tile (16 / N rows), B read straight (transposed first)
# and transposed (x W^T), f64 (8 lanes), a bias and ReLU after it, one
# estimated long enough for two threads' chunks (9000 x 512 x 5), and
# batches of them (B straight and transposed). Compiled
# only where the interpreter would take long.
for lhs, rhs, lc, rc, subscripts, dtype in [
        ((256, 784), (784, 2), [1], [0], "mk,kn->mn", np.float32),
        ((37, 300), (300, 3), [1], [0], "mk,kn->mn", np.float32),
        ((29, 301), (5, 301), [1], [1], "mk,nk->mn", np.float32),
        ((11, 257), (257, 8), [1], [0], "mk,kn->mn", np.float32),
        ((7, 160), (160, 1), [1], [0], "mk,kn->mn", np.float32),
        ((30, 203), (203, 3), [1], [0], "mk,kn->mn", np.float64),
        ((9000, 512), (5, 512), [1], [1], "mk,nk->mn", np.float32),
        ((6, 37, 300), (6, 300, 2), [2], [1], "bmk,bkn->bmn", np.float32),
        ((5, 29, 301), (5, 3, 301), [2], [2], "bmk,bnk->bmn", np.float32)]:
    TA = rng.standard_normal(lhs).astype(dtype)
    TB = rng.standard_normal(rhs).astype(dtype)
    want = np.einsum(subscripts, TA.astype(np.float64), TB).astype(dtype)
    batching = "batching = [0] x [0], " if len(lhs) == 3 else ""
    single(f"thin product {subscripts} {lhs} {rhs} {np.dtype(dtype).name}",
           f"kiln.dot_general %a0, %a1, {batching}contracting = {lc} x {rc} : "
           f"{sig([TA, TB], want)}", [TA, TB], want, rtol=1e-5, atol=1e-5)
# bf16 (given as float32, rounded) and f16 thin products sum in f32 lanes,
# their operands widened as they are read: K with and without a last part
# group (101 = 6 x 16 + 5), B transposed (x W^T).
for lhs, rhs, lc, rc, subscripts, dtype in [
        ((37, 101), (101, 3), [1], [0], "mk,kn->mn", "bf16"),
        ((256, 784), (2, 784), [1], [1], "mk,nk->mn", "bf16"),
        ((40, 784), (784, 2), [1], [0], "mk,kn->mn", np.float16)]:
    NA, NB = (rng.standard_normal(shape).astype(np.float32) for shape in
              (lhs, rhs))
    if dtype == "bf16":
        NA, NB = to_bf16(NA), to_bf16(NB)
    else:
        NA, NB = NA.astype(dtype), NB.astype(dtype)
    want = np.einsum(subscripts, NA.astype(np.float64), NB).astype(np.float32)
    a_type, b_type = ttype(lhs, dtype), ttype(rhs, dtype)
    check(f"thin product {subscripts} {lhs} {rhs} {dtype} -> f32",
          f"func.func @f(%a: {a_type}, %b: {b_type}) -> "
          f"{ttype(want.shape, np.float32)} {{\n"
          f"  %r = kiln.dot_general %a, %b, contracting = {lc} x {rc} : "
          f"({a_type}, {b_type}) -> {ttype(want.shape, np.float32)}\n"
          f"  return %r : {ttype(want.shape, np.float32)}\n}}\n", "f",
          [NA, NB], [want], rtol=1e-5, atol=1e-5, interpret=False)
TA = rng.standard_normal((64, 400)).astype(np.float32)
TB = rng.standard_normal((400, 6)).astype(np.float32)
TC = rng.standard_normal(6).astype(np.float32)
want = np.maximum(TA.astype(np.float64) @ TB + TC, 0).astype(np.float32)
check("thin product with bias and ReLU", """
func.func @f(%a: tensor<64x400xf32>, %b: tensor<400x6xf32>, %c: tensor<6xf32>) -> tensor<64x6xf32> {
  %p = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<64x400xf32>, tensor<400x6xf32>) -> tensor<64x6xf32>
  %cb = kiln.broadcast_in_dim %c, dims = [1] : (tensor<6xf32>) -> tensor<64x6xf32>
  %s = kiln.add %p, %cb : tensor<64x6xf32>
  %z = kiln.constant dense<0.0> : tensor<64x6xf32>
  %r = kiln.max %s, %z : tensor<64x6xf32>
  return %r : tensor<64x6xf32>
}""", "f", [TA, TB, TC], [want], rtol=1e-5, atol=1e-5)
BA = rng.standard_normal((3, 5, 7)).astype(np.float32)
BB = rng.standard_normal((3, 7, 4)).astype(np.float32)
want = np.einsum("bmk,bkn->bmn", BA.astype(np.float64), BB).astype(np.float32)
single("batch matmul", "kiln.dot_general %a0, %a1, batching = [0] x [0], "
       f"contracting = [2] x [1] : {sig([BA, BB], want)}", [BA, BB], want,
       rtol=1e-5, atol=1e-5)
GA = rng.standard_normal((7, 3, 5)).astype(np.float32)
GB = rng.standard_normal((4, 5, 3)).astype(np.float32)
want = np.einsum("kbm,nmb->bkn", GA.astype(np.float64), GB).astype(np.float32)
single("dot_general general", "kiln.dot_general %a0, %a1, batching = [1] x "
       f"[2], contracting = [2] x [1] : {sig([GA, GB], want)}", [GA, GB], want,
       rtol=1e-5, atol=1e-5)
IA = rng.integers(-50, 50, (4, 6)).astype(np.int32)
IB = rng.integers(-50, 50, (6, 5)).astype(np.int32)
want = IA.astype(np.int64) @ IB.astype(np.int64)
single("matmul i32 -> i64", "kiln.dot_general %a0, %a1, contracting = [1] x "
       f"[0] : {sig([IA, IB], want)}", [IA, IB], want)
# bf16 operands (given as float32, rounded) accumulate in f32.
HA = rng.integers(-8, 8, (4, 8)).astype(np.float32)
HB = rng.integers(-8, 8, (8, 3)).astype(np.float32)
want = HA @ HB
check("matmul bf16 -> f32", """
func.func @f(%a: tensor<4x8xbf16>, %b: tensor<8x3xbf16>) -> tensor<4x3xf32> {
  %r = kiln.dot_general %a, %b, contracting = [1] x [0]
      : (tensor<4x8xbf16>, tensor<8x3xbf16>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}""", "f", [HA, HB], [want])

# bf16 operands through the register-tiled schedule, accumulating in f32.
HA = rng.integers(-8, 8, (16, 40)).astype(np.float32)
HB = rng.integers(-8, 8, (40, 64)).astype(np.float32)
check("matmul bf16 -> f32 scheduled", """
func.func @f(%a: tensor<16x40xbf16>, %b: tensor<40x64xbf16>) -> tensor<16x64xf32> {
  %r = kiln.dot_general %a, %b, contracting = [1] x [0]
      : (tensor<16x40xbf16>, tensor<40x64xbf16>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}""", "f", [HA, HB], [HA @ HB])

# bf16 products large enough for threads. 256 x 784 x 512, whose A fits in
# L2: chunks of 8 panels of 32 columns, each interleaving its own pairs of
# B's rows. 128 x 4096 x 1024: chunks of 8 panels of K = 4096 would each
# pack 2 MB of pairs, more than a thread's buffers, so the product splits
# along K into two pieces of 1024 pairs, each chunk of each piece packing
# its own part. Small integers keep every sum exact in f32. Compiled only:
# the interpreter would take minutes.
for name, (m, k, n) in [("in chunks of panels", (256, 784, 512)),
                        ("split along K", (128, 4096, 1024))]:
    HA = rng.integers(-8, 8, (m, k)).astype(np.float32)
    HB = rng.integers(-8, 8, (k, n)).astype(np.float32)
    check(f"matmul bf16 -> f32 {name}", f"""
func.func @f(%a: tensor<{m}x{k}xbf16>, %b: tensor<{k}x{n}xbf16>) -> tensor<{m}x{n}xf32> {{
  %r = kiln.dot_general %a, %b, contracting = [1] x [0]
      : (tensor<{m}x{k}xbf16>, tensor<{k}x{n}xbf16>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}""", "f", [HA, HB], [HA @ HB], interpret=False)

# bf16 products past every tile edge (the GPU's tensor-core tiles are
# 128x128 with k steps of 64): two row tiles, a k remainder, and a batch
# with B transposed. Small integers keep every sum exact in f32.
HA = rng.integers(-8, 8, (130, 100)).astype(np.float32)
HB = rng.integers(-8, 8, (100, 70)).astype(np.float32)
check("matmul bf16 -> f32 past tile edges", """
func.func @f(%a: tensor<130x100xbf16>, %b: tensor<100x70xbf16>) -> tensor<130x70xf32> {
  %r = kiln.dot_general %a, %b, contracting = [1] x [0]
      : (tensor<130x100xbf16>, tensor<100x70xbf16>) -> tensor<130x70xf32>
  return %r : tensor<130x70xf32>
}""", "f", [HA, HB], [HA @ HB])
HA = rng.integers(-8, 8, (3, 33, 100)).astype(np.float32)
HB = rng.integers(-8, 8, (3, 40, 100)).astype(np.float32)
check("batched matmul bf16 -> f32, B transposed", """
func.func @f(%a: tensor<3x33x100xbf16>, %b: tensor<3x40x100xbf16>) -> tensor<3x33x40xf32> {
  %r = kiln.dot_general %a, %b, batching = [0] x [0], contracting = [2] x [2]
      : (tensor<3x33x100xbf16>, tensor<3x40x100xbf16>) -> tensor<3x33x40xf32>
  return %r : tensor<3x33x40xf32>
}""", "f", [HA, HB], [np.einsum("bmk,bnk->bmn", HA, HB)])

# bf16 products of random values at shapes past every edge of the CPU's
# bf16 tiles (k pairs, 16 columns per dot product, 8 x 32 register tiles):
# odd K (a last unpaired step), K of 1, columns of 1 to 15 past a multiple
# of 16, matrix-vector and vector-matrix, A transposed, a batch; and from
# 128 rows with an even K, B packed into panels of interleaved pairs (rows
# past the last register tile, one pair, a batch, B transposed); without
# pairs, fewer rows than a register tile converting B as they stream it,
# row by row, whatever the columns (1000 and 77: whole tiles, then parts
# of power-of-two widths), more rows widening A and B first (odd rows of
# 129 in parts). Products
# of bf16 values are exact in f32, so only the sums' order differs from
# f64.
for lhs, rhs, lc, rc, subscripts in [
        ((1, 64), (64, 128), [1], [0], "mk,kn->mn"),
        ((2, 40), (40, 256), [1], [0], "mk,kn->mn"),
        ((4, 24), (24, 64), [1], [0], "mk,kn->mn"),
        ((3, 100), (100, 1000), [1], [0], "mk,kn->mn"),
        ((4, 64), (64, 77), [1], [0], "mk,kn->mn"),
        ((5, 33), (33, 70), [1], [0], "mk,kn->mn"),
        ((2, 2, 33), (2, 33, 64), [2], [1], "bmk,bkn->bmn"),
        ((9, 7), (7, 5), [1], [0], "mk,kn->mn"),
        ((130, 10), (10, 64), [1], [0], "mk,kn->mn"),
        ((128, 2), (2, 96), [1], [0], "mk,kn->mn"),
        ((2, 136, 40), (2, 40, 32), [2], [1], "bmk,bkn->bmn"),
        ((160, 48), (64, 48), [1], [1], "mk,nk->mn"),
        ((1, 1), (1, 33), [1], [0], "mk,kn->mn"),
        ((37, 129), (129, 47), [1], [0], "mk,kn->mn"),
        ((8, 64), (64, 17), [1], [0], "mk,kn->mn"),
        ((1, 300), (300, 61), [1], [0], "mk,kn->mn"),
        ((45, 301), (301,), [1], [0], "mk,k->m"),
        ((257,), (257, 19), [0], [0], "k,kn->n"),
        ((63, 20), (63, 31), [0], [0], "km,kn->mn"),
        ((2, 11, 13), (2, 13, 40), [2], [1], "bmk,bkn->bmn")]:
    RA = to_bf16(rng.standard_normal(lhs))
    RB = to_bf16(rng.standard_normal(rhs))
    want = np.einsum(subscripts, RA.astype(np.float64), RB).astype(np.float32)
    batching = "batching = [0] x [0], " if len(lhs) == 3 else ""
    check(f"matmul bf16 -> f32 {subscripts} {lhs} {rhs}", f"""
func.func @f(%a: {ttype(lhs, "bf16")}, %b: {ttype(rhs, "bf16")}) -> {ttype(want.shape, want.dtype)} {{
  %r = kiln.dot_general %a, %b, {batching}contracting = {lc} x {rc}
      : ({ttype(lhs, "bf16")}, {ttype(rhs, "bf16")}) -> {ttype(want.shape, want.dtype)}
  return %r : {ttype(want.shape, want.dtype)}
}}""", "f", [RA, RB], [want], rtol=1e-5, atol=1e-5)

# bf16 products of fewer rows by a B of 4 MiB or more split along K into a
# batch whose partial products add up (1 x 4096, 3 x 2048; sums of 4096
# products of about 1 reach about 64, whence the tolerance).
split_rng = np.random.default_rng(67)
for lhs, rhs in [((1, 4096), (4096, 1024)), ((3, 2048), (2048, 1024))]:
    RA, RB = (to_bf16(split_rng.standard_normal(s)) for s in (lhs, rhs))
    want = (RA.astype(np.float64) @ RB).astype(np.float32)
    check(f"matmul bf16 -> f32 split along K {lhs} {rhs}", f"""
func.func @f(%a: {ttype(lhs, "bf16")}, %b: {ttype(rhs, "bf16")}) -> {ttype(want.shape, want.dtype)} {{
  %r = kiln.dot_general %a, %b, contracting = [1] x [0]
      : ({ttype(lhs, "bf16")}, {ttype(rhs, "bf16")}) -> {ttype(want.shape, want.dtype)}
  return %r : {ttype(want.shape, want.dtype)}
}}""", "f", [RA, RB], [want], rtol=1e-5, atol=1e-3)

# f16 products off whole register tiles (M or N not multiples of 8 and 32)
# widen their operands to f32 and take the f32 schedule; into f32, and
# into f16 (the f32 sum rounded once). Products of f16 values are exact in
# f32, so only the sums' order differs from f64.
for lhs, rhs, lc, rc, subscripts in [
        ((9, 7), (7, 5), [1], [0], "mk,kn->mn"),
        ((257, 129), (129, 63), [1], [0], "mk,kn->mn"),
        ((63, 20), (63, 31), [0], [0], "km,kn->mn"),
        ((2, 11, 13), (2, 13, 40), [2], [1], "bmk,bkn->bmn")]:
    HA = rng.standard_normal(lhs).astype(np.float16)
    HB = rng.standard_normal(rhs).astype(np.float16)
    wide = np.einsum(subscripts, HA.astype(np.float64), HB)
    batching = "batching = [0] x [0], " if len(lhs) == 3 else ""
    for want in (wide.astype(np.float32), wide.astype(np.float16)):
        out = ttype(want.shape, want.dtype)
        check(f"matmul f16 -> {want.dtype} {subscripts} {lhs} {rhs}", f"""
func.func @f(%a: {ttype(lhs, np.float16)}, %b: {ttype(rhs, np.float16)}) -> {out} {{
  %r = kiln.dot_general %a, %b, {batching}contracting = {lc} x {rc}
      : ({ttype(lhs, np.float16)}, {ttype(rhs, np.float16)}) -> {out}
  return %r : {out}
}}""", "f", [HA, HB], [want], rtol=1e-3 if want.dtype == np.float16
              else 1e-5, atol=1e-5)

# Matrix-vector products reduce along K in vector lanes: K with and without
# a remainder past the last group, a long K (lanes near sqrt(K)), f64, i32
# (exact) and bf16 operands accumulating in f32; matrices of 8 MiB or more
# from the arguments as thin products (rows past the last register tile,
# K past the last group of lanes).
for rows, k, dtype in [(33, 1000, np.float32), (5, 4100, np.float32),
                       (7, 96, np.float64), (9, 300, np.int32),
                       (6, 200, "bf16"), (2051, 1031, np.float32),
                       (1027, 1030, np.float64)]:
    if dtype == np.int32:
        MA = rng.integers(-100, 100, (rows, k)).astype(np.int32)
        MX = rng.integers(-100, 100, k).astype(np.int32)
    else:
        MA = rng.standard_normal((rows, k))
        MX = rng.standard_normal(k)
        MA, MX = ((to_bf16(MA), to_bf16(MX)) if dtype == "bf16"
                  else (MA.astype(dtype), MX.astype(dtype)))
    result = np.float32 if dtype == "bf16" else dtype
    want = (MA.astype(np.float64) @ MX.astype(np.float64)).astype(result)
    tolerance = 0 if dtype == np.int32 else 1e-5
    element = "bf16" if dtype == "bf16" else MA.dtype
    check(f"matrix-vector {rows}x{k} {element}", f"""
func.func @f(%a: {ttype(MA.shape, element)}, %x: {ttype(MX.shape, element)}) -> {ttype(want.shape, want.dtype)} {{
  %r = kiln.dot_general %a, %x, contracting = [1] x [0]
      : ({ttype(MA.shape, element)}, {ttype(MX.shape, element)}) -> {ttype(want.shape, want.dtype)}
  return %r : {ttype(want.shape, want.dtype)}
}}""", "f", [MA, MX], [want], rtol=tolerance, atol=tolerance)

# Products of more rows than a register tile but too few to pack B, by a B
# over 4 MiB (streamed from memory): pieces of K, each streaming B's rows in
# K tiles of 8 across all columns, rows past the last register tile split
# inside them (13 = 12 + 1 on AVX2, 8 + 5 on AVX-512); a B whose rows are
# 4 KiB apart with 9 rows; f64. Compiled only: the interpreter would take
# minutes.
stream_rng = np.random.default_rng(12)
for (m, k, n), dtype in [((13, 1024, 1100), np.float32),
                         ((9, 1100, 1030), np.float32),
                         ((9, 1100, 1024), np.float32),
                         ((7, 640, 1000), np.float64)]:
    SA = stream_rng.standard_normal((m, k)).astype(dtype)
    SB = stream_rng.standard_normal((k, n)).astype(dtype)
    want = (SA.astype(np.float64) @ SB).astype(dtype)
    check(f"matmul streaming B {m}x{k}x{n} {np.dtype(dtype).name}", f"""
func.func @f(%a: {ttype(SA.shape, dtype)}, %b: {ttype(SB.shape, dtype)}) -> {ttype(want.shape, dtype)} {{
  %r = kiln.dot_general %a, %b, contracting = [1] x [0]
      : ({ttype(SA.shape, dtype)}, {ttype(SB.shape, dtype)}) -> {ttype(want.shape, dtype)}
  return %r : {ttype(want.shape, dtype)}
}}""", "f", [SA, SB], [want], rtol=1e-4, atol=1e-4, interpret=False)

# Matmul epilogues (a bias add and an activation, a residual) computed on
# each block of the product: K within and past a cache tile, rows in blocks
# that are no power of two (520 = 5 x 104, 264 = 3 x 88), a batch, f64,
# exact i32, bf16 operands, and a product also returned (two readers: not
# fused). B rows 4 KiB apart (f32, 1024 columns) and bf16 are packed into
# panels once before the blocks, each block reading its columns' panels.
# Columns past the last whole panel (826, 100) split off, with their part
# of the epilogue, from those the blocks compute.
for (m, k, n), dtype, batch in [((520, 300, 512), np.float32, None),
                                ((300, 130, 826), np.float32, None),
                                ((136, 72, 100), np.float32, 2),
                                ((264, 40, 1024), np.float32, None),
                                ((136, 24, 1024), np.float32, 2),
                                ((96, 100, 288), np.float32, None),
                                ((264, 64, 96), np.float64, None),
                                ((400, 40, 64), np.int32, None),
                                ((272, 80, 64), "bf16", None),
                                ((48, 20, 96), np.float32, 3)]:
    lead = (batch,) if batch else ()
    if dtype == np.int32:
        EA = rng.integers(-30, 30, lead + (m, k)).astype(np.int32)
        EB = rng.integers(-30, 30, lead + (k, n)).astype(np.int32)
        EC = rng.integers(-30, 30, n).astype(np.int32)
    else:
        EA, EB, EC = (rng.standard_normal(s) for s in
                      (lead + (m, k), lead + (k, n), (n,)))
        EA, EB = ((to_bf16(EA), to_bf16(EB)) if dtype == "bf16"
                  else (EA.astype(dtype), EB.astype(dtype)))
        EC = EC.astype(np.float32 if dtype == "bf16" else dtype)
    element = "bf16" if dtype == "bf16" else EA.dtype
    out = EC.dtype
    ER = (rng.integers(-30, 30, lead + (m, n)) if dtype == np.int32
          else rng.standard_normal(lead + (m, n))).astype(out)
    product = np.matmul(EA.astype(np.float64), EB.astype(np.float64))
    want = (np.maximum(product + EC, 0) + ER).astype(out)
    tolerance = 0 if dtype == np.int32 else 1e-4
    ta, tb = ttype(EA.shape, element), ttype(EB.shape, element)
    tc, tr = ttype(EC.shape, out), ttype(want.shape, out)
    batching = "batching = [0] x [0], " if batch else ""
    check(f"matmul epilogue {lead + (m, k, n)} {element}", f"""
func.func @f(%a: {ta}, %b: {tb}, %c: {tc}, %res: {tr}) -> {tr} {{
  %p = kiln.dot_general %a, %b, {batching}contracting = [{1 + len(lead)}] x [{len(lead)}]
      : ({ta}, {tb}) -> {tr}
  %cb = kiln.broadcast_in_dim %c, dims = [{1 + len(lead)}] : ({tc}) -> {tr}
  %s = kiln.add %p, %cb : {tr}
  %zero = kiln.constant dense<{0 if dtype == np.int32 else 0.0}> : {tr}
  %relu = kiln.max %s, %zero : {tr}
  %r = kiln.add %relu, %res : {tr}
  return %r : {tr}
}}""", "f", [EA, EB, EC, ER], [want], rtol=tolerance, atol=tolerance)
EA = rng.standard_normal((256, 300)).astype(np.float32)
EB = rng.standard_normal((300, 512)).astype(np.float32)
product = EA.astype(np.float64) @ EB
check("matmul epilogue, product also returned", """
func.func @f(%a: tensor<256x300xf32>, %b: tensor<300x512xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
  %p = kiln.dot_general %a, %b, contracting = [1] x [0]
      : (tensor<256x300xf32>, tensor<300x512xf32>) -> tensor<256x512xf32>
  %r = kiln.tanh %p : tensor<256x512xf32>
  return %p, %r : tensor<256x512xf32>, tensor<256x512xf32>
}""", "f", [EA, EB], [product.astype(np.float32),
                     np.tanh(product).astype(np.float32)], rtol=1e-5, atol=1e-4)

# An outer product (no contracting dimensions) feeding a broadcast, which
# elementwise fusion once turned into an accumulation; a vector dot product
# (rank-0 result).
OA = np.array([2], np.float32)
OB = np.array([1, 2, 3, 4], np.float32)
check("outer product broadcast", """
func.func @f(%a: tensor<1xf32>, %b: tensor<4xf32>) -> tensor<3x1x4xf32> {
  %0 = kiln.dot_general %a, %b, contracting = [] x []
      : (tensor<1xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %1 = kiln.broadcast_in_dim %0, dims = [1, 2]
      : (tensor<1x4xf32>) -> tensor<3x1x4xf32>
  return %1 : tensor<3x1x4xf32>
}""", "f", [OA, OB], [np.broadcast_to(np.outer(OA, OB), (3, 1, 4))])
VA = rng.standard_normal(37).astype(np.float32)
VB = rng.standard_normal(37).astype(np.float32)
single("vector dot", f"kiln.dot_general %a0, %a1, contracting = [0] x [0] : "
       f"{sig([VA, VB], np.float32(0))}", [VA, VB],
       np.array(VA.astype(np.float64) @ VB, np.float32), rtol=1e-5)

# bf16 sums accumulate in f32 and round once: 300 ones make 300 (in bf16
# steps of 2 beyond 256 they would stop at 256).
ones = np.ones(300, np.float32)
check("bf16 reduce_sum and dot accumulate in f32", """
func.func @f(%a: tensor<300xbf16>) -> (tensor<bf16>, tensor<bf16>) {
  %0 = kiln.reduce_sum %a, dims = [0] : (tensor<300xbf16>) -> tensor<bf16>
  %1 = kiln.dot_general %a, %a, contracting = [0] x [0]
      : (tensor<300xbf16>, tensor<300xbf16>) -> tensor<bf16>
  return %0, %1 : tensor<bf16>, tensor<bf16>
}""", "f", [ones], [np.float32(300), np.float32(300)])

# Reductions.
R = rng.standard_normal((4, 5, 6)).astype(np.float32)
R[1, 2, 3] = np.nan
for op, reference in [("reduce_sum", np.sum), ("reduce_prod", np.prod),
                      ("reduce_max", np.max), ("reduce_min", np.min)]:
    for dims in ([1], [0, 2], [0, 1, 2], [2, 0]):
        want = reference(R.astype(np.float64), axis=tuple(dims)).astype(
            np.float32)
        single(f"{op} {dims}", f"kiln.{op} %a0, dims = {dims} : "
               f"{sig([R], want)}", [R], want, rtol=1e-5, atol=1e-6)
# Reductions of empty tensors give their identity (see fuzz_findings'
# seed6190 for a reduce_max).
E32 = np.zeros((4, 0, 300), np.float32)
single("reduce_sum of an empty tensor", "kiln.reduce_sum %a0, dims = "
       f"[1, 2] : {sig([E32], np.zeros((4,), np.float32))}", [E32],
       np.zeros((4,), np.float32))
# Long f32 sums are added in blocks of about sqrt(R) elements: within 2e-6
# of the exact sum of a million positive values (adding them in order, 64
# lanes at a time, lost 1e-4), whether the reduced dimensions are all,
# trailing or leading.
for shape, dims in [((1000000,), [0]), ((64, 50000), [1]),
                    ((50000, 64), [0]), ((100, 32, 256), [0, 1, 2])]:
    big = rng.random(shape, dtype=np.float32)
    want = big.astype(np.float64).sum(axis=tuple(dims)).astype(np.float32)
    single(f"long reduce_sum {list(shape)} over {dims}",
           f"kiln.reduce_sum %a0, dims = {dims} : {sig([big], want)}", [big],
           want, rtol=2e-6)
# A whole tensor of 7 x 142858 reduces as 61 rows of 16393 (each in 256
# groups of 64 lanes and 9 left over), then the rows' results, then the 33
# elements past the rows: its extreme put in each part in turn. Compiled
# only: the interpreter would take minutes.
W = rng.standard_normal((7, 142858)).astype(np.float32)
for op, value, position in [("reduce_max", 50.0, 999990),
                            ("reduce_min", -50.0, 16389),
                            ("reduce_max", np.nan, 500000),
                            ("reduce_min", -50.0, 7)]:
    extreme = W.copy()
    extreme.reshape(-1)[position] = value
    want = np.float32(value)
    check(f"{op} of a whole 7x142858, extreme at {position}",
          f"func.func @f(%x: {ttype(W.shape, W.dtype)}) -> tensor<f32> {{\n"
          f"  %0 = kiln.{op} %x, dims = [0, 1] : {sig([W], want)}\n"
          f"  return %0 : tensor<f32>\n}}\n", "f", [extreme], [want],
          interpret=False)
# Max and min reductions whose loops carry their running vectors as
# integer keys (kiln-carry-extrema-as-keys): rows of 3136 (49 vectors of 64
# lanes, with the largest magnitude seen), NCHW's H, W, and the 300 rows of
# 300 columns (a row of 256 lanes carried, NaN keys selected), of f32 and
# f64, each reduced line with a NaN of either sign, an infinity, zeros of
# both signs or -0 alone, against the IEEE
# maximum and minimum (a NaN wins; -0 is below +0). Signed zeros show as
# the infinities of 1 / result. Compiled only: the interpreter's max and
# min take the first of equal zeros.
def ieee_extreme(x, axis, largest):
    reduced = (np.max if largest else np.min)(x, axis=axis)
    zeros = x == 0
    # Where the extreme is a zero: +0 for max if any +0, -0 for min if any.
    signed = zeros & (np.signbit(x) != largest)
    pick = np.any(signed, axis=axis)
    zero = np.where(pick == largest, 0.0, -0.0).astype(x.dtype)
    return np.where(reduced == 0, zero, reduced)


for dtype in (np.float32, np.float64):
    for shape, dims in [((12, 3136), (1,)), ((2, 6, 56, 56), (2, 3)),
                        ((300, 300), (0,))]:
        X = rng.standard_normal(shape).astype(dtype)
        # The reduced lines, as views of X.
        rows = X.T if dims == (0,) else X.reshape(
            -1, int(np.prod([shape[d] for d in dims])))
        rows[1, 7] = np.nan
        rows[2, -1] = -np.nan
        rows[3, 100] = np.inf
        rows[4, 5] = -np.inf
        rows[5, :] = -0.0
        rows[6, :] = -0.0
        rows[6, 200] = 0.0
        rows[7, :] = 0.0
        rows[7, 3] = -0.0
        for op, largest in [("reduce_max", True), ("reduce_min", False)]:
            want = ieee_extreme(X, dims, largest)
            with np.errstate(divide="ignore"):
                inverse = (1 / want).astype(dtype)
            t, r = ttype(X.shape, X.dtype), ttype(want.shape, want.dtype)
            check(f"{op} {list(shape)} {np.dtype(dtype).name} over "
                  f"{list(dims)} with NaN, infinities and signed zeros", f"""
func.func @f(%x: {t}) -> ({r}, {r}) {{
  %0 = kiln.{op} %x, dims = {list(dims)} : ({t}) -> {r}
  %one = kiln.constant dense<1.0> : {r}
  %1 = kiln.div %one, %0 : {r}
  return %0, %1 : {r}, {r}
}}""", "f", [X], [want, inverse], interpret=False)

# A whole tensor that an elementwise op computes reduces by its own rows
# (the producer fused into each), then the rows' results; a reduction over
# trailing dimensions and others (a batch norm's N, H, W of NCHW), the
# trailing ones first.
AX = rng.standard_normal((40, 301)).astype(np.float32)
AX[37, 299] = -60.0
check("max of |x| over a whole 40x301", f"""
func.func @f(%x: {ttype(AX.shape, AX.dtype)}) -> tensor<f32> {{
  %a = kiln.abs %x : {ttype(AX.shape, AX.dtype)}
  %0 = kiln.reduce_max %a, dims = [0, 1] : {sig([AX], np.float32(0))}
  return %0 : tensor<f32>
}}""", "f", [AX], [np.float32(60.0)])
BN = rng.standard_normal((3, 5, 17, 19)).astype(np.float32)
want = BN.astype(np.float64).sum(axis=(0, 2, 3)).astype(np.float32)
single("reduce_sum NCHW over [0, 2, 3]", f"kiln.reduce_sum %a0, dims = "
       f"[0, 2, 3] : {sig([BN], want)}", [BN], want, rtol=1e-5, atol=1e-5)
# A reduction over a middle dimension keeps each row's lanes in registers
# across the loop over it: 50 and 100 lanes as pieces of 32, 16 and 2 and
# of 64, 32 and 4 (kiln-lower-vectors), 7 lanes in one register.
for lanes in (50, 100, 7):
    MID = rng.standard_normal((6, 40, lanes)).astype(np.float32)
    want = MID.astype(np.float64).sum(axis=1).astype(np.float32)
    single(f"reduce_sum 6x40x{lanes} over [1]", "kiln.reduce_sum %a0, dims = "
           f"[1] : {sig([MID], want)}", [MID], want, rtol=1e-5, atol=1e-5)
    want = MID.max(axis=1)
    single(f"reduce_max 6x40x{lanes} over [1]", "kiln.reduce_max %a0, dims = "
           f"[1] : {sig([MID], want)}", [MID], want)
# Sums and maxima over leading dimensions keep rows of up to 256 results in
# registers across the rows they reduce: 768 columns as 3 rows of 256, 700
# as 2 and one of 188, f64 in rows of 128 (a transformer's bias gradient,
# a global max pool).
for shape, dims, element in [((300, 768), [0], np.float32),
                             ((3, 70, 700), [0, 1], np.float32),
                             ((6, 33, 640), [1], np.float64),
                             ((2, 3, 29, 31), [2, 3], np.float32)]:
    LEAD = rng.standard_normal(shape).astype(element)
    for op, reference in [("reduce_sum", np.sum), ("reduce_max", np.max)]:
        want = reference(LEAD.astype(np.float64), axis=tuple(dims)).astype(
            element)
        single(f"{op} {'x'.join(map(str, shape))} {element.__name__} over "
               f"{dims}", f"kiln.{op} %a0, dims = {dims} : "
               f"{sig([LEAD], want)}", [LEAD], want, rtol=1e-5, atol=1e-4)
WI = rng.integers(-100, 100, 1000003).astype(np.int32)
want = WI.sum(dtype=np.int32)
check("reduce_sum of a whole 1000003 x i32",
      f"func.func @f(%x: {ttype(WI.shape, WI.dtype)}) -> tensor<i32> {{\n"
      f"  %0 = kiln.reduce_sum %x, dims = [0] : {sig([WI], want)}\n"
      f"  return %0 : tensor<i32>\n}}\n", "f", [WI], [want], interpret=False)
RI = rng.integers(-100, 100, (3, 4)).astype(np.int32)
for op, reference in [("reduce_sum", np.sum), ("reduce_max", np.max),
                      ("reduce_min", np.min)]:
    want = reference(RI, axis=1).astype(np.int32)
    single(f"{op} i32", f"kiln.{op} %a0, dims = [1] : {sig([RI], want)}",
           [RI], want)
empty = np.zeros((3, 0), np.float32)
want = np.full(3, -np.inf, np.float32)
single("reduce_max empty", f"kiln.reduce_max %a0, dims = [1] : "
       f"{sig([empty], want)}", [empty], want)

# argmax: first index on ties, the first NaN wins.
M = np.array([[1, 3, 3, 0], [np.nan, 5, np.nan, 9], [-np.inf] * 4,
              [2, 2, 2, 2]], np.float32)
single("argmax f32", f"kiln.argmax %a0, dim = 1 : {sig([M], np.zeros(4, np.int32))}",
       [M], np.array([1, 0, 0, 0], np.int32))
single("argmax dim 0 i64", "kiln.argmax %a0, dim = 0 : (tensor<3x4xi32>) -> "
       "tensor<4xi64>", [RI], np.argmax(RI, axis=0).astype(np.int64))
# Long rows (the row reductions' lanes and tail): repeated maxima, NaNs
# late in a row, signed zeros, f16, and integers down to the lowest.
L = np.round(rng.standard_normal((37, 1003)), 1).astype(np.float32)
L[3, [500, 900]] = np.nan
L[4, :] = -0.0
L[4, 700] = 0.0
L[5, [10, 1002]] = 9.0
want = np.where(np.isnan(L).any(axis=1), np.isnan(L).argmax(axis=1),
                L.argmax(axis=1)).astype(np.int32)
single("argmax f32 rows of 1003", f"kiln.argmax %a0, dim = 1 : {sig([L], want)}",
       [L], want)
H = L[:8, :96].astype(np.float16)
want = np.where(np.isnan(H).any(axis=1), np.isnan(H).argmax(axis=1),
                H.argmax(axis=1)).astype(np.int32)
single("argmax f16", f"kiln.argmax %a0, dim = 1 : {sig([H], want)}", [H], want)
I = rng.integers(-5, 5, (6, 300)).astype(np.int32)
I[2, :] = np.iinfo(np.int32).min
single("argmax i32 rows of 300", f"kiln.argmax %a0, dim = 1 : "
       f"{sig([I], np.zeros(6, np.int64))}", [I], I.argmax(axis=1))

# take clamps its indices; scatter_add accumulates repeated ones.
T = rng.standard_normal((10, 3)).astype(np.float32)
ids = np.array([[0, 9], [12, -4], [3, 3]], np.int32)
want = T[np.clip(ids, 0, 9)]
single("take dim 0", f"kiln.take %a0[%a1], dim = 0 : {sig([T, ids], want)}",
       [T, ids], want)
ids1 = np.array([2, 0, 2], np.int64)
want = T[:, np.clip(ids1, 0, 2)]
single("take dim 1", f"kiln.take %a0[%a1], dim = 1 : {sig([T, ids1], want)}",
       [T, ids1], want)
T1 = rng.standard_normal(10).astype(np.float32)
want = T1[np.clip(ids, 0, 9)]
single("take rank-1 table, rank-2 indices",
       f"kiln.take %a0[%a1], dim = 0 : {sig([T1, ids], want)}", [T1, ids], want)
# An embedding's rows (rows of 520: 512 columns and a remainder), enough of
# them to be split among threads; each row is copied as vectors. Compiled
# only: the interpreter would take minutes.
E = rng.standard_normal((3000, 520)).astype(np.float32)
rows = rng.integers(-20, 3020, 2100).astype(np.int32)
want = E[np.clip(rows, 0, 2999)]
check("take rows of an embedding",
      f"func.func @f(%t: {ttype(E.shape, E.dtype)}, %i: "
      f"{ttype(rows.shape, rows.dtype)}) -> {ttype(want.shape, want.dtype)} "
      f"{{\n  %0 = kiln.take %t[%i], dim = 0 : {sig([E, rows], want)}\n"
      f"  return %0 : {ttype(want.shape, want.dtype)}\n}}\n", "f",
      [E, rows], [want], interpret=False)
# A take from a strided slice (the gather reads a strided view).
check("take from a strided slice", """
func.func @f(%t: tensor<9xf32>, %i: tensor<3x2xi32>) -> tensor<3x2xf32> {
  %s = kiln.slice %t [1:9:2] : (tensor<9xf32>) -> tensor<4xf32>
  %0 = kiln.take %s[%i], dim = 0 : (tensor<4xf32>, tensor<3x2xi32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}""", "f", [np.arange(9, dtype=np.float32),
            np.array([[0, 3], [5, -1], [2, 1]], np.int32)],
      [np.arange(9, dtype=np.float32)[1:9:2][np.clip(
          np.array([[0, 3], [5, -1], [2, 1]]), 0, 3)]])
U = rng.standard_normal((3, 2, 3)).astype(np.float32)
want = T.copy()
np.add.at(want, np.clip(ids, 0, 9), U)
single("scatter_add", f"kiln.scatter_add %a0[%a1], %a2, dim = 0 : "
       f"{sig([T, ids, U], want)}", [T, ids, U], want, rtol=1e-6, atol=1e-6)
# An embedding's gradient: 777 rows of 300 (256 columns and a remainder)
# added into 5001 rows, repeated ones accumulating, each row added as
# vectors. Compiled only: the interpreter would take minutes.
G = np.zeros((5001, 300), np.float32)
grad_rows = rng.integers(-3, 5004, 777).astype(np.int32)
grad_rows[5:9] = 17
GU = rng.standard_normal((777, 300)).astype(np.float32)
want = G.copy()
np.add.at(want, np.clip(grad_rows, 0, 5000), GU)
check("scatter_add rows of an embedding's gradient",
      f"func.func @f(%t: {ttype(G.shape, G.dtype)}, %i: "
      f"{ttype(grad_rows.shape, grad_rows.dtype)}, %u: "
      f"{ttype(GU.shape, GU.dtype)}) -> {ttype(G.shape, G.dtype)} {{\n"
      f"  %0 = kiln.scatter_add %t[%i], %u, dim = 0 : "
      f"{sig([G, grad_rows, GU], want)}\n"
      f"  return %0 : {ttype(G.shape, G.dtype)}\n}}\n", "f",
      [G, grad_rows, GU], [want], rtol=1e-6, atol=1e-6, interpret=False)

finish()
