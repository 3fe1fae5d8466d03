//===- Vjp.h - reverse-mode differentiation of functions -------*- C++ -*-===//
#ifndef KILN_PASSES_GRAD_VJP_H
#define KILN_PASSES_GRAD_VJP_H

#include "Jvp.h"

#include <map>
#include <string>

namespace kiln {

/// Builds and remembers the functions that replace kiln.vjp, kiln.grad and
/// kiln.value_and_grad, as JAX does: a function's JVP is split into the
/// primal computation and the linear map of the tangents, whose transpose
/// (TransposeOpInterface, op by op in reverse) maps result cotangents to
/// argument cotangents. A called function is split once into a forward
/// function (its results and the residuals its backward needs) and a
/// backward function, both reused by every caller.
class VjpBuilder {
public:
  VjpBuilder(mlir::SymbolTable &symbols, JvpBuilder::Tidy tidy)
      : symbols(symbols),
        jvps(symbols, std::move(tidy),
             [this](mlir::Operation *op) { return customJvp(op); }) {}

  /// The function replacing `op`, a kiln.vjp, kiln.grad or
  /// kiln.value_and_grad, with the op's operands and results (DESIGN.md's
  /// contract); one per callee, kind, argnums and has_aux. Fails with an
  /// error at the op that cannot be differentiated.
  mlir::FailureOr<mlir::func::FuncOp> getOrBuild(mlir::Operation *op);

  /// The forward and backward halves of a function's JVP `jvp` (built by
  /// this builder's JvpBuilder): `forward` takes the function's arguments and returns
  /// its results then residuals; `backward` takes one cotangent per result,
  /// then the residuals, and returns one cotangent per argument.
  struct Split {
    mlir::func::FuncOp forward, backward;
  };
  mlir::FailureOr<Split> getOrBuildSplit(mlir::func::FuncOp jvp);

private:
  /// A declaration standing for the JVP of a kiln.custom_vjp op, whose
  /// split is the user's rule: `fwd`, and `bwd` with its operands reordered;
  /// or for a kiln.checkpoint (see rematJvp).
  mlir::FailureOr<mlir::func::FuncOp> customJvp(mlir::Operation *op);

  /// For a kiln.checkpoint: with `everything_saveable`, its function's JVP
  /// (split as any call's); with another policy, a declaration whose split
  /// saves the arguments and the values the policy saves (rematSaves), and
  /// recomputes the rest of the function's forward half in the backward one
  /// (JAX's remat).
  mlir::FailureOr<mlir::func::FuncOp> rematJvp(mlir::Operation *op);

  mlir::SymbolTable &symbols;
  /// JVPs built to be split: a custom_vjp in them stands for its rule.
  JvpBuilder jvps;
  llvm::DenseMap<mlir::Operation *, Split> splits;
  std::map<std::string, mlir::func::FuncOp> built;
};

/// Attaches the reverse-mode rules (TransposeOpInterface) to every kiln op.
void registerTransposeRules(mlir::DialectRegistry &registry);

} // namespace kiln

#endif // KILN_PASSES_GRAD_VJP_H
