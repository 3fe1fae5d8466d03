# The elementwise functions JAX exports as StableHLO or CHLO ops Kiln has
# no op for (tan, cbrt, the two roundings, chlo's hyperbolic and inverse
# trigonometric functions, lgamma, digamma, erfc, erf_inv, bessel_i1e,
# zeta, polygamma) run through kiln-run's importer in f32, f64 and f16 and
# match numpy (Python's math.lgamma and math.erfc, the asymptotic series
# for digamma, the statistics module for erf_inv, PyTorch's
# torch.special.i1e, zeta and polygamma) over a spread of points: near
# zero, large, at the ends of each domain, beyond them (NaN), infinities
# and NaN; for the functions that keep the sign of zero, 1/f(x) shows it.
# RUN: %numpy_python %s kiln-run
import math
import statistics

import numpy as np
import torch

from harness import check, finish, ttype

INF, NAN = math.inf, math.nan
COMMON = [0.0, -0.0, 1e-7, -3e-4, 0.1, -0.7, 1.3, -2.9, INF, -INF, NAN]


def erf_inv(x):
    if abs(x) > 1 or math.isnan(x):
        return NAN
    if abs(x) == 1 or x == 0:
        return math.copysign(INF if x else 0.0, x)
    return statistics.NormalDist().inv_cdf((x + 1) / 2) / math.sqrt(2)


def round_afz(x):
    if not math.isfinite(x):
        return x
    return math.copysign(math.floor(abs(x) + 0.5), x)


def round_even(x):
    if not math.isfinite(x):
        return x
    return math.copysign(float(round(x)), x)


def lgamma(x):
    if math.isnan(x):
        return x
    if math.isinf(x) or (x <= 0 and x == math.floor(x)):
        return INF
    return math.lgamma(x)


def digamma(x):
    """Shifted up past 10 by psi(x) = psi(x + 1) - 1/x, then the asymptotic
    series; reflected below 1/2."""
    if math.isnan(x) or x == -INF or (x <= 0 and x == math.floor(x)):
        return NAN
    if x == INF:
        return INF
    if x < 0.5:
        return digamma(1 - x) - math.pi / math.tan(math.pi * x)
    shift = 0.0
    while x < 10:
        shift -= 1 / x
        x += 1
    f = 1 / (x * x)
    series = f * (-1 / 12 + f * (1 / 120 + f * (-1 / 252 + f * (
        1 / 240 + f * (-1 / 132 + f * (691 / 32760 + f * (-1 / 12)))))))
    return shift + math.log(x) - 0.5 / x + series


def i1e(x):
    return torch.special.i1e(torch.tensor(x, dtype=torch.float64)).item()


def cbrt(x):
    return math.copysign(abs(x) ** (1 / 3), x) if math.isfinite(x) else x


# op, reference of one float64, extra points, whether 1/f(x) is checked
# (the sign of zero), f32 relative tolerance.
FUNCTIONS = [
    ("stablehlo.tan", np.tan, [1.2, -1.5, 100.0], False, 4e-6),
    ("chlo.tan", np.tan, [0.4, -1.1], False, 4e-6),
    ("stablehlo.cbrt", cbrt, [27.0, -8.0, 1e-30, 3e30, 0.001], True, 2e-6),
    ("stablehlo.round_nearest_afz", round_afz,
     [0.5, -0.5, 1.5, -2.5, 2.4999998, -0.3, 0.49999997, 8388609.0, 1e30],
     True, 0),
    ("stablehlo.round_nearest_even", round_even,
     [0.5, -0.5, 1.5, 2.5, -2.5, 3.5, -0.3, 0.49999997, 8388609.0, 1e30],
     True, 0),
    ("chlo.sinh", np.sinh, [1.0, -1.0, 0.999, 20.0, -88.5, 89.0, 100.0],
     True, 4e-6),
    ("chlo.cosh", np.cosh, [1.0, -20.0, 88.5, 89.0, 100.0], False, 4e-6),
    ("chlo.atan", np.arctan, [1.0, -1e20, 50.0], True, 2e-6),
    ("chlo.asin", np.arcsin, [1.0, -1.0, 0.999, -0.9999, 1.5, -2.0], True,
     2e-6),
    ("chlo.acos", np.arccos, [1.0, -1.0, 0.999, -0.9999, 1.5, -2.0], False,
     2e-6),
    ("chlo.asinh", np.arcsinh, [1e20, -3e30, 1e15, 5.0], True, 4e-6),
    ("chlo.acosh", np.arccosh, [1.0, 1.0001, 2.0, 1e20, 3e30, 0.5], False,
     4e-6),
    ("chlo.atanh", np.arctanh, [1.0, -1.0, 0.999, -0.5, 1.5, -3.0], True,
     4e-6),
    ("chlo.lgamma", lgamma, [1.5, 2.5, 3.5, 10.0, 30.0, 170.5, 1e5, -1.0,
                             -2.5, -3.3, 0.5], False, 1e-5),
    ("chlo.digamma", digamma, [1.0, 2.5, 3.5, 10.0, 30.0, 1e5, -1.0, -2.5,
                               -3.3, 0.5], False, 1e-5),
    ("chlo.bessel_i1e", i1e, [0.5, -1.0, 2.0, 7.9, 8.0, -8.0, 8.1, 15.0,
                              -30.0, 700.0, 1e30], False, 2e-6),
    ("chlo.erfc", math.erfc, [0.4, -0.4, 0.6, 1.0, 2.0, 3.5, 5.0, 9.0,
                              10.5, -3.0, 27.0], False, 2e-6),
    ("chlo.erf_inv", erf_inv, [1.0, -1.0, 0.999, -0.99999, 0.5, 1.5], True,
     2e-6),
]


