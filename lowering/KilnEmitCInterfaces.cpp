//===- KilnEmitCInterfaces.cpp - the kiln-emit-c-interfaces pass ----------===//
#include "Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNEMITCINTERFACES
#include "lowering/Passes.h.inc"
} // namespace kiln

namespace {
struct KilnEmitCInterfacesPass
    : kiln::impl::KilnEmitCInterfacesBase<KilnEmitCInterfacesPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isExternal())
        fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(&getContext()));
  }
};
} // namespace
