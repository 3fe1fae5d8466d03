//===- KilnWriteResultsInPlace.cpp - the kiln-write-results-in-place pass -===//
#include "Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNWRITERESULTSINPLACE
#include "lowering/common/Passes.h.inc"
} // namespace kiln

namespace {

/// Whether `copy` moves a buffer of `fn`'s own, used last by `copy`, into an
/// out-parameter nothing else touches, so that the buffer can be the
/// out-parameter.
bool isFinalCopyToOutParam(memref::CopyOp copy, Block &entry) {
  auto out = dyn_cast<BlockArgument>(copy.getTarget());
  auto alloc = copy.getSource().getDefiningOp<memref::AllocOp>();
  if (!out || out.getOwner() != &entry || !out.hasOneUse() || !alloc ||
      alloc->getBlock() != &entry || alloc.getType() != out.getType())
    return false;
  FailureOr<Operation *> last =
      kiln::lastUseInBlock(alloc.getResult(), &entry, nullptr);
  return succeeded(last) && *last == copy.getOperation();
}

/// Drops the copies of donated arguments into the out-parameters of the
/// results that reuse their buffers (kiln-prepare-entries' donations): the
/// runtime passes the argument's buffer as the out-parameter, so the
/// result is already there.
void dropDonatedCopies(func::FuncOp fn) {
  auto donated =
      fn->getAttrOfType<DenseI64ArrayAttr>(kiln::kDonatedBuffersAttrName);
  if (!donated)
    return;
  Block &entry = fn.getBody().front();
  unsigned firstOut = fn.getNumArguments() - donated.size();
  for (auto copy : llvm::make_early_inc_range(entry.getOps<memref::CopyOp>()))
    for (auto [result, argument] : llvm::enumerate(donated.asArrayRef()))
      if (argument >= 0 && copy.getSource() == fn.getArgument(argument) &&
          copy.getTarget() == fn.getArgument(firstOut + result)) {
        copy.erase();
        break;
      }
}

struct KilnWriteResultsInPlacePass
    : kiln::impl::KilnWriteResultsInPlaceBase<KilnWriteResultsInPlacePass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      dropDonatedCopies(fn);
      Block &entry = fn.getBody().front();
      for (auto copy :
           llvm::make_early_inc_range(entry.getOps<memref::CopyOp>())) {
        if (!isFinalCopyToOutParam(copy, entry))
          continue;
        Operation *alloc = copy.getSource().getDefiningOp();
        alloc->getResult(0).replaceAllUsesWith(copy.getTarget());
        copy.erase();
        alloc->erase();
      }
    }
  }
};

} // namespace
