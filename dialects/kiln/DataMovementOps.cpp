//===- DataMovementOps.cpp - constants and data movement ------------------===//
#include "TypeInference.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace kiln;

/// A splat constant operand re-shaped to `type`: data movement of a splat
/// is the splat of the new shape.
static OpFoldResult foldSplat(Attribute operand, ShapedType type) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(operand);
  if (splat && type.hasStaticShape())
    return SplatElementsAttr::get(type, splat.getSplatValue<Attribute>());
  return {};
}

static bool isIdentityPermutation(ArrayRef<int64_t> permutation) {
  for (auto [i, p] : llvm::enumerate(permutation))
    if (p != static_cast<int64_t>(i))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// constant, iota
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult IotaOp::verify() {
  return verifyDimension([&] { return emitOpError(); }, "iota_dimension",
                         getIotaDimension(), getType().getRank());
}

//===----------------------------------------------------------------------===//
// broadcast_in_dim
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  auto emit = [&] { return emitOpError(); };
  RankedTensorType operandType = getOperand().getType();
  RankedTensorType resultType = getType();
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  if (failed(verifyRankMatches(emit, "broadcast_dimensions", dims,
                               operandType.getRank())))
    return failure();
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (failed(verifyDimension(emit, "broadcast_dimensions entry", dim,
                               resultType.getRank())))
      return failure();
    if (i > 0 && dim <= dims[i - 1])
      return emitOpError("broadcast_dimensions must be strictly increasing");
    int64_t from = operandType.getDimSize(i), to = resultType.getDimSize(dim);
    if (ShapedType::isDynamic(from) && !ShapedType::isDynamic(to))
      return emitOpError("operand dimension ")
             << i << " is dynamic but result dimension " << dim
             << " is static";
    if (!ShapedType::isDynamic(from) && from != 1 && from != to)
      return emitOpError("operand dimension ")
             << i << " has size " << from << ", which cannot broadcast to "
             << "result dimension " << dim << " of size " << to;
  }
  return verifyLike(dims);
}

LogicalResult
BroadcastInDimOp::specializeResultTypes(SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> shape(getType().getShape());
  for (auto [i, dim] : llvm::enumerate(getBroadcastDimensions()))
    if (ShapedType::isDynamic(shape[dim]))
      shape[dim] = getOperand().getType().getDimSize(i);
  if (Value like = getLike()) {
    auto likeType = cast<RankedTensorType>(like.getType());
    for (auto [size, likeSize] : llvm::zip(shape, likeType.getShape()))
      if (ShapedType::isDynamic(size))
        size = likeSize;
    if (llvm::none_of(shape, ShapedType::isDynamic))
      getLikeMutable().clear();
  }
  types.push_back(getType().clone(shape));
  return success();
}

/// Checks `like` against the result: present only for dynamic result
/// dimensions no dynamic operand dimension gives, and of the result's rank
/// and known sizes.
LogicalResult BroadcastInDimOp::verifyLike(ArrayRef<int64_t> dims) {
  RankedTensorType operandType = getOperand().getType(), resultType = getType();
  auto like = getLike() ? cast<RankedTensorType>(getLike().getType())
                        : RankedTensorType();
  if (like && like.getRank() != resultType.getRank())
    return emitOpError("like has type ")
           << like << " but must have the result's rank "
           << resultType.getRank();
  bool needsLike = false;
  for (int64_t dim = 0; dim < resultType.getRank(); ++dim) {
    const int64_t *mapped = llvm::find(dims, dim);
    bool fromOperand = mapped != dims.end() &&
                       operandType.isDynamicDim(mapped - dims.begin());
    if (!resultType.isDynamicDim(dim) || fromOperand) {
      if (like && sizesConflict(like.getDimSize(dim), resultType.getDimSize(dim)))
        return emitOpError("like has size ")
               << like.getDimSize(dim) << " in dimension " << dim
               << " but the result has " << resultType.getDimSize(dim);
      continue;
    }
    if (!like || !like.isDynamicDim(dim))
      return emitOpError("result dimension ")
             << dim << " is dynamic but neither an operand dimension nor "
             << "a dynamic dimension of `like` gives its size";
    needsLike = true;
  }
  if (like && !needsLike)
    return emitOpError("like serves only dynamic result dimensions that no "
                       "operand dimension gives; this op has none");
  return success();
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  // Equal ranks and strictly increasing dimensions make this the identity.
  if (getOperand().getType() == getType())
    return getOperand();
  return foldSplat(adaptor.getOperand(), getType());
}

