//===- F64MathApproximation.cpp - f64 exp, log, tanh, atan; narrow pow ---===//
//
// math.exp, math.log, math.tanh and math.atan of f64, and math.powf of f32,
// f16 and bf16 (scalars and vectors of any shape) as vectorizable
// arithmetic: LLVM lowers them to scalar libm calls, one element at a time,
// and MLIR's polynomial approximations cover f32 only.
//
// exp, log and atan are fdlibm's algorithms (e_exp.c, e_log.c, s_atan.c:
// errors below one ulp) with their branches as selects, tanh Cephes'
// rational function near 0 and exp elsewhere (within an ulp); pow of the
// narrower floats is 2^(y log2|x|) in f64, whose error (about 1e-14
// relative over the whole f32 range) is far below an f32 ulp, so the result
// is rounded once, from the f64 value, with C99's special cases as selects.
// Its log2 and 2^t need neither f64's subnormals nor its range, nor its last
// bits: a division and 18 FMAs, where fdlibm's log and exp took two
// divisions and their branches for those.
//
//===----------------------------------------------------------------------===//
#include "MathEmitter.h"
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;

namespace {

using kiln::MathEmitter;
using Predicate = arith::CmpFPredicate;

/// ln 2 in two parts: kLn2Hi has 32 significant bits, so k * kLn2Hi is
/// exact for every exponent k an f64 has.
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
/// fdlibm's minimax coefficients: exp's rational form on |r| <= ln2 / 2
/// and log's polynomial in s = f / (2 + f) on sqrt(2)/2 <= 1 + f < sqrt(2).
constexpr double kExpP[] = {
    1.66666666666666019037e-01, -2.77777777770155933842e-03,
    6.61375632143793436117e-05, -1.65339022054652515390e-06,
    4.13813679705723846039e-08};
constexpr double kLogLg[] = {6.666666666666735130e-01, 3.999999999940941908e-01,
                             2.857142874366239149e-01, 2.222219843214978396e-01,
                             1.818357216161805012e-01, 1.531383769920937332e-01,
                             1.479819860511658591e-01};
/// fdlibm's atan: the bounds of its intervals of |x|, and for |x| below the
/// first and in each interval from there, the reduction's (s, t) and atan
/// of the interval's centre c in two parts; the polynomial in x'^2 on
/// |x'| <= 7/16.
constexpr double kAtanBounds[] = {7.0 / 16, 11.0 / 16, 19.0 / 16, 39.0 / 16};
constexpr double kAtanS[] = {1, 2, 1, 1, 0};
constexpr double kAtanT[] = {0, 1, 1, 1.5, 1};
constexpr double kAtanHi[] = {
    0, 4.63647609000806093515e-01, 7.85398163397448278999e-01,
    9.82793723247329054082e-01, 1.57079632679489655800e+00};
constexpr double kAtanLo[] = {
    0, 2.26987774529616870924e-17, 3.06161699786838301793e-17,
    1.39033110312309984516e-17, 6.12323399573676603587e-17};
constexpr double kAtanOdd[] = {
    3.33333333333329318027e-01, 1.42857142725034663711e-01,
    9.09088713343650656196e-02, 6.66107313738753120669e-02,
    4.97687799461593236017e-02, 1.62858201153657823623e-02};
constexpr double kAtanEven[] = {
    -1.99999999998764832476e-01, -1.11111104054623557880e-01,
    -7.69187620504482999495e-02, -5.83357013379057348645e-02,
    -3.65315727442169155270e-02};

using kiln::kIntegerShift;
using kiln::kIntegerShiftBits;

/// Integer arithmetic on the i64 bits of f64 values.
struct Bits {
  const MathEmitter &e;
  Type type() const { return e.typeOf(e.b.getI64Type()); }
  Value of(Value x) const {
    return arith::BitcastOp::create(e.b, e.loc, type(), x);
  }
  Value toF64(Value bits) const {
    return arith::BitcastOp::create(e.b, e.loc, e.typeOf(e.b.getF64Type()),
                                    bits);
  }
  Value add(Value x, int64_t y) const {
    return arith::AddIOp::create(e.b, e.loc, x, e.i64(y));
  }
  Value sub(Value x, Value y) const {
    return arith::SubIOp::create(e.b, e.loc, x, y);
  }
  Value addi(Value x, Value y) const {
    return arith::AddIOp::create(e.b, e.loc, x, y);
  }
  Value mask(Value x, int64_t y) const {
    return arith::AndIOp::create(e.b, e.loc, x, e.i64(y));
  }
  Value shr(Value x, int64_t y) const {
    return arith::ShRSIOp::create(e.b, e.loc, x, e.i64(y));
  }
  Value shru(Value x, int64_t y) const {
    return arith::ShRUIOp::create(e.b, e.loc, x, e.i64(y));
  }
  Value shl(Value x, int64_t y) const {
    return arith::ShLIOp::create(e.b, e.loc, x, e.i64(y));
  }
  Value positive(Value x) const {
    return arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::sgt, x,
                                 e.i64(0));
  }
  /// 2^k for integers k in [-1022, 1023].
  Value powerOfTwo(Value k) const { return toF64(shl(add(k, 1023), 52)); }
  /// The integer-valued f64 `k` (|k| < 2^51) as an i64, and an i64 of that
  /// range as an f64, by kIntegerShift: AVX2 has no vector conversion
  /// between f64 and i64 (vcvttpd2qq and vcvtqq2pd are AVX-512DQ's), which
  /// LLVM made 4 scalar conversions a vector (on an AMD Zen 3, f64 tanh of
  /// 1000 x 999 took 5.25 ms with them, 3.64 without; exp 2.57 and 2.42).
  Value toInteger(Value k) const {
    return add(of(e.add(k, e.f64(kIntegerShift))), -kIntegerShiftBits);
  }
  Value toFloat(Value k) const {
    return e.sub(toF64(add(k, kIntegerShiftBits)), e.f64(kIntegerShift));
  }
};

