# 8- and 16-bit integers (jnp.int8, jnp.int16; uint8 images and int8
# weights arrive as them): every op family on i8 and i16 compared with
# numpy's wrapping arithmetic, at odd lengths (vector bodies and their
# tails), with the extremes where C leaves the result undefined (XLA's
# rules: x / 0 = -1, x % 0 = x, MIN / -1 = MIN), conversions that wrap or
# saturate, reductions that wrap, products into i32 and data movement.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import binary, check, convert, finish, ttype, unary

rng = np.random.default_rng(8)


def edges(dtype, n):
    """`n` values of `dtype`: its extremes, -1, 0, 1, then random ones."""
    info = np.iinfo(dtype)
    head = np.array([info.min, info.max, -1, 0, 1, info.min + 1, 2, -2],
                    dtype)
    rest = rng.integers(info.min, info.max + 1, n - len(head), dtype=dtype)
    return np.concatenate([head, rest])


def wrap(values, dtype):
    """Python integers wrapped into `dtype`, as two's complement does."""
    bits = np.dtype(dtype).itemsize * 8
    return np.array([(int(v) + 2**(bits - 1)) % 2**bits - 2**(bits - 1)
                     for v in values], dtype)


def xla_div(a, b, dtype):
    info = np.iinfo(dtype)
    return np.array([-1 if y == 0 else info.min if (x, y) == (info.min, -1)
                     else int(x / y) for x, y in zip(a.tolist(), b.tolist())],
                    dtype)


def xla_rem(a, b, dtype):
    info = np.iinfo(dtype)
    return np.array([x if y == 0 else 0 if (x, y) == (info.min, -1)
                     else int(np.fmod(x, y)) for x, y in
                     zip(a.tolist(), b.tolist())], dtype)


def elementwise(dtype, n):
    name = np.dtype(dtype).name
    a, b = edges(dtype, n), np.roll(edges(dtype, n), 3)
    b[5] = 0  # a division by zero beside MIN / -1 (a[0] / b[3])
    with np.errstate(over="ignore"):
        binary(f"add {name}", "add", a, b, lambda x, y: x + y)
        binary(f"sub {name}", "sub", a, b, lambda x, y: x - y)
        binary(f"mul {name}", "mul", a, b, lambda x, y: x * y)
        unary(f"neg {name}", "neg", a, lambda x: -x)
        unary(f"abs {name}", "abs", a, np.abs)
    binary(f"div {name}", "div", a, b, lambda x, y: xla_div(x, y, dtype))
    binary(f"rem {name}", "rem", a, b, lambda x, y: xla_rem(x, y, dtype))
    binary(f"max {name}", "max", a, b, np.maximum)
    binary(f"min {name}", "min", a, b, np.minimum)
    binary(f"and {name}", "and", a, b, np.bitwise_and)
    binary(f"or {name}", "or", a, b, np.bitwise_or)
    binary(f"xor {name}", "xor", a, b, np.bitwise_xor)
    unary(f"not {name}", "not", a, np.invert)
    unary(f"sign {name}", "sign", a, np.sign)
    base = np.array([2, -3, 5, 1, -1, 0, 3, 2], dtype)
    exponent = np.array([6, 3, 0, 7, 5, 2, 5, -1], dtype)
    binary(f"pow {name}", "pow", base, exponent, lambda x, y: wrap(
        [0 if e < 0 else v**e for v, e in zip(x.tolist(), y.tolist())],
        dtype))

    bits = np.dtype(dtype).itemsize * 8
    x = a[:9]
    k = np.array([0, 1, 3, bits - 1, bits, bits + 3, -1, 2, 5], dtype)
    unsigned = np.dtype(f"u{bits // 8}")
    u, amount = x.view(unsigned).tolist(), k.view(unsigned).tolist()
    binary(f"shift_left {name}", "shift_left", x, k, lambda *_: wrap(
        [0 if s >= bits else v << s for v, s in zip(u, amount)], dtype))
    binary(f"shift_right_logical {name}", "shift_right_logical", x, k,
           lambda *_: wrap([0 if s >= bits else v >> s
                            for v, s in zip(u, amount)], dtype))
    binary(f"shift_right_arithmetic {name}", "shift_right_arithmetic", x, k,
           lambda *_: np.array([(-1 if v < 0 else 0) if s >= bits else v >> s
                                for v, s in zip(x.tolist(), amount)], dtype))

    t, p = ttype(a.shape, dtype), ttype(a.shape, np.bool_)
    for direction, reference in [("LT", np.less), ("GE", np.greater_equal),
                                 ("EQ", np.equal)]:
        check(f"compare {direction} {name}", f"""
func.func @f(%x: {t}, %y: {t}) -> {p} {{
  %0 = kiln.compare {direction}, %x, %y : {t}
  return %0 : {p}
}}""", "f", [a, b], [reference(a, b)])
    check(f"select {name}", f"""
func.func @f(%c: {p}, %x: {t}, %y: {t}) -> {t} {{
  %0 = kiln.select %c, %x, %y : {p}, {t}
  return %0 : {t}
}}""", "f", [a > b, a, b], [np.where(a > b, a, b)])


