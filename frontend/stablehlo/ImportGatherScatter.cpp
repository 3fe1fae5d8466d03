//===- ImportGatherScatter.cpp - StableHLO's gathers and scatters ---------===//
//
// Gathers and scatters in every form StableHLO's dimension numbers allow.
// Those that take or add whole slices along one dimension (jnp.take, x[i],
// x.at[i].add) are kiln.take and kiln.scatter_add as they are. Every other
// form works on the operand flattened to one dimension: the position in it
// of each element of the gather's result (the scatter's updates) is
// computed from the indices and iotas, so a gather is a kiln.take of
// elements and a scatter that adds a kiln.scatter_add of elements. A
// scatter with another body (x.at[i].set, .max, .min, .mul) applies its
// body to one element at a time in a kiln.while, in the updates' order, as
// StableHLO's semantics state it.
//
//===----------------------------------------------------------------------===//
#include "frontend/stablehlo/ImportPatterns.h"
#include "frontend/stablehlo/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::stablehlo_import;

namespace {

/// A gather's or scatter's dimension numbers in common terms. `window`:
/// the dimensions of the gather's result (the scatter's updates) that run
/// over a slice, the others running over the indices' batch; `collapsed`:
/// the operand dimensions a slice drops (of size 1); `operandBatching` and
/// `indicesBatching`: operand dimensions paired with the indices' batch
/// dimensions that pick them; `indexMap`: the operand dimension each
/// component of an index vector starts.
struct IndexForm {
  ArrayRef<int64_t> window, collapsed, operandBatching, indicesBatching,
      indexMap;
  int64_t indexVectorDim;
};

IndexForm formOf(shlo::GatherOp op) {
  shlo::GatherDimensionNumbersAttr dims = op.getDimensionNumbers();
  return {dims.getOffsetDims(),          dims.getCollapsedSliceDims(),
          dims.getOperandBatchingDims(), dims.getStartIndicesBatchingDims(),
          dims.getStartIndexMap(),       dims.getIndexVectorDim()};
}

IndexForm formOf(shlo::ScatterOp op) {
  shlo::ScatterDimensionNumbersAttr dims = op.getScatterDimensionNumbers();
  return {dims.getUpdateWindowDims(),     dims.getInsertedWindowDims(),
          dims.getInputBatchingDims(),    dims.getScatterIndicesBatchingDims(),
          dims.getScatterDimsToOperandDims(), dims.getIndexVectorDim()};
}

/// The shapes a gather or scatter relates.
struct IndexShapes {
  RankedTensorType operand, indices;
  /// The gather's result, the scatter's updates.
  ArrayRef<int64_t> elements;
};

bool isDimList(ArrayRef<int64_t> dims, int64_t rank) {
  llvm::SmallDenseSet<int64_t> seen;
  return llvm::all_of(dims, [&](int64_t d) {
    return d >= 0 && d < rank && seen.insert(d).second;
  });
}

bool disjoint(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return llvm::none_of(a, [&](int64_t d) { return llvm::is_contained(b, d); });
}

/// The dimensions of `rank` not in `dims`, in order.
SmallVector<int64_t> complement(ArrayRef<int64_t> dims, int64_t rank) {
  SmallVector<int64_t> rest;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      rest.push_back(d);
  return rest;
}

/// The operand dimensions a slice keeps, in the order of `form.window`.
SmallVector<int64_t> windowOperandDims(const IndexForm &form, int64_t rank) {
  SmallVector<int64_t> dropped(form.collapsed);
  llvm::append_range(dropped, form.operandBatching);
  return complement(dropped, rank);
}

/// The scatter's slice sizes, read off its updates (1 where dropped).
SmallVector<int64_t> updateSliceSizes(const IndexForm &form,
                                      const IndexShapes &shapes) {
  SmallVector<int64_t> sizes(shapes.operand.getRank(), 1);
  for (auto [d, w] : llvm::zip(windowOperandDims(form, shapes.operand.getRank()),
                               form.window))
    sizes[d] = shapes.elements[w];
  return sizes;
}

/// What is inconsistent in a gather's or scatter's dimension numbers,
/// shapes and slice sizes (empty for a scatter: read off its updates), if
/// anything: the rest of this file relies on their being consistent.
std::optional<std::string> checkForm(const IndexForm &form,
                                     const IndexShapes &shapes,
                                     ArrayRef<int64_t> sliceSizes) {
  int64_t rank = shapes.operand.getRank();
  int64_t indicesRank = shapes.indices.getRank();
  int64_t ivd = form.indexVectorDim;
  if (!isDimList(form.collapsed, rank) ||
      !isDimList(form.operandBatching, rank) ||
      !isDimList(form.indexMap, rank) ||
      !disjoint(form.collapsed, form.operandBatching) ||
      !disjoint(form.indexMap, form.operandBatching))
    return "operand dimensions out of range, repeated or both batching "
           "and indexed";
  if (ivd < 0 || ivd > indicesRank ||
      !isDimList(form.indicesBatching, indicesRank) ||
      llvm::is_contained(form.indicesBatching, ivd) ||
      form.indicesBatching.size() != form.operandBatching.size())
    return "index dimensions out of range or unpaired";
  int64_t vectorSize = ivd == indicesRank ? 1 : shapes.indices.getDimSize(ivd);
  if (vectorSize != int64_t(form.indexMap.size()))
    return "index vectors of " + std::to_string(vectorSize) +
           " components for " + std::to_string(form.indexMap.size()) +
           " indexed dimensions";
  int64_t elementsRank = shapes.elements.size();
  if (!isDimList(form.window, elementsRank) ||
      !llvm::is_sorted(form.window) ||
      int64_t(form.window.size()) !=
          rank - int64_t(form.collapsed.size() + form.operandBatching.size()))
    return "window dimensions out of range, unsorted, or not one per kept "
           "operand dimension";
  SmallVector<int64_t> batch;
  for (int64_t d : complement(form.window, elementsRank))
    batch.push_back(shapes.elements[d]);
  SmallVector<int64_t> indexBatch(shapes.indices.getShape());
  if (ivd < indicesRank)
    indexBatch.erase(indexBatch.begin() + ivd);
  if (batch != indexBatch)
    return "batch dimensions that differ from the indices'";
  for (auto [d, i] : llvm::zip(form.operandBatching, form.indicesBatching))
    if (shapes.operand.getDimSize(d) != shapes.indices.getDimSize(i))
      return "batching dimensions of different sizes";
  SmallVector<int64_t> sizes(sliceSizes.empty()
                                 ? updateSliceSizes(form, shapes)
                                 : SmallVector<int64_t>(sliceSizes));
  if (int64_t(sizes.size()) != rank)
    return "slice sizes not one per operand dimension";
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] < 0 || sizes[d] > shapes.operand.getDimSize(d))
      return "slices larger than the operand";
  for (int64_t d : form.collapsed)
    if (sizes[d] != 1)
      return "collapsed dimensions of slice size other than 1";
  for (auto [d, w] : llvm::zip(windowOperandDims(form, rank), form.window))
    if (shapes.elements[w] != sizes[d])
      return "window dimensions that differ from the slice sizes";
  return std::nullopt;
}

