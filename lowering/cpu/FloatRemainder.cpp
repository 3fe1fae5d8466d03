//===- FloatRemainder.cpp - arith.remf as exact vector arithmetic ---------===//
//
// arith.remf (C's fmod: x - n y, n = trunc(x / y), with x's sign) of f64,
// f32, f16 and bf16 as x - trunc(x / y) y in f64: LLVM lowers it to a libm
// fmod call per element, which reduces bit by bit (38 ms for 10^6 f32 with
// quotients near 100, PyTorch 1 ms).
//
// The remainder is exact: x - n y is computed by one FMA, whose exact value
// (the remainder, or the remainder less y) is representable, so it is not
// rounded; x / y can round up to an integer the quotient is just below,
// which leaves a result of the wrong sign that one y puts right. That holds
// while |x / y| < 2^52; larger quotients, infinities, NaN and a zero y go
// to libm's fmod, behind a branch taken only when some element needs it.
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

using Predicate = arith::CmpFPredicate;

struct ExactRemainder : OpRewritePattern<arith::RemFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::RemFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<kiln::MathEmitter> emitter =
        kiln::MathEmitter::forResult(rewriter, op, [](Type element) {
          return isa<FloatType>(element) &&
                 element.getIntOrFloatBitWidth() <= 64;
        });
    if (!emitter || op->hasAttr(kiln::kLibmAttr))
      return failure();
    const kiln::MathEmitter &e = *emitter;
    Type type = op.getType();
    Type f64 = e.typeOf(rewriter.getF64Type());
    auto widen = [&](Value v) -> Value {
      return v.getType() == f64
                 ? v
                 : arith::ExtFOp::create(rewriter, e.loc, f64, v);
    };
    Value x = widen(op.getLhs()), y = widen(op.getRhs());
    Value quotient = e.div(x, y);
    Value n = math::TruncOp::create(rewriter, e.loc, quotient);
    Value r = e.fma(e.neg(n), y, x);
    // The quotient rounded up to an integer: r is off by one y, against x's
    // sign (and not 0).
    auto sign = [&](Value v) -> Value {
      return math::CopySignOp::create(rewriter, e.loc, e.f64(1), v);
    };
    Value overshot =
        e.both(e.cmp(Predicate::ONE, r, 0),
               arith::CmpFOp::create(rewriter, e.loc, Predicate::ONE, sign(r),
                                     sign(x)));
    r = e.select(overshot,
                 e.add(r, math::CopySignOp::create(rewriter, e.loc, y, x)), r);
    // A zero remainder has x's sign.
    Value result = math::CopySignOp::create(rewriter, e.loc, r, x);
    // Through f32 for narrower floats, every step exact: the remainder of
    // two such floats is one of them.
    result = e.narrowed(result, type);
    Value slow =
        e.either(e.cmp(Predicate::UGE,
                       math::AbsFOp::create(rewriter, e.loc, quotient), 0x1p52),
                 e.eq(math::AbsFOp::create(rewriter, e.loc, y), INFINITY));
    result = e.unlessAny(slow, result, [&] {
      auto libm =
          arith::RemFOp::create(rewriter, e.loc, op.getLhs(), op.getRhs());
      libm->setAttr(kiln::kLibmAttr, rewriter.getUnitAttr());
      return libm.getResult();
    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kiln::populateFloatRemainderPatterns(RewritePatternSet &patterns) {
  patterns.add<ExactRemainder>(patterns.getContext());
}
