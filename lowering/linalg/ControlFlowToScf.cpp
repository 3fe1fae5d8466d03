//===- ControlFlowToScf.cpp - kiln.cond / kiln.while to scf ---------------===//
#include "LoweringUtils.h"
#include "Passes.h"
#include "kiln/KilnDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln;

namespace {

/// Moves `from` (a kiln region ending in kiln.yield) into the empty region
/// `to`, and returns its kiln.yield for the caller to replace.
YieldOp moveRegion(ConversionPatternRewriter &rewriter, Region &from,
                   Region &to) {
  rewriter.inlineRegionBefore(from, to, to.end());
  return cast<YieldOp>(to.front().getTerminator());
}

/// cond -> scf.if on the predicate's element.
struct CondToScf : OpConversionPattern<CondOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CondOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value pred = extractScalar(rewriter, op.getLoc(), adaptor.getPred());
    auto ifOp = scf::IfOp::create(rewriter, op.getLoc(), op.getResultTypes(),
                                  pred, /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
    for (auto [from, to] :
         {std::pair<Region *, Region *>{&op.getTrueBranch(),
                                        &ifOp.getThenRegion()},
          {&op.getFalseBranch(), &ifOp.getElseRegion()}}) {
      YieldOp yield = moveRegion(rewriter, *from, *to);
      rewriter.setInsertionPoint(yield);
      rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, yield.getValues());
    }
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

/// while -> scf.while: the cond region's yield becomes scf.condition
/// forwarding the carried values, the body's yield scf.yield.
struct WhileToScf : OpConversionPattern<WhileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WhileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto whileOp = scf::WhileOp::create(rewriter, op.getLoc(),
                                        op.getResultTypes(),
                                        adaptor.getOperands());
    YieldOp condYield = moveRegion(rewriter, op.getCond(), whileOp.getBefore());
    rewriter.setInsertionPoint(condYield);
    Value pred =
        extractScalar(rewriter, condYield.getLoc(), condYield.getValues()[0]);
    rewriter.replaceOpWithNewOp<scf::ConditionOp>(
        condYield, pred, whileOp.getBefore().front().getArguments());
    YieldOp bodyYield = moveRegion(rewriter, op.getBody(), whileOp.getAfter());
    rewriter.setInsertionPoint(bodyYield);
    rewriter.replaceOpWithNewOp<scf::YieldOp>(bodyYield, bodyYield.getValues());
    rewriter.replaceOp(op, whileOp.getResults());
    return success();
  }
};

} // namespace

void kiln::populateControlFlowToScfPatterns(RewritePatternSet &patterns) {
  patterns.add<CondToScf, WhileToScf>(patterns.getContext());
}
