//===- KilnVectorizeCopies.cpp - the kiln-vectorize-copies pass -----------===//
#include "Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNVECTORIZECOPIES
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {

/// The static strides of `type`, or none where a stride or the shape is
/// dynamic.
std::optional<SmallVector<int64_t>> staticStrides(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() || failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  return strides;
}

/// Whether `copy` copies rows: statically shaped memrefs of one shape and
/// element type, not empty, the innermost dimension contiguous in both and
/// longer than one element.
bool copiesRows(linalg::CopyOp copy) {
  auto sourceType = dyn_cast<MemRefType>(copy.getInputs()[0].getType());
  auto targetType = dyn_cast<MemRefType>(copy.getOutputs()[0].getType());
  if (!sourceType || !targetType || sourceType.getRank() == 0 ||
      sourceType.getShape() != targetType.getShape() ||
      sourceType.getElementType() != targetType.getElementType() ||
      sourceType.getNumElements() == 0 || sourceType.getShape().back() < 2)
    return false;
  std::optional<SmallVector<int64_t>> sourceStrides = staticStrides(sourceType);
  std::optional<SmallVector<int64_t>> targetStrides = staticStrides(targetType);
  return sourceStrides && targetStrides && sourceStrides->back() == 1 &&
         targetStrides->back() == 1;
}

/// The buffer `value` views (through subviews, casts and other views).
Value viewedBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The static offsets of `target`'s dimensions but the last in the buffer
/// it views: none for the buffer itself, a subview's (unit strides), or
/// nullopt.
std::optional<SmallVector<int64_t>> leadingOffsets(Value target) {
  auto type = cast<MemRefType>(target.getType());
  Value buffer = viewedBuffer(target);
  if (target == buffer)
    return SmallVector<int64_t>(type.getRank() - 1, 0);
  auto subview = target.getDefiningOp<memref::SubViewOp>();
  if (!subview || subview.getSource() != buffer ||
      subview.getSourceType().getRank() != type.getRank() ||
      llvm::any_of(subview.getStaticStrides(),
                   [](int64_t stride) { return stride != 1; }) ||
      ShapedType::isDynamicShape(subview.getStaticOffsets()))
    return std::nullopt;
  return SmallVector<int64_t>(subview.getStaticOffsets().drop_back());
}

/// Whether `copy` may run in one loop nest with `group` (copies that
/// copiesRows into one buffer that none of them reads), row by row, each row's
/// copies in order: its shape differs only in the last dimension, it writes the
/// same rows of the same buffer (the inputs of a concatenation along its
/// last dimension), no copy reads that buffer, and only ops without memory
/// effects (views, constants) lie between it and the group.
bool joinsGroup(linalg::CopyOp copy, ArrayRef<linalg::CopyOp> group) {
  linalg::CopyOp first = group.front(), last = group.back();
  auto type = cast<MemRefType>(copy.getInputs()[0].getType());
  auto firstType = cast<MemRefType>(first.getInputs()[0].getType());
  Value buffer = viewedBuffer(first.getOutputs()[0]);
  std::optional<SmallVector<int64_t>> rows =
      leadingOffsets(first.getOutputs()[0]);
  if (!rows || type.getRank() < 2 ||
      type.getElementType() != firstType.getElementType() ||
      type.getShape().drop_back() != firstType.getShape().drop_back() ||
      viewedBuffer(copy.getOutputs()[0]) != buffer ||
      leadingOffsets(copy.getOutputs()[0]) != rows)
    return false;
  if (viewedBuffer(first.getInputs()[0]) == buffer ||
      viewedBuffer(copy.getInputs()[0]) == buffer)
    return false;
  for (Operation *op = last->getNextNode(); op != copy; op = op->getNextNode())
    if (!op || !isMemoryEffectFree(op))
      return false;
  return true;
}

/// Index constants, created once before a copy's outermost loop.
class IndexConstants {
public:
  explicit IndexConstants(Operation *before) : builder(before) {}
  Value get(Location loc, int64_t value) {
    Value &constant = indices[value];
    if (!constant)
      constant = arith::ConstantIndexOp::create(builder, loc, value);
    return constant;
  }
  /// Constants go before `loop` from now on.
  void moveBefore(Operation *loop) { builder.setInsertionPoint(loop); }
  OpBuilder &getBuilder() { return builder; }

private:
  OpBuilder builder;
  DenseMap<int64_t, Value> indices;
};

/// Copies the row of `copy` at `at` (indices of every dimension but the
/// last) at `b`: vectors of `width` elements at most (the largest power of
/// two no longer than the row), then a masked one for the rest (bf16:
/// power-of-two pieces).
void copyRow(OpBuilder &b, Location loc, linalg::CopyOp copy,
             SmallVector<Value> at, int64_t width, IndexConstants &constants) {
  Value source = copy.getInputs()[0], target = copy.getOutputs()[0];
  auto sourceType = cast<MemRefType>(source.getType());
  int64_t row = sourceType.getShape().back();
  int64_t step = std::min<int64_t>(width, llvm::bit_floor(uint64_t(row)));
  int64_t whole = row - row % step;
  auto vectorType = VectorType::get({step}, sourceType.getElementType());
  auto loop =
      scf::ForOp::create(b, loc, constants.get(loc, 0),
                         constants.get(loc, whole), constants.get(loc, step));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    at.push_back(loop.getInductionVar());
    Value piece = vector::LoadOp::create(b, loc, vectorType, source, at);
    vector::StoreOp::create(b, loc, piece, target, at);
    at.pop_back();
  }
  if (whole == row)
    return;
  // LLVM 22 cannot select a masked store of bf16 on a CPU with AVX-512
  // BF16 ("Cannot select: store (s16)"; a bf16 B of 353 columns padded for
  // AMX tiles): a bf16 rest is copied in power-of-two pieces instead.
  if (sourceType.getElementType().isBF16()) {
    for (int64_t offset = whole; offset < row;) {
      int64_t size = int64_t(llvm::bit_floor(uint64_t(row - offset)));
      at.push_back(constants.get(loc, offset));
      Value piece = vector::LoadOp::create(
          b, loc, VectorType::get({size}, sourceType.getElementType()), source,
          at);
      vector::StoreOp::create(b, loc, piece, target, at);
      at.pop_back();
      offset += size;
    }
    return;
  }
  at.push_back(constants.get(loc, whole));
  SmallVector<bool> lanes(step, false);
  std::fill_n(lanes.begin(), row - whole, true);
  auto maskType = VectorType::get({step}, b.getI1Type());
  OpBuilder &before = constants.getBuilder();
  Value mask = arith::ConstantOp::create(
      before, loc, maskType, DenseElementsAttr::get(maskType, ArrayRef(lanes)));
  Value padding = arith::ConstantOp::create(
      before, loc, vectorType,
      DenseElementsAttr::get(vectorType,
                             b.getZeroAttr(sourceType.getElementType())));
  Value piece = vector::MaskedLoadOp::create(b, loc, vectorType, source, at,
                                             mask, padding);
  vector::MaskedStoreOp::create(b, loc, target, at, mask, piece);
}

