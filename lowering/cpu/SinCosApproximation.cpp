//===- SinCosApproximation.cpp - sin and cos over the whole range --------===//
//
// math.sin and math.cos of f32 and f64 (scalars and vectors of any shape)
// as vectorizable arithmetic that is accurate over the whole range. An f32
// argument is reduced modulo pi/2 in f64: by a two-term Cody-Waite step
// when every |x| < 2^20, and otherwise by an exact multi-word reduction
// (Payne-Hanek in f64), guarded by an scf.if so that ordinary inputs never
// pay for it. The reduced argument goes through the Cephes minimax
// polynomials for sin and cos on [-pi/4, pi/4] in f32. An f64 argument
// below 2^20 is reduced by a three-term Cody-Waite step and goes through
// Cephes' f64 polynomials; larger ones, behind an scf.if, are libm's.
//
//===----------------------------------------------------------------------===//
#include "MathEmitter.h"
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;

namespace {

/// 2/pi in 24-bit words: 2/pi = sum of kTwoOverPi[i] * 2^(-24 (i + 1)).
/// 240 bits: enough for every f32 (whose exponent is at most 127) to keep
/// more than 60 bits of its reduced argument.
constexpr int64_t kTwoOverPi[] = {0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1,
                                  0xF534DD, 0xC0DB62, 0x95993C, 0x439041,
                                  0xFE5163, 0xABDEBB};
/// pi/2 as the double nearest to it, the double nearest to the rest, and
/// the double nearest to what is left (f32 arguments need the first two).
constexpr double kPiOver2[] = {1.5707963267948966, 6.123233995736766e-17,
                               -1.4973849048591698e-33};
/// Below this |x| the Cody-Waite step is exact to well under an ulp (of
/// f32 with two parts of pi/2, of f64 with three).
constexpr double kCodyWaiteLimit = 1048576.0; // 2^20
/// Cephes' sin and cos of f64 on [-pi/4, pi/4]: polynomials in y^2,
/// constant term first.
constexpr double kSinF64[] = {
    -1.66666666666666307295e-1, 8.33333333332211858878e-3,
    -1.98412698295895385996e-4, 2.75573136213857245213e-6,
    -2.50507477628578072866e-8, 1.58962301576546568060e-10};
constexpr double kCosF64[] = {
    4.16666666666665929218e-2, -1.38888888888730564116e-3,
    2.48015872888517045348e-5, -2.75573141792967388112e-7,
    2.08757008419747316778e-9, -1.13585365213876817300e-11};

using Emitter = kiln::MathEmitter;

/// The reduction of |x| (f64, integral quadrant first): |x| = q * pi/2 + y
/// with 0 <= q < 2^51 (only q mod 4 matters) and |y| <= pi/4.
struct Reduced {
  Value quadrant, y;
};

/// Cody-Waite: q = round(|x| * 2/pi), y = |x| - q * pi/2 in one FMA step
/// per part of pi/2 (`parts` of kPiOver2).
Reduced reduceSmall(const Emitter &e, Value ax, size_t parts) {
  Value k = math::RoundEvenOp::create(e.b, e.loc,
                                      e.mul(ax, e.f64(2 / M_PI)));
  Value negK = arith::NegFOp::create(e.b, e.loc, k);
  Value y = ax;
  for (double part : ArrayRef(kPiOver2).take_front(parts))
    y = e.fma(negK, e.f64(part), y);
  return {k, y};
}

/// Payne-Hanek: |x| * 2/pi as a sum of exact products of |x| (24 bits) with
/// 24-bit words of 2/pi, each reduced exactly modulo 4 and split into an
/// integer and a fraction; the fractions are summed with compensation.
Reduced reduceLarge(const Emitter &e, Value ax) {
  Value integer = e.f64(0), fraction = e.f64(0), error = e.f64(0);
  for (auto [i, word] : llvm::enumerate(kTwoOverPi)) {
    Value p = e.mul(ax, e.f64(std::ldexp(double(word), -24 * int(i + 1))));
    p = e.mod(p, 4);
    Value whole = e.floor(p);
    integer = e.add(integer, whole);
    // Knuth's two-sum keeps what rounding drops from the fraction.
    Value part = e.sub(p, whole);
    Value sum = e.add(fraction, part);
    Value partInSum = e.sub(sum, fraction);
    error = e.add(error, e.add(e.sub(fraction, e.sub(sum, partInSum)),
                               e.sub(part, partInSum)));
    fraction = sum;
  }
  fraction = e.add(fraction, error);
  Value carry = e.floor(fraction);
  integer = e.add(integer, carry);
  fraction = e.sub(fraction, carry);
  // A fraction above 1/2 belongs to the next quadrant, as a negative y.
  Value roundsUp = arith::CmpFOp::create(e.b, e.loc, arith::CmpFPredicate::OGT,
                                         fraction, e.f64(0.5));
  fraction = e.select(roundsUp, e.sub(fraction, e.f64(1)), fraction);
  integer = e.select(roundsUp, e.add(integer, e.f64(1)), integer);
  return {e.mod(integer, 4), e.mul(fraction, e.f64(M_PI_2))};
}

/// sin(|x|) (`isCos` false) or cos(|x|) from the sine and cosine of the
/// reduced argument and its quadrant q: cos(y) where q is odd, negated
/// where q mod 4 is 2 or 3, with q one further for cos (cos(x) = sin(x +
/// pi/2)). q's low bits are those of q + kIntegerShift, and the sign flips
/// by an xor: integer tests where a float mod 4 and four compares were.
Value byQuadrant(const Emitter &e, Value quadrant, Value sinY, Value cosY,
                 bool isCos) {
  Value bits = arith::BitcastOp::create(
      e.b, e.loc, e.typeOf(e.b.getI64Type()),
      e.add(quadrant, e.f64(kiln::kIntegerShift + (isCos ? 1 : 0))));
  auto bit = [&](int64_t mask) {
    return arith::AndIOp::create(e.b, e.loc, bits, e.i64(mask)).getResult();
  };
  Value odd = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::ne,
                                    bit(1), e.i64(0));
  Value result = e.select(odd, cosY, sinY);
  unsigned width =
      getElementTypeOrSelf(result.getType()).getIntOrFloatBitWidth();
  Type integer = e.typeOf(e.b.getIntegerType(width));
  Value sign = arith::ShLIOp::create(e.b, e.loc, bit(2), e.i64(width - 2));
  if (width != 64)
    sign = arith::TruncIOp::create(e.b, e.loc, integer, sign);
  Value flipped = arith::XOrIOp::create(
      e.b, e.loc, arith::BitcastOp::create(e.b, e.loc, integer, result), sign);
  return arith::BitcastOp::create(e.b, e.loc, result.getType(), flipped);
}

