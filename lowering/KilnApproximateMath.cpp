//===- KilnApproximateMath.cpp - the kiln-approximate-math pass -----------===//
#include "Passes.h"

#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNAPPROXIMATEMATH
#include "lowering/Passes.h.inc"
} // namespace kiln

namespace {
struct KilnApproximateMathPass
    : kiln::impl::KilnApproximateMathBase<KilnApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // f16 and bf16 math is computed in f32, where the approximations are.
    // Ops without one (sqrt, floor, ...) lower to LLVM intrinsics later.
    auto all = [](StringRef) { return true; };
    populateMathF32ExpansionPatterns(patterns, all);
    populateMathPolynomialApproximationPatterns(patterns, all);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
