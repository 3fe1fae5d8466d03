//===- Interpreter.cpp - the kiln dialect's reference interpreter ---------===//
#include "interpreter/Interpreter.h"
#include "interpreter/Rules.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

namespace kiln {

namespace {
/// Calls nested deeper than this are refused: kiln functions do not
/// recurse, so only a malformed program gets here, and it must not exhaust
/// the stack.
constexpr size_t kMaxCallDepth = 200;
} // namespace

FailureOr<Evaluation> Evaluation::create(Operation *op,
                                         SmallVector<HostTensor> operands,
                                         Interpreter &interpreter) {
  SmallVector<HostTensor> results;
  for (Type type : op->getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return op->emitOpError("has result type ")
             << type << ": the interpreter runs static shapes only";
    results.emplace_back(tensor);
  }
  return Evaluation(op, std::move(operands), std::move(results), interpreter);
}

LogicalResult Evaluation::runRegion(Region &region, ArrayRef<HostTensor> args,
                                    SmallVectorImpl<HostTensor> &yielded) {
  return interpreter->runBlock(region.front(), args, yielded);
}

LogicalResult Interpreter::call(func::FuncOp fn, ArrayRef<HostTensor> args,
                                SmallVectorImpl<HostTensor> &results) {
  if (frames.size() >= kMaxCallDepth)
    return fn.emitError("calls nest deeper than ")
           << kMaxCallDepth << " functions: the interpreter stops here";
  if (fn.isExternal())
    return fn.emitError("function @")
           << fn.getName() << " has no body: the interpreter cannot call it";
  frames.emplace_back();
  LogicalResult ran = runBlock(fn.getBody().front(), args, results);
  frames.pop_back();
  return ran;
}

LogicalResult Interpreter::runBlock(Block &block, ArrayRef<HostTensor> args,
                                    SmallVectorImpl<HostTensor> &yielded) {
  for (auto [argument, value] : llvm::zip(block.getArguments(), args))
    frames.back()[argument] = value;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (Value operand : op.getOperands())
        yielded.push_back(valueOf(operand));
      return success();
    }
    if (failed(evaluate(op)))
      return failure();
  }
  return block.getParentOp()->emitError("a block without a terminator");
}

LogicalResult Interpreter::evaluate(Operation &op) {
  SmallVector<HostTensor> operands;
  for (Value operand : op.getOperands())
    operands.push_back(valueOf(operand));
  SmallVector<HostTensor> results;
  if (auto callOp = dyn_cast<func::CallOp>(op)) {
    auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
        callOp, callOp.getCalleeAttr());
    if (!callee)
      return callOp.emitOpError("calls @")
             << callOp.getCallee() << ", which is no function here";
    if (failed(call(callee, operands, results)))
      return failure();
  } else if (auto rule = dyn_cast<EvaluateOpInterface>(op)) {
    FailureOr<Evaluation> evaluation =
        Evaluation::create(&op, std::move(operands), *this);
    if (failed(evaluation) || failed(rule.evaluate(*evaluation)))
      return failure();
    results = evaluation->takeResults();
  } else {
    return op.emitOpError("has no rule in the reference interpreter")
           << (isa<TransformOpInterface>(op)
                   ? " (run kiln-expand-transforms first)"
                   : " (it runs kiln ops, func.call and func.return)");
  }
  for (auto [result, value] : llvm::zip(op.getResults(), results))
    frames.back()[result] = std::move(value);
  return success();
}

} // namespace kiln

void kiln::registerEvaluationRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    attachElementwiseRules(context);
    attachDataMovementRules(context);
    attachComputeRules(context);
    attachControlFlowRules(context);
  });
}
