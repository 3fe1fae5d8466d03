//===- KilnInterfaces.h - per-op rules of the transformations --*- C++ -*-===//
#ifndef KILN_KILNINTERFACES_H
#define KILN_KILNINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

namespace kiln {

/// An op's dimensions as factors (Shardy's OpShardingRuleAttr): operand or
/// result dimension d is factor `operandFactors[i][d]` / `resultFactors[i][d]`
/// (-1: a dimension of size 1 no factor describes).
struct ShardingRule {
  llvm::SmallVector<int64_t> factorSizes;
  llvm::SmallVector<llvm::SmallVector<int64_t>> operandFactors;
  llvm::SmallVector<llvm::SmallVector<int64_t>> resultFactors;
  /// Factors summed over (dot_general's contracting dims, reductions' dims).
  llvm::SmallVector<int64_t> reductionFactors;
};

/// How remat policies that save dots see an op.
enum class DotKind {
  /// Not a contraction.
  None,
  /// A contraction without batch dimensions.
  Dot,
  /// A contraction with batch dimensions.
  BatchedDot,
};

} // namespace kiln

#include "kiln/KilnInterfaces.h.inc"

#endif // KILN_KILNINTERFACES_H