namespace {
/// broadcast_in_dim(broadcast_in_dim(x, inner), outer)
///   -> broadcast_in_dim(x, outer[inner[i]]).
struct ComposeBroadcasts : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastInDimOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<BroadcastInDimOp>();
    // A dynamic size `like` gives would have no place in the composition.
    if (!inner || op.getLike() || inner.getLike())
      return failure();
    SmallVector<int64_t> dims;
    for (int64_t dim : inner.getBroadcastDimensions())
      dims.push_back(op.getBroadcastDimensions()[dim]);
    rewriter.replaceOpWithNewOp<BroadcastInDimOp>(op, op.getType(),
                                                  inner.getOperand(), dims);
    return success();
  }
};
} // namespace

void BroadcastInDimOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                   MLIRContext *context) {
  results.add<ComposeBroadcasts>(context);
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType operandType = getOperand().getType(), type = getType();
  std::optional<int64_t> from = checkedNumElements(operandType.getShape());
  std::optional<int64_t> to = checkedNumElements(type.getShape());
  if (!from || !to)
    return emitOpError("has more elements than fit in 64 bits");
  // A dynamic operand reshapes into a result with one dynamic dimension,
  // whose size specialization solves from the element count.
  if (operandType.hasStaticShape() != type.hasStaticShape() ||
      type.getNumDynamicDims() > 1)
    return emitOpError("result type ")
           << type << " must have " << (operandType.hasStaticShape() ? "no" : "one")
           << " dynamic dimension, as the operand has "
           << (operandType.hasStaticShape() ? "none" : "some");
  if (type.hasStaticShape() && *from != *to)
    return emitOpError("operand has ")
           << *from << " elements but the result has " << *to;
  return success();
}

LogicalResult ReshapeOp::specializeResultTypes(SmallVectorImpl<Type> &types) {
  RankedTensorType operandType = getOperand().getType(), type = getType();
  SmallVector<int64_t> shape(type.getShape());
  auto dynamic = llvm::find_if(shape, ShapedType::isDynamic);
  if (operandType.hasStaticShape() && dynamic != shape.end()) {
    // The verifier checked that these counts fit in int64.
    int64_t count = *checkedNumElements(operandType.getShape());
    int64_t known = *checkedNumElements(shape);
    if (known == 0 || count % known)
      return emitOpError("cannot reshape ")
             << operandType << " into " << type << ": " << count
             << " elements are no multiple of " << known;
    *dynamic = count / known;
  }
  types.push_back(type.clone(shape));
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>()) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  if (auto constant = dyn_cast_or_null<DenseElementsAttr>(adaptor.getOperand()))
    return constant.reshape(getType());
  return {};
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  OptionalEmitter emit{loc, context, getOperationName()};
  auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
  ArrayRef<int64_t> permutation = adaptor.getPermutation();
  if (failed(verifyRankMatches(emit, "permutation", permutation,
                               type.getRank())) ||
      failed(verifyDimensionList(emit, "permutation", permutation,
                                 type.getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  types.push_back(type.clone(shape));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (isIdentityPermutation(getPermutation()))
    return getOperand();
  return foldSplat(adaptor.getOperand(), getType());
}

namespace {
/// transpose(transpose(x, inner), outer) -> transpose(x, inner[outer[i]]).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> permutation;
    for (int64_t dim : op.getPermutation())
      permutation.push_back(inner.getPermutation()[dim]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, inner.getOperand(),
                                             permutation);
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

//===----------------------------------------------------------------------===//
// slice, dynamic_slice, dynamic_update_slice
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  OptionalEmitter emit{loc, context, getOperationName()};
  auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
  ArrayRef<int64_t> starts = adaptor.getStartIndices();
  ArrayRef<int64_t> limits = adaptor.getLimitIndices();
  ArrayRef<int64_t> strides = adaptor.getStrides();
  int64_t rank = type.getRank();
  if (failed(verifyRankMatches(emit, "start_indices", starts, rank)) ||
      failed(verifyRankMatches(emit, "limit_indices", limits, rank)) ||
      failed(verifyRankMatches(emit, "strides", strides, rank)))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t start = starts[d], limit = limits[d], stride = strides[d];
    int64_t size = type.getDimSize(d);
    if (start < 0 || start > limit ||
        (!ShapedType::isDynamic(size) && limit > size))
      return emit() << "dimension " << d << ": start " << start
                    << ", limit " << limit << " and size " << size
                    << " must satisfy 0 <= start <= limit <= size";
    if (stride < 1)
      return emit() << "dimension " << d << ": stride " << stride
                    << " must be at least 1";
    int64_t extent = limit - start;
    shape.push_back(extent / stride + (extent % stride != 0));
  }
  types.push_back(type.clone(shape));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return foldSplat(adaptor.getOperand(), getType());
}

/// Checks that there is one start index per dimension of a `rank` operand.
static LogicalResult verifyStartIndexCount(EmitError emit, size_t count,
                                           int64_t rank) {
  if (static_cast<int64_t>(count) != rank)
    return emit() << "has " << count
                  << " start indices but the operand has rank " << rank;
  return success();
}

LogicalResult DynamicSliceOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  OptionalEmitter emit{loc, context, getOperationName()};
  auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
  ArrayRef<int64_t> sizes = adaptor.getSliceSizes();
  if (failed(verifyStartIndexCount(emit, adaptor.getStartIndices().size(),
                                   type.getRank())) ||
      failed(verifyRankMatches(emit, "slice_sizes", sizes, type.getRank())))
    return failure();
  for (auto [d, size] : llvm::enumerate(sizes))
    if (size < 0 || (!type.isDynamicDim(d) && size > type.getDimSize(d)))
      return emit() << "slice_sizes entry " << size << " for dimension " << d
                    << " must be in [0, " << type.getDimSize(d) << "]";
  types.push_back(type.clone(sizes));
  return success();
}

