//===- RuleBuilders.h - ops the differentiation rules build ----*- C++ -*-===//
//
// Small builders shared by the engines and the per-op rules of forward and
// reverse mode. A null Value stands for a symbolic zero (JAX's `Zero`).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_GRAD_RULEBUILDERS_H
#define KILN_PASSES_GRAD_RULEBUILDERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kiln {

/// The ranked tensor type of `v` (every kiln value has one).
inline mlir::RankedTensorType tensorType(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType());
}

/// Whether values of `type` carry derivatives (float tensors do; integer
/// and boolean ones have zero tangents, as JAX's float0).
bool isDifferentiable(mlir::Type type);

/// A float tensor of `type` filled with `value`.
mlir::Value splat(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                  double value);

/// An integer tensor of `type` filled with `value`.
mlir::Value integerSplat(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Type type, int64_t value);

/// A tensor of zeros of `type`.
mlir::Value zeros(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type);

/// `lhs + rhs` where either may be a symbolic zero (null).
mlir::Value addOrZero(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                      mlir::Value rhs);

/// `reduced`, the result of reducing a tensor of type `operand` over
/// `dims`, broadcast back to `operand`'s shape.
mlir::Value broadcastBack(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value reduced, mlir::RankedTensorType operand,
                          llvm::ArrayRef<int64_t> dims);

/// A scalar i64 tensor holding `value` (a step or an index).
mlir::Value indexConstant(mlir::OpBuilder &b, mlir::Location loc,
                          int64_t value);

/// `type` with a leading dimension of `rows` (a stack of values of `type`).
mlir::RankedTensorType stackedType(mlir::Type type, int64_t rows);

/// The start indices of row `row` (a scalar integer tensor) of `stack`.
llvm::SmallVector<mlir::Value> rowStarts(mlir::OpBuilder &b,
                                         mlir::Location loc, mlir::Value stack,
                                         mlir::Value row);

/// `stack` with row `row` replaced by `v`.
mlir::Value writeRow(mlir::OpBuilder &b, mlir::Location loc, mlir::Value stack,
                     mlir::Value v, mlir::Value row);

/// Row `row` of `stack`, as a value of `type`.
mlir::Value readRow(mlir::OpBuilder &b, mlir::Location loc, mlir::Value stack,
                    mlir::Value row, mlir::Type type);

} // namespace kiln

#endif // KILN_PASSES_GRAD_RULEBUILDERS_H
