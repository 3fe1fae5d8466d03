//===- Vmap.h - batching functions (vmap) ----------------------*- C++ -*-===//
#ifndef KILN_PASSES_VMAP_VMAP_H
#define KILN_PASSES_VMAP_VMAP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

#include <functional>
#include <map>
#include <string>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kiln {

/// Builds and remembers the batched versions of functions (JAX's vmap at
/// the IR level): each op is replaced by its batching rule
/// (BatchingOpInterface, or RegionBatchingOpInterface for ops with
/// regions), calls call the callee's batched version.
class VmapBuilder {
public:
  /// Simplifies a generated function before anything builds on it.
  using Tidy = std::function<mlir::LogicalResult(mlir::func::FuncOp)>;

  VmapBuilder(mlir::SymbolTable &symbols, Tidy tidy)
      : symbols(symbols), tidy(std::move(tidy)) {}

  /// The function `NAME_vmap` mapping `fn` over a batch of `batchSize`:
  /// argument i batched along `inAxes[i]` (-1: not batched), result j
  /// along `outAxes[j]` (-1: not batched, which the result must then be).
  /// Built once per function, axes and size; `fn` must hold no
  /// transformation op. Fails with an error at an op without a rule, or at
  /// the return when a result that depends on the batch has out axis -1.
  mlir::FailureOr<mlir::func::FuncOp> getOrBuild(mlir::func::FuncOp fn,
                                                 llvm::ArrayRef<int64_t> inAxes,
                                                 llvm::ArrayRef<int64_t> outAxes,
                                                 int64_t batchSize);

  /// For a kiln.custom_vjp whose operands are batched along `operandDims`:
  /// its function and `fwd` batched (results first), and a backward
  /// function that runs `bwd` batched and gives each operand's cotangent
  /// its batch dimension (summed over the batch for an unbatched operand).
  struct CustomRule {
    mlir::func::FuncOp callee, fwd, bwd;
  };
  mlir::FailureOr<CustomRule> getOrBuildCustom(mlir::Operation *customVjp,
                                               llvm::ArrayRef<int64_t> operandDims,
                                               int64_t batchSize);

private:
  mlir::SymbolTable &symbols;
  Tidy tidy;
  std::map<std::string, mlir::func::FuncOp> built;
};

/// Attaches the batching rules (BatchingOpInterface,
/// RegionBatchingOpInterface) to every kiln op.
void registerBatchingRules(mlir::DialectRegistry &registry);

} // namespace kiln

#endif // KILN_PASSES_VMAP_VMAP_H
