//===- KilnInterfaces.h - per-op rules of the transformations --*- C++ -*-===//
#ifndef KILN_KILNINTERFACES_H
#define KILN_KILNINTERFACES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

#include "kiln/KilnEnums.h.inc"

namespace kiln {

/// What sharding a factor of an op allows (Shardy's FactorType).
enum class FactorKind {
  /// Operands and results split along the factor alike; each device
  /// computes its part.
  PassThrough,
  /// Summed (or maxed, ...) over: operands split along it give each device
  /// a partial result, combined across the devices (an all_reduce).
  Reduction,
  /// Must be whole on every device (a sliced, padded or indexed dimension).
  NeedReplication,
};

/// An op's dimensions as factors (Shardy's OpShardingRuleAttr): dimension d
/// of operand i (result i) is factor `operandFactors[i][d]`
/// (`resultFactors[i][d]`), -1 for a dimension of size 1 that no factor
/// describes (a broadcast one). Dimensions of one factor are split over the
/// same mesh axes. A reshape's merged or split dimensions share the factor
/// of their majormost dimensions, sized by what both can split alike.
struct ShardingRule {
  llvm::SmallVector<int64_t> factorSizes;
  llvm::SmallVector<FactorKind> factorKinds;
  llvm::SmallVector<llvm::SmallVector<int64_t>> operandFactors;
  llvm::SmallVector<llvm::SmallVector<int64_t>> resultFactors;
  /// How the devices' partial results of reduction factors combine.
  ReductionKind reduction = ReductionKind::sum;
  /// Arguments of the op's regions laid out as an operand (a while's
  /// carried values): (argument, the operand's number).
  llvm::SmallVector<std::pair<mlir::BlockArgument, unsigned>> tiedArguments;
  /// What the op's regions yield, laid out as a result: (operand of a
  /// region's terminator, result).
  llvm::SmallVector<std::pair<mlir::OpOperand *, mlir::OpResult>> tiedYields;

  /// Adds a factor of `size` and returns its index.
  int64_t addFactor(int64_t size, FactorKind kind = FactorKind::PassThrough) {
    factorSizes.push_back(size);
    factorKinds.push_back(kind);
    return int64_t(factorSizes.size()) - 1;
  }
};

/// The partitioner as the sharding rules see it when they make an op
/// compute one device's part (ShardingRuleOpInterface::localize).
class PartitionEmitter {
public:
  virtual ~PartitionEmitter() = default;

  /// This device's part of `whole` (a value every device holds whole) laid
  /// out as `sharding` (a #kiln.sharding) says.
  virtual mlir::Value partOf(mlir::OpBuilder &builder, mlir::Location loc,
                             mlir::Value whole, mlir::Attribute sharding) = 0;

  /// Where this device's part starts along dimension `dim` of a value laid
  /// out as `sharding` says: a tensor<i32>.
  virtual mlir::Value partStart(mlir::OpBuilder &builder, mlir::Location loc,
                                mlir::Attribute sharding, int64_t dim,
                                int64_t partSize) = 0;
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

/// The discardable attribute that marks the kiln.while a kiln.scan expands
/// into, for rules that treat it apart from a user's while loop: its value
/// is the loop's trip count, which reverse mode needs before it runs.
inline constexpr llvm::StringLiteral kScanLoopAttr = "kiln.scan_loop";

/// Gives kiln-specialize-shapes' copy of the function `callee` names for
/// arguments of `argTypes` (the function itself when it takes them).
using SpecializeCallee = llvm::function_ref<mlir::FailureOr<mlir::func::FuncOp>(
    mlir::FlatSymbolRefAttr callee, mlir::TypeRange argTypes)>;

/// The forward-mode engine as the rules of ops with regions see it
/// (RegionJvpOpInterface). Values are those of the function being
/// differentiated; the engine maps them to the JVP function's.
class JvpRegionEmitter {
public:
  virtual ~JvpRegionEmitter() = default;

  /// The JVP function's value for `v`, an operand of the op or a value its
  /// regions use from above.
  virtual mlir::Value primal(mlir::Value v) = 0;

  /// The tangent of `v` (null: zero).
  virtual mlir::Value tangent(mlir::Value v) = 0;

  /// Appends to `dest` the ops of `source` (a block of the op's regions)
  /// with its arguments bound to `argPrimals` and `argTangents` (null:
  /// zero), computing tangents only if `withTangents`; appends the values
  /// its terminator yields to `yielded` and their tangents (null: zero) to
  /// `yieldedTangents`. Fails with an error at an op it cannot
  /// differentiate.
  virtual mlir::LogicalResult
  emitBlock(mlir::Block &source, mlir::Block &dest, mlir::ValueRange argPrimals,
            llvm::ArrayRef<mlir::Value> argTangents, bool withTangents,
            llvm::SmallVectorImpl<mlir::Value> &yielded,
            llvm::SmallVectorImpl<mlir::Value> &yieldedTangents) = 0;

  /// Whether the JVP is built to be transposed (reverse mode), which needs
  /// every loop's trip count before it runs.
  virtual bool forReverseMode() const = 0;
};

/// The vmap engine as the batching rules of ops with regions see it
/// (RegionBatchingOpInterface). Values are those of the function being
/// batched; the engine maps them to the batched function's.
class BatchRegionEmitter {
public:
  virtual ~BatchRegionEmitter() = default;

  /// The batched function's value for `v` (an operand of the op or a value
  /// its regions use from above) and its batch dimension (-1: none).
  virtual std::pair<mlir::Value, int64_t> batched(mlir::Value v) = 0;

  /// The number of elements of the batch.
  virtual int64_t batchSize() const = 0;

  /// Emits, at `builder`'s insertion point, the batched ops of `source` (a
  /// block of the op's regions) with its arguments bound to `args`, batched
  /// along `argDims`; appends the values its terminator yields to
  /// `yielded` and their batch dimensions to `yieldedDims`. Fails with an
  /// error at an op it cannot batch.
  virtual mlir::LogicalResult
  emitBlock(mlir::OpBuilder &builder, mlir::Block &source,
            mlir::ValueRange args, llvm::ArrayRef<int64_t> argDims,
            llvm::SmallVectorImpl<mlir::Value> &yielded,
            llvm::SmallVectorImpl<int64_t> &yieldedDims) = 0;
};

/// An op's evaluation by the reference interpreter (EvaluateOpInterface):
/// its operands' values and its results' (interpreter/Evaluation.h).
class Evaluation;

} // namespace kiln

#include "kiln/KilnInterfaces.h.inc"

#endif // KILN_KILNINTERFACES_H
