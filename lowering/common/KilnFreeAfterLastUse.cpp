//===- KilnFreeAfterLastUse.cpp - the kiln-free-after-last-use pass -------===//
#include "Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNFREEAFTERLASTUSE
#include "lowering/common/Passes.h.inc"
} // namespace kiln

namespace {

struct KilnFreeAfterLastUsePass
    : kiln::impl::KilnFreeAfterLastUseBase<KilnFreeAfterLastUsePass> {
  void runOnOperation() override {
    getOperation()->walk([](memref::DeallocOp dealloc) {
      Value buffer = kiln::viewedBuffer(dealloc.getMemref());
      auto alloc = buffer.getDefiningOp<memref::AllocOp>();
      Block *block = dealloc->getBlock();
      if (!alloc || alloc->getBlock() != block)
        return;
      FailureOr<Operation *> last = kiln::lastUseInBlock(buffer, block, dealloc);
      if (failed(last))
        return;
      Operation *after = *last ? *last : alloc.getOperation();
      if (after->isBeforeInBlock(dealloc))
        dealloc->moveAfter(after);
    });
  }
};

} // namespace

FailureOr<Operation *> kiln::lastUseInBlock(Value buffer, Block *block,
                                            Operation *ignored) {
  Operation *last = nullptr;
  SmallVector<Value> aliases = {buffer};
  while (!aliases.empty()) {
    Value alias = aliases.pop_back_val();
    for (Operation *user : alias.getUsers()) {
      if (user == ignored)
        continue;
      bool isView = isa<memref::ExtractStridedMetadataOp>(user) ||
                    (isa<ViewLikeOpInterface>(user) &&
                     cast<ViewLikeOpInterface>(user).getViewSource() == alias);
      if (isView) {
        for (Value result : user->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            aliases.push_back(result);
      } else if (user->hasTrait<OpTrait::IsTerminator>() ||
                 isa<memref::ExtractAlignedPointerAsIndexOp>(user) ||
                 llvm::any_of(user->getResultTypes(),
                              llvm::IsaPred<BaseMemRefType>)) {
        return failure();
      }
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return failure();
      if (!last || last->isBeforeInBlock(inBlock))
        last = inBlock;
    }
  }
  return last;
}

Value kiln::viewedBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(def))
      value = metadata.getSource();
    else if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      value = view.getViewSource();
    else
      break;
  }
  return value;
}