/// exp(x) = 2^k exp(r), x = k ln2 + r, |r| <= ln2 / 2.
Value expF64(const MathEmitter &e, Value x) {
  Bits bits{e};
  // Out there exp overflows or rounds to 0 all the same; the clamp keeps
  // 2^k within two f64 factors, and a NaN, which fptosi would make poison,
  // is computed as 0 and given back at the end.
  Value isNaN = e.isNaN(x);
  Value clamped = arith::MinimumFOp::create(
      e.b, e.loc, arith::MaximumFOp::create(e.b, e.loc, x, e.f64(-746)),
      e.f64(710));
  clamped = e.select(isNaN, e.f64(0), clamped);
  Value k = math::RoundEvenOp::create(
      e.b, e.loc, e.mul(clamped, e.f64(1.44269504088896338700)));
  Value hi = e.fma(e.neg(k), e.f64(kLn2Hi), clamped);
  Value lo = e.mul(k, e.f64(kLn2Lo));
  Value r = e.sub(hi, lo);
  Value t = e.mul(r, r);
  Value c = e.sub(r, e.mul(t, e.polynomial(t, kExpP)));
  // y = 1 - ((lo - r c / (2 - c)) - hi)
  Value y = e.sub(e.f64(1),
                  e.sub(e.sub(lo, e.div(e.mul(r, c), e.sub(e.f64(2), c))), hi));
  // 2^k as 2^(k/2) 2^(k - k/2): k reaches -1076 and 1024. The product
  // rounds once, where it is subnormal.
  Value ki = bits.toInteger(k);
  Value half = bits.shr(ki, 1);
  Value scaled = e.mul(e.mul(y, bits.powerOfTwo(half)),
                       bits.powerOfTwo(bits.sub(ki, half)));
  return e.select(isNaN, x, scaled);
}

