//===- KilnInlineSingleCalls.cpp - the kiln-inline-single-calls pass ------===//
#include "Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/Inliner.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNINLINESINGLECALLS
#include "lowering/common/Passes.h.inc"
} // namespace kiln

namespace {

/// Whether `fn` is straight-line code: no calls, no ops with regions.
bool isStraightLine(func::FuncOp fn) {
  return llvm::all_of(fn.getBody().getOps(), [](Operation &op) {
    return op.getNumRegions() == 0 && !isa<CallOpInterface>(op);
  });
}

/// The call of `fn` if `fn` is private straight-line code whose symbol's
/// only use is that call, made from the body of a function rather than
/// from a loop or a branch (a scan's body stays a function that runs per
/// step).
func::CallOp onlyCall(func::FuncOp fn, ModuleOp module) {
  if (!fn.isPrivate() || fn.isExternal() || !isStraightLine(fn))
    return {};
  std::optional<SymbolTable::UseRange> uses = fn.getSymbolUses(module);
  if (!uses || !llvm::hasSingleElement(*uses))
    return {};
  auto call = dyn_cast<func::CallOp>(uses->begin()->getUser());
  return call && isa<func::FuncOp>(call->getParentOp()) ? call : func::CallOp();
}

struct KilnInlineSingleCallsPass
    : kiln::impl::KilnInlineSingleCallsBase<KilnInlineSingleCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    InlinerInterface interface(&getContext());
    InlinerConfig config;
    // Inlining a callee can make its caller straight-line code.
    for (bool changed = true; changed;) {
      changed = false;
      for (auto fn :
           llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
        // A function some dialect does not let move stays a call.
        func::CallOp call = onlyCall(fn, module);
        if (!call || failed(inlineCall(interface, config.getCloneCallback(),
                                       call, fn, &fn.getBody(),
                                       /*shouldCloneInlinedRegion=*/false)))
          continue;
        call.erase();
        fn.erase();
        changed = true;
      }
    }
  }
};

} // namespace
