//===- Interpreter.h - the kiln dialect's reference interpreter -*- C++ -*-===//
//
// Runs kiln functions on host values, op by op, through each op's
// EvaluateOpInterface rule: plain C++ with no lowering, the oracle that
// compiled code is checked against (scripts/fuzz.py) and what
// `kiln-run --interpret` runs to tell a miscompile from a wrong program.
// It runs what kiln-expand-transforms leaves (kiln ops, func.call and
// func.return) with static shapes; ParsedSource::interpret prepares that.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_INTERPRETER_H
#define KILN_INTERPRETER_INTERPRETER_H

#include "interpreter/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kiln {

/// Attaches every kiln op's EvaluateOpInterface rule (the models beside
/// this file, by op family).
void registerEvaluationRules(mlir::DialectRegistry &registry);

class Interpreter {
public:
  /// Calls `fn` on `args` (of its argument types) and appends its results
  /// to `results`. Fails with an error at the op it cannot evaluate.
  mlir::LogicalResult call(mlir::func::FuncOp fn,
                           llvm::ArrayRef<HostTensor> args,
                           llvm::SmallVectorImpl<HostTensor> &results);

  /// Runs `block` (of the function being called) with its arguments bound
  /// to `args`; appends its terminator's operands' values to `yielded`.
  mlir::LogicalResult runBlock(mlir::Block &block,
                               llvm::ArrayRef<HostTensor> args,
                               llvm::SmallVectorImpl<HostTensor> &yielded);

private:
  mlir::LogicalResult evaluate(mlir::Operation &op);
  /// The value of `v` in the innermost call.
  const HostTensor &valueOf(mlir::Value v) { return frames.back()[v]; }

  /// Each call's values, innermost last.
  std::vector<llvm::DenseMap<mlir::Value, HostTensor>> frames;
  mlir::SymbolTableCollection symbols;
};

} // namespace kiln

#endif // KILN_INTERPRETER_INTERPRETER_H
