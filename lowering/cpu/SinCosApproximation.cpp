//===- SinCosApproximation.cpp - f32 sin and cos over the whole range ----===//
//
// math.sin and math.cos of f32 (scalars and vectors of any shape) as
// vectorizable arithmetic that is accurate over the whole f32 range. The
// argument is reduced modulo pi/2 in f64: by a two-term Cody-Waite step
// when every |x| < 2^20, and otherwise by an exact multi-word reduction
// (Payne-Hanek in f64), guarded by an scf.if so that ordinary inputs never
// pay for it. The reduced argument goes through the Cephes minimax
// polynomials for sin and cos on [-pi/4, pi/4] in f32.
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
/// pi/2 as a double and the double nearest to the rest.
constexpr double kPiOver2Hi = 1.5707963267948966;
constexpr double kPiOver2Lo = 6.123233995736766e-17;
/// Below this |x| the Cody-Waite step is exact to well under an f32 ulp.
constexpr double kCodyWaiteLimit = 1048576.0; // 2^20

using Emitter = kiln::MathEmitter;

/// The reduction of |x| (f64, integral quadrant first): |x| = q * pi/2 + y
/// with q in {0, 1, 2, 3} (mod 4) and |y| <= pi/4.
struct Reduced {
  Value quadrant, y;
};

/// Cody-Waite: q = round(|x| * 2/pi), y = |x| - q * pi/2 in two FMA steps.
Reduced reduceSmall(const Emitter &e, Value ax) {
  Value k = math::RoundEvenOp::create(e.b, e.loc,
                                      e.mul(ax, e.f64(2 / M_PI)));
  Value negK = arith::NegFOp::create(e.b, e.loc, k);
  Value y = e.fma(negK, e.f64(kPiOver2Hi), ax);
  y = e.fma(negK, e.f64(kPiOver2Lo), y);
  return {e.mod(k, 4), y};
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

/// sin(|x|) (`isCos` false) or cos(|x|) from the reduced argument.
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
  // cos(x) = sin(x + pi/2): one quadrant further.
  Value q = isCos ? e.mod(e.add(r.quadrant, e.f64(1)), 4) : r.quadrant;
  Value odd = arith::OrIOp::create(e.b, e.loc, e.eq(q, 1), e.eq(q, 3));
  Value negative = arith::OrIOp::create(e.b, e.loc, e.eq(q, 2), e.eq(q, 3));
  Value result = e.select(odd, cosPoly, sinPoly);
  return e.select(negative, arith::NegFOp::create(e.b, e.loc, result), result);
}

/// Whether any element of the i1 scalar or vector `flags` is set. n-D
/// vectors are reduced a row at a time: this runs after the vector lowering
/// that would handle shape casts and multi-reductions.
Value any(const Emitter &e, Value flags) {
  if (!e.shape)
    return flags;
  ArrayRef<int64_t> shape = e.shape.getShape();
  int64_t rows = 1;
  for (int64_t size : shape.drop_back())
    rows *= size;
  Value result;
  for (int64_t row = 0; row < rows; ++row) {
    SmallVector<int64_t> position(shape.size() - 1);
    for (int64_t d = int64_t(position.size()) - 1, rest = row; d >= 0; --d) {
      position[d] = rest % shape[d];
      rest /= shape[d];
    }
    Value line = position.empty()
                     ? flags
                     : vector::ExtractOp::create(e.b, e.loc, flags, position)
                           .getResult();
    Value rowAny = vector::ReductionOp::create(
        e.b, e.loc, vector::CombiningKind::OR, line);
    result = result ? arith::OrIOp::create(e.b, e.loc, result, rowAny)
                    : rowAny;
  }
  return result;
}

template <typename OpTy>
struct SinCosApproximation : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    auto shape = dyn_cast<VectorType>(type);
    if (shape && shape.isScalable())
      return failure();
    Emitter e{rewriter, op.getLoc(), shape};
    Value x = op.getOperand();
    Value ax = math::AbsFOp::create(
        rewriter, e.loc,
        arith::ExtFOp::create(rewriter, e.loc, e.typeOf(rewriter.getF64Type()),
                              x));
    Reduced small = reduceSmall(e, ax);
    Value large = arith::CmpFOp::create(rewriter, e.loc,
                                        arith::CmpFPredicate::UGE, ax,
                                        e.f64(kCodyWaiteLimit));
    // The exact reduction runs only when some element needs it.
    auto ifLarge = scf::IfOp::create(
        rewriter, e.loc, any(e, large),
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

} // namespace

void kiln::populateSinCosApproximationPatterns(RewritePatternSet &patterns) {
  patterns.add<SinCosApproximation<math::SinOp>,
               SinCosApproximation<math::CosOp>>(patterns.getContext());
}