def module(op, n, dtype, signed_zero):
    t = ttype((n,), dtype)
    if op.startswith("chlo."):
        apply = f"%0 = {op} %arg0 : {t} -> {t}"
    else:
        apply = f"%0 = {op} %arg0 : {t}"
    extra, results, types = "", "%0", t
    if signed_zero:
        one = "1.0"
        extra = (f"    %one = stablehlo.constant dense<{one}> : {t}\n"
                 f"    %1 = stablehlo.divide %one, %0 : {t}\n")
        results, types = "%0, %1", f"{t}, {t}"
    return f'''module @jit_f {{
  func.func public @main(%arg0: {t}) -> ({types}) {{
    {apply}
{extra}    return {results} : {types}
  }}
}}
'''


with np.errstate(all="ignore"):
    for op, reference, points, signed_zero, rtol32 in FUNCTIONS:
        # f16 is computed in f32 and rounded once (within an f16 ulp).
        for dtype, rtol in ((np.float32, rtol32), (np.float64, 1e-12),
                            (np.float16, 1e-3)):
            if op in ("chlo.erf_inv", "chlo.erfc") and dtype == np.float64:
                rtol = 2e-6  # single-precision approximations
            x = np.array(COMMON + points, dtype)
            expected = np.array([reference(float(v)) for v in x]).astype(dtype)
            outputs = [expected]
            if signed_zero:
                outputs.append((1 / expected.astype(np.float64)).astype(dtype))
            check(f"{op} {np.dtype(dtype).name}",
                  module(op, len(x), dtype, signed_zero), "main", [x],
                  outputs, rtol=rtol, atol=0)


def zeta(x, q):
    return torch.special.zeta(torch.tensor(x, dtype=torch.float64),
                              torch.tensor(q, dtype=torch.float64)).item()


def polygamma(n, x):
    if not (n >= 0 and n == math.floor(n)):
        return NAN
    return torch.special.polygamma(
        int(n), torch.tensor(x, dtype=torch.float64)).item()


# Functions of two tensors: op, reference, points, f32 relative tolerance
# (polygamma's n! comes through exp(lgamma)). PyTorch's zeta stops its
# Euler-Maclaurin sums early and is 5e-10 off at zeta(2, 1) = pi^2 / 6,
# so f64 is checked against it within 1e-9, and against closed forms
# (CLOSED) within 1e-14. The points cover both sides of the series' split,
# large arguments, the poles (x = 1, q = 0, -1; polygamma at 0, -2), the
# domain's edges (x < 1, q < 0 with x whole or not, n not whole or
# negative) and NaN.
BINARY = [
    ("chlo.zeta", zeta,
     [(2.0, 1.0), (2.0, 0.5), (3.0, 2.0), (1.5, 1.0), (1.01, 3.0),
      (4.0, 0.1), (2.5, 9.0), (6.0, 30.0), (2.0, 1e6), (10.0, 1.5),
      (1.0, 2.0), (0.5, 2.0), (-2.0, 1.0), (3.0, 0.0), (3.0, -1.0),
      (3.0, -1.5), (2.5, -1.5), (NAN, 2.0), (2.0, NAN)], 1e-5),
    ("chlo.polygamma", polygamma,
     [(0.0, 1.0), (0.0, 3.5), (0.0, -2.5), (1.0, 1.0), (1.0, 0.5),
      (1.0, 10.0), (2.0, 2.0), (2.0, 0.3), (3.0, 4.5), (4.0, 7.0),
      (1.0, -1.5), (1.0, 0.0), (2.0, -2.0), (1.5, 2.0), (-1.0, 2.0),
      (NAN, 1.0), (1.0, NAN)], 5e-5),
]


ZETA3 = 1.2020569031595942853997  # Apery's constant
CLOSED = [
    ("chlo.zeta", [(2.0, 1.0), (4.0, 1.0), (2.0, 0.5), (3.0, 1.0)],
     [math.pi ** 2 / 6, math.pi ** 4 / 90, math.pi ** 2 / 2, ZETA3]),
    ("chlo.polygamma", [(0.0, 1.0), (1.0, 1.0), (1.0, 0.5), (2.0, 1.0)],
     [-0.57721566490153286061, math.pi ** 2 / 6, math.pi ** 2 / 2,
      -2 * ZETA3]),
]


def binary_module(op, n, dtype):
    t = ttype((n,), dtype)
    return f'''module @jit_f {{
  func.func public @main(%arg0: {t}, %arg1: {t}) -> {t} {{
    %0 = {op} %arg0, %arg1 : {t}, {t} -> {t}
    return %0 : {t}
  }}
}}
'''


with np.errstate(all="ignore"):
    for op, reference, points, rtol32 in BINARY:
        for dtype, rtol in ((np.float32, rtol32), (np.float64, 1e-9),
                            (np.float16, 2e-3)):
            a = np.array([p[0] for p in points], dtype)
            b = np.array([p[1] for p in points], dtype)
            expected = np.array([reference(float(u), float(v))
                                 for u, v in zip(a, b)]).astype(dtype)
            check(f"{op} {np.dtype(dtype).name}",
                  binary_module(op, len(points), dtype), "main", [a, b],
                  [expected], rtol=rtol, atol=0)
    for op, points, values in CLOSED:
        check(f"{op} float64 closed forms",
              binary_module(op, len(points), np.float64), "main",
              [np.array([p[0] for p in points]),
               np.array([p[1] for p in points])],
              [np.array(values)], rtol=1e-14, atol=0)

finish()