def conversions():
    f = np.array([1.5, -1.5, 127.9, 128.0, -129.0, 3e9, -3e9, np.nan, -0.5,
                  40000.0, -40000.0, 200.7], np.float32)
    convert("f32", "i8", f, np.nan_to_num(np.clip(np.trunc(f), -128, 127))
            .astype(np.int8))
    convert("f32", "i16", f, np.nan_to_num(np.clip(np.trunc(f), -32768,
                                                   32767)).astype(np.int16))
    with np.errstate(over="ignore"):
        h = f.astype(np.float16)  # 3e9 and 40000 overflow to infinities
    convert("f16", "i16", h, np.nan_to_num(np.clip(
        np.trunc(h.astype(np.float32)), -32768, 32767)).astype(np.int16))
    i8, i16 = edges(np.int8, 37), edges(np.int16, 37)
    convert("i8", "f32", i8, i8.astype(np.float32))
    convert("i16", "f16", i16, i16.astype(np.float16))
    convert("i8", "i32", i8, i8.astype(np.int32))
    convert("i16", "i64", i16, i16.astype(np.int64))
    convert("i8", "i16", i8, i8.astype(np.int16))
    convert("i16", "i8", i16, i16.astype(np.int8))  # keeps the low bits
    wide = np.array([300, -300, 2**31 - 1, -2**31, 65535, 32768], np.int32)
    convert("i32", "i8", wide, wide.astype(np.int8))
    convert("i32", "i16", wide, wide.astype(np.int16))
    convert("i8", "i1", i8, i8 != 0)
    convert("i1", "i16", np.array([True, False]), np.array([1, 0], np.int16))
    h = np.array([1.0, -2.5, np.inf, np.nan, -0.0], np.float16)
    check("bitcast_convert f16 to i16", f"""
func.func @f(%x: {ttype(h.shape, np.float16)}) -> {ttype(h.shape, np.int16)} {{
  %0 = kiln.bitcast_convert %x : ({ttype(h.shape, np.float16)}) -> {ttype(h.shape, np.int16)}
  return %0 : {ttype(h.shape, np.int16)}
}}""", "f", [h], [h.view(np.int16)])


def reductions(dtype):
    name = np.dtype(dtype).name
    x = edges(dtype, 37 * 29).reshape(37, 29)
    for axis in (0, 1):
        out = ttype(x.shape[:axis] + x.shape[axis + 1:], dtype)
        for op, reference in [
                ("reduce_sum", lambda v: v.sum(axis, dtype=dtype)),
                ("reduce_prod", lambda v: v.prod(axis, dtype=dtype)),
                ("reduce_max", lambda v: v.max(axis)),
                ("reduce_min", lambda v: v.min(axis))]:
            with np.errstate(over="ignore"):
                expected = reference(x)
            check(f"{op} {name} along {axis}", f"""
func.func @f(%x: {ttype(x.shape, dtype)}) -> {out} {{
  %0 = kiln.{op} %x, dims = [{axis}] : ({ttype(x.shape, dtype)}) -> {out}
  return %0 : {out}
}}""", "f", [x], [expected])
    i32 = ttype((37,), np.int32)
    check(f"argmax {name}", f"""
func.func @f(%x: {ttype(x.shape, dtype)}) -> {i32} {{
  %0 = kiln.argmax %x, dim = 1 : ({ttype(x.shape, dtype)}) -> {i32}
  return %0 : {i32}
}}""", "f", [x], [x.argmax(1).astype(np.int32)])


