//===- Jvp.h - forward-mode differentiation of functions --------*- C++ -*-===//
#ifndef KILN_PASSES_GRAD_JVP_H
#define KILN_PASSES_GRAD_JVP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

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

  JvpBuilder(mlir::SymbolTable &symbols, Tidy tidy)
      : symbols(symbols), tidy(std::move(tidy)) {}

  /// The function `NAME_jvp` computing `fn` and its JVP: it takes `fn`'s
  /// arguments, then one tangent per argument, and returns `fn`'s results,
  /// then one tangent per result (DESIGN.md's `kiln.jvp` contract). Built
  /// once per function, next to it; `fn` must hold no transformation op.
  /// Fails, with an error at the op, if an op has no forward-mode rule.
  mlir::FailureOr<mlir::func::FuncOp> getOrBuild(mlir::func::FuncOp fn);

  /// Whether `fn` is a JVP this builder made.
  bool isJvp(mlir::func::FuncOp fn) const { return jvpFunctions.count(fn); }

  /// Simplifies `fn`, a function just generated.
  mlir::LogicalResult finish(mlir::func::FuncOp fn) { return tidy(fn); }

private:
  mlir::SymbolTable &symbols;
  Tidy tidy;
  llvm::DenseMap<mlir::Operation *, mlir::func::FuncOp> built;
  llvm::DenseSet<mlir::Operation *> jvpFunctions;
};

/// Attaches the forward-mode rules (JvpOpInterface) to every kiln op.
void registerJvpRules(mlir::DialectRegistry &registry);

} // namespace kiln

#endif // KILN_PASSES_GRAD_JVP_H