/// sin(|x|) (`isCos` false) or cos(|x|) of f32 from the reduced argument.
Value evaluate(const Emitter &e, Reduced r, bool isCos) {
  Value y = arith::TruncFOp::create(e.b, e.loc, e.typeOf(e.b.getF32Type()),
                                    r.y);
  Value z = e.mul(y, y);
  // Cephes sinf and cosf on [-pi/4, pi/4].
  Value sinPoly = e.fma(z, e.f32(-1.9515295891e-4), e.f32(8.3321608736e-3));
  sinPoly = e.fma(z, sinPoly, e.f32(-1.6666654611e-1));
  sinPoly = e.fma(e.mul(y, z), sinPoly, y);
  Value cosPoly = e.fma(z, e.f32(2.443315711809948e-5),
                        e.f32(-1.388731625493765e-3));
  cosPoly = e.fma(z, cosPoly, e.f32(4.166664568298827e-2));
  cosPoly = e.fma(e.mul(z, z), cosPoly,
                  e.fma(z, e.f32(-0.5), e.f32(1)));
  return byQuadrant(e, r.quadrant, sinPoly, cosPoly, isCos);
}

/// sin(|x|) or cos(|x|) of f64 from the reduced argument (Cephes'
/// polynomials; cos as fdlibm's kernel sums it, 1 - y^2/2 with the
/// rounding of that difference added back).
Value evaluateF64(const Emitter &e, Reduced r, bool isCos) {
  Value y = r.y;
  Value z = e.mul(y, y);
  Value sinY = e.fma(e.mul(y, z), e.polynomial(z, kSinF64), y);
  Value halfZ = e.mul(z, e.f64(0.5));
  Value w = e.sub(e.f64(1), halfZ);
  Value cosY = e.add(w, e.fma(e.mul(z, z), e.polynomial(z, kCosF64),
                              e.sub(e.sub(e.f64(1), w), halfZ)));
  return byQuadrant(e, r.quadrant, sinY, cosY, isCos);
}

