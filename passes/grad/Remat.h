//===- Remat.h - what a remat policy saves and recomputes -------*- C++ -*-===//
//
// kiln.checkpoint's reverse mode (rematJvp in Vjp.cpp) runs the forward half
// of its function's JVP twice: once forward, keeping the values its policy
// saves, and once in the backward pass, where those values stand in for the
// ops that computed them and everything else is recomputed.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_GRAD_REMAT_H
#define KILN_PASSES_GRAD_REMAT_H

#include "kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace kiln {

/// Whether `checkpoint`'s policy saves the result of `op`: dot_general's
/// (dots_saveable), dot_general's without batch dimensions
/// (dots_with_no_batch_dims_saveable), checkpoint_name's whose name it lists
/// (save_only_these_names); nothing's (nothing_saveable).
bool rematSaves(CheckpointOp checkpoint, mlir::Operation &op);

/// Whether `checkpoint`'s policy saves the result of an op of `fn` or of a
/// function it calls outside loops and conds.
bool rematSavesWithin(CheckpointOp checkpoint, mlir::func::FuncOp fn);

/// Emits, with `b`, the body of `fn` on `args`, inlining the functions it
/// calls (so that the policy sees their ops too; calls inside loops and
/// conds are copied as they are, and their values recomputed), and returns
/// `fn`'s results. The results of the ops `checkpoint`'s policy saves are
/// appended to `saved` in order of emission or, when `reuse` is set, read
/// from it in that same order instead of recomputed; then a call whose
/// function saves nothing is copied as it is, so that nested checkpoints
/// (a budgeted scan's) do not grow into copies of everything they call.
llvm::SmallVector<mlir::Value>
emitRemat(mlir::OpBuilder &b, CheckpointOp checkpoint, mlir::func::FuncOp fn,
          mlir::ValueRange args, llvm::SmallVectorImpl<mlir::Value> &saved,
          bool reuse);

} // namespace kiln

#endif // KILN_PASSES_GRAD_REMAT_H