/// The batch dimensions of the gather's result (the scatter's updates).
SmallVector<int64_t> batchDimsOf(const IndexForm &form,
                                 const IndexShapes &shapes) {
  return complement(form.window, shapes.elements.size());
}

/// `batchValue`, over the batch, broadcast to the whole gather's result
/// (scatter's updates).
Value overElements(OpBuilder &b, Location loc, Value batchValue,
                   const IndexForm &form, const IndexShapes &shapes) {
  auto type = cast<RankedTensorType>(batchValue.getType());
  if (type.getShape() == shapes.elements)
    return batchValue;
  return kiln::BroadcastInDimOp::create(
      b, loc, type.clone(shapes.elements), batchValue,
      b.getDenseI64ArrayAttr(batchDimsOf(form, shapes)), Value());
}

/// Component `k` of the index vectors, over the batch.
Value startIndex(OpBuilder &b, Location loc, Value indices,
                 const IndexForm &form, const IndexShapes &shapes, int64_t k) {
  int64_t rank = shapes.indices.getRank();
  SmallVector<int64_t> batchShape;
  for (int64_t d : batchDimsOf(form, shapes))
    batchShape.push_back(shapes.elements[d]);
  if (form.indexVectorDim < rank && shapes.indices.getDimSize(form.indexVectorDim) > 1) {
    SmallVector<int64_t> start(rank, 0), strides(rank, 1);
    SmallVector<int64_t> limit(shapes.indices.getShape());
    start[form.indexVectorDim] = k;
    limit[form.indexVectorDim] = k + 1;
    indices = kiln::SliceOp::create(b, loc, indices,
                                    b.getDenseI64ArrayAttr(start),
                                    b.getDenseI64ArrayAttr(limit),
                                    b.getDenseI64ArrayAttr(strides));
  }
  return kiln::ReshapeOp::create(b, loc, shapes.indices.clone(batchShape),
                                 indices);
}