def products(dtype):
    """Quantized matmuls: narrow operands, i32 accumulation (JAX's
    preferred_element_type), and in their own type (wrapping)."""
    name = np.dtype(dtype).name
    info = np.iinfo(dtype)
    # int8 products of 4 k steps or more multiply B + 128 by A and start
    # from -128 rowsum(A) (VNNI byte quads; from 32 rows of A, B + 128
    # packed first; matrix-vector products in lanes of quads): K of 4 and
    # past whole quads, vector-matrix, matrix-vector (K past its lanes),
    # columns off the register tile, and rows of extremes, whose sums are
    # largest.
    shapes = [(5, 7, 3), (33, 70, 40), (64, 128, 64), (9, 4, 16),
              (37, 5, 19), (1, 64, 48), (16, 130, 1), (70, 259, 33),
              (130, 64, 17), (37, 1000, 1)]
    for m, k, n in shapes:
        a, b = edges(dtype, m * k).reshape(m, k), edges(dtype, k * n).reshape(k, n)
        products_of(name, a, b, dtype)
    k = 300
    for fill_a, fill_b in [(info.min, info.min), (info.min, info.max),
                           (info.max, info.max)]:
        products_of(f"{name} of {fill_a} and {fill_b}",
                    np.full((9, k), fill_a, dtype), np.full((k, 40), fill_b, dtype),
                    dtype)
    # Large enough for threads (compiled only: the interpreter would take
    # minutes): chunks of columns that each pack their quads of B (512^3;
    # 401 x 307 x 272, K padded with zeros to whole quads), chunks of rows
    # of a product whose rows of C are no whole cache lines (670 x 169 x
    # 594), each cache tile starting from -128 rowsum(A). Without VNNI's
    # quads, 16-bit pairs (vpmaddwd) pack B into panels of pairs from 32
    # rows (33 x 70 x 40 and 64 x 128 x 64 above): int8 widened to int16 first (512^3; an odd K padded with a zero
    # step, columns past the last whole panel apart: 401 x 307 x 272, 670 x
    # 169 x 594), int16 as it is (130 rows, past the last whole register
    # tile; an odd K and 6 columns past the panels).
    large = ([(512, 512, 512), (401, 307, 272), (670, 169, 594)]
             if dtype == np.int8 else [(130, 66, 64), (150, 67, 70)])
    for m, k, n in large:
        a = edges(dtype, m * k).reshape(m, k)
        b = edges(dtype, k * n).reshape(k, n)
        ta, tb = ttype(a.shape, dtype), ttype(b.shape, dtype)
        wide = ttype((m, n), np.int32)
        check(f"dot_general {name} in chunks {m}x{k}x{n} into i32", f"""
func.func @f(%a: {ta}, %b: {tb}) -> {wide} {{
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : ({ta}, {tb}) -> {wide}
  return %0 : {wide}
}}""", "f", [a, b], [a.astype(np.int32) @ b.astype(np.int32)],
              interpret=False)
    # B stored [N, K] (a PyTorch Linear's weight, x W^T): int8 packs its
    # quads by transposing 32-bit words, past 16 x 16 blocks at the edges.
    # One row of x W^T is a matrix-vector product W x: int8 lanes of quads
    # (A + 128 by x, less 128 sum(x)), K's last steps past the lanes apart.
    for m, k, n in [(40, 70, 33), (64, 128, 48), (3, 9, 5), (1, 1000, 45),
                    (1, 200, 9)]:
        a = edges(dtype, m * k).reshape(m, k)
        w = edges(dtype, n * k).reshape(n, k)
        ta, tw = ttype(a.shape, dtype), ttype(w.shape, dtype)
        wide = ttype((m, n), np.int32)
        check(f"dot_general {name} x W^T {m}x{k}x{n} into i32", f"""
func.func @f(%a: {ta}, %w: {tw}) -> {wide} {{
  %0 = kiln.dot_general %a, %w, contracting = [1] x [1] : ({ta}, {tw}) -> {wide}
  return %0 : {wide}
}}""", "f", [a, w], [a.astype(np.int32) @ w.astype(np.int32).T])
    a = edges(dtype, 2 * 40 * 36).reshape(2, 40, 36)
    w = edges(dtype, 2 * 20 * 36).reshape(2, 20, 36)
    ta, tw = ttype(a.shape, dtype), ttype(w.shape, dtype)
    wide = ttype((2, 40, 20), np.int32)
    check(f"batched dot_general {name} x W^T into i32", f"""
func.func @f(%a: {ta}, %w: {tw}) -> {wide} {{
  %0 = kiln.dot_general %a, %w, batching = [0] x [0], contracting = [2] x [2] : ({ta}, {tw}) -> {wide}
  return %0 : {wide}
}}""", "f", [a, w], [a.astype(np.int32) @ w.astype(np.int32).transpose(0, 2, 1)])
    a = edges(dtype, 3 * 9 * 13).reshape(3, 9, 13)
    b = edges(dtype, 3 * 13 * 20).reshape(3, 13, 20)
    ta, tb = ttype(a.shape, dtype), ttype(b.shape, dtype)
    wide = ttype((3, 9, 20), np.int32)
    check(f"batched dot_general {name} into i32", f"""
func.func @f(%a: {ta}, %b: {tb}) -> {wide} {{
  %0 = kiln.dot_general %a, %b, batching = [0] x [0], contracting = [2] x [1] : ({ta}, {tb}) -> {wide}
  return %0 : {wide}
}}""", "f", [a, b], [a.astype(np.int32) @ b.astype(np.int32)])


