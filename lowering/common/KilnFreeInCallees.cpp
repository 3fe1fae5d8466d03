//===- KilnFreeInCallees.cpp - the kiln-free-in-callees pass --------------===//
#include "Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNFREEINCALLEES
#include "lowering/common/Passes.h.inc"
} // namespace kiln

namespace {

/// The dealloc of exactly `buffer` in `block`, if there is one.
memref::DeallocOp deallocIn(Value buffer, Block *block) {
  for (Operation *user : buffer.getUsers())
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user);
        dealloc && dealloc->getBlock() == block)
      return dealloc;
  return {};
}

/// The dealloc after `call` that `call` can take over for its operand `i`:
/// the caller frees that buffer (one it allocated or owns as an argument,
/// not a view) in the call's block, and its last use is the call, which
/// gets no other view of it.
memref::DeallocOp handedOver(func::CallOp call, unsigned i) {
  Value buffer = call.getOperand(i);
  Block *block = call->getBlock();
  auto argument = dyn_cast<BlockArgument>(buffer);
  bool owned = buffer.getDefiningOp<memref::AllocOp>() ||
               (argument && argument.getOwner()->isEntryBlock());
  if (!isa<MemRefType>(buffer.getType()) || !owned)
    return {};
  for (auto [j, operand] : llvm::enumerate(call.getOperands()))
    if (j != i && kiln::viewedBuffer(operand) == buffer)
      return {};
  memref::DeallocOp dealloc = deallocIn(buffer, block);
  if (!dealloc)
    return {};
  FailureOr<Operation *> last = kiln::lastUseInBlock(buffer, block, dealloc);
  return succeeded(last) && *last == call.getOperation() ? dealloc
                                                         : memref::DeallocOp();
}

struct KilnFreeInCalleesPass
    : kiln::impl::KilnFreeInCalleesBase<KilnFreeInCalleesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The calls of each private function, or none for one whose symbol is
    // used otherwise.
    DenseMap<Operation *, SmallVector<func::CallOp>> calls;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn.isPrivate() && !fn.isExternal())
        calls[fn];
    DenseSet<Operation *> usedOtherwise;
    if (std::optional<SymbolTable::UseRange> uses =
            SymbolTable::getSymbolUses(&module.getBodyRegion()))
      for (const SymbolTable::SymbolUse &use : *uses) {
        Operation *fn = SymbolTable::lookupSymbolIn(
            module, use.getSymbolRef().getRootReference());
        auto call = dyn_cast<func::CallOp>(use.getUser());
        if (!calls.contains(fn))
          continue;
        if (call && !use.getSymbolRef().getNestedReferences().size())
          calls[fn].push_back(call);
        else
          usedOtherwise.insert(fn);
      }
    // Handing a buffer to a function lets it hand the buffer on to its own
    // callees: repeat until nothing changes.
    for (bool changed = true; changed;) {
      changed = false;
      for (auto &[fn, sites] : calls)
        if (!usedOtherwise.contains(fn) && !sites.empty())
          for (unsigned i = 0; i < cast<func::FuncOp>(fn).getNumArguments();
               ++i)
            changed |= handOver(cast<func::FuncOp>(fn), sites, i);
    }
  }

  /// Moves the freeing of `fn`'s argument `i` from every caller (`sites`)
  /// into `fn`, right after its last use there, if every caller frees it
  /// right after the call; returns whether it did.
  bool handOver(func::FuncOp fn, ArrayRef<func::CallOp> sites, unsigned i) {
    BlockArgument argument = fn.getArgument(i);
    Block &entry = fn.getBody().front();
    if (!isa<MemRefType>(argument.getType()) || deallocIn(argument, &entry))
      return false;
    FailureOr<Operation *> last =
        kiln::lastUseInBlock(argument, &entry, nullptr);
    if (failed(last))
      return false;
    SmallVector<memref::DeallocOp> deallocs;
    for (func::CallOp call : sites) {
      memref::DeallocOp dealloc = handedOver(call, i);
      if (!dealloc)
        return false;
      deallocs.push_back(dealloc);
    }
    for (memref::DeallocOp dealloc : deallocs)
      dealloc.erase();
    OpBuilder b(fn.getContext());
    if (*last)
      b.setInsertionPointAfter(*last);
    else
      b.setInsertionPointToStart(&entry);
    memref::DeallocOp::create(b, fn.getLoc(), argument);
    return true;
  }
};

} // namespace
