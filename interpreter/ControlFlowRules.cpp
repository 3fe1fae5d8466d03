//===- ControlFlowRules.cpp - evaluating cond and while -------------------===//
#include "interpreter/Rules.h"

using namespace mlir;

namespace kiln {
namespace {

/// Sets the results to `values`, of the results' types.
void setResults(Evaluation &evaluation, ArrayRef<HostTensor> values) {
  for (auto [i, value] : llvm::enumerate(values))
    evaluation.result(i) = value;
}

LogicalResult cond(Evaluation &evaluation) {
  auto op = cast<CondOp>(evaluation.getOp());
  Region &branch = evaluation.operand(0).getInt(0) ? op.getTrueBranch()
                                                   : op.getFalseBranch();
  SmallVector<HostTensor> yielded;
  if (failed(evaluation.runRegion(branch, {}, yielded)))
    return failure();
  setResults(evaluation, yielded);
  return success();
}

LogicalResult whileLoop(Evaluation &evaluation) {
  auto op = cast<WhileOp>(evaluation.getOp());
  SmallVector<HostTensor> carried(evaluation.getOperands());
  while (true) {
    SmallVector<HostTensor> keepGoing, next;
    if (failed(evaluation.runRegion(op.getCond(), carried, keepGoing)))
      return failure();
    if (!keepGoing.front().getInt(0))
      break;
    if (failed(evaluation.runRegion(op.getBody(), carried, next)))
      return failure();
    carried = std::move(next);
  }
  setResults(evaluation, carried);
  return success();
}

} // namespace

void attachControlFlowRules(MLIRContext *context) {
  attachRule<cond, CondOp>(context);
  attachRule<whileLoop, WhileOp>(context);
}

} // namespace kiln