/// Every component of the index vectors (one per indexed operand
/// dimension, in `form.indexMap`'s order), over the batch.
SmallVector<Value> startIndices(OpBuilder &b, Location loc, Value indices,
                                const IndexForm &form,
                                const IndexShapes &shapes) {
  SmallVector<Value> starts;
  for (int64_t k = 0, n = form.indexMap.size(); k < n; ++k)
    starts.push_back(startIndex(b, loc, indices, form, shapes, k));
  return starts;
}

/// The largest start index along operand dimension `d` whose slice fits,
/// and 0, over the batch.
std::pair<Value, Value> startBounds(OpBuilder &b, Location loc, Value start,
                                    const IndexShapes &shapes,
                                    ArrayRef<int64_t> sliceSizes, int64_t d) {
  auto type = cast<RankedTensorType>(start.getType());
  return {splat(b, loc, type, shapes.operand.getDimSize(d) - sliceSizes[d]),
          splat(b, loc, type, 0)};
}

/// Whether each update's slice fits in the operand, over the scatter's
/// updates, given the start indices (`startIndices`); null if all do.
Value slicesFit(OpBuilder &b, Location loc, ArrayRef<Value> starts,
                const IndexForm &form, const IndexShapes &shapes,
                ArrayRef<int64_t> sliceSizes) {
  Value fits;
  for (auto [start, d] : llvm::zip(starts, form.indexMap)) {
    auto [last, zero] = startBounds(b, loc, start, shapes, sliceSizes, d);
    Value inside = kiln::AndOp::create(
        b, loc,
        kiln::CompareOp::create(b, loc, kiln::ComparisonDirection::GE, start,
                                zero),
        kiln::CompareOp::create(b, loc, kiln::ComparisonDirection::LE, start,
                                last));
    fits = fits ? kiln::AndOp::create(b, loc, fits, inside) : inside;
  }
  return fits ? overElements(b, loc, fits, form, shapes) : Value();
}