/// log(x) = k ln2 + log(1 + f), x = 2^k (1 + f), sqrt(2)/2 <= 1 + f < sqrt(2).
Value logF64(const MathEmitter &e, Value x) {
  Bits bits{e};
  // Subnormals are scaled into the normal range first.
  Value subnormal = e.cmp(Predicate::OLT, x, 0x1p-1022);
  Value scaledX = e.select(subnormal, e.mul(x, e.f64(0x1p54)), x);
  Value xBits = bits.of(scaledX);
  Value k = bits.sub(bits.add(bits.shr(xBits, 52), -1023),
                     e.select(subnormal, e.i64(54), e.i64(0)));
  // The top 20 bits of the mantissa; from sqrt(2) on, x is halved.
  Value top = bits.mask(bits.shr(xBits, 32), 0xfffff);
  Value halves = bits.mask(bits.add(top, 0x95f64), 0x100000);
  Value exponent = arith::XOrIOp::create(e.b, e.loc, halves, e.i64(0x3ff00000));
  Value m = bits.toF64(
      arith::OrIOp::create(e.b, e.loc, bits.mask(xBits, 0x000fffffffffffff),
                           bits.shl(exponent, 32)));
  k = bits.addi(k, bits.shr(halves, 20));
  Value f = e.sub(m, e.f64(1));
  Value s = e.div(f, e.add(e.f64(2), f));
  Value dk = bits.toFloat(k);
  Value z = e.mul(s, s);
  Value w = e.mul(z, z);
  Value t1 = e.mul(w, e.polynomial(w, {kLogLg[1], kLogLg[3], kLogLg[5]}));
  Value t2 =
      e.mul(z, e.polynomial(w, {kLogLg[0], kLogLg[2], kLogLg[4], kLogLg[6]}));
  Value rest = e.add(t2, t1);
  Value kHi = e.mul(dk, e.f64(kLn2Hi));
  Value kLo = e.mul(dk, e.f64(kLn2Lo));
  // fdlibm's two forms: with f^2 / 2 apart where the mantissa's top bits
  // lie in (0x6147a, 0x6b851), near sqrt(2), and without elsewhere.
  Value hfsq = e.mul(e.mul(e.f64(0.5), f), f);
  Value withSquare = e.sub(
      kHi, e.sub(e.sub(hfsq, e.add(e.mul(s, e.add(hfsq, rest)), kLo)), f));
  Value plain = e.sub(kHi, e.sub(e.sub(e.mul(s, e.sub(f, rest)), kLo), f));
  Value nearRoot2 = bits.positive(arith::OrIOp::create(
      e.b, e.loc, bits.add(top, -0x6147a),
      arith::SubIOp::create(e.b, e.loc, e.i64(0x6b851), top)));
  Value result = e.select(nearRoot2, withSquare, plain);
  result = e.select(e.eq(x, INFINITY), x, result);
  result = e.select(e.eq(x, 0), e.f64(-INFINITY), result);
  // Negative numbers and NaN.
  return e.select(e.cmp(Predicate::ULT, x, 0), e.f64(NAN), result);
}

/// log2(x) = k + log(m) / ln2 for an f64 x extended from f32 or narrower
/// (normal in f64), x = 2^k m, sqrt(2)/2 <= m < sqrt(2), log(m) as fdlibm's
/// log(1 + f) in one form: within about 1e-15 relative. log2 of 0, inf and
/// NaN is -inf, inf and NaN; of a negative x, meaningless.
Value log2OfNarrow(const MathEmitter &e, Value x) {
  Bits bits{e};
  // The biased exponent of x / (sqrt(2)/2): positive for every normal x, so
  // that a logical shift (AVX2 has no arithmetic one on i64) takes it.
  constexpr int64_t kSqrtHalfBits = 0x3fe6a09e667f3bcd;
  constexpr int64_t kOneBits = 0x3ff0000000000000;
  Value xBits = bits.of(x);
  Value biased = bits.shru(bits.add(xBits, kOneBits - kSqrtHalfBits), 52);
  Value m =
      bits.toF64(bits.add(bits.sub(xBits, bits.shl(biased, 52)), kOneBits));
  Value k = e.sub(bits.toFloat(biased), e.f64(1023));
  Value f = e.sub(m, e.f64(1));
  Value s = e.div(f, e.add(e.f64(2), f));
  Value z = e.mul(s, s);
  Value hfsq = e.mul(e.mul(e.f64(0.5), f), f);
  // log(1 + f) = f - (f^2 / 2 - s (f^2 / 2 + z P(z)))
  Value rest = e.mul(z, e.polynomial(z, kLogLg));
  Value logM = e.sub(f, e.sub(hfsq, e.mul(s, e.add(hfsq, rest))));
  Value result = e.fma(logM, e.f64(1 / M_LN2), k);
  result = e.select(e.eq(x, 0), e.f64(-INFINITY), result);
  return e.select(e.either(e.eq(x, INFINITY), e.isNaN(x)), x, result);
}

