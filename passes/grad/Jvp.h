//===- Jvp.h - forward-mode differentiation of functions --------*- C++ -*-===//
#ifndef KILN_PASSES_GRAD_JVP_H
#define KILN_PASSES_GRAD_JVP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kiln {

/// Builds and remembers the forward-mode derivatives of functions.
class JvpBuilder {
public:
  /// Simplifies a generated function before anything builds on it.
  using Tidy = std::function<mlir::LogicalResult(mlir::func::FuncOp)>;
  /// The function standing for the JVP of a kiln.custom_vjp or
  /// kiln.checkpoint op when the JVP is built for reverse mode (which splits
  /// it into the user's rule, or into recomputation); without one, forward
  /// mode of a custom_vjp is an error, as in JAX, and a checkpoint is a call.
  using CustomRule =
      std::function<mlir::FailureOr<mlir::func::FuncOp>(mlir::Operation *)>;

  JvpBuilder(mlir::SymbolTable &symbols, Tidy tidy, CustomRule custom = {})
      : symbols(symbols), tidy(std::move(tidy)), custom(std::move(custom)) {}

  /// The function `NAME_jvp` computing `fn` and its JVP: it takes `fn`'s
  /// arguments, then one tangent per argument, and returns `fn`'s results,
  /// then one tangent per result (DESIGN.md's `kiln.jvp` contract). Built
  /// once per function, next to it; `fn` must hold no transformation op.
  /// Fails, with an error at the op, if an op has no forward-mode rule.
  mlir::FailureOr<mlir::func::FuncOp> getOrBuild(mlir::func::FuncOp fn);

  /// The function whose JVP `jvp` is, if this builder made it.
  mlir::func::FuncOp sourceOf(mlir::func::FuncOp jvp) const {
    return sources.lookup(jvp);
  }

  /// Simplifies `fn`, a function just generated.
  mlir::LogicalResult finish(mlir::func::FuncOp fn) { return tidy(fn); }

  /// Whether the JVPs are built to be transposed (by reverse mode).
  bool forReverseMode() const { return bool(custom); }

  /// The function that stands for the JVP of `op`, a kiln.custom_vjp or
  /// kiln.checkpoint, or an error.
  mlir::FailureOr<mlir::func::FuncOp> customJvp(mlir::Operation *op);

private:
  mlir::SymbolTable &symbols;
  Tidy tidy;
  CustomRule custom;
  llvm::DenseMap<mlir::Operation *, mlir::func::FuncOp> built;
  llvm::DenseMap<mlir::Operation *, mlir::func::FuncOp> sources;
};

/// Attaches the forward-mode rules (JvpOpInterface) to every kiln op.
void registerJvpRules(mlir::DialectRegistry &registry);

} // namespace kiln

#endif // KILN_PASSES_GRAD_JVP_H