namespace {
/// dynamic_slice with constant start indices -> slice, clamping the starts
/// as dynamic_slice does.
struct DynamicSliceToSlice : OpRewritePattern<DynamicSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DynamicSliceOp op,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> shape = op.getOperand().getType().getShape();
    ArrayRef<int64_t> sizes = op.getSliceSizes();
    // Clamping needs the operand's sizes.
    if (!op.getOperand().getType().hasStaticShape())
      return failure();
    SmallVector<int64_t> starts, limits;
    for (auto [d, index] : llvm::enumerate(op.getStartIndices())) {
      DenseIntElementsAttr value;
      if (!matchPattern(index, m_Constant(&value)))
        return failure();
      int64_t start = value.getSplatValue<APInt>().getSExtValue();
      start = std::clamp<int64_t>(start, 0, shape[d] - sizes[d]);
      starts.push_back(start);
      limits.push_back(start + sizes[d]);
    }
    SmallVector<int64_t> strides(starts.size(), 1);
    rewriter.replaceOpWithNewOp<SliceOp>(op, op.getOperand(), starts, limits,
                                         strides);
    return success();
  }
};
} // namespace

void DynamicSliceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                 MLIRContext *context) {
  results.add<DynamicSliceToSlice>(context);
}

LogicalResult DynamicUpdateSliceOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  RankedTensorType updateType = getUpdate().getType();
  if (failed(verifyStartIndexCount([&] { return emitOpError(); },
                                   getStartIndices().size(),
                                   operandType.getRank())))
    return failure();
  if (updateType.getRank() != operandType.getRank())
    return emitOpError("update has rank ")
           << updateType.getRank() << " but the operand has rank "
           << operandType.getRank();
  for (int64_t d = 0; d < operandType.getRank(); ++d)
    if (!updateType.isDynamicDim(d) && !operandType.isDynamicDim(d) &&
        updateType.getDimSize(d) > operandType.getDimSize(d))
      return emitOpError("update dimension ")
             << d << " has size " << updateType.getDimSize(d)
             << ", larger than the operand's " << operandType.getDimSize(d);
  return success();
}

OpFoldResult DynamicUpdateSliceOp::fold(FoldAdaptor) {
  // A full-size update clamps every start index to 0 and replaces it all.
  if (getUpdate().getType() == getType())
    return getUpdate();
  return {};
}

//===----------------------------------------------------------------------===//
// concatenate
//===----------------------------------------------------------------------===//

