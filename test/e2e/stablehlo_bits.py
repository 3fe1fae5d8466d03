# The elementwise ops newer JAX exports that Kiln has no op for, through
# kiln-run's importer: stablehlo.popcnt and count_leading_zeros
# (lax.population_count, lax.clz) on int8 to int64, uint8 and uint32
# (passed as the signed ints of the same bits) against Python's bit
# counts; chlo.next_after (jnp.nextafter) on f16, f32 and f64 against
# numpy's, over zeros of both
# signs, subnormals, the largest floats, infinities and NaN; chlo.square
# (jnp.square, x ** 2) on floats and integers against numpy's products.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check, finish, ttype

rng = np.random.default_rng(11)


def unary(op, t, result=None):
    result = result or t
    if op.startswith("chlo."):
        apply = f"%0 = {op} %arg0 : {t} -> {result}"
    else:
        apply = f"%0 = {op} %arg0 : {t}"
    return f'''module @jit_f {{
  func.func public @main(%arg0: {t}) -> {result} {{
    {apply}
    return %0 : {result}
  }}
}}
'''


def popcount(x, width):
    return bin(int(x) & ((1 << width) - 1)).count("1")


def leading_zeros(x, width):
    return width - (int(x) & ((1 << width) - 1)).bit_length()


for dtype, width, element in ((np.int32, 32, "i32"), (np.int64, 64, "i64"),
                              (np.int32, 32, "ui32"), (np.int8, 8, "i8"),
                              (np.int16, 16, "i16"), (np.int8, 8, "ui8")):
    info = np.iinfo(dtype)
    x = np.concatenate([
        np.array([0, 1, -1, 2, 3, info.max, info.min, 1 << (width - 2)],
                 dtype),
        rng.integers(info.min, info.max, 24, dtype=dtype, endpoint=True)])
    t = f"tensor<{len(x)}x{element}>"
    check(f"stablehlo.popcnt {element}", unary("stablehlo.popcnt", t), "main",
          [x], [np.array([popcount(v, width) for v in x], dtype)])
    check(f"stablehlo.count_leading_zeros {element}",
          unary("stablehlo.count_leading_zeros", t), "main", [x],
          [np.array([leading_zeros(v, width) for v in x], dtype)])


def next_after_module(t):
    return f'''module @jit_f {{
  func.func public @main(%arg0: {t}, %arg1: {t}) -> {t} {{
    %0 = chlo.next_after %arg0, %arg1 : {t}, {t} -> {t}
    return %0 : {t}
  }}
}}
'''


for dtype in (np.float32, np.float64, np.float16):
    info = np.finfo(dtype)
    tiny = np.nextafter(dtype(0), dtype(1))
    points = [0.0, -0.0, 1.0, -1.0, tiny, -tiny, info.tiny, info.max,
              -info.max, np.inf, -np.inf, np.nan, 1e-3, -7.5]
    x = np.array([p for p in points for _ in points], dtype)
    y = np.array([q for _ in points for q in points], dtype)
    t = ttype(x.shape, dtype)
    check(f"chlo.next_after {np.dtype(dtype).name}", next_after_module(t),
          "main", [x, y], [np.nextafter(x, y)])

for dtype in (np.float32, np.float64, np.float16, np.int32):
    x = (rng.standard_normal(16) * 50).astype(dtype)
    t = ttype(x.shape, dtype)
    check(f"chlo.square {np.dtype(dtype).name}", unary("chlo.square", t),
          "main", [x], [x * x])

finish()
