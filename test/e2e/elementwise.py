# Every elementwise op run through kiln-run and compared with numpy, across
# dtypes, with zeros, negatives, NaN and infinities where they mean something.
# RUN: %numpy_python %s kiln-run
import math

import numpy as np

from harness import binary, check, convert, finish, ttype, unary

EDGE = np.array([0.0, -0.0, 0.5, -1.5, 3.0, -7.25, 1e-30, 1e30, np.inf,
                 -np.inf, np.nan], np.float32)
POSITIVE = np.array([1e-30, 1e-3, 0.5, 1.0, 2.0, 10.0, 1e6, np.inf],
                    np.float32)
RANGE = np.linspace(-20, 20, 101).astype(np.float32)
INTS = np.array([0, 1, -1, 7, -7, 2**31 - 1, -2**31], np.int32)


def f64(f):
    """f computed in float64 and rounded: the reference for f32 math."""
    return lambda *xs: f(*(x.astype(np.float64) for x in xs)).astype(
        xs[0].dtype)


with np.errstate(all="ignore"):
    # Exact ops: bit-for-bit.
    for dtype in (np.float32, np.float64):
        x = EDGE.astype(dtype)
        unary(f"neg {dtype.__name__}", "neg", x, np.negative)
        unary(f"abs {dtype.__name__}", "abs", x, np.abs)
        unary(f"sign {dtype.__name__}", "sign", x, np.sign)
        unary(f"floor {dtype.__name__}", "floor", x, np.floor)
        unary(f"ceil {dtype.__name__}", "ceil", x, np.ceil)
        unary(f"sqrt {dtype.__name__}", "sqrt", x, np.sqrt)
    unary("neg i32", "neg", INTS, np.negative)
    unary("abs i32", "abs", INTS, np.abs)
    unary("abs i64 rank 3", "abs", INTS[:6].astype(np.int64).reshape(1, 2, 3),
          np.abs)
    unary("sign i64", "sign", INTS.astype(np.int64), np.sign)
    unary("not i1", "not", np.array([True, False]), np.logical_not)
    unary("not i32", "not", INTS, np.invert)

    # Transcendental functions: polynomial approximations on f32, a few ulp.
    f32 = dict(rtol=2e-6, atol=1e-7)
    unary("exp", "exp", RANGE, f64(np.exp), **f32)
    unary("exp edges", "exp", np.array([0, -np.inf, np.inf, np.nan, 88, -88],
                                       np.float32), f64(np.exp), **f32)
    unary("expm1", "expm1", RANGE / 10, f64(np.expm1), **f32)
    unary("log", "log", POSITIVE, f64(np.log), **f32)
    unary("log edges", "log", np.array([0, -1, np.nan], np.float32),
          f64(np.log))
    unary("log1p", "log1p", RANGE[RANGE > -1] / 10, f64(np.log1p), **f32)
    unary("tanh", "tanh", RANGE, f64(np.tanh), rtol=2e-6, atol=3e-7)
    unary("logistic", "logistic", RANGE,
          f64(lambda x: 1 / (1 + np.exp(-x))), rtol=2e-6, atol=1e-7)
    unary("rsqrt", "rsqrt", POSITIVE, f64(lambda x: 1 / np.sqrt(x)), **f32)
    unary("sin", "sin", RANGE, f64(np.sin), rtol=2e-6, atol=2e-6)
    unary("cos", "cos", RANGE, f64(np.cos), rtol=2e-6, atol=2e-6)
    # sin and cos reduce their argument exactly over the whole f32 range.
    huge = np.array([1e3, -1e4, 123456.7, 1048575.9, 1048576, 1e10, 1e20,
                     1e30, -1e30, 3.4e38, 16367173 * 2.0**72, np.inf, np.nan,
                     -0.0], np.float32)
    spread = (10 ** np.random.default_rng(1).uniform(-5, 38, 64)).astype(
        np.float32)
    for x in (huge, spread, -spread):
        unary("sin whole range", "sin", x, f64(np.sin), rtol=3e-7)
        unary("cos whole range", "cos", x, f64(np.cos), rtol=3e-7)
    # f64 log1p and expm1 stay accurate where 1 + x and exp(x) round.
    tiny = np.array([1e-300, -1e-300, 1e-20, -3e-17, 1e-9, 0.0, -0.0, 0.5,
                     -0.5, 1e300, np.inf, -1.0, np.nan])
    unary("log1p f64", "log1p", tiny, np.log1p, rtol=2e-16)
    unary("expm1 f64", "expm1", np.append(tiny[:-3], [-800.0, -np.inf, 700.0,
                                                      800.0, np.nan]),
          np.expm1, rtol=1e-15)
    unary("exp f64", "exp", RANGE.astype(np.float64), np.exp, rtol=1e-15)
    # f64 exp and log are fdlibm's (below an ulp) in vector arithmetic: over
    # their whole range, where exp overflows or turns subnormal (one
    # subnormal step apart at most) and at the special values.
    rng = np.random.default_rng(2)
    wide = np.concatenate([rng.uniform(-746, 710, 512), [
        0.0, -0.0, 1e-300, 709.78, 709.79, -708.4, -740.0, -745.13, -745.14,
        np.inf, -np.inf, np.nan]])
    unary("exp f64 whole range", "exp", wide, np.exp, rtol=1e-15,
          atol=5e-324)
    positive = np.concatenate([np.exp(rng.uniform(-745, 709, 512)),
                               1 + rng.uniform(-1e-6, 1e-6, 64), [
        5e-324, 1e-310, 2.2250738585072014e-308, 1.0, 2.0, np.sqrt(2),
        np.sqrt(0.5), 1.7976931348623157e308, 0.0, -0.0, -1.0, np.inf,
        -np.inf, np.nan]])
    unary("log f64 whole range", "log", positive, np.log, rtol=1e-15)
    # f64 tanh: a rational function below 0.625, through exp above.
    odd = np.concatenate([rng.uniform(-25, 25, 512), [
        0.0, -0.0, 1e-300, -1e-20, 0.6249999, -0.625, 0.625, 19.0, 20.0,
        -400.0, np.inf, -np.inf, np.nan]])
    unary("tanh f64 whole range", "tanh", odd, np.tanh, rtol=1e-15)
    # f64 sin and cos: a three-part Cody-Waite reduction and Cephes'
    # polynomials below 2^20, libm's beyond (a vector of both takes each
    # element from its own). numpy's own f64 sin is some ulps off; Python's
    # math module (libm) is the reference.
    near_poles = np.arange(-40, 41) * (np.pi / 2)
    moderate = np.concatenate([rng.uniform(-1e5, 1e5, 256),
                               rng.uniform(-4, 4, 256), near_poles,
                               [0.0, -0.0, 1e-300, -1e-20, 1048575.9]])
    mixed = np.concatenate([moderate[:64], [1048576.0, -1e7, 1e22, 1e300,
                                            np.inf, -np.inf, np.nan]])
    for name, fn in (("sin", math.sin), ("cos", math.cos)):
        def libm(x, fn=fn):
            return np.array([fn(v) if np.isfinite(v) else np.nan for v in x])
        unary(f"{name} f64", name, moderate, libm, rtol=1e-15, atol=1e-300)
        unary(f"{name} f64 with huge arguments", name, mixed, libm,
              rtol=1e-15, atol=1e-300)
    unary("tanh f64", "tanh", RANGE.astype(np.float64), np.tanh, rtol=1e-15)
    half = np.array([0.5, -1.0, 2.0, 0.0], np.float16)
    unary("exp f16", "exp", half, f64(np.exp), rtol=1e-3)

    x = np.array([1.5, -2.0, 0.0, np.nan, np.inf, -3.0], np.float32)
    y = np.array([0.5, 4.0, -0.0, 1.0, 2.0, np.nan], np.float32)
    binary("add", "add", x, y, np.add)
    binary("sub", "sub", x, y, np.subtract)
    binary("mul", "mul", x, y, np.multiply)
    binary("div", "div", x, y, np.divide)
    binary("rem", "rem", x, y, np.fmod)
    binary("max", "max", x, y, np.maximum)
    binary("min", "min", x, y, np.minimum)

    # max and min order -0 below +0 (IEEE 754-2019's maximum and minimum:
    # the ops are commutative) and propagate NaN, in vector bodies and
    # their tails, as reductions too; 1 / result shows zeros' signs.
    def ieee_extremum(a, b, larger):
        if np.isnan(a) or np.isnan(b):
            return np.nan
        if a == b:
            return a if np.signbit(a) != larger else b
        return max(a, b) if larger else min(a, b)

    def extrema_case(dtype, n):
        values = np.array([0.0, -0.0, np.nan, 1.0, -1.0])
        a = np.resize(np.repeat(values, 5), n).astype(dtype)
        b = np.resize(np.tile(values, 5), n).astype(dtype)
        t = ttype(a.shape, dtype)
        want = [np.array([ieee_extremum(u, v, larger)
                          for u, v in zip(a, b)], dtype)
                for larger in (True, False)]
        with np.errstate(divide="ignore"):
            check(f"max, min {np.dtype(dtype).name} of signed zeros and "
                  f"NaN ({n})", f"""func.func @f(%x: {t}, %y: {t}) -> ({t}, {t}, {t}, {t}) {{
  %one = kiln.constant dense<1.0> : {t}
  %m = kiln.max %x, %y : {t}
  %n = kiln.min %x, %y : {t}
  %rm = kiln.div %one, %m : {t}
  %rn = kiln.div %one, %n : {t}
  return %m, %n, %rm, %rn : {t}, {t}, {t}, {t}
}}
""", "f", [a, b], want + [dtype(1) / w for w in want])
    for dtype in (np.float32, np.float64, np.float16):
        extrema_case(dtype, 25)
        extrema_case(dtype, 103)

    def zero_extrema_case(shape, dims):
        zeros = np.where(rng.random(shape) < 0.8, -0.0, 0.0).astype(np.float32)
        t = ttype(shape, np.float32)
        kept = tuple(d for d in range(len(shape)) if d not in dims)
        r = ttype([shape[d] for d in kept], np.float32)
        negative = np.signbit(zeros)
        # The maximum of zeros is +0 unless all are -0; the minimum -0
        # unless none is.
        most = np.where(negative.all(axis=tuple(dims)), -0.0, 0.0)
        least = np.where(negative.any(axis=tuple(dims)), -0.0, 0.0)
        want = [most.astype(np.float32), least.astype(np.float32)]
        with np.errstate(divide="ignore"):
            check(f"reduce_max, reduce_min of signed zeros {shape} over "
                  f"{dims}", f"""func.func @f(%x: {t}) -> ({r}, {r}) {{
  %one = kiln.constant dense<1.0> : {r}
  %m = kiln.reduce_max %x, dims = {dims} : ({t}) -> {r}
  %n = kiln.reduce_min %x, dims = {dims} : ({t}) -> {r}
  %rm = kiln.div %one, %m : {r}
  %rn = kiln.div %one, %n : {r}
  return %rm, %rn : {r}, {r}
}}
""", "f", [zeros], [np.float32(1) / w for w in want])
    zero_extrema_case((3, 5), [1])
    zero_extrema_case((64, 37), [0])
    zero_extrema_case((6, 70), [1])
    binary("pow", "pow", np.abs(x) + 0.5, y, f64(np.power), rtol=2e-6)
    # Float rem (fmod) is exact: x - trunc(x / y) y by one FMA in f64, one y
    # back where x / y rounded up to an integer; libm's fmod where
    # |x / y| >= 2^52, y is infinite or 0, or x is not finite (a vector of
    # both takes each element from its own). 1 / rem shows zeros' signs.
    def rem_case(name, a, b):
        t = ttype(a.shape, a.dtype)
        with np.errstate(divide="ignore"):
            want = np.fmod(a, b)
            check(name, f"""func.func @f(%x: {t}, %y: {t}) -> ({t}, {t}) {{
  %r = kiln.rem %x, %y : {t}
  %one = kiln.constant dense<1.0> : {t}
  %s = kiln.div %one, %r : {t}
  return %r, %s : {t}, {t}
}}
""", "f", [a, b], [want, a.dtype.type(1) / want])
    divisors = rng.uniform(0.1, 10, 512) * rng.choice([-1, 1], 512)
    multiples = rng.integers(-10**6, 10**6, 512) * divisors
    for dtype in (np.float64, np.float32):
        d = divisors.astype(dtype)
        near = np.concatenate([
            rng.uniform(-1e4, 1e4, 512), multiples,
            np.nextafter(multiples, np.inf), np.nextafter(multiples, -np.inf),
            [0.0, -0.0, 6.0, -6.0]]).astype(dtype)
        rem_case(f"rem {dtype.__name__}", near,
                 np.resize(np.append(d, [3.0, 3.0, 3.0, 3.0]), near.size)
                 .astype(dtype))
        mixed = np.append(near[:64], [1e30, -1e30, 5.0, np.inf, np.nan, 7.0,
                                      -0.0]).astype(dtype)
        rem_case(f"rem {dtype.__name__} with libm's cases", mixed,
                 np.append(d[:64], [3.0, 7e-3, 0.0, 2.0, 2.0, np.inf,
                                    np.inf]).astype(dtype))
    rem_case("rem f16", (multiples[:64] / 1e4).astype(np.float16),
             divisors[:64].astype(np.float16))
    # f32 pow is exp(y log|x|) in f64, rounded once: within an ulp of the
    # f64 power (numpy's f32 power is an ulp off more often), with C99's
    # special cases; 1 / pow tells the zeros' signs apart. (An exact power
    # halfway between two f32 subnormals, 2^-150, may round away from 0.)
    special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0,
                        -3.0, 2.5, -2.5, np.inf, -np.inf, np.nan, 1e-45,
                        -1e-45, 3.4e38, -3.4e38, 16777216.0, 16777217.0,
                        -16777215.0, 0.999999, 1.000001, 88.0, -149.0],
                       np.float32)
    px, py = (v.ravel() for v in np.meshgrid(special, special))
    t = ttype(px.shape, np.float32)
    power = f64(np.power)(px, py)
    check("pow special", f"""func.func @f(%x: {t}, %y: {t}) -> ({t}, {t}) {{
  %p = kiln.pow %x, %y : {t}
  %one = kiln.constant dense<1.0> : {t}
  %r = kiln.div %one, %p : {t}
  return %p, %r : {t}, {t}
}}
""", "f", [px, py], [power, np.float32(1) / power], rtol=1.2e-7)
    bases = (np.exp(rng.uniform(-5, 5, 1024)) *
             rng.choice([-1, 1], 1024)).astype(np.float32)
    powers = np.where(rng.random(1024) < 0.5, rng.integers(-15, 15, 1024),
                      rng.uniform(-15, 15, 1024)).astype(np.float32)
    binary("pow f32 random", "pow", bases, powers, f64(np.power),
           rtol=1.2e-7)
    # Bases of every f32 exponent, subnormals included, to powers that keep
    # the result finite and nonzero.
    wide = rng.integers(1, 0x7f800000, 4096, dtype=np.uint32).view(np.float32)
    log2s = np.log2(wide.astype(np.float64))
    binary("pow f32 every exponent", "pow", wide,
           (rng.uniform(-1, 1, wide.size) * 120 /
            np.maximum(np.abs(log2s), 1)).astype(np.float32),
           f64(np.power), rtol=1.2e-7)
    binary("pow f16", "pow", bases[:64].astype(np.float16),
           (powers[:64] / 4).astype(np.float16), f64(np.power), rtol=1e-3)
    binary("atan2", "atan2", x, y, f64(np.arctan2), rtol=2e-6, atol=1e-7)
    # Every quadrant and the IEEE special cases: signed zeros, infinities.
    special = [0.0, -0.0, 1.0, -1.0, 2.5, -0.5, np.inf, -np.inf, np.nan]
    ay, ax = np.meshgrid(np.array(special, np.float32),
                         np.array(special, np.float32))
    binary("atan2 special", "atan2", ay.ravel(), ax.ravel(), f64(np.arctan2),
           rtol=2e-6, atol=1e-7)
    binary("atan2 f64", "atan2", RANGE.astype(np.float64),
           RANGE[::-1].astype(np.float64), np.arctan2, rtol=1e-14)
    # f64 atan is fdlibm's (below an ulp; atan2 within about an ulp): each
    # of its intervals of |y / x|,
    # their bounds and neighbours, huge, tiny and special ratios, in every
    # quadrant. Python's math.atan2 (libm) is the reference.
    bounds = np.array([7 / 16, 11 / 16, 19 / 16, 39 / 16])
    ratios = np.concatenate([
        rng.uniform(0, 3, 512), np.exp(rng.uniform(-700, 700, 256)), bounds,
        np.nextafter(bounds, 0), np.nextafter(bounds, 9), [
            0.0, 5e-324, 1e-300, 1e-20, 1.0, 2.0**60, 1e20, 1e300, np.inf]])
    signs = rng.choice([-1.0, 1.0], (2, ratios.size))
    ys, xs = signs[0] * ratios, signs[1] * np.ones_like(ratios)
    ys, xs = np.append(ys, [np.nan, 1.0, -0.0]), np.append(xs, [1.0, np.nan,
                                                               1.0])
    binary("atan2 f64 over atan's intervals", "atan2", ys, xs,
           np.vectorize(math.atan2), rtol=2.3e-16, atol=5e-324)

    a = np.array([7, -7, 7, -7, 0, 2**31 - 1, -2**31, -2**31, 5], np.int32)
    b = np.array([2, 2, -2, -2, 3, 1, -1, 0, 0], np.int32)
    binary("add i32 wraps", "add", a, b, np.add)
    binary("mul i32", "mul", a, b, np.multiply)
    # Toward zero; XLA's values where C's are undefined.
    div = np.array([3, -3, -3, 3, 0, 2**31 - 1, -2**31, -1, -1], np.int32)
    binary("div i32", "div", a, b, lambda *_: div)
    rem = np.array([1, -1, 1, -1, 0, 0, 0, -2**31, 5], np.int32)
    binary("rem i32", "rem", a, b, lambda *_: rem)
    binary("max i64", "max", a.astype(np.int64), b.astype(np.int64),
           np.maximum)
    binary("min i32", "min", a, b, np.minimum)
    binary("pow i32", "pow", np.array([2, -3, 5, 1], np.int32),
           np.array([10, 3, 0, 7], np.int32), np.power)
    # XLA's rule for negative integer exponents: 1 for a base of 1, else 0.
    binary("pow i64 negative", "pow",
           np.array([0, 1, -1, -1, 2, -2, 1, 0], np.int64),
           np.array([-1, -5, -1, -2, -3, -1, 0, 0], np.int64),
           lambda *_: np.array([0, 1, 0, 0, 0, 0, 1, 1], np.int64))
    binary("and i32", "and", a, b, np.bitwise_and)
    bools = (np.array([True, True, False, False]),
             np.array([True, False, True, False]))
    binary("max i1", "max", *bools, np.logical_or)
    binary("min i1", "min", *bools, np.logical_and)
    binary("or i1", "or", np.array([True, True, False, False]),
           np.array([True, False, True, False]), np.logical_or)
    binary("xor i64", "xor", a.astype(np.int64), b.astype(np.int64),
           np.bitwise_xor)

    # Shifts: amounts read as unsigned; from the bit width on, 0 or the
    # sign's fill (StableHLO's, as numpy's uint arithmetic computes it).
    def shifts(dtype, unsigned):
        bits = np.dtype(dtype).itemsize * 8
        x = np.array([1, -1, 0x12345678, -0x12345678, 2**(bits - 1) - 1,
                      -2**(bits - 1), 5, -5, 7], dtype)
        k = np.array([0, 1, 4, 31, bits - 1, bits, bits + 3, -1, 2], dtype)
        u = x.view(unsigned).astype(object)
        amount = k.view(unsigned).astype(object)
        wrap = lambda values: np.array(
            [v % 2**bits for v in values], unsigned).view(dtype)
        left = wrap([0 if a >= bits else v << a for v, a in zip(u, amount)])
        logical = wrap([0 if a >= bits else v >> a
                        for v, a in zip(u, amount)])
        signed = x.astype(object)
        arithmetic = np.array([(-1 if v < 0 else 0) if a >= bits else v >> a
                               for v, a in zip(signed, amount)], dtype)
        name = np.dtype(dtype).name
        binary(f"shift_left {name}", "shift_left", x, k, lambda *_: left)
        binary(f"shift_right_logical {name}", "shift_right_logical", x, k,
               lambda *_: logical)
        binary(f"shift_right_arithmetic {name}", "shift_right_arithmetic", x,
               k, lambda *_: arithmetic)
    shifts(np.int32, np.uint32)
    shifts(np.int64, np.uint64)

    # bitcast_convert: the same bits, both ways, NaN and signed zeros too.
    def bitcast(x, to):
        src, dst = ttype(x.shape, x.dtype), ttype(x.shape, to)
        check(f"bitcast_convert {x.dtype} to {np.dtype(to).name}", f"""
func.func @f(%x: {src}) -> {dst} {{
  %0 = kiln.bitcast_convert %x : ({src}) -> {dst}
  return %0 : {dst}
}}""", "f", [x], [x.view(to)])
    bitcast(EDGE, np.int32)
    bitcast(EDGE.astype(np.float64), np.int64)
    bitcast(np.array([0x3F800000, -1, 0x7F800000, 1, -2**31], np.int32),
            np.float32)
    bitcast(np.array([0x3FF0000000000000, 1, -2**63], np.int64), np.float64)

    # compare: ordered for floats (NaN compares false except NE).
    t = ttype(x.shape, np.float32)
    b1 = ttype(x.shape, np.bool_)
    for direction, reference in [("EQ", np.equal), ("NE", np.not_equal),
                                 ("LT", np.less), ("LE", np.less_equal),
                                 ("GT", np.greater), ("GE", np.greater_equal)]:
        program = (f"func.func @f(%x: {t}, %y: {t}) -> {b1} {{\n"
                   f"  %0 = kiln.compare {direction}, %x, %y : {t}\n"
                   f"  return %0 : {b1}\n}}\n")
        check(f"compare {direction}", program, "f", [x, y],
              [reference(x, y)])
    ti = ttype(a.shape, np.int32)
    bi = ttype(a.shape, np.bool_)
    check("compare LT i32",
          f"func.func @f(%x: {ti}, %y: {ti}) -> {bi} {{\n"
          f"  %0 = kiln.compare LT, %x, %y : {ti}\n  return %0 : {bi}\n}}\n",
          "f", [a, b], [a < b])

    # select, elementwise and with a scalar predicate.
    p = np.array([True, False, True, False, True, False])
    check("select", f"""
func.func @f(%p: {b1}, %x: {t}, %y: {t}) -> {t} {{
  %0 = kiln.select %p, %x, %y : {b1}, {t}
  return %0 : {t}
}}""", "f", [p, x, y], [np.where(p, x, y)])
    check("select scalar", f"""
func.func @f(%p: tensor<i1>, %x: {t}, %y: {t}) -> {t} {{
  %0 = kiln.select %p, %x, %y : tensor<i1>, {t}
  return %0 : {t}
}}""", "f", [np.array(False), x, y], [y])

    # convert: round to nearest even, toward zero to integers, saturating,
    # NaN to 0, booleans as 0/1, anything to i1 as x != 0.
    c = np.array([1.5, 2.5, -1.5, -2.7, 3e9, -3e9, np.nan, 0.0], np.float32)
    convert("f32", "i32", c, np.array([1, 2, -1, -2, 2**31 - 1, -2**31, 0, 0],
                                      np.int32))
    convert("f32", "f64", c, c.astype(np.float64))
    convert("f64", "f32", np.array([1 + 2**-30, 1e300, -1e-50]),
            np.array([1, np.inf, -0.0], np.float32))
    convert("f32", "f16", c, c.astype(np.float16))
    convert("i32", "f32", INTS, INTS.astype(np.float32))
    convert("i64", "i32", np.array([2**40 + 5, -1], np.int64),
            np.array([5, -1], np.int32))
    convert("i32", "i64", INTS, INTS.astype(np.int64))
    convert("i1", "i32", np.array([True, False]), np.array([1, 0], np.int32))
    convert("i1", "f32", np.array([True, False]),
            np.array([1, 0], np.float32))
    convert("f32", "i1", c, c != 0)
    convert("i32", "i1", INTS, INTS != 0)

    # bf16 arguments arrive as float32 rounded to nearest even; bf16 results
    # leave as float32. 1 + 2^-8 is a tie that rounds to 1.
    bx = np.array([1 + 2**-8, 1 + 3 * 2**-8, -2.0, 0.1], np.float32)
    rounded = np.array([1.0, 1 + 2**-6, -2.0, 0.10009765625], np.float32)
    bt = ttype(bx.shape, "bf16")
    check("bf16 round trip", f"""
func.func @f(%x: {bt}) -> {bt} {{
  return %x : {bt}
}}""", "f", [bx], [rounded])
    check("bf16 add", f"""
func.func @f(%x: {bt}) -> {bt} {{
  %0 = kiln.add %x, %x : {bt}
  return %0 : {bt}
}}""", "f", [bx], [rounded * 2])
    # Odd sizes, whose vectors LLVM cannot legalize in bf16 or f16.
    for n in (17, 33):
        for element, dtype in (("bf16", np.float32), ("f16", np.float16)):
            v = (np.arange(n) % 17 - 8).astype(dtype)
            vt, st = ttype(v.shape, element), ttype((), element)
            check(f"{element} mul, reduce_max, abs, sign, floor {n}", f"""
func.func @f(%x: {vt}) -> ({vt}, {st}, {vt}, {vt}, {vt}) {{
  %0 = kiln.mul %x, %x : {vt}
  %1 = kiln.reduce_max %0, dims = [0] : ({vt}) -> {st}
  %2 = kiln.abs %x : {vt}
  %3 = kiln.sign %x : {vt}
  %4 = kiln.floor %x : {vt}
  return %0, %1, %2, %3, %4 : {vt}, {st}, {vt}, {vt}, {vt}
}}""", "f", [v], [v * v, np.array(64, dtype), np.abs(v), np.sign(v), v])
    # f64 -> bf16 / f16 round once: 1 + 2^-8 + 2^-30 lies above the tie
    # 1 + 2^-8 that rounding to f32 first would make.
    # Subnormal bf16 steps are 2^-133: 2^-140 rounds to 0 and the tie
    # 3 * 2^-134 to even (2^-132).
    wide = np.array([1 + 2**-8 + 2**-30, 1 + 2**-8, -(1 + 3 * 2**-8),
                     1e300, 2**-130, 2**-140, 3 * 2**-134, np.nan, 0.1])
    convert("f64", "bf16", wide,
            np.array([1 + 2**-7, 1, -(1 + 2**-6), np.inf, 2**-130, 0,
                      2**-132, np.nan, 0.10009765625], np.float32))
    convert("f64", "f16", np.array([1 + 2**-11 + 2**-40, 1 + 2**-11, 7e4]),
            np.array([1 + 2**-10, 1, np.inf], np.float16))

finish()
