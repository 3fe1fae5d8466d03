//===- KilnWidenNarrowMath.cpp - the kiln-widen-narrow-math pass ----------===//
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNWIDENNARROWMATH
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {
bool isNarrowFloat(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isBF16() || element.isF16();
}

/// `type` with f32 elements.
Type widened(Type type) {
  Type f32 = Float32Type::get(type.getContext());
  if (auto shaped = dyn_cast<VectorType>(type))
    return shaped.clone(f32);
  return f32;
}

/// A math op on bf16 or f16 (scalars or vectors) computed in f32 and
/// rounded back: exact for the ops it is left for (abs, copysign, floor,
/// ceil, sqrt, ...), and LLVM cannot legalize odd-sized vectors of them.
struct WidenNarrowMathOp : RewritePattern {
  WidenNarrowMathOp(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<math::MathDialect>(op->getDialect()) ||
        op->getNumResults() != 1 || op->getNumRegions() ||
        !isNarrowFloat(op->getResult(0).getType()) ||
        !llvm::all_of(op->getOperandTypes(), isNarrowFloat))
      return failure();
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(arith::ExtFOp::create(
          rewriter, loc, widened(operand.getType()), operand));
    Type resultType = op->getResult(0).getType();
    OperationState state(loc, op->getName(), operands,
                         TypeRange{widened(resultType)}, op->getAttrs());
    Operation *wide = rewriter.create(state);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, resultType,
                                                 wide->getResult(0));
    return success();
  }
};

/// arith.select of bf16 or f16 vectors selects their bits as i16 vectors:
/// LLVM cannot legalize a select of odd-sized bf16 vectors either.
struct SelectNarrowAsInteger : OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !isNarrowFloat(type))
      return failure();
    Location loc = op.getLoc();
    auto bits = type.clone(rewriter.getI16Type());
    Value chosen = arith::SelectOp::create(
        rewriter, loc, op.getCondition(),
        arith::BitcastOp::create(rewriter, loc, bits, op.getTrueValue()),
        arith::BitcastOp::create(rewriter, loc, bits, op.getFalseValue()));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, chosen);
    return success();
  }
};

struct KilnWidenNarrowMathPass
    : kiln::impl::KilnWidenNarrowMathBase<KilnWidenNarrowMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<WidenNarrowMathOp, SelectNarrowAsInteger>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation()->emitError("kiln-widen-narrow-math did not converge");
      signalPassFailure();
    }
  }
};
} // namespace
