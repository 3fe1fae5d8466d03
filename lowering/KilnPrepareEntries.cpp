//===- KilnPrepareEntries.cpp - the kiln-prepare-entries pass -------------===//
#include "Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNPREPAREENTRIES
#include "lowering/Passes.h.inc"
} // namespace kiln

namespace {
struct KilnPrepareEntriesPass
    : kiln::impl::KilnPrepareEntriesBase<KilnPrepareEntriesPass> {
  void runOnOperation() override {
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
