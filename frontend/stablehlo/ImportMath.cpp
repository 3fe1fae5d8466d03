//===- ImportMath.cpp - elementwise functions kiln has no op for ----------===//
//
// StableHLO's and CHLO's elementwise functions of floats that Kiln has no
// op for, written with kiln's ops in the forms XLA's own CHLO
// decompositions use where precision needs care: near zero (expm1 and
// log1p), for large arguments (rescaled by ln 2 so nothing overflows
// early), at the ends of their domains, and with the sign of zero kept.
//
//===----------------------------------------------------------------------===//
#include "frontend/stablehlo/ImportPatterns.h"
#include "frontend/stablehlo/Passes.h"

#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace kiln;
using namespace kiln::stablehlo_import;

namespace {

/// Builds kiln ops on tensors of one float type.
struct Math {
  OpBuilder &b;
  Location loc;
  RankedTensorType type;

  Value c(double value) {
    return splat(b, loc, type, b.getFloatAttr(type.getElementType(), value));
  }
  Value add(Value x, Value y) { return kiln::AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return kiln::SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return kiln::MulOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return kiln::DivOp::create(b, loc, x, y); }
  Value neg(Value x) { return kiln::NegOp::create(b, loc, x); }
  Value abs(Value x) { return kiln::AbsOp::create(b, loc, x); }
  Value exp(Value x) { return kiln::ExpOp::create(b, loc, x); }
  Value expm1(Value x) { return kiln::Expm1Op::create(b, loc, x); }
  Value log(Value x) { return kiln::LogOp::create(b, loc, x); }
  Value log1p(Value x) { return kiln::Log1pOp::create(b, loc, x); }
  Value sqrt(Value x) { return kiln::SqrtOp::create(b, loc, x); }
  Value floor(Value x) { return kiln::FloorOp::create(b, loc, x); }
  Value atan2(Value y, Value x) { return kiln::Atan2Op::create(b, loc, y, x); }
  Value pow(Value x, Value y) { return kiln::PowOp::create(b, loc, x, y); }
  Value both(Value p, Value q) { return kiln::AndOp::create(b, loc, p, q); }
  Value either(Value p, Value q) { return kiln::OrOp::create(b, loc, p, q); }
  Value compare(kiln::ComparisonDirection direction, Value x, Value y) {
    return kiln::CompareOp::create(b, loc, direction, x, y);
  }
  Value lt(Value x, Value y) {
    return compare(kiln::ComparisonDirection::LT, x, y);
  }
  Value eq(Value x, Value y) {
    return compare(kiln::ComparisonDirection::EQ, x, y);
  }
  Value le(Value x, Value y) {
    return compare(kiln::ComparisonDirection::LE, x, y);
  }
  Value negate(Value p) { return kiln::NotOp::create(b, loc, p); }
  Value select(Value pred, Value x, Value y) {
    return kiln::SelectOp::create(b, loc, type, pred, x, y);
  }
  /// `value`, a zero taking the sign of `x`'s.
  Value zeroSignedAs(Value x, Value value) {
    return select(eq(value, c(0)), mul(x, c(0)), value);
  }
  /// `magnitude` (not negative) with the sign of `x`, zeros included.
  Value withSignOf(Value x, Value magnitude) {
    return zeroSignedAs(x, select(lt(x, c(0)), neg(magnitude), magnitude));
  }
  /// c[0] x^n + c[1] x^(n-1) + ... + c[n].
  Value horner(Value x, ArrayRef<double> coefficients) {
    Value acc = c(coefficients.front());
    for (double k : coefficients.drop_front())
      acc = add(mul(acc, x), c(k));
    return acc;
  }
  /// Whether x is a whole number.
  Value whole(Value x) { return eq(x, floor(x)); }
  /// Whether x is one of gamma's poles 0, -1, -2, ...
  Value pole(Value x) { return both(whole(x), le(x, c(0))); }
  /// Whether |x| is at least `bound`.
  Value large(Value x, double bound) {
    return kiln::CompareOp::create(b, loc, kiln::ComparisonDirection::GE,
                                   abs(x), c(bound));
  }
};

/// erf(x) = x P(x^2) / Q(x^2) on x clamped to [-4, 4] (beyond, erf is
/// +-1 in f32): the rational approximation XLA and Eigen use for f32,
/// accurate to a few ulps.
Value expandErf(Math &m, Value x) {
  static constexpr double kAlpha[] = {
      -2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
      -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
      -1.60960333262415e-02};
  static constexpr double kBeta[] = {
      -1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
      -7.37332916720468e-03, -1.42647390514189e-02};
  Value clamped = kiln::MinOp::create(
      m.b, m.loc, kiln::MaxOp::create(m.b, m.loc, x, m.c(-4)), m.c(4));
  Value square = m.mul(clamped, clamped);
  return m.div(m.mul(clamped, m.horner(square, kAlpha)),
               m.horner(square, kBeta));
}

/// erfc by the Chebyshev fit of Numerical Recipes (erfcc; relative error
/// below 1.2e-7 everywhere, so accurate in the tails where 1 - erf is
/// not): with t = 1 / (1 + |x| / 2), erfc(|x|) = t exp(-x^2 + P(t)), and
/// erfc(x) = 2 - erfc(|x|) below 0.
Value expandErfc(Math &m, Value x) {
  static constexpr double kFit[] = {
      0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807,
      -0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223};
  Value a = m.abs(x);
  Value t = m.div(m.c(1), m.add(m.c(1), m.mul(m.c(0.5), a)));
  Value tail = m.mul(
      t, m.exp(m.add(m.neg(m.mul(a, a)), m.horner(t, kFit))));
  return m.select(m.lt(x, m.c(0)), m.sub(m.c(2), tail), tail);
}

/// Giles's single-precision approximation ("Approximating the erfinv
/// function", GPU Computing Gems, 2011), as XLA uses it; +-1 give +-inf.
Value expandErfInv(Math &m, Value x) {
  static constexpr double kCentral[] = {
      2.81022636e-08,  3.43273939e-07, -3.5233877e-06,
      -4.39150654e-06, 0.00021858087,  -0.00125372503,
      -0.00417768164,  0.246640727,    1.50140941};
  static constexpr double kTail[] = {
      -0.000200214257, 0.000100950558, 0.00134934322,
      -0.00367342844,  0.00573950773,  -0.0076224613,
      0.00943887047,   1.00167406,     2.83297682};
  Value w = m.neg(m.log(m.mul(m.sub(m.c(1), x), m.add(m.c(1), x))));
  Value central = m.horner(m.sub(w, m.c(2.5)), kCentral);
  Value tail = m.horner(m.sub(m.sqrt(w), m.c(3)), kTail);
  Value p = m.select(m.lt(w, m.c(5)), central, tail);
  Value infinity = m.c(INFINITY);
  return m.select(m.eq(m.abs(x), m.c(1)), m.mul(x, infinity), m.mul(p, x));
}

Value expandTan(Math &m, Value x) {
  return m.div(kiln::SinOp::create(m.b, m.loc, x),
               kiln::CosOp::create(m.b, m.loc, x));
}

/// (e^x - e^-x) / 2: through expm1 below 1 (no cancellation), otherwise as
/// e^(x - ln 2) - e^(-x - ln 2) (no overflow before the result's).
Value expandSinh(Math &m, Value x) {
  Value small = m.mul(m.sub(m.expm1(x), m.expm1(m.neg(x))), m.c(0.5));
  Value big = m.sub(m.exp(m.sub(x, m.c(M_LN2))),
                    m.exp(m.sub(m.neg(x), m.c(M_LN2))));
  return m.select(m.large(x, 1), big, small);
}

Value expandCosh(Math &m, Value x) {
  return m.add(m.exp(m.sub(x, m.c(M_LN2))),
               m.exp(m.sub(m.neg(x), m.c(M_LN2))));
}

Value expandAtan(Math &m, Value x) { return m.atan2(x, m.c(1)); }

/// 1 - x^2 as (1 - x)(1 + x), exact near |x| = 1.
Value oneMinusSquare(Math &m, Value x) {
  return m.mul(m.sub(m.c(1), x), m.add(m.c(1), x));
}

/// 2 atan2(x, 1 + sqrt(1 - x^2)); NaN outside [-1, 1].
Value expandAsin(Math &m, Value x) {
  return m.mul(m.c(2),
               m.atan2(x, m.add(m.c(1), m.sqrt(oneMinusSquare(m, x)))));
}

/// 2 atan2(sqrt(1 - x^2), 1 + x), and pi at -1.
Value expandAcos(Math &m, Value x) {
  Value half = m.atan2(m.sqrt(oneMinusSquare(m, x)), m.add(m.c(1), x));
  return m.select(m.eq(x, m.c(-1)), m.c(M_PI), m.mul(m.c(2), half));
}

/// log1p(a + a^2 / (1 + sqrt(a^2 + 1))) of a = |x| with x's sign; log(a) +
/// ln 2 where a^2 would overflow.
Value expandAsinh(Math &m, Value x) {
  Value a = m.abs(x);
  Value square = m.mul(a, a);
  Value near = m.log1p(
      m.add(a, m.div(square, m.add(m.c(1), m.sqrt(m.add(square, m.c(1)))))));
  Value far = m.add(m.log(a), m.c(M_LN2));
  return m.withSignOf(x, m.select(m.large(x, 1e15), far, near));
}

/// log1p(t + sqrt(t (t + 2))) of t = x - 1; log(x) + ln 2 for large x;
/// NaN below 1.
Value expandAcosh(Math &m, Value x) {
  Value t = m.sub(x, m.c(1));
  Value near = m.log1p(m.add(t, m.sqrt(m.mul(t, m.add(t, m.c(2))))));
  Value far = m.add(m.log(x), m.c(M_LN2));
  return m.select(m.large(x, 1e15), far, near);
}

/// log1p(2x / (1 - x)) / 2: +-inf at +-1, NaN beyond.
Value expandAtanh(Math &m, Value x) {
  Value ratio = m.div(m.mul(m.c(2), x), m.sub(m.c(1), x));
  Value outside =
      m.compare(kiln::ComparisonDirection::GT, m.abs(x), m.c(1));
  return m.select(outside, m.c(NAN), m.mul(m.log1p(ratio), m.c(0.5)));
}

/// |x|^(1/3) with x's sign.
Value expandCbrt(Math &m, Value x) {
  return m.withSignOf(
      x, kiln::PowOp::create(m.b, m.loc, m.abs(x), m.c(1.0 / 3.0)));
}

/// Rounds half away from zero: floor(|x|), plus 1 if the rest is at least
/// one half, with x's sign.
Value expandRoundAfz(Math &m, Value x) {
  Value a = m.abs(x);
  Value whole = m.floor(a);
  Value up = kiln::CompareOp::create(m.b, m.loc, kiln::ComparisonDirection::GE,
                                     m.sub(a, whole), m.c(0.5));
  return m.withSignOf(x, m.select(up, m.add(whole, m.c(1)), whole));
}

/// Rounds half to even: floor(x), plus 1 if the rest is more than one half,
/// or exactly one half and floor(x) odd; zeros keep x's sign.
Value expandRoundEven(Math &m, Value x) {
  Value whole = m.floor(x);
  Value rest = m.sub(x, whole);
  Value odd = m.compare(kiln::ComparisonDirection::NE,
                        m.mul(m.floor(m.mul(whole, m.c(0.5))), m.c(2)), whole);
  Value up = m.either(m.compare(kiln::ComparisonDirection::GT, rest, m.c(0.5)),
                      m.both(m.eq(rest, m.c(0.5)), odd));
  return m.zeroSignedAs(x, m.select(up, m.add(whole, m.c(1)), whole));
}

/// The Lanczos approximation (g = 7, 9 terms) XLA uses for lgamma and
/// digamma: for z = x - 1 >= -0.5, gamma(x) = sqrt(2 pi) t^(z + 1/2) e^-t
/// a(z) with t = z + g + 1/2 and a(z) = c0 + sum c_k / (z + k).
constexpr double kLanczosG = 7;
constexpr double kLanczos[] = {
    0.99999999999980993227684700473478, 676.520368121885098567009190444019,
    -1259.13921672240287047156078755283, 771.3234287776530788486528258894,
    -176.61502916214059906584551354,    12.507343278686904814458936853,
    -0.13857109526572011689554707,      9.984369578019570859563e-6,
    1.50563273514931155834e-7};

/// For x >= 1/2: t, log(t) (as log1p for precision), a(z) and -a'(z).
struct Lanczos {
  Value t, logT, a, slope;
};
Lanczos lanczos(Math &m, Value x) {
  Value z = m.sub(x, m.c(1));
  Value a = m.c(kLanczos[0]), slope = m.c(0);
  for (int k = 1; k < 9; ++k) {
    Value denominator = m.add(z, m.c(k));
    Value term = m.div(m.c(kLanczos[k]), denominator);
    a = m.add(a, term);
    slope = m.add(slope, m.div(term, denominator));
  }
  Value t = m.add(z, m.c(kLanczosG + 0.5));
  Value logT = m.add(m.c(std::log(kLanczosG + 0.5)),
                     m.log1p(m.div(z, m.c(kLanczosG + 0.5))));
  return {t, logT, a, slope};
}

/// x reflected into [1/2, inf) for x < 1/2 (1 - x there), |sin(pi x)|
/// and cot(pi x), both from |x|'s fractional part folded into [0, 1/2]
/// (exact, where pi x near an integer is not).
struct Reflection {
  Value reflect, x, sinPiX, cotPiX;
};
Reflection reflection(Math &m, Value x) {
  Value reflect = m.lt(x, m.c(0.5));
  Value a = m.abs(x);
  Value fraction = m.sub(a, m.floor(a));
  Value flip = kiln::CompareOp::create(m.b, m.loc,
                                       kiln::ComparisonDirection::GT,
                                       fraction, m.c(0.5));
  Value angle =
      m.mul(m.c(M_PI), m.select(flip, m.sub(m.c(1), fraction), fraction));
  Value sin = kiln::SinOp::create(m.b, m.loc, angle);
  Value cos = kiln::CosOp::create(m.b, m.loc, angle);
  // cot(pi |x|) changes sign with the fold; cot is odd.
  Value cot = m.div(m.select(flip, m.neg(cos), cos), sin);
  return {reflect, m.select(reflect, m.sub(m.c(1), x), x), sin,
          m.select(m.lt(x, m.c(0)), m.neg(cot), cot)};
}

/// log|gamma(x)|: Lanczos above 1/2, the reflection log(pi / |sin(pi x)|)
/// - lgamma(1 - x) below; +inf at the poles (0, -1, ...) and at +-inf.
Value expandLgamma(Math &m, Value x) {
  Reflection r = reflection(m, x);
  Lanczos l = lanczos(m, r.x);
  Value z = m.sub(r.x, m.c(1));
  Value positive = m.add(
      m.add(m.c(0.5 * std::log(2 * M_PI)),
            m.sub(m.mul(m.add(z, m.c(0.5)), l.logT), l.t)),
      m.log(l.a));
  Value reflected = m.sub(
      m.sub(m.c(std::log(M_PI)), m.log(r.sinPiX)), positive);
  Value result = m.select(r.reflect, reflected, positive);
  Value infinite = m.either(m.eq(m.abs(x), m.c(INFINITY)), m.pole(x));
  return m.select(infinite, m.c(INFINITY), result);
}

/// gamma'(x) / gamma(x): the Lanczos form's derivative above 1/2,
/// digamma(1 - x) - pi / tan(pi x) below; NaN at the poles (0, -1, ...)
/// and at -inf, +inf at +inf.
Value expandDigamma(Math &m, Value x) {
  Reflection r = reflection(m, x);
  Lanczos l = lanczos(m, r.x);
  Value positive =
      m.sub(m.add(l.logT, m.div(m.neg(l.slope), l.a)), m.div(m.c(kLanczosG), l.t));
  Value reflected = m.sub(positive, m.mul(m.c(M_PI), r.cotPiX));
  Value result = m.select(r.reflect, reflected, positive);
  result = m.select(m.pole(x), m.c(NAN), result);
  return m.select(m.eq(x, m.c(INFINITY)), x, result);
}

/// Cephes's Chebyshev series (i1.c, as XLA and PyTorch use them) for
/// exp(-x) I1(x) / x on [0, 8] in y = x / 2 - 2, and for
/// exp(-x) sqrt(x) I1(x) on (8, inf) in y = 32 / x - 2.
constexpr double kI1eSmall[] = {
    2.77791411276104639959E-18, -2.11142121435816608115E-17,
    1.55363195773620046921E-16, -1.10559694773538630805E-15,
    7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12,
    1.17361862988909016308E-11, -6.66348972350202774223E-11,
    3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9,  -4.44505912879632808065E-8,
    2.00329475355213526229E-7,  -8.56872026469545474066E-7,
    3.47025130813767847674E-6,  -1.32731636560394358279E-5,
    4.78156510755005422638E-5,  -1.61760815825896745588E-4,
    5.12285956168575772895E-4,  -1.51357245063125314899E-3,
    4.15642294431288815669E-3,  -1.05640848946261981558E-2,
    2.47264490306265168283E-2,  -5.29459812080949914269E-2,
    1.02643658689847095384E-1,  -1.76416518357834055153E-1,
    2.52587186443633654823E-1};
constexpr double kI1eLarge[] = {
    7.51729631084210481353E-18,  4.41434832307170791151E-18,
    -4.65030536848935832153E-17, -3.20952592199342395980E-17,
    2.96262899764595013876E-16,  3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15,
    1.04202769841288027642E-14,  4.27244001671195135429E-14,
    -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12,
    1.41258074366137813316E-11,  3.25260358301548823856E-11,
    -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9,  -2.63146884688951950684E-8,
    -2.51223623787020892529E-7,  -3.88256480887769039346E-6,
    -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
    7.78576235018280120474E-1};

/// The Chebyshev series `coefficients` (highest order first) at y, by
/// Clenshaw's recurrence, as Cephes's chbevl sums it.
Value chebyshev(Math &m, Value y, ArrayRef<double> coefficients) {
  Value b0 = m.c(coefficients.front()), b1 = m.c(0), b2 = b1;
  for (double k : coefficients.drop_front()) {
    b2 = b1;
    b1 = b0;
    b0 = m.add(m.sub(m.mul(y, b1), b2), m.c(k));
  }
  return m.mul(m.c(0.5), m.sub(b0, b2));
}

/// exp(-|x|) I1(x), odd, signed as XLA signs it (+0 at -0, -0 at -inf),
/// NaN at NaN.
Value expandBesselI1e(Math &m, Value x) {
  Value a = m.abs(x);
  Value small =
      m.mul(chebyshev(m, m.sub(m.mul(a, m.c(0.5)), m.c(2)), kI1eSmall), a);
  Value large = m.div(chebyshev(m, m.sub(m.div(m.c(32), a), m.c(2)), kI1eLarge),
                      m.sqrt(a));
  Value magnitude = m.select(m.le(a, m.c(8)), small, large);
  return m.select(m.lt(x, m.c(0)), m.neg(magnitude), magnitude);
}

/// (2k)! / B_2k for k = 1 .. 12 (B: Bernoulli's numbers), the terms of
/// the Euler-Maclaurin tail as Cephes and XLA sum it.
constexpr double kZetaTail[] = {12.0,
                                -720.0,
                                30240.0,
                                -1209600.0,
                                47900160.0,
                                -1.8924375803183791606e9,
                                7.47242496e10,
                                -2.950130727918164224e12,
                                1.1646782814350067249e14,
                                -4.5979787224074726105e15,
                                1.8152105401943546773e17,
                                -7.1661652561756670113e18};

/// Hurwitz's zeta(x, q) = sum over k >= 0 of (q + k)^-x, by Euler-Maclaurin
/// as Cephes's zeta.c and XLA write it: the first 10 terms, the integral
/// and half term at q + 9, and 12 Bernoulli terms. +inf at x = 1 and at
/// the poles q = 0, -1, ...; NaN for x < 1, and for q < 0 with x not whole
/// ((q + k)^-x is not real).
Value expandZeta(Math &m, ValueRange operands) {
  Value x = operands[0], q = operands[1];
  Value minusX = m.neg(x);
  Value a = q, b = m.pow(q, minusX), sum = b;
  for (int k = 1; k <= 9; ++k) {
    a = m.add(a, m.c(1));
    b = m.pow(a, minusX);
    sum = m.add(sum, b);
  }
  Value w = a;
  sum = m.sub(m.add(sum, m.div(m.mul(b, w), m.sub(x, m.c(1)))),
              m.mul(m.c(0.5), b));
  // The j-th term: x (x + 1) ... (x + 2j - 2) (q + 9)^(-x - 2j + 1) / A_j.
  Value rising = m.c(1);
  for (auto [j, tail] : llvm::enumerate(kZetaTail)) {
    rising = m.mul(rising, m.add(x, m.c(2.0 * j)));
    b = m.div(b, w);
    sum = m.add(sum, m.div(m.mul(rising, b), m.c(tail)));
    rising = m.mul(rising, m.add(x, m.c(2.0 * j + 1)));
    b = m.div(b, w);
  }
  Value pole = m.either(m.eq(x, m.c(1)), m.pole(q));
  Value undefined =
      m.either(m.lt(x, m.c(1)), m.both(m.le(q, m.c(0)), m.negate(m.whole(x))));
  return m.select(undefined, m.c(NAN), m.select(pole, m.c(INFINITY), sum));
}

/// The n-th derivative of digamma: digamma(x) for n = 0, else
/// (-1)^(n + 1) n! zeta(n + 1, x); NaN where n is not a whole number at
/// least 0.
Value expandPolygamma(Math &m, ValueRange operands) {
  Value n = operands[0], x = operands[1];
  Value factorial = m.exp(expandLgamma(m, m.add(n, m.c(1))));
  Value odd =
      m.eq(m.sub(n, m.mul(m.c(2), m.floor(m.mul(n, m.c(0.5))))), m.c(1));
  Value sign = m.select(odd, m.c(1), m.c(-1));
  Value zeta = expandZeta(m, {m.add(n, m.c(1)), x});
  Value result = m.select(m.eq(n, m.c(0)), expandDigamma(m, x),
                          m.mul(m.mul(sign, factorial), zeta));
  Value invalid = m.either(m.lt(n, m.c(0)), m.negate(m.whole(n)));
  return m.select(invalid, m.c(NAN), result);
}

/// An elementwise function of float tensors of one type, as `expansion`
/// writes it.
template <typename From>
struct Expand : OpConversionPattern<From> {
  using Expansion = std::function<Value(Math &, ValueRange)>;
  Expand(MLIRContext *context, Expansion expansion)
      : OpConversionPattern<From>(context), expansion(std::move(expansion)) {}
  Expand(MLIRContext *context, Value (*unary)(Math &, Value))
      : Expand(context, [unary](Math &m, ValueRange operands) {
          return unary(m, operands.front());
        }) {}
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange operands = adaptor.getOperands();
    auto type = dyn_cast<RankedTensorType>(operands.front().getType());
    if (!type || !isa<FloatType>(type.getElementType()) ||
        llvm::any_of(operands, [&](Value v) { return v.getType() != type; }))
      return rewriter.notifyMatchFailure(op, "not floats of one type");
    // Narrower floats are computed in f32 and rounded once, as XLA does.
    Location loc = op.getLoc();
    SmallVector<Value> wideOperands(operands);
    auto wide = type;
    if (type.getElementType().getIntOrFloatBitWidth() < 32) {
      wide = type.clone(rewriter.getF32Type());
      for (Value &operand : wideOperands)
        operand = kiln::ConvertOp::create(rewriter, loc, wide, operand);
    }
    Math m{rewriter, loc, wide};
    Value result = expansion(m, wideOperands);
    if (wide != type)
      result = kiln::ConvertOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
  Expansion expansion;
};

} // namespace

