//===- ControlFlowToScf.cpp - kiln.cond / kiln.while to scf ---------------===//
#include "LoweringUtils.h"
#include "Passes.h"
#include "kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
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

/// The integer `v` holds, if it is a constant (a splat tensor).
std::optional<int64_t> constantInt(Value v) {
  DenseIntElementsAttr constant;
  if (!matchPattern(v, m_Constant(&constant)) || !constant.isSplat())
    return std::nullopt;
  return constant.getSplatValue<APInt>().getSExtValue();
}

/// The trip count of `op` if it counts: its cond yields `i < limit` for a
/// carried integer `i` that starts at a constant and that the body steps
/// by a positive constant (as kiln.scan's loops and the StableHLO
/// importer's do; the limit may be defined in the cond region).
std::optional<int64_t> tripCount(WhileOp op) {
  Block &cond = op.getCond().front(), &body = op.getBody().front();
  auto compare = cond.getTerminator()->getOperand(0).getDefiningOp<CompareOp>();
  if (!compare ||
      compare.getComparisonDirection() != ComparisonDirection::LT ||
      !compare.getLhs().getType().getElementType().isSignlessInteger())
    return std::nullopt;
  auto counter = dyn_cast<BlockArgument>(compare.getLhs());
  std::optional<int64_t> limit = constantInt(compare.getRhs());
  if (!counter || counter.getOwner() != &cond || !limit)
    return std::nullopt;
  unsigned index = counter.getArgNumber();
  std::optional<int64_t> start = constantInt(op.getOperand(index));
  auto next = body.getTerminator()->getOperand(index).getDefiningOp<AddOp>();
  if (!start || !next || next.getLhs() != body.getArgument(index))
    return std::nullopt;
  std::optional<int64_t> step = constantInt(next.getRhs());
  if (!step || *step <= 0)
    return std::nullopt;
  return *start >= *limit ? 0 : (*limit - *start + *step - 1) / *step;
}

/// while -> scf.for where it counts (tripCount), which bufferizes a carried
/// value updated in place (a scan's stacked ys, a backward loop's stacked
/// cotangents) without a copy per trip; else scf.while: the cond region's
/// yield becomes scf.condition forwarding the carried values, the body's
/// yield scf.yield.
struct WhileToScf : OpConversionPattern<WhileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WhileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<int64_t> trips = tripCount(op)) {
      Location loc = op.getLoc();
      auto index = [&](int64_t value) -> Value {
        return arith::ConstantIndexOp::create(rewriter, loc, value);
      };
      auto forOp = scf::ForOp::create(rewriter, loc, index(0), index(*trips),
                                      index(1), adaptor.getOperands());
      Block *body = forOp.getBody();
      rewriter.inlineBlockBefore(&op.getBody().front(), body, body->end(),
                                 body->getArguments().drop_front());
      auto yield = cast<YieldOp>(body->getTerminator());
      rewriter.setInsertionPoint(yield);
      rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, yield.getValues());
      rewriter.replaceOp(op, forOp.getResults());
      return success();
    }
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
