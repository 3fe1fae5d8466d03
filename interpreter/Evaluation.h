//===- Evaluation.h - one op's evaluation by the interpreter ----*- C++ -*-===//
//
// What an op's EvaluateOpInterface rule works with: the op, its operands'
// values, its results (zero tensors of its result types until the rule
// writes them) and the interpreter, to run the op's regions.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_EVALUATION_H
#define KILN_INTERPRETER_EVALUATION_H

#include "interpreter/HostTensor.h"

#include "mlir/IR/Operation.h"

namespace kiln {

class Interpreter;

class Evaluation {
public:
  /// Fails (reported at `op`) unless every result type is static.
  static mlir::FailureOr<Evaluation>
  create(mlir::Operation *op, llvm::SmallVector<HostTensor> operands,
         Interpreter &interpreter);

  mlir::Operation *getOp() const { return op; }
  const HostTensor &operand(unsigned i) const { return operands[i]; }
  llvm::ArrayRef<HostTensor> getOperands() const { return operands; }
  HostTensor &result(unsigned i) { return results[i]; }
  llvm::SmallVector<HostTensor> takeResults() { return std::move(results); }

  /// Runs the single block of `region` (one of the op's) with its
  /// arguments bound to `args`; appends what its terminator yields to
  /// `yielded`.
  mlir::LogicalResult runRegion(mlir::Region &region,
                                llvm::ArrayRef<HostTensor> args,
                                llvm::SmallVectorImpl<HostTensor> &yielded);

private:
  Evaluation(mlir::Operation *op, llvm::SmallVector<HostTensor> operands,
             llvm::SmallVector<HostTensor> results, Interpreter &interpreter)
      : op(op), operands(std::move(operands)), results(std::move(results)),
        interpreter(&interpreter) {}

  mlir::Operation *op;
  llvm::SmallVector<HostTensor> operands, results;
  Interpreter *interpreter;
};

} // namespace kiln

#endif // KILN_INTERPRETER_EVALUATION_H