/// 2^t for an f64 t whose result is rounded to f32 or narrower: t clamped
/// to [-200, 200] (past either end f32 rounds to 0 or overflows all the
/// same), 2^t = 2^k 2^r with k = round(t), |r| <= 1/2, and 2^r = e^(r ln2)
/// by Taylor's polynomial of degree 11 (within 7e-15 relative).
Value exp2ForNarrow(const MathEmitter &e, Value t) {
  Bits bits{e};
  Value clamped = e.select(e.cmp(Predicate::OGT, t, 200), e.f64(200), t);
  clamped =
      e.select(e.cmp(Predicate::OLT, clamped, -200), e.f64(-200), clamped);
  Value shifted = e.add(clamped, e.f64(kIntegerShift));
  Value r = e.sub(clamped, e.sub(shifted, e.f64(kIntegerShift)));
  SmallVector<double, 12> taylor = {1};
  while (taylor.size() < 12)
    taylor.push_back(taylor.back() * M_LN2 / double(taylor.size()));
  Value k = bits.add(bits.of(shifted), -kIntegerShiftBits);
  Value scaled =
      bits.toF64(bits.addi(bits.of(e.polynomial(r, taylor)), bits.shl(k, 52)));
  // A NaN's k is meaningless.
  return e.select(e.isNaN(t), t, scaled);
}

/// tanh(x) = x + x z P(z) / Q(z), z = x^2, where |x| < 0.625 (Cephes'
/// rational approximation, within an ulp there), and 1 - 2 / (exp(2|x|) + 1)
/// with x's sign elsewhere (exp overflows to inf where tanh rounds to 1).
Value tanhF64(const MathEmitter &e, Value x) {
  Value ax = math::AbsFOp::create(e.b, e.loc, x);
  Value z = e.mul(ax, ax);
  Value p = e.fma(e.fma(z, e.f64(-9.64399179425052238628e-1),
                        e.f64(-9.92877231001918586564e1)),
                  z, e.f64(-1.61468768441708447952e3));
  Value q = e.fma(e.fma(e.add(z, e.f64(1.12811678491632931402e2)), z,
                        e.f64(2.23548839060100448583e3)),
                  z, e.f64(4.84406305325125486048e3));
  Value small = e.fma(e.mul(ax, z), e.div(p, q), ax);
  Value large = e.sub(
      e.f64(1),
      e.div(e.f64(2),
            e.add(math::ExpOp::create(e.b, e.loc, e.add(ax, ax)), e.f64(1))));
  Value result = e.select(e.cmp(Predicate::OLT, ax, 0.625), small, large);
  // NaN stays NaN through the second form; -0 keeps its sign.
  return math::CopySignOp::create(e.b, e.loc, result, x);
}

/// atan(x) = atan(c) + atan(x') with x' = (|x| s - t) / (s + |x| t) by the
/// interval |x| lies in (c = t / s: 0, 1/2, 1, 3/2, infinity), |x'| <= 7/16,
/// and atan(x') = x' - x' P(x'^2). |x| is clamped at 2^60, beyond which the
/// result is pi/2 all the same: infinity times the last interval's s = 0
/// would be NaN.
Value atanF64(const MathEmitter &e, Value x) {
  Value ax = arith::MinimumFOp::create(
      e.b, e.loc, math::AbsFOp::create(e.b, e.loc, x), e.f64(0x1p60));
  SmallVector<Value> above;
  for (double bound : kAtanBounds)
    above.push_back(e.cmp(Predicate::OGE, ax, bound));
  auto byInterval = [&](ArrayRef<double> values) {
    Value v = e.f64(values.front());
    for (auto [isAbove, value] : llvm::zip(above, values.drop_front()))
      v = e.select(isAbove, e.f64(value), v);
    return v;
  };
  Value s = byInterval(kAtanS), t = byInterval(kAtanT);
  Value reduced = e.div(e.fma(ax, s, e.neg(t)), e.fma(ax, t, s));
  Value z = e.mul(reduced, reduced);
  Value w = e.mul(z, z);
  // P's odd and even powers of w apart, as fdlibm sums them.
  Value poly = e.add(e.mul(z, e.polynomial(w, kAtanOdd)),
                     e.mul(w, e.polynomial(w, kAtanEven)));
  // atan(c) - ((x' P - atan(c)'s low part) - x')
  Value result =
      e.sub(byInterval(kAtanHi),
            e.sub(e.sub(e.mul(reduced, poly), byInterval(kAtanLo)), reduced));
  // NaN stays NaN through the first interval; -0 keeps its sign.
  return math::CopySignOp::create(e.b, e.loc, result, x);
}

