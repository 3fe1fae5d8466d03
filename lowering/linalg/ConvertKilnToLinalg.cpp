//===- ConvertKilnToLinalg.cpp - the convert-kiln-to-linalg pass ----------===//
#include "Passes.h"
#include "kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_CONVERTKILNTOLINALG
#include "lowering/linalg/Passes.h.inc"
} // namespace kiln

namespace {
/// A primitive op with one result that has no elements (a slice at the end
/// of a dimension, a pad or concatenate of empty tensors, ...) computes
/// nothing: its result is an empty tensor. Offsets and sizes of an empty
/// result would otherwise reach slicing ops that reject them.
struct EmptyResultToEmptyTensor : ConversionPattern {
  EmptyResultToEmptyTensor(MLIRContext *context)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/2, context) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<kiln::KilnDialect>(op->getDialect()) || op->getNumRegions() ||
        op->getNumResults() != 1)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() != 0)
      return failure();
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                 type.getElementType());
    return success();
  }
};
} // namespace

void kiln::populateKilnToLinalgPatterns(RewritePatternSet &patterns,
                                        bool laneReductions,
                                        bool windowProducts) {
  patterns.add<EmptyResultToEmptyTensor>(patterns.getContext());
  populateElementwiseToLinalgPatterns(patterns);
  populateDataMovementToLinalgPatterns(patterns);
  populateComputeToLinalgPatterns(patterns, laneReductions, windowProducts);
  populateControlFlowToScfPatterns(patterns);
}

namespace {
struct ConvertKilnToLinalgPass
    : kiln::impl::ConvertKilnToLinalgBase<ConvertKilnToLinalgPass> {
  using Base::Base;

  /// Code for one device lays nothing out: meshes and the shardings of
  /// arguments and results go (constraints become their operands).
  void dropLayouts() {
    getOperation()->walk([&](func::FuncOp fn) {
      for (StringRef name : {kiln::KilnDialect::kShardingAttrName,
                             kiln::KilnDialect::kPartAttrName}) {
        for (unsigned i = 0; i < fn.getNumArguments(); ++i)
          fn.removeArgAttr(i, name);
        for (unsigned i = 0; i < fn.getNumResults(); ++i)
          fn.removeResultAttr(i, StringAttr::get(fn.getContext(), name));
      }
    });
    getOperation()->walk([](Operation *op) {
      op->removeAttr(kiln::KilnDialect::kShardingsAttrName);
    });
    getOperation()->walk([](kiln::MeshOp mesh) { mesh.erase(); });
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // Sizes are what the lowering computes with.
    WalkResult dynamic = getOperation()->walk([](func::FuncOp fn) {
      if (!kiln::hasDynamicSignature(fn))
        return WalkResult::advance();
      fn.emitError("@") << fn.getSymName() << " has dynamic dimensions ("
                        << fn.getFunctionType()
                        << "): give them sizes with kiln-specialize-shapes "
                           "before lowering";
      return WalkResult::interrupt();
    });
    if (dynamic.wasInterrupted())
      return signalPassFailure();
    dropLayouts();
    ConversionTarget target(*context);
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect, func::FuncDialect>();
    // Transformation ops have no lowering; the contract check names them.
    target.addDynamicallyLegalDialect<kiln::KilnDialect>(
        [](Operation *op) { return isa<kiln::TransformOpInterface>(op); });
    RewritePatternSet patterns(context);
    kiln::populateKilnToLinalgPatterns(patterns, laneReductions,
                                       windowProducts);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
