//===- KilnApproximateMath.cpp - the kiln-approximate-math pass -----------===//
#include "Passes.h"

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
    populateMathF32ExpansionPatterns(patterns, expanded);
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    kiln::populateSinCosApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