template <typename OpTy, Value (*approximate)(const MathEmitter &, Value)>
struct F64Approximation : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<MathEmitter> e = MathEmitter::forResult(
        rewriter, op, [](Type element) { return element.isF64(); });
    if (!e)
      return failure();
    rewriter.replaceOp(op, approximate(*e, op.getOperand()));
    return success();
  }
};

/// pow(x, y) of f32, f16 or bf16 as 2^(y log2|x|) in f64, with the special
/// cases of C99's pow, as numpy has them.
struct PowThroughF64 : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<MathEmitter> emitter =
        MathEmitter::forResult(rewriter, op, [](Type element) {
          return element.getIntOrFloatBitWidth() <= 32;
        });
    if (!emitter)
      return failure();
    const MathEmitter &e = *emitter;
    // Only the power is in f64; the special cases, exact in f32, take its
    // vectors of twice the lanes.
    Type f32 = e.typeOf(rewriter.getF32Type());
    Type f64 = e.typeOf(rewriter.getF64Type());
    auto extended = [&](Value value, Type type) -> Value {
      if (value.getType() == type)
        return value;
      return arith::ExtFOp::create(rewriter, e.loc, type, value);
    };
    Value x = extended(op.getLhs(), f32);
    Value y = extended(op.getRhs(), f32);
    Value ax = math::AbsFOp::create(rewriter, e.loc, x);
    Value result =
        e.narrowed(exp2ForNarrow(e, e.mul(extended(y, f64),
                                          log2OfNarrow(e, extended(ax, f64)))),
                   f32);
    // A negative x (-0 and -inf included) to an odd integer power is
    // negative; to a finite power that is not an integer, NaN when x is
    // finite. Infinities count as even integers.
    Value integer =
        arith::CmpFOp::create(rewriter, e.loc, Predicate::OEQ, e.floor(y), y);
    Value halfY = e.mul(y, e.f32(0.5));
    Value odd =
        e.both(integer, arith::CmpFOp::create(rewriter, e.loc, Predicate::ONE,
                                              e.floor(halfY), halfY));
    Value signed1 = math::CopySignOp::create(rewriter, e.loc, e.f32(1), x);
    Value negative = e.cmp(Predicate::OLT, signed1, 0);
    result = e.select(e.both(negative, odd), e.neg(result), result);
    Value finiteNegative = e.both(e.cmp(Predicate::OLT, x, 0),
                                  e.cmp(Predicate::OGT, x, -INFINITY));
    Value fractional =
        arith::CmpFOp::create(rewriter, e.loc, Predicate::ONE, e.floor(y), y);
    result = e.select(e.both(finiteNegative, fractional), e.f32(NAN), result);
    // (-1)^±inf = 1, 1^y = 1 and x^0 = 1, even for a NaN y or x.
    Value one = e.either(
        e.both(e.eq(ax, 1),
               e.eq(math::AbsFOp::create(rewriter, e.loc, y), INFINITY)),
        e.either(e.eq(x, 1), e.eq(y, 0)));
    result = e.select(one, e.f32(1), result);
    if (result.getType() != op.getType())
      result = arith::TruncFOp::create(rewriter, e.loc, op.getType(), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kiln::populateF64MathApproximationPatterns(RewritePatternSet &patterns) {
  patterns.add<F64Approximation<math::ExpOp, expF64>,
               F64Approximation<math::LogOp, logF64>,
               F64Approximation<math::TanhOp, tanhF64>,
               F64Approximation<math::AtanOp, atanF64>, PowThroughF64>(
      patterns.getContext());
}
