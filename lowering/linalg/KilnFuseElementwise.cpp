//===- KilnFuseElementwise.cpp - the kiln-fuse-elementwise pass -----------===//
#include "Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNFUSEELEMENTWISE
#include "lowering/linalg/Passes.h.inc"
} // namespace kiln

namespace {
/// The number of ops (with the yield) in the body of `op`, if it is a
/// linalg op, or 0.
int64_t bodySize(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp ? int64_t(linalgOp.getBlock()->getOperations().size()) : 0;
}
int64_t bodySize(Value value) { return bodySize(value.getDefiningOp()); }

struct KilnFuseElementwisePass
    : kiln::impl::KilnFuseElementwiseBase<KilnFuseElementwisePass> {
  using KilnFuseElementwiseBase::KilnFuseElementwiseBase;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // Fusing copies the producer's body into the consumer's: bounding the
    // fused body keeps a chain of n ops O(n) to compile instead of O(n^2),
    // at the cost of one intermediate buffer per `maxBodyOps` ops.
    int64_t limit = maxBodyOps;
    linalg::ControlFusionFn control = [limit](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      // A reduction that reads an element at several iterations through
      // sums of loops (a window product, once per window position) would
      // compute the producer's body at each (and a bf16 input widened for
      // it would reach its register tiles unwidened).
      auto consumer = cast<linalg::LinalgOp>(fused->getOwner());
      bool rereads =
          consumer.getNumReductionLoops() != 0 &&
          !consumer.getMatchingIndexingMap(fused).isProjectedPermutation(
              /*allowZeroInResults=*/true);
      // The fused body keeps one of the two yields.
      return producer && producer->hasOneUse() && !rereads &&
             bodySize(fused->get()) + bodySize(fused->getOwner()) - 1 <= limit;
    };
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    // Top-down, as upstream's linalg-fuse-elementwise-ops, for compile time.
    (void)applyPatternsGreedily(
        getOperation(), std::move(patterns),
        GreedyRewriteConfig().setUseTopDownTraversal(true));
  }
};
} // namespace
