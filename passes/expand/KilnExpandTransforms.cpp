//===- KilnExpandTransforms.cpp - the kiln-expand-transforms pass ---------===//
#include "Passes.h"
#include "passes/grad/Jvp.h"

#include "mlir/IR/SymbolTable.h"

#include <functional>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNEXPANDTRANSFORMS
#include "passes/expand/Passes.h.inc"
} // namespace kiln

namespace {

/// The functions `fn` calls or transforms, in order of appearance.
SmallVector<func::FuncOp> referencedFunctions(func::FuncOp fn,
                                              SymbolTable &symbols) {
  SmallVector<func::FuncOp> referenced;
  fn.walk([&](Operation *op) {
    FlatSymbolRefAttr name;
    if (auto call = dyn_cast<func::CallOp>(op))
      name = call.getCalleeAttr();
    else if (auto transform = dyn_cast<kiln::TransformOpInterface>(op))
      name = transform.getTransformedCallee();
    if (auto callee = name ? symbols.lookup<func::FuncOp>(name.getValue())
                           : func::FuncOp())
      referenced.push_back(callee);
  });
  return referenced;
}

/// Replaces `op` by a call of `fn` on the same operands.
void replaceByCall(Operation *op, func::FuncOp fn) {
  OpBuilder b(op);
  auto call = func::CallOp::create(b, op->getLoc(), fn, op->getOperands());
  op->replaceAllUsesWith(call.getResults());
  op->erase();
}

struct KilnExpandTransformsPass
    : kiln::impl::KilnExpandTransformsBase<KilnExpandTransformsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    kiln::JvpBuilder jvps(symbols);
    enum class State { Unvisited, OnPath, Done };
    DenseMap<Operation *, State> state;
    // Expands the functions `fn` references, then the ops in `fn`.
    std::function<LogicalResult(func::FuncOp)> expand =
        [&](func::FuncOp fn) -> LogicalResult {
      state[fn] = State::OnPath;
      for (func::FuncOp callee : referencedFunctions(fn, symbols)) {
        if (state[callee] == State::OnPath)
          return fn.emitError("function @")
                 << fn.getName() << " reaches @" << callee.getName()
                 << ", which reaches it back: recursive functions cannot be "
                    "transformed";
        if (state[callee] == State::Unvisited && failed(expand(callee)))
          return failure();
      }
      SmallVector<kiln::JvpOp> jvpOps;
      fn.walk([&](kiln::JvpOp op) { jvpOps.push_back(op); });
      for (kiln::JvpOp op : jvpOps) {
        FailureOr<func::FuncOp> jvp =
            jvps.getOrBuild(symbols.lookup<func::FuncOp>(op.getCallee()));
        if (failed(jvp)) // The failing op has said why.
          return failure();
        replaceByCall(op, *jvp);
      }
      state[fn] = State::Done;
      return success();
    };
    // Generated functions are added while walking; they need no expansion.
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (state[fn] == State::Unvisited && failed(expand(fn)))
        return signalPassFailure();
  }
};

} // namespace
