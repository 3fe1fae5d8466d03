//===- ControlFlowOps.cpp - cond and while --------------------------------===//
#include "kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace kiln;

/// Checks that `region` ends in a kiln.yield of exactly `expected` types.
static LogicalResult verifyYield(Operation *op, Region &region,
                                 StringRef regionName, TypeRange expected,
                                 StringRef expectation) {
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  if (!yield)
    return op->emitOpError() << regionName << " region must end in kiln.yield";
  if (yield.getValues().getTypes() != expected)
    return yield.emitOpError("yields (")
           << yield.getValues().getTypes() << ") but " << regionName
           << " must yield (" << expected << ")" << expectation;
  return success();
}

/// Checks that `region` takes one argument of each of `expected` types.
static LogicalResult verifyRegionArguments(Operation *op, Region &region,
                                           StringRef regionName,
                                           TypeRange expected) {
  if (region.front().getArgumentTypes() != expected)
    return op->emitOpError()
           << regionName << " region takes ("
           << region.front().getArgumentTypes()
           << ") but must take the loop-carried types (" << expected << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// cond
//===----------------------------------------------------------------------===//

LogicalResult CondOp::verifyRegions() {
  TypeRange results = getResultTypes();
  if (failed(verifyYield(*this, getTrueBranch(), "true_branch", results,
                         ", the op's result types")) ||
      failed(verifyYield(*this, getFalseBranch(), "false_branch", results,
                         ", the op's result types")))
    return failure();
  return success();
}

LogicalResult CondOp::specializeResultTypes(SmallVectorImpl<Type> &types) {
  // The verifier checks that the false branch yields the same types.
  llvm::append_range(types,
                     getTrueBranch().front().getTerminator()->getOperandTypes());
  return success();
}

namespace {
/// cond with a constant predicate -> the region it runs, inlined.
struct InlineConstantCond : OpRewritePattern<CondOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CondOp op,
                                PatternRewriter &rewriter) const override {
    DenseIntElementsAttr pred;
    if (!matchPattern(op.getPred(), m_Constant(&pred)))
      return failure();
    Region &taken = pred.getSplatValue<bool>() ? op.getTrueBranch()
                                               : op.getFalseBranch();
    Block &block = taken.front();
    auto yield = cast<YieldOp>(block.getTerminator());
    SmallVector<Value> results(yield.getValues());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&block, op);
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// cond whose results are not all used -> a cond yielding the used ones
/// only, so that the work of the others can disappear.
struct DropUnusedCondResults : OpRewritePattern<CondOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CondOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> used;
    for (Value result : op.getResults())
      if (!result.use_empty())
        used.push_back(result);
    if (used.size() == op.getNumResults())
      return failure();
    auto smaller = CondOp::create(rewriter, op.getLoc(),
                                  ValueRange(used).getTypes(), op.getPred());
    for (auto [from, to] : llvm::zip_equal(op->getRegions(),
                                           smaller->getRegions())) {
      rewriter.inlineRegionBefore(from, to, to.end());
      auto yield = cast<YieldOp>(to.front().getTerminator());
      SmallVector<Value> kept;
      for (Value result : used)
        kept.push_back(yield.getOperand(cast<OpResult>(result).getResultNumber()));
      rewriter.setInsertionPoint(yield);
      rewriter.replaceOpWithNewOp<YieldOp>(yield, kept);
    }
    for (auto [result, replacement] : llvm::zip_equal(used, smaller.getResults()))
      rewriter.replaceAllUsesWith(result, replacement);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void CondOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<InlineConstantCond, DropUnusedCondResults>(context);
}

//===----------------------------------------------------------------------===//
// while
//===----------------------------------------------------------------------===//

LogicalResult WhileOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  llvm::append_range(types, adaptor.getOperands().getTypes());
  return success();
}

void WhileOp::specializeRegionArguments() {
  for (Region *region : getRegions())
    for (auto [argument, operand] :
         llvm::zip_equal(region->getArguments(), getOperands()))
      argument.setType(operand.getType());
}

LogicalResult WhileOp::specializeResultTypes(SmallVectorImpl<Type> &types) {
  llvm::append_range(types, getOperands().getTypes());
  return success();
}

LogicalResult WhileOp::verifyRegions() {
  if (getOperands().empty())
    return emitOpError("needs at least one loop-carried value");
  TypeRange carried = getOperands().getTypes();
  auto predType =
      RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  if (failed(verifyRegionArguments(*this, getCond(), "cond", carried)) ||
      failed(verifyYield(*this, getCond(), "cond", predType,
                         ", the loop condition")) ||
      failed(verifyRegionArguments(*this, getBody(), "body", carried)) ||
      failed(verifyYield(*this, getBody(), "body", carried,
                         ", the loop-carried types")))
    return failure();
  return success();
}

namespace {
/// A carried value the body passes through unchanged is its initial value
/// throughout: its uses in the regions and after the loop use that instead
/// (so that what builds on the loop sees it as invariant, as reverse mode
/// does, which need not stack it per trip).
struct ForwardInvariantCarries : OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhileOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBody().front(), &cond = op.getCond().front();
    Operation *yield = body.getTerminator();
    bool changed = false;
    for (unsigned j = 0; j < op.getNumOperands(); ++j) {
      if (yield->getOperand(j) != body.getArgument(j))
        continue;
      Value init = op.getOperand(j);
      Value carried[] = {body.getArgument(j), cond.getArgument(j),
                         op.getResult(j)};
      for (Value v : carried) {
        // The yield keeps passing the argument through.
        bool used = llvm::any_of(v.getUses(), [&](OpOperand &use) {
          return use.getOwner() != yield;
        });
        if (!used)
          continue;
        rewriter.replaceUsesWithIf(v, init, [&](OpOperand &use) {
          return use.getOwner() != yield;
        });
        changed = true;
      }
    }
    return success(changed);
  }
};
} // namespace

void WhileOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<ForwardInvariantCarries>(context);
}
