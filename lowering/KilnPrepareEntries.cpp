//===- KilnPrepareEntries.cpp - the kiln-prepare-entries pass -------------===//
#include "Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

#include <functional>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNPREPAREENTRIES
#include "lowering/Passes.h.inc"
} // namespace kiln

namespace {
/// The functions of `module` that `fn` names (calls, transformation ops).
SmallVector<func::FuncOp> callees(func::FuncOp fn, SymbolTable &symbols) {
  SmallVector<func::FuncOp> result;
  fn.walk([&](Operation *op) {
    for (NamedAttribute attr : op->getAttrs())
      if (auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue()))
        if (auto callee = symbols.lookup<func::FuncOp>(ref.getValue()))
          result.push_back(callee);
  });
  return result;
}

/// Reports the first cycle of calls among the functions of `module`: the
/// code has static shapes and no stack to grow, so recursion cannot be
/// compiled (a loop is written with kiln.while or kiln.scan).
LogicalResult checkNoRecursion(ModuleOp module) {
  SymbolTable symbols(module);
  enum class State { Unvisited, OnPath, Done };
  llvm::DenseMap<Operation *, State> state;
  SmallVector<func::FuncOp> path;
  std::function<LogicalResult(func::FuncOp)> visit =
      [&](func::FuncOp fn) -> LogicalResult {
    state[fn] = State::OnPath;
    path.push_back(fn);
    for (func::FuncOp callee : callees(fn, symbols)) {
      if (state[callee] == State::Done)
        continue;
      if (state[callee] == State::OnPath) {
        InFlightDiagnostic diag = callee.emitError("function @")
                                  << callee.getName()
                                  << " is recursive, which Kiln cannot "
                                     "compile (write loops with kiln.while "
                                     "or kiln.scan): ";
        auto cycle = llvm::find(path, callee);
        for (auto it = cycle; it != path.end(); ++it)
          diag << "@" << it->getName() << " -> ";
        diag << "@" << callee.getName();
        return failure();
      }
      if (failed(visit(callee)))
        return failure();
    }
    path.pop_back();
    state[fn] = State::Done;
    return success();
  };
  for (auto fn : module.getOps<func::FuncOp>())
    if (state[fn] == State::Unvisited && failed(visit(fn)))
      return failure();
  return success();
}

struct KilnPrepareEntriesPass
    : kiln::impl::KilnPrepareEntriesBase<KilnPrepareEntriesPass> {
  void runOnOperation() override {
    if (failed(checkNoRecursion(getOperation())))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    auto readOnly = BoolAttr::get(context, false);
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn.isPublic() || fn.isExternal())
        continue;
      for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
        fn.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                      readOnly);
      fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(context));
    }
  }
};
} // namespace
