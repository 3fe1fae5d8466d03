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

/// The reshapes (memref.expand_shape, memref.collapse_shape) from a buffer
/// `fn` allocates to what `copy` reads, innermost first, where `copy`
/// moves that buffer, reshaped or not, into an out-parameter nothing else
/// touches, at the buffer's last use: the buffer can then be the
/// out-parameter, seen through the inverse reshapes (a convolution's
/// product [N*H*W, C] returned as [N, H, W, C]). Fails otherwise.
FailureOr<SmallVector<Operation *>> finalCopyToOutParam(memref::CopyOp copy,
                                                        Block &entry) {
  auto out = dyn_cast<BlockArgument>(copy.getTarget());
  if (!out || out.getOwner() != &entry || !out.hasOneUse() ||
      !cast<MemRefType>(out.getType()).getLayout().isIdentity())
    return failure();
  SmallVector<Operation *> reshapes;
  Value source = copy.getSource();
  while (isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(
      source.getDefiningOp())) {
    Operation *reshape = source.getDefiningOp();
    if (!cast<MemRefType>(source.getType()).getLayout().isIdentity())
      return failure();
    reshapes.push_back(reshape);
    source = reshape->getOperand(0);
  }
  auto alloc = source.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != &entry ||
      !alloc.getType().getLayout().isIdentity() ||
      copy.getSource().getType() != out.getType())
    return failure();
  FailureOr<Operation *> last =
      kiln::lastUseInBlock(alloc.getResult(), &entry, nullptr);
  if (failed(last) || *last != copy.getOperation())
    return failure();
  std::reverse(reshapes.begin(), reshapes.end());
  return reshapes;
}

/// `out` seen as the buffer that `reshapes` (innermost first) turned into
/// it: the inverse of each, outermost first, built at `b`.
Value unreshaped(OpBuilder &b, Value out, ArrayRef<Operation *> reshapes) {
  for (Operation *reshape : llvm::reverse(reshapes)) {
    Location loc = reshape->getLoc();
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape))
      out = memref::CollapseShapeOp::create(b, loc, out,
                                            expand.getReassociationIndices());
    else
      out = memref::ExpandShapeOp::create(
          b, loc,
          cast<memref::CollapseShapeOp>(reshape).getSrcType().getShape(), out,
          cast<memref::CollapseShapeOp>(reshape).getReassociationIndices());
  }
  return out;
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
        FailureOr<SmallVector<Operation *>> reshapes =
            finalCopyToOutParam(copy, entry);
        if (failed(reshapes))
          continue;
        Operation *alloc =
            reshapes->empty()
                ? copy.getSource().getDefiningOp()
                : reshapes->front()->getOperand(0).getDefiningOp();
        OpBuilder b(alloc);
        alloc->getResult(0).replaceAllUsesWith(
            unreshaped(b, copy.getTarget(), *reshapes));
        copy.erase();
        for (Operation *reshape : llvm::reverse(*reshapes))
          if (reshape->use_empty())
            reshape->erase();
        alloc->erase();
      }
    }
  }
};

} // namespace