/// `copies` (copiesRows; one, or a group that joinsGroup) as one nest of
/// loops over their rows, each row of every copy in turn copied by
/// copyRow, at the last copy: the inputs of a concatenation along its last
/// dimension write each row of the result in one pass (two passes over
/// 1024 x 1021 f32, each writing the cache lines at the inputs' edge in
/// part, took 0.145 ms; PyTorch 0.105). The outermost loop is an
/// scf.forall, shared by threads, where the copies are estimated at
/// `minNs` or more (positive) and are in no other scf.forall. The memrefs
/// are indexed as they are, without views: a view of a buffer would keep
/// kiln-lower-vectors from hoisting a matmul's accumulators out of their
/// loop over the buffer.
void vectorizeCopies(ArrayRef<linalg::CopyOp> copies, int64_t width,
                     int64_t minNs) {
  linalg::CopyOp last = copies.back();
  OpBuilder b(last);
  Location loc = last.getLoc();
  IndexConstants constants(last);
  auto type = cast<MemRefType>(last.getInputs()[0].getType());
  ArrayRef<int64_t> shape = type.getShape();
  double ns = 0;
  for (linalg::CopyOp copy : copies)
    ns += 2.0 *
          double(kiln::storageBytes(
              cast<MemRefType>(copy.getInputs()[0].getType()))) /
          kiln::kStreamingBytesPerNs;
  bool shared = minNs > 0 && ns >= double(minNs) && shape.size() > 1 &&
                shape.front() > 1 && !last->getParentOfType<scf::ForallOp>();
  SmallVector<Value> at;
  for (auto [d, size] : llvm::enumerate(shape.drop_back())) {
    Operation *loop;
    if (d == 0 && shared) {
      auto forall = scf::ForallOp::create(
          b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(size)}, ValueRange{},
          std::nullopt);
      at.push_back(forall.getInductionVars().front());
      loop = forall;
    } else {
      auto forOp =
          scf::ForOp::create(b, loc, constants.get(loc, 0),
                             constants.get(loc, size), constants.get(loc, 1));
      at.push_back(forOp.getInductionVar());
      loop = forOp;
    }
    if (d == 0)
      constants.moveBefore(loop);
    b.setInsertionPoint(loop->getRegion(0).front().getTerminator());
  }
  for (linalg::CopyOp copy : copies) {
    copyRow(b, loc, copy, at, width, constants);
    copy.erase();
  }
}

struct KilnVectorizeCopiesPass
    : kiln::impl::KilnVectorizeCopiesBase<KilnVectorizeCopiesPass> {
  using KilnVectorizeCopiesBase::KilnVectorizeCopiesBase;
  void runOnOperation() override {
    if (vectorWidth < 1) {
      getOperation()->emitError("kiln-vectorize-copies: vector-width must be "
                                "positive, not ")
          << int64_t(vectorWidth);
      return signalPassFailure();
    }
    // Consecutive copies that copiesRows, in groups that joinsGroup.
    SmallVector<SmallVector<linalg::CopyOp>> groups;
    getOperation()->walk([&](linalg::CopyOp copy) {
      if (!copiesRows(copy))
        return;
      if (!groups.empty() && joinsGroup(copy, groups.back()))
        groups.back().push_back(copy);
      else
        groups.push_back({copy});
    });
    for (ArrayRef<linalg::CopyOp> group : groups)
      vectorizeCopies(group, vectorWidth, parallelWork);
  }
};

} // namespace