LogicalResult ConcatenateOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  OptionalEmitter emit{loc, context, getOperationName()};
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emit() << "needs at least one input";
  auto first = cast<RankedTensorType>(inputs[0].getType());
  int64_t dim = adaptor.getDimension();
  if (failed(verifyDimension(emit, "dimension", dim, first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getElementType() != first.getElementType() ||
        type.getRank() != first.getRank())
      return emit() << "input #" << i + 1 << " has type " << type
                    << ", which differs in rank or element type from input "
                    << "#0's " << first;
    for (int64_t d = 0; d < first.getRank(); ++d) {
      if (d == dim)
        continue;
      if (sizesConflict(type.getDimSize(d), shape[d]))
        return emit() << "input #" << i + 1 << " has size "
                      << type.getDimSize(d) << " in dimension " << d
                      << " but input #0 has " << shape[d];
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = type.getDimSize(d);
    }
    if (ShapedType::isDynamic(shape[dim]) || type.isDynamicDim(dim)) {
      shape[dim] = ShapedType::kDynamic;
      continue;
    }
    std::optional<int64_t> total =
        llvm::checkedAdd(shape[dim], type.getDimSize(dim));
    if (!total)
      return emit() << "result dimension " << dim << " overflows int64";
    shape[dim] = *total;
  }
  types.push_back(first.clone(shape));
  return success();
}

OpFoldResult ConcatenateOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// pad
//===----------------------------------------------------------------------===//

/// The size of a dimension of `size` elements after padding, or nullopt if
/// it overflows.
static std::optional<int64_t> paddedSize(int64_t size, int64_t low,
                                         int64_t high, int64_t interior) {
  std::optional<int64_t> gaps =
      llvm::checkedMul(std::max<int64_t>(size - 1, 0), interior);
  std::optional<int64_t> edges = llvm::checkedAdd(low, high);
  if (!gaps || !edges)
    return std::nullopt;
  std::optional<int64_t> inner = llvm::checkedAdd(size, *gaps);
  return inner ? llvm::checkedAdd(*inner, *edges) : std::nullopt;
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  OptionalEmitter emit{loc, context, getOperationName()};
  auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
  auto padType = cast<RankedTensorType>(adaptor.getPaddingValue().getType());
  if (padType.getRank() != 0 ||
      padType.getElementType() != type.getElementType())
    return emit() << "padding_value has type " << padType
                  << " but must be a scalar of the operand's element type "
                  << type.getElementType();
  ArrayRef<int64_t> low = adaptor.getEdgePaddingLow();
  ArrayRef<int64_t> high = adaptor.getEdgePaddingHigh();
  ArrayRef<int64_t> interior = adaptor.getInteriorPadding();
  int64_t rank = type.getRank();
  if (failed(verifyRankMatches(emit, "edge_padding_low", low, rank)) ||
      failed(verifyRankMatches(emit, "edge_padding_high", high, rank)) ||
      failed(verifyRankMatches(emit, "interior_padding", interior, rank)))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (interior[d] < 0)
      return emit() << "interior_padding entry " << interior[d]
                    << " for dimension " << d << " is negative";
    if (type.isDynamicDim(d)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    std::optional<int64_t> size =
        paddedSize(type.getDimSize(d), low[d], high[d], interior[d]);
    if (!size)
      return emit() << "padding overflows dimension " << d;
    if (*size < 0)
      return emit() << "padding gives dimension " << d << " the negative size "
                    << *size;
    shape.push_back(*size);
  }
  types.push_back(type.clone(shape));
  return success();
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  auto isZero = [](int64_t v) { return v == 0; };
  if (llvm::all_of(getEdgePaddingLow(), isZero) &&
      llvm::all_of(getEdgePaddingHigh(), isZero) &&
      llvm::all_of(getInteriorPadding(), isZero))
    return getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// reverse
//===----------------------------------------------------------------------===//

LogicalResult ReverseOp::verify() {
  return verifyDimensionList([&] { return emitOpError(); }, "dimensions",
                             getDimensions(), getType().getRank());
}

OpFoldResult ReverseOp::fold(FoldAdaptor) {
  if (getDimensions().empty())
    return getOperand();
  auto inner = getOperand().getDefiningOp<ReverseOp>();
  if (inner && inner.getDimensions() == getDimensions())
    return inner.getOperand();
  return {};
}