/// The position in the flattened operand of each element of the gather's
/// result (the scatter's updates), as i64s, given the start indices
/// (`startIndices`). A gather's start indices are clamped (`clamp`) so that
/// its slices fit, as StableHLO's are.
Value flatPositions(OpBuilder &b, Location loc, ArrayRef<Value> starts,
                    const IndexForm &form, const IndexShapes &shapes,
                    ArrayRef<int64_t> sliceSizes, bool clamp) {
  auto whole = RankedTensorType::get(shapes.elements, b.getI64Type());
  int64_t rank = shapes.operand.getRank();
  SmallVector<int64_t> batchDims = batchDimsOf(form, shapes);
  auto iota = [&](int64_t dim) -> Value {
    return kiln::IotaOp::create(b, loc, whole, b.getI64IntegerAttr(dim));
  };
  SmallVector<Value> coordinates(rank);
  auto window = form.window.begin();
  for (int64_t d = 0; d < rank; ++d) {
    auto addTo = [&](Value term) {
      coordinates[d] = coordinates[d]
                           ? kiln::AddOp::create(b, loc, coordinates[d], term)
                           : term;
    };
    if (const int64_t *k = llvm::find(form.indexMap, d);
        k != form.indexMap.end()) {
      Value start = starts[k - form.indexMap.begin()];
      auto type = cast<RankedTensorType>(start.getType());
      if (!type.getElementType().isInteger(64))
        start = kiln::ConvertOp::create(b, loc, type.clone(b.getI64Type()),
                                        start);
      if (clamp) {
        auto [last, zero] = startBounds(b, loc, start, shapes, sliceSizes, d);
        start = kiln::MinOp::create(
            b, loc, kiln::MaxOp::create(b, loc, start, zero), last);
      }
      addTo(overElements(b, loc, start, form, shapes));
    }
    if (const int64_t *p = llvm::find(form.operandBatching, d);
        p != form.operandBatching.end()) {
      int64_t i = form.indicesBatching[p - form.operandBatching.begin()];
      bool afterVector = form.indexVectorDim < shapes.indices.getRank() &&
                         i > form.indexVectorDim;
      addTo(iota(batchDims[i - (afterVector ? 1 : 0)]));
    } else if (!llvm::is_contained(form.collapsed, d)) {
      addTo(iota(*window++));
    }
  }
  // Row-major strides, innermost first.
  Value position;
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (Value c = coordinates[d]) {
      Value term = stride == 1 ? c
                               : Value(kiln::MulOp::create(
                                     b, loc, c, splat(b, loc, whole, stride)));
      position = position ? kiln::AddOp::create(b, loc, position, term) : term;
    }
    stride *= shapes.operand.getDimSize(d);
  }
  return position ? position : splat(b, loc, whole, 0);
}

/// The operand dimension `d` that a gather or scatter indexes, one index
/// per slice, if it takes or writes whole slices along `d` with the batch
/// dimensions of the indices in `d`'s place (jnp.take, x[i], x.at[i].add):
/// kiln.take's and kiln.scatter_add's layout.
std::optional<int64_t> takeDimension(const IndexForm &form,
                                     const IndexShapes &shapes,
                                     ArrayRef<int64_t> sizes) {
  int64_t rank = shapes.operand.getRank();
  int64_t indicesRank = shapes.indices.getRank();
  if (!form.operandBatching.empty() || form.indexMap.size() != 1 ||
      form.collapsed != form.indexMap)
    return std::nullopt;
  int64_t d = form.indexMap.front();
  bool trailingVector = indicesRank > 0 &&
                        form.indexVectorDim == indicesRank - 1 &&
                        shapes.indices.getShape().back() == 1;
  if (form.indexVectorDim != indicesRank && !trailingVector)
    return std::nullopt;
  for (int64_t i = 0; i < rank; ++i)
    if (i != d && sizes[i] != shapes.operand.getDimSize(i))
      return std::nullopt;
  int64_t batchRank = indicesRank - (trailingVector ? 1 : 0);
  SmallVector<int64_t> expected;
  for (int64_t i = 0; i + 1 < rank; ++i)
    expected.push_back(i < d ? i : i + batchRank);
  if (form.window != ArrayRef<int64_t>(expected))
    return std::nullopt;
  return d;
}

/// The indices without their trailing index vector dimension of size 1.
Value batchIndices(OpBuilder &b, Location loc, Value indices,
                   int64_t indexVectorDim) {
  auto type = cast<RankedTensorType>(indices.getType());
  if (indexVectorDim == type.getRank())
    return indices;
  return kiln::ReshapeOp::create(b, loc, type.clone(type.getShape().drop_back()),
                                 indices);
}

/// `value` reshaped to one dimension.
Value flatten(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 1)
    return value;
  return kiln::ReshapeOp::create(b, loc,
                                 type.clone({type.getNumElements()}), value);
}

/// The shapes of a gather or scatter of one tensor, if all are ranked.
std::optional<IndexShapes> shapesOf(Value operand, Value indices,
                                    Type elements) {
  auto operandType = dyn_cast<RankedTensorType>(operand.getType());
  auto indicesType = dyn_cast<RankedTensorType>(indices.getType());
  auto elementsType = dyn_cast<RankedTensorType>(elements);
  if (!operandType || !indicesType || !elementsType ||
      !isa<IntegerType>(indicesType.getElementType()))
    return std::nullopt;
  return IndexShapes{operandType, indicesType, elementsType.getShape()};
}

