//===- KilnExpandArith.cpp - the kiln-expand-arith pass -------------------===//
//
// Upstream's arith-expand also expands arith.maximumf and minimumf into a
// compare and a select, which return the second operand for -0 and +0; the
// ops themselves order -0 below +0 (IEEE 754-2019's maximum and minimum), as
// kiln.max and kiln.min, being commutative, must. LLVM's llvm.maximum and
// llvm.minimum keep that order, in as many instructions (vmaxps between
// operands ordered by sign, then a NaN select; one vmaxps against a nonzero
// constant), so the ops are left to the LLVM conversion.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNEXPANDARITH
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {
struct KilnExpandArithPass
    : kiln::impl::KilnExpandArithBase<KilnExpandArithPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    arith::populateExpandScalingExtTruncPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation()->emitError("kiln-expand-arith did not converge");
      signalPassFailure();
    }
  }
};
} // namespace
