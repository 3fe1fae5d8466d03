//===- Remat.cpp - what a remat policy saves and recomputes ---------------===//
#include "Remat.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace kiln;

bool kiln::rematSaves(CheckpointOp checkpoint, Operation &op) {
  switch (checkpoint.getPolicy()) {
  case RematPolicy::everything_saveable:
    return true;
  case RematPolicy::nothing_saveable:
    return false;
  case RematPolicy::dots_saveable:
    return isa<DotGeneralOp>(op);
  case RematPolicy::dots_with_no_batch_dims_saveable: {
    auto dot = dyn_cast<DotGeneralOp>(op);
    return dot && dot.getLhsBatchingDimensions().empty();
  }
  case RematPolicy::save_only_these_names: {
    auto tag = dyn_cast<CheckpointNameOp>(op);
    return tag && llvm::is_contained(
                      checkpoint.getNames().getAsValueRange<StringAttr>(),
                      tag.getName());
  }
  }
  return false; // Unreachable: the switch covers the enum.
}

namespace {

/// The function `call` calls, if it has a body.
func::FuncOp calleeOf(func::CallOp call) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  return callee && !callee.isExternal() ? callee : func::FuncOp();
}

} // namespace

/// rematSavesWithin for `fn`, remembering each function's answer in `known`
/// (a budgeted scan calls its segments along many paths).
static bool savesWithin(CheckpointOp checkpoint, func::FuncOp fn,
                        DenseMap<Operation *, bool> &known) {
  if (auto it = known.find(fn); it != known.end())
    return it->second;
  bool saves = llvm::any_of(fn.getBody().front(), [&](Operation &op) {
    auto call = dyn_cast<func::CallOp>(op);
    func::FuncOp callee = call ? calleeOf(call) : func::FuncOp();
    return callee ? savesWithin(checkpoint, callee, known)
                  : rematSaves(checkpoint, op);
  });
  return known[fn] = saves;
}

bool kiln::rematSavesWithin(CheckpointOp checkpoint, func::FuncOp fn) {
  if (checkpoint.getPolicy() == RematPolicy::nothing_saveable)
    return false;
  DenseMap<Operation *, bool> known;
  return savesWithin(checkpoint, fn, known);
}

namespace {

/// Emits the body of one function after another as emitRemat describes.
class RematEmitter {
public:
  RematEmitter(OpBuilder &b, CheckpointOp checkpoint,
               SmallVectorImpl<Value> &saved, bool reuse)
      : b(b), checkpoint(checkpoint), saved(saved), reuse(reuse) {}

  SmallVector<Value> emit(func::FuncOp fn, ValueRange args) {
    IRMapping mapping;
    mapping.map(fn.getArguments(), args);
    Block &body = fn.getBody().front();
    for (Operation &op : body.without_terminator())
      emit(op, mapping);
    return llvm::map_to_vector(body.getTerminator()->getOperands(),
                               [&](Value v) { return mapping.lookup(v); });
  }

private:
  void emit(Operation &op, IRMapping &mapping) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      func::FuncOp callee = calleeOf(call);
      if (callee && (!reuse || savesWithin(checkpoint, callee, known))) {
        SmallVector<Value> operands = llvm::map_to_vector(
            call.getOperands(), [&](Value v) { return mapping.lookup(v); });
        mapping.map(call.getResults(), emit(callee, operands));
        return;
      }
    }
    if (!rematSaves(checkpoint, op)) {
      b.clone(op, mapping);
      return;
    }
    if (reuse) {
      for (Value result : op.getResults())
        mapping.map(result, saved[next++]);
      return;
    }
    llvm::append_range(saved, b.clone(op, mapping)->getResults());
  }

  OpBuilder &b;
  CheckpointOp checkpoint;
  SmallVectorImpl<Value> &saved;
  bool reuse;
  unsigned next = 0;
  /// savesWithin's answers, kept for the whole emission.
  DenseMap<Operation *, bool> known;
};

} // namespace

SmallVector<Value> kiln::emitRemat(OpBuilder &b, CheckpointOp checkpoint,
                                   func::FuncOp fn, ValueRange args,
                                   SmallVectorImpl<Value> &saved, bool reuse) {
  return RematEmitter(b, checkpoint, saved, reuse).emit(fn, args);
}
