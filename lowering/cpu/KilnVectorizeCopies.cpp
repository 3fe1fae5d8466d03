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

/// `copy` (statically shaped memrefs, the innermost dimension contiguous in
/// both and longer than one element) as loops over its rows, each copied by
/// vectors of `width` elements at most (the largest power of two no longer
/// than the row) and a masked one for the rest; returns whether it rewrote
/// it. The outermost loop is an scf.forall, shared by threads, where the
/// copy is estimated at `minNs` or more (positive) and is in no other
/// scf.forall. The memrefs are indexed as they are, without views: a view
/// of a buffer would keep kiln-lower-vectors from hoisting a matmul's
/// accumulators out of their loop over the buffer.
bool vectorizeCopy(linalg::CopyOp copy, int64_t width, int64_t minNs) {
  Value source = copy.getInputs()[0], target = copy.getOutputs()[0];
  auto sourceType = dyn_cast<MemRefType>(source.getType());
  auto targetType = dyn_cast<MemRefType>(target.getType());
  if (!sourceType || !targetType || sourceType.getRank() == 0 ||
      sourceType.getShape() != targetType.getShape() ||
      sourceType.getElementType() != targetType.getElementType() ||
      sourceType.getNumElements() == 0 || sourceType.getShape().back() < 2)
    return false;
  std::optional<SmallVector<int64_t>> sourceStrides = staticStrides(sourceType);
  std::optional<SmallVector<int64_t>> targetStrides = staticStrides(targetType);
  if (!sourceStrides || !targetStrides || sourceStrides->back() != 1 ||
      targetStrides->back() != 1)
    return false;
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  ArrayRef<int64_t> shape = sourceType.getShape();
  int64_t row = shape.back();
  int64_t step = std::min<int64_t>(width, llvm::bit_floor(uint64_t(row)));
  int64_t whole = row - row % step;
  // Constants go before the outermost loop, b into the loops.
  OpBuilder constants(copy);
  DenseMap<int64_t, Value> indices;
  auto index = [&](int64_t value) -> Value {
    Value &constant = indices[value];
    if (!constant)
      constant = arith::ConstantIndexOp::create(constants, loc, value);
    return constant;
  };
  SmallVector<Value> at;
  auto nest = [&](int64_t size, int64_t by) {
    auto loop = scf::ForOp::create(b, loc, index(0), index(size), index(by));
    if (at.empty())
      constants.setInsertionPoint(loop);
    return loop;
  };
  double ns =
      2.0 * double(kiln::storageBytes(sourceType)) / kiln::kStreamingBytesPerNs;
  bool shared = minNs > 0 && ns >= double(minNs) && shape.size() > 1 &&
                shape.front() > 1 && !copy->getParentOfType<scf::ForallOp>();
  for (auto [d, size] : llvm::enumerate(shape.drop_back())) {
    if (d == 0 && shared) {
      auto loop = scf::ForallOp::create(
          b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(size)}, ValueRange{},
          std::nullopt);
      constants.setInsertionPoint(loop);
      at.push_back(loop.getInductionVars().front());
      b.setInsertionPoint(loop.getBody()->getTerminator());
      continue;
    }
    auto loop = nest(size, 1);
    at.push_back(loop.getInductionVar());
    b.setInsertionPoint(loop.getBody()->getTerminator());
  }
  auto vectorType = VectorType::get({step}, sourceType.getElementType());
  auto loop = nest(whole, step);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    at.push_back(loop.getInductionVar());
    Value piece = vector::LoadOp::create(b, loc, vectorType, source, at);
    vector::StoreOp::create(b, loc, piece, target, at);
    at.pop_back();
  }
  if (whole < row) {
    at.push_back(index(whole));
    SmallVector<bool> lanes(step, false);
    std::fill_n(lanes.begin(), row - whole, true);
    auto maskType = VectorType::get({step}, b.getI1Type());
    Value mask = arith::ConstantOp::create(
        constants, loc, maskType,
        DenseElementsAttr::get(maskType, ArrayRef(lanes)));
    Value padding = arith::ConstantOp::create(
        constants, loc, vectorType, DenseElementsAttr::get(
                                vectorType, b.getZeroAttr(
                                                sourceType.getElementType())));
    Value piece = vector::MaskedLoadOp::create(b, loc, vectorType, source, at,
                                               mask, padding);
    vector::MaskedStoreOp::create(b, loc, target, at, mask, piece);
  }
  copy.erase();
  return true;
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
    SmallVector<linalg::CopyOp> copies;
    getOperation()->walk([&](linalg::CopyOp copy) { copies.push_back(copy); });
    for (linalg::CopyOp copy : copies)
      vectorizeCopy(copy, vectorWidth, parallelWork);
  }
};

} // namespace
