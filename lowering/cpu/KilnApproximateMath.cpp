//===- KilnApproximateMath.cpp - the kiln-approximate-math pass -----------===//
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNAPPROXIMATEMATH
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {
struct KilnApproximateMathPass
    : kiln::impl::KilnApproximateMathBase<KilnApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // f16 and bf16 math is computed in f32, where the approximations are.
    // Ops without one (sqrt, floor, ...) lower to LLVM intrinsics later.
    // rsqrt's approximation needs the x86vector dialect's AVX2 intrinsics;
    // it stays 1 / sqrt, which vectorizes. (kiln.atan2 lowers to math.atan
    // with its special cases as selects: math.atan2's approximation returns
    // NaN for atan2(0, -0).)
    auto expanded = [](StringRef name) { return !name.ends_with("rsqrt"); };
    // sin and cos get Kiln's own patterns: upstream's reduce the argument
    // in f32 and lose all accuracy beyond a few thousand.
    auto approximated = [](StringRef name) {
      return !name.ends_with("rsqrt") && name != "math.sin" &&
             name != "math.cos";
    };
    // Expansions first: they make the exponentials that are guarded next.
    RewritePatternSet expansions(&getContext());
    populateMathF32ExpansionPatterns(expansions, expanded);
    if (failed(applyPatternsGreedily(getOperation(), std::move(expansions))))
      return signalPassFailure();
    // (f64 exponentials are Kiln's own, which keep NaN themselves.)
    getOperation()->walk([](Operation *op) {
      if (isa<math::ExpOp, math::ExpM1Op>(op) &&
          !getElementTypeOrSelf(op->getResult(0)).isF64())
        guardNaN(op);
    });
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    kiln::populateSinCosApproximationPatterns(patterns);
    kiln::populateF64MathApproximationPatterns(patterns);
    kiln::populateFloatRemainderPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }

  /// The exponentials' approximations convert their clamped argument to
  /// an integer exponent, and the clamps keep a NaN: the conversion of a
  /// NaN is poison in LLVM, which folding then spreads (a result computed
  /// from constants was never stored; scripts/fuzz.py, seed 4015143). So
  /// `op` computes on 0 where its operand is NaN, and gives the NaN.
  static void guardNaN(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value x = op->getOperand(0);
    Value isNaN =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    Value zero = arith::ConstantOp::create(
        b, loc, x.getType(), b.getZeroAttr(x.getType()));
    Value safe = arith::SelectOp::create(b, loc, isNaN, zero, x);
    op->setOperand(0, safe);
    b.setInsertionPointAfter(op);
    Value result = op->getResult(0);
    auto select = arith::SelectOp::create(b, loc, isNaN, x, result);
    result.replaceAllUsesExcept(select, select);
  }
};
} // namespace