def products_of(name, a, b, dtype):
    """a @ b into i32 and in `dtype` (wrapping), against numpy."""
    (m, k), n = a.shape, b.shape[1]
    ta, tb = ttype(a.shape, dtype), ttype(b.shape, dtype)
    wide, own = ttype((m, n), np.int32), ttype((m, n), dtype)
    check(f"dot_general {name} {m}x{k}x{n} into i32", f"""
func.func @f(%a: {ta}, %b: {tb}) -> ({wide}, {own}) {{
  %0 = kiln.dot_general %a, %b, contracting = [1] x [0] : ({ta}, {tb}) -> {wide}
  %1 = kiln.dot_general %a, %b, contracting = [1] x [0] : ({ta}, {tb}) -> {own}
  return %0, %1 : {wide}, {own}
}}""", "f", [a, b], [a.astype(np.int32) @ b.astype(np.int32),
                     (a.astype(np.int64) @ b.astype(np.int64)).astype(dtype)])


def data_movement(dtype):
    name = np.dtype(dtype).name
    x = edges(dtype, 19 * 35).reshape(19, 35)
    t, tt = ttype(x.shape, dtype), ttype(x.shape[::-1], dtype)
    padded = ttype((22, 36), dtype)
    cat = ttype((38, 35), dtype)
    ids = np.array([3, 0, 18, 40, -2], np.int32)
    taken = ttype((5, 35), dtype)
    iota = ttype((300,), dtype)
    check(f"data movement {name}", f"""
func.func @f(%x: {t}, %ids: tensor<5xi32>) -> ({tt}, {padded}, {cat}, {t}, {taken}, {iota}) {{
  %0 = kiln.transpose %x, permutation = [1, 0] : ({t}) -> {tt}
  %z = kiln.constant dense<-7> : {ttype((), dtype)}
  %1 = kiln.pad %x, %z, low = [1, 0], high = [2, 1], interior = [0, 0] : ({t}, {ttype((), dtype)}) -> {padded}
  %2 = kiln.concatenate %x, %x, dim = 0 : ({t}, {t}) -> {cat}
  %3 = kiln.reverse %x, dims = [1] : {t}
  %4 = kiln.take %x[%ids], dim = 0 : ({t}, tensor<5xi32>) -> {taken}
  %5 = kiln.iota dim = 0 : {iota}
  return %0, %1, %2, %3, %4, %5 : {tt}, {padded}, {cat}, {t}, {taken}, {iota}
}}""", "f", [x, ids], [
        x.T, np.pad(x, ((1, 2), (0, 1)), constant_values=-7),
        np.concatenate([x, x]), x[:, ::-1], x[np.clip(ids, 0, 18)],
        wrap(range(300), dtype)])


def transformations():
    """An int8-quantized layer: its gradient for the float scale and input
    (the int8 weights have none), and vmap over a batch of int8 rows."""
    w = edges(np.int8, 12).reshape(3, 4)
    scale = np.array([0.5, -2.0, 0.25], np.float32)
    x = np.array([1.0, -1.0, 2.0, 0.5], np.float32)
    rows = edges(np.int8, 20).reshape(5, 4)
    check("grad through int8 weights, vmap over int8 rows", """
func.func @loss(%scale: tensor<3xf32>, %x: tensor<4xf32>, %w: tensor<3x4xi8>) -> tensor<f32> {
  %wf = kiln.convert %w : (tensor<3x4xi8>) -> tensor<3x4xf32>
  %y = kiln.dot_general %wf, %x, contracting = [1] x [0] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  %s = kiln.mul %y, %scale : tensor<3xf32>
  %l = kiln.reduce_sum %s, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @row_max(%r: tensor<4xi8>) -> tensor<i8> {
  %m = kiln.reduce_max %r, dims = [0] : (tensor<4xi8>) -> tensor<i8>
  return %m : tensor<i8>
}
func.func @f(%scale: tensor<3xf32>, %x: tensor<4xf32>, %w: tensor<3x4xi8>, %rows: tensor<5x4xi8>) -> (tensor<3xf32>, tensor<4xf32>, tensor<5xi8>) {
  %gs, %gx = kiln.grad @loss(%scale, %x, %w) {argnums = array<i64: 0, 1>} : (tensor<3xf32>, tensor<4xf32>, tensor<3x4xi8>) -> (tensor<3xf32>, tensor<4xf32>)
  %m = kiln.vmap @row_max(%rows) {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<5x4xi8>) -> tensor<5xi8>
  return %gs, %gx, %m : tensor<3xf32>, tensor<4xf32>, tensor<5xi8>
}""", "f", [scale, x, w, rows], [
        w.astype(np.float32) @ x, scale @ w.astype(np.float32),
        rows.max(1)])


for dtype in (np.int8, np.int16):
    elementwise(dtype, 133)
    reductions(dtype)
    products(dtype)
    data_movement(dtype)
conversions()
transformations()
finish()
