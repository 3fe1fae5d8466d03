//===- KilnLowerVectors.cpp - the kiln-lower-vectors pass -----------------===//
#include "Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNLOWERVECTORS
#include "lowering/Passes.h.inc"
} // namespace kiln

namespace {
struct KilnLowerVectorsPass
    : kiln::impl::KilnLowerVectorsBase<KilnLowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Operation *root = getOperation();
    // Transfers on subviews must address the base memref directly before
    // hoisting can see that an accumulator is loop-invariant.
    RewritePatternSet folding(context);
    memref::populateFoldMemRefAliasOpPatterns(folding);
    if (failed(applyPatternsGreedily(root, std::move(folding))))
      return signalPassFailure();
    // The folded indices are recomputed per transfer; a read and a write of
    // the same accumulator must share them to be hoisted as a pair.
    IRRewriter rewriter(context);
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, root);
    linalg::hoistRedundantVectorTransfers(root);

    RewritePatternSet lowering(context);
    vector::populateVectorContractLoweringPatterns(
        lowering, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(lowering);
    vector::populateVectorTransferPermutationMapLoweringPatterns(lowering);
    vector::populateVectorMultiReductionLoweringPatterns(
        lowering, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorBroadcastLoweringPatterns(lowering);
    vector::populateVectorTransposeLoweringPatterns(
        lowering, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorShapeCastLoweringPatterns(lowering);
    vector::populateVectorStepLoweringPatterns(lowering);
    // n-D transfers unroll into 1-D ones, which become vector loads/stores.
    VectorTransferToSCFOptions unrolled;
    unrolled.enableFullUnroll();
    populateVectorToSCFConversionPatterns(lowering, unrolled);
    vector::populateVectorTransferLoweringPatterns(lowering,
                                                   /*maxTransferRank=*/1);
    if (failed(applyPatternsGreedily(root, std::move(lowering))))
      signalPassFailure();
  }
};
} // namespace
