//===- KilnStoreNarrowFloatBits.cpp - kiln-store-narrow-float-bits --------===//
#include "Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNSTORENARROWFLOATBITS
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {

struct KilnStoreNarrowFloatBitsPass
    : kiln::impl::KilnStoreNarrowFloatBitsBase<KilnStoreNarrowFloatBitsPass> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::StoreOp store) {
      auto bits = store.getValue().getDefiningOp<LLVM::BitcastOp>();
      auto vector = dyn_cast<VectorType>(store.getValue().getType());
      if (!bits || !vector ||
          !(vector.getElementType().isBF16() ||
            vector.getElementType().isF16()) ||
          !isa<VectorType>(bits.getArg().getType()))
        return;
      store.getValueMutable().assign(bits.getArg());
      if (bits->use_empty())
        bits->erase();
    });
  }
};

} // namespace
