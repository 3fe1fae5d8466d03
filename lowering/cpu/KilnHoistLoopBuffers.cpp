//===- KilnHoistLoopBuffers.cpp - the kiln-hoist-loop-buffers pass --------===//
#include "Passes.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNHOISTLOOPBUFFERS
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {

/// The one memref.dealloc of `alloc`, where it is in `alloc`'s block, else
/// null.
memref::DeallocOp deallocInBlock(memref::AllocOp alloc) {
  memref::DeallocOp found;
  for (Operation *user : alloc->getUsers())
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
      if (found || dealloc->getBlock() != alloc->getBlock())
        return {};
      found = dealloc;
    }
  return found;
}

/// Moves each statically shaped buffer that `loop`'s body allocates and
/// frees out of `loop`: allocated before it, freed after it. A buffer
/// freed in the iteration that allocated it holds nothing the next
/// iteration reads, and the iterations run in order.
void hoistBuffers(scf::ForOp loop) {
  for (auto alloc :
       llvm::make_early_inc_range(loop.getBody()->getOps<memref::AllocOp>())) {
    if (!alloc.getDynamicSizes().empty() || !alloc.getSymbolOperands().empty())
      continue;
    memref::DeallocOp dealloc = deallocInBlock(alloc);
    if (!dealloc)
      continue;
    alloc->moveBefore(loop);
    dealloc->moveAfter(loop);
  }
}

struct KilnHoistLoopBuffersPass
    : kiln::impl::KilnHoistLoopBuffersBase<KilnHoistLoopBuffersPass> {
  void runOnOperation() override {
    // Inner loops first (a post-order walk): a buffer that leaves an inner
    // loop may then leave the loop around it.
    getOperation()->walk([](scf::ForOp loop) { hoistBuffers(loop); });
  }
};
} // namespace