template <typename OpTy>
struct SinCosApproximation : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<Emitter> emitter = Emitter::forResult(
        rewriter, op, [](Type element) { return element.isF32(); });
    if (!emitter)
      return failure();
    const Emitter &e = *emitter;
    VectorType shape = e.shape;
    Value x = op.getOperand();
    Value ax = math::AbsFOp::create(
        rewriter, e.loc,
        arith::ExtFOp::create(rewriter, e.loc, e.typeOf(rewriter.getF64Type()),
                              x));
    Reduced small = reduceSmall(e, ax, 2);
    Value large = arith::CmpFOp::create(rewriter, e.loc,
                                        arith::CmpFPredicate::UGE, ax,
                                        e.f64(kCodyWaiteLimit));
    // The exact reduction runs only when some element needs it.
    auto ifLarge = scf::IfOp::create(
        rewriter, e.loc, e.any(large),
        [&](OpBuilder &b, Location loc) {
          Emitter inner{b, loc, shape};
          Reduced exact = reduceLarge(inner, ax);
          scf::YieldOp::create(
              b, loc,
              ValueRange{inner.select(large, exact.quadrant, small.quadrant),
                         inner.select(large, exact.y, small.y)});
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc,
                               ValueRange{small.quadrant, small.y});
        });
    Reduced reduced{ifLarge.getResult(0), ifLarge.getResult(1)};
    bool isCos = std::is_same_v<OpTy, math::CosOp>;
    Value result = evaluate(e, reduced, isCos);
    // sin is odd (keeping the sign of -0), cos even.
    if (!isCos)
      result = e.mul(math::CopySignOp::create(rewriter, e.loc, e.f32(1), x),
                     result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// f64 sin and cos: a three-part Cody-Waite reduction and Cephes'
/// polynomials where |x| < 2^20; where some element is larger, libm's
/// (which reduces exactly) gives those elements.
template <typename OpTy>
struct SinCosF64Approximation : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<Emitter> emitter = Emitter::forResult(
        rewriter, op, [](Type element) { return element.isF64(); });
    if (!emitter || op->hasAttr(kiln::kLibmAttr))
      return failure();
    const Emitter &e = *emitter;
    Value x = op.getOperand();
    Value ax = math::AbsFOp::create(rewriter, e.loc, x);
    bool isCos = std::is_same_v<OpTy, math::CosOp>;
    Value result = evaluateF64(e, reduceSmall(e, ax, 3), isCos);
    // sin is odd (keeping the sign of -0), cos even.
    if (!isCos)
      result =
          e.mul(math::CopySignOp::create(rewriter, e.loc, e.f64(1), x), result);
    Value large = e.cmp(arith::CmpFPredicate::UGE, ax, kCodyWaiteLimit);
    result = e.unlessAny(large, result, [&] {
      auto exact = OpTy::create(rewriter, e.loc, x);
      exact->setAttr(kiln::kLibmAttr, rewriter.getUnitAttr());
      return exact.getResult();
    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kiln::populateSinCosApproximationPatterns(RewritePatternSet &patterns) {
  patterns
      .add<SinCosApproximation<math::SinOp>, SinCosApproximation<math::CosOp>,
           SinCosF64Approximation<math::SinOp>,
           SinCosF64Approximation<math::CosOp>>(patterns.getContext());
}
