//===- ConvertKilnToLinalg.cpp - the convert-kiln-to-linalg pass ----------===//
#include "Passes.h"
#include "kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_CONVERTKILNTOLINALG
#include "lowering/Passes.h.inc"
} // namespace kiln

void kiln::populateKilnToLinalgPatterns(RewritePatternSet &patterns) {
  populateElementwiseToLinalgPatterns(patterns);
  populateShapeToLinalgPatterns(patterns);
  populateComputeToLinalgPatterns(patterns);
  populateControlFlowToScfPatterns(patterns);
}

namespace {
struct ConvertKilnToLinalgPass
    : kiln::impl::ConvertKilnToLinalgBase<ConvertKilnToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect, func::FuncDialect>();
    target.addIllegalDialect<kiln::KilnDialect>();
    // Transformation ops have no lowering; the contract check names them.
    target.addLegalOp<kiln::GradOp, kiln::ValueAndGradOp, kiln::JvpOp,
                      kiln::VjpOp, kiln::VmapOp, kiln::ScanOp,
                      kiln::CheckpointOp, kiln::CheckpointNameOp>();
    RewritePatternSet patterns(context);
    kiln::populateKilnToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
