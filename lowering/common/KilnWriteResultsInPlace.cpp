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

/// A buffer a function allocates and the reshapes (memref.expand_shape,
/// memref.collapse_shape) from it to what a copy into an out-parameter
/// reads, outermost (the copy's source) first.
struct ReshapedBuffer {
  memref::AllocOp alloc;
  SmallVector<Operation *> reshapes;
};

/// The buffer `copy` moves, reshaped or not, into an out-parameter nothing
/// else touches, at the buffer's last use: the buffer can then be the
/// out-parameter, seen through the inverse reshapes (a convolution's
/// product [N*H*W, C] returned as [N, H, W, C]). Fails otherwise.
FailureOr<ReshapedBuffer> finalCopyToOutParam(memref::CopyOp copy,
                                              Block &entry) {
  auto out = dyn_cast<BlockArgument>(copy.getTarget());
  if (!out || out.getOwner() != &entry || !out.hasOneUse() ||
      !cast<MemRefType>(out.getType()).getLayout().isIdentity())
    return failure();
  ReshapedBuffer buffer;
  Value source = copy.getSource();
  while (isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(
      source.getDefiningOp())) {
    if (!cast<MemRefType>(source.getType()).getLayout().isIdentity())
      return failure();
    buffer.reshapes.push_back(source.getDefiningOp());
    source = buffer.reshapes.back()->getOperand(0);
  }
  buffer.alloc = source.getDefiningOp<memref::AllocOp>();
  if (!buffer.alloc || buffer.alloc->getBlock() != &entry ||
      !buffer.alloc.getType().getLayout().isIdentity() ||
      copy.getSource().getType() != out.getType())
    return failure();
  FailureOr<Operation *> last =
      kiln::lastUseInBlock(buffer.alloc.getResult(), &entry, nullptr);
  if (failed(last) || *last != copy.getOperation())
    return failure();
  return buffer;
}

/// `out` seen as the buffer that `reshapes` (outermost first) turned into
/// it: the inverse of each, in that order, built at `b`.
Value unreshaped(OpBuilder &b, Value out, ArrayRef<Operation *> reshapes) {
  for (Operation *reshape : reshapes) {
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
        FailureOr<ReshapedBuffer> buffer = finalCopyToOutParam(copy, entry);
        if (failed(buffer))
          continue;
        OpBuilder b(buffer->alloc);
        buffer->alloc.getResult().replaceAllUsesWith(
            unreshaped(b, copy.getTarget(), buffer->reshapes));
        copy.erase();
        for (Operation *reshape : buffer->reshapes)
          if (reshape->use_empty())
            reshape->erase();
        buffer->alloc->erase();
      }
    }
  }
};

} // namespace
