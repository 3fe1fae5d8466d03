//===- KilnHoistLoopBuffers.cpp - the kiln-hoist-loop-buffers pass --------===//
#include "Passes.h"
#include "kiln/TypeInference.h"

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

/// The bytes of a statically shaped buffer of integers, floats or indices,
/// else nothing.
std::optional<int64_t> staticBytes(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || !alloc.getSymbolOperands().empty() ||
      !type.getElementType().isIntOrIndexOrFloat())
    return std::nullopt;
  return kiln::staticBytes(type);
}

/// Moves the statically shaped buffers that `loop`'s body allocates and
/// frees out of `loop`, smallest first, while they total at most
/// `maxBytes`: allocated before it, freed after it. A buffer freed in the
/// iteration that allocated it holds nothing the next iteration reads,
/// and the iterations run in order.
void hoistBuffers(scf::ForOp loop, int64_t maxBytes) {
  SmallVector<std::pair<int64_t, memref::AllocOp>> candidates;
  for (auto alloc : loop.getBody()->getOps<memref::AllocOp>())
    if (std::optional<int64_t> bytes = staticBytes(alloc))
      candidates.emplace_back(*bytes, alloc);
  llvm::stable_sort(candidates, llvm::less_first());
  int64_t hoisted = 0;
  for (auto [bytes, alloc] : candidates) {
    memref::DeallocOp dealloc = deallocInBlock(alloc);
    if (!dealloc)
      continue;
    if (hoisted + bytes > maxBytes)
      return;
    hoisted += bytes;
    alloc->moveBefore(loop);
    dealloc->moveAfter(loop);
  }
}

struct KilnHoistLoopBuffersPass
    : kiln::impl::KilnHoistLoopBuffersBase<KilnHoistLoopBuffersPass> {
  using Base::Base;
  void runOnOperation() override {
    // Inner loops first (a post-order walk): a buffer that leaves an inner
    // loop may then leave the loop around it.
    getOperation()->walk(
        [&](scf::ForOp loop) { hoistBuffers(loop, maxBytes); });
  }
};
} // namespace