std::optional<IndexShapes> shapesOf(shlo::GatherOp op) {
  return shapesOf(op.getOperand(), op.getStartIndices(), op.getType());
}

std::optional<IndexShapes> shapesOf(shlo::ScatterOp op) {
  if (op.getInputs().size() != 1 || op.getUpdates().size() != 1)
    return std::nullopt;
  return shapesOf(op.getInputs()[0], op.getScatterIndices(),
                  op.getUpdates()[0].getType());
}

struct Gather : OpConversionPattern<shlo::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<IndexShapes> shapes = shapesOf(op);
    IndexForm form = formOf(op);
    if (!shapes || checkForm(form, *shapes, op.getSliceSizes()))
      return rewriter.notifyMatchFailure(op, "inconsistent gather");
    Location loc = op.getLoc();
    if (std::optional<int64_t> d =
            takeDimension(form, *shapes, op.getSliceSizes())) {
      Value indices = batchIndices(rewriter, loc, adaptor.getStartIndices(),
                                   form.indexVectorDim);
      rewriter.replaceOpWithNewOp<kiln::TakeOp>(
          op, op.getType(), adaptor.getOperand(), indices,
          rewriter.getI64IntegerAttr(*d));
      return success();
    }
    Value positions =
        flatPositions(rewriter, loc,
                      startIndices(rewriter, loc, adaptor.getStartIndices(),
                                   form, *shapes),
                      form, *shapes,
                      op.getSliceSizes(), /*clamp=*/true);
    rewriter.replaceOpWithNewOp<kiln::TakeOp>(
        op, op.getType(), flatten(rewriter, loc, adaptor.getOperand()),
        positions, rewriter.getI64IntegerAttr(0));
    return success();
  }
};

/// Applies a scatter's body to the elements of `flat` at `positions`
/// (flattened) and `updates`, one at a time in order, where `fits` (if
/// given) holds.
Value scatterOneByOne(shlo::ScatterOp op, Value flat, Value positions,
                      Value updates, Value fits,
                      ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto flatType = cast<RankedTensorType>(flat.getType());
  positions = flatten(rewriter, loc, positions);
  updates = flatten(rewriter, loc, updates);
  if (fits)
    fits = flatten(rewriter, loc, fits);
  int64_t count = cast<RankedTensorType>(updates.getType()).getNumElements();
  // The element of a flat tensor at `at`, as a scalar.
  auto element = [&](Value tensor, Value at) -> Value {
    auto type = cast<RankedTensorType>(tensor.getType());
    Value one = kiln::DynamicSliceOp::create(rewriter, loc, tensor,
                                             ValueRange{at},
                                             rewriter.getDenseI64ArrayAttr(1));
    return kiln::ReshapeOp::create(rewriter, loc,
                                   type.clone(ArrayRef<int64_t>{}), one);
  };
  Block &computation = op.getUpdateComputation().front();
  return countedLoop(
      rewriter, loc, count, flat,
      [&](Value i, ValueRange acc) -> SmallVector<Value> {
        Value at = element(positions, i);
        Value old = element(acc[0], at);
        IRMapping map;
        map.map(computation.getArgument(0), old);
        map.map(computation.getArgument(1), element(updates, i));
        for (Operation &nested : computation.without_terminator())
          rewriter.clone(nested, map);
        Value combined =
            map.lookupOrDefault(computation.getTerminator()->getOperand(0));
        if (fits)
          combined = kiln::SelectOp::create(rewriter, loc, old.getType(),
                                            element(fits, i), combined, old);
        return {kiln::DynamicUpdateSliceOp::create(
            rewriter, loc, acc[0],
            kiln::ReshapeOp::create(rewriter, loc,
                                    flatType.clone(ArrayRef<int64_t>{1}),
                                    combined),
            ValueRange{at})};
      })
      .front();
}