namespace kiln::stablehlo_import {

void populateMathPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<Expand<chlo::ErfOp>>(context, expandErf);
  patterns.add<Expand<chlo::ErfInvOp>>(context, expandErfInv);
  patterns.add<Expand<chlo::ErfcOp>>(context, expandErfc);
  patterns.add<Expand<chlo::TanOp>, Expand<shlo::TanOp>>(context, expandTan);
  patterns.add<Expand<chlo::SinhOp>>(context, expandSinh);
  patterns.add<Expand<chlo::CoshOp>>(context, expandCosh);
  patterns.add<Expand<chlo::AtanOp>>(context, expandAtan);
  patterns.add<Expand<chlo::AsinOp>>(context, expandAsin);
  patterns.add<Expand<chlo::AcosOp>>(context, expandAcos);
  patterns.add<Expand<chlo::AsinhOp>>(context, expandAsinh);
  patterns.add<Expand<chlo::AcoshOp>>(context, expandAcosh);
  patterns.add<Expand<chlo::AtanhOp>>(context, expandAtanh);
  patterns.add<Expand<chlo::LgammaOp>>(context, expandLgamma);
  patterns.add<Expand<chlo::DigammaOp>>(context, expandDigamma);
  patterns.add<Expand<chlo::BesselI1eOp>>(context, expandBesselI1e);
  patterns.add<Expand<chlo::ZetaOp>>(context, expandZeta);
  patterns.add<Expand<chlo::PolygammaOp>>(context, expandPolygamma);
  patterns.add<Expand<shlo::CbrtOp>>(context, expandCbrt);
  patterns.add<Expand<shlo::RoundNearestAfzOp>>(context, expandRoundAfz);
  patterns.add<Expand<shlo::RoundNearestEvenOp>>(context, expandRoundEven);
}

std::optional<std::string> unsupportedMath(Operation *op) {
  if (!isa<chlo::ErfOp, chlo::ErfcOp, chlo::ErfInvOp, chlo::TanOp, shlo::TanOp,
           chlo::SinhOp, chlo::CoshOp, chlo::AtanOp, chlo::AsinOp, chlo::AcosOp,
           chlo::AsinhOp, chlo::AcoshOp, chlo::AtanhOp, chlo::LgammaOp,
           chlo::DigammaOp, chlo::BesselI1eOp, chlo::ZetaOp, chlo::PolygammaOp,
           shlo::CbrtOp, shlo::RoundNearestAfzOp, shlo::RoundNearestEvenOp>(op))
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (type && isa<FloatType>(type.getElementType()) &&
      llvm::all_of(op->getOperandTypes(),
                   [&](Type operand) { return operand == type; }) &&
      op->getResult(0).getType() == type)
    return std::nullopt;
  return op->getName().getStringRef().str() +
         ": Kiln imports it on ranked tensors of floats, its operands and "
         "result of one type";
}

} // namespace kiln::stablehlo_import