/// StableHLO leaves a scatter's updates out of range to the implementation;
/// Kiln drops those whose slice does not fit in the operand, as XLA (and so
/// JAX) does.
struct Scatter : OpConversionPattern<shlo::ScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::ScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<IndexShapes> shapes = shapesOf(op);
    IndexForm form = formOf(op);
    if (!shapes || checkForm(form, *shapes, {}))
      return rewriter.notifyMatchFailure(op, "unsupported scatter");
    Location loc = op.getLoc();
    Value operand = adaptor.getInputs()[0];
    Value updates = adaptor.getUpdates()[0];
    Value indices = adaptor.getScatterIndices();
    SmallVector<int64_t> sizes = updateSliceSizes(form, *shapes);
    SmallVector<Value> starts =
        startIndices(rewriter, loc, indices, form, *shapes);
    Value fits = slicesFit(rewriter, loc, starts, form, *shapes, sizes);
    Operation *body = appliedOp(op.getUpdateComputation());
    if (!body || !isa<shlo::AddOp>(body) || isBoolTensor(op.getType(0))) {
      Value positions = flatPositions(rewriter, loc, starts, form, *shapes,
                                      sizes, /*clamp=*/false);
      Value result =
          scatterOneByOne(op, flatten(rewriter, loc, operand), positions,
                          updates, fits, rewriter);
      rewriter.replaceOpWithNewOp<kiln::ReshapeOp>(op, operand.getType(),
                                                   result);
      return success();
    }
    if (fits) {
      auto updateType = cast<RankedTensorType>(updates.getType());
      Value zeros = kiln::ConstantOp::create(
          rewriter, loc, cast<ElementsAttr>(rewriter.getZeroAttr(updateType)));
      updates = kiln::SelectOp::create(rewriter, loc, updateType, fits,
                                       updates, zeros);
    }
    if (std::optional<int64_t> d = takeDimension(form, *shapes, sizes)) {
      rewriter.replaceOpWithNewOp<kiln::ScatterAddOp>(
          op, operand.getType(), operand,
          batchIndices(rewriter, loc, indices, form.indexVectorDim), updates,
          rewriter.getI64IntegerAttr(*d));
      return success();
    }
    Value positions = flatPositions(rewriter, loc, starts, form, *shapes,
                                    sizes, /*clamp=*/false);
    Value flat = flatten(rewriter, loc, operand);
    Value added = kiln::ScatterAddOp::create(rewriter, loc, flat.getType(),
                                             flat, positions, updates,
                                             rewriter.getI64IntegerAttr(0));
    rewriter.replaceOpWithNewOp<kiln::ReshapeOp>(op, operand.getType(), added);
    return success();
  }
};

} // namespace

namespace kiln::stablehlo_import {

void populateGatherScatterPatterns(RewritePatternSet &patterns) {
  patterns.add<Gather, Scatter>(patterns.getContext());
}

std::optional<std::string> unsupportedGatherScatter(Operation *op) {
  if (auto gather = dyn_cast<shlo::GatherOp>(op)) {
    std::optional<IndexShapes> shapes = shapesOf(gather);
    if (!shapes)
      return std::string("stablehlo.gather: Kiln imports ranked operands "
                         "and integer indices");
    if (std::optional<std::string> why =
            checkForm(formOf(gather), *shapes, gather.getSliceSizes()))
      return "stablehlo.gather: " + *why;
  }
  if (auto scatter = dyn_cast<shlo::ScatterOp>(op)) {
    std::optional<IndexShapes> shapes = shapesOf(scatter);
    Block &body = scatter.getUpdateComputation().front();
    auto isScalar = [&](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      return tensor && tensor.getRank() == 0 &&
             tensor.getElementType() == shapes->operand.getElementType();
    };
    if (!shapes || body.getNumArguments() != 2 ||
        !llvm::all_of(body.getArgumentTypes(), isScalar) ||
        body.getTerminator()->getNumOperands() != 1)
      return std::string("stablehlo.scatter: Kiln imports scatters into "
                         "one ranked tensor, with integer indices and a "
                         "body of two scalars");
    if (std::optional<std::string> why =
            checkForm(formOf(scatter), *shapes, {}))
      return "stablehlo.scatter: " + *why;
  }
  return std::nullopt;
}

} // namespace kiln::stablehlo_import
