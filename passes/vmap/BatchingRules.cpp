//===- BatchingRules.cpp - the batching rule of every kiln op -------------===//
//
// JAX's batching rules (jax/_src/lax/lax.py, slicing.py), attached to the
// kiln ops as external models. A rule gets the op's operands with a batch
// dimension each (-1: not batched; at least one is batched) and builds the
// op on the whole batch, saying where each result's batch dimension is.
// Batch dimensions stay where they are when the op allows it (elementwise
// ops, slices, reductions); otherwise they move to the front. The batch
// becomes part of the op: a batching dimension of dot_general, a wider
// gather, never a loop.
//
//===----------------------------------------------------------------------===//
#include "BatchBuilders.h"
#include "Vmap.h"
#include "kiln/KilnDialect.h"
#include "passes/grad/RuleBuilders.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace kiln;

namespace {

/// A rule `Rule(op, b, operands, dims, size, results, resultDims)`.
using Rule = LogicalResult (*)(Operation *, OpBuilder &, ValueRange,
                               ArrayRef<int64_t>, int64_t,
                               SmallVectorImpl<Value> &,
                               SmallVectorImpl<int64_t> &);

template <typename OpTy, Rule Batch>
struct BatchingModel
    : BatchingOpInterface::ExternalModel<BatchingModel<OpTy, Batch>, OpTy> {
  LogicalResult buildBatched(Operation *op, OpBuilder &b, ValueRange operands,
                             ArrayRef<int64_t> batchDims, int64_t batchSize,
                             SmallVectorImpl<Value> &results,
                             SmallVectorImpl<int64_t> &resultBatchDims) const {
    return Batch(op, b, operands, batchDims, batchSize, results,
                 resultBatchDims);
  }
};

/// `op` again on `operands`, its single result batched at `dim`, with
/// `attrs` replacing its attributes of the same names.
Value rebuild(OpBuilder &b, Operation *op, ValueRange operands, int64_t dim,
              int64_t size, ArrayRef<NamedAttribute> attrs = {}) {
  Operation *copy = b.clone(*op);
  copy->setOperands(operands);
  for (NamedAttribute attr : attrs)
    copy->setAttr(attr.getName(), attr.getValue());
  Value result = copy->getResult(0);
  result.setType(batchedType(result.getType(), dim, size));
  return result;
}

/// `dims` (dimensions of an operand before batching) as dimensions of the
/// operand batched at `batch`.
SmallVector<int64_t> shifted(ArrayRef<int64_t> dims, int64_t batch) {
  SmallVector<int64_t> result;
  for (int64_t d : dims)
    result.push_back(d >= batch ? d + 1 : d);
  return result;
}

/// `values` with `value` inserted at `at`.
SmallVector<int64_t> inserted(ArrayRef<int64_t> values, int64_t at,
                              int64_t value) {
  SmallVector<int64_t> result(values);
  result.insert(result.begin() + at, value);
  return result;
}

NamedAttribute named(OpBuilder &b, StringRef name, ArrayRef<int64_t> values) {
  return b.getNamedAttr(name, b.getDenseI64ArrayAttr(values));
}

NamedAttribute named(OpBuilder &b, StringRef name, int64_t value) {
  return b.getNamedAttr(name, b.getI64IntegerAttr(value));
}

/// The batch dimension of the first batched operand.
int64_t firstBatched(ArrayRef<int64_t> dims) {
  for (int64_t d : dims)
    if (d != -1)
      return d;
  return -1;
}

//===----------------------------------------------------------------------===//
// Elementwise ops: the batch stays where the first batched operand has it
//===----------------------------------------------------------------------===//

/// Operands of the result's shape are batched at the same dimension (moved,
/// or broadcast when unbatched, as kiln's elementwise ops take equal
/// shapes); a scalar predicate (select's) stays a scalar unless batched.
LogicalResult batchElementwise(Operation *op, OpBuilder &b, ValueRange operands,
                               ArrayRef<int64_t> dims, int64_t size,
                               SmallVectorImpl<Value> &results,
                               SmallVectorImpl<int64_t> &resultDims) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = resultType.getRank(), dim = -1;
  for (auto [operand, d] : llvm::zip_equal(op->getOperands(), dims))
    if (d != -1 && tensorType(operand).getRank() == rank) {
      dim = d;
      break;
    }
  if (dim == -1) // Only a scalar predicate is batched.
    dim = 0;
  SmallVector<Value> batched;
  for (auto [original, operand, d] :
       llvm::zip_equal(op->getOperands(), operands, dims)) {
    if (tensorType(original).getRank() < rank) {
      batched.push_back(
          d == -1 ? operand
                  : BroadcastInDimOp::create(
                        b, loc,
                        batchedType(resultType.clone(b.getI1Type()), dim,
                                    size),
                        operand, ArrayRef<int64_t>{dim}));
      continue;
    }
    batched.push_back(batchAt(b, loc, operand, d, dim, size));
  }
  results.push_back(rebuild(b, op, batched, dim, size));
  resultDims.push_back(dim);
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// broadcast_in_dim: the batch goes first in the operand and the result
/// (the mapping of dimensions must increase).
LogicalResult batchBroadcast(Operation *op, OpBuilder &b, ValueRange operands,
                             ArrayRef<int64_t> dims, int64_t size,
                             SmallVectorImpl<Value> &results,
                             SmallVectorImpl<int64_t> &resultDims) {
  auto broadcast = cast<BroadcastInDimOp>(op);
  Location loc = op->getLoc();
  SmallVector<int64_t> mapping = {0};
  for (int64_t d : broadcast.getBroadcastDimensions())
    mapping.push_back(d + 1);
  results.push_back(BroadcastInDimOp::create(
      b, loc, batchedType(broadcast.getType(), 0, size),
      moveBatchDim(b, loc, operands[0], dims[0], 0), mapping));
  resultDims.push_back(0);
  return success();
}

/// reshape: of the operand with its batch first.
LogicalResult batchReshape(Operation *op, OpBuilder &b, ValueRange operands,
                           ArrayRef<int64_t> dims, int64_t size,
                           SmallVectorImpl<Value> &results,
                           SmallVectorImpl<int64_t> &resultDims) {
  Location loc = op->getLoc();
  results.push_back(ReshapeOp::create(
      b, loc, batchedType(op->getResult(0).getType(), 0, size),
      moveBatchDim(b, loc, operands[0], dims[0], 0)));
  resultDims.push_back(0);
  return success();
}

/// transpose: the batch goes first, the other dimensions as permuted.
LogicalResult batchTranspose(Operation *op, OpBuilder &b, ValueRange operands,
                             ArrayRef<int64_t> dims, int64_t size,
                             SmallVectorImpl<Value> &results,
                             SmallVectorImpl<int64_t> &resultDims) {
  SmallVector<int64_t> permutation = {dims[0]};
  llvm::append_range(permutation,
                     shifted(cast<TransposeOp>(op).getPermutation(), dims[0]));
  results.push_back(
      TransposeOp::create(b, op->getLoc(), operands[0], permutation));
  resultDims.push_back(0);
  return success();
}

/// slice: the whole batch, in place.
LogicalResult batchSlice(Operation *op, OpBuilder &b, ValueRange operands,
                         ArrayRef<int64_t> dims, int64_t size,
                         SmallVectorImpl<Value> &results,
                         SmallVectorImpl<int64_t> &resultDims) {
  auto slice = cast<SliceOp>(op);
  int64_t d = dims[0];
  results.push_back(rebuild(
      b, op, operands, d, size,
      {named(b, "start_indices", inserted(slice.getStartIndices(), d, 0)),
       named(b, "limit_indices", inserted(slice.getLimitIndices(), d, size)),
       named(b, "strides", inserted(slice.getStrides(), d, 1))}));
  resultDims.push_back(d);
  return success();
}

/// reverse: in place, the reversed dimensions renumbered.
LogicalResult batchReverse(Operation *op, OpBuilder &b, ValueRange operands,
                           ArrayRef<int64_t> dims, int64_t size,
                           SmallVectorImpl<Value> &results,
                           SmallVectorImpl<int64_t> &resultDims) {
  results.push_back(rebuild(
      b, op, operands, dims[0], size,
      {named(b, "dimensions",
             shifted(cast<ReverseOp>(op).getDimensions(), dims[0]))}));
  resultDims.push_back(dims[0]);
  return success();
}

/// sharding_constraint: the batch dimension is whole on every device.
LogicalResult batchShardingConstraint(Operation *op, OpBuilder &b,
                                      ValueRange operands,
                                      ArrayRef<int64_t> dims, int64_t size,
                                      SmallVectorImpl<Value> &results,
                                      SmallVectorImpl<int64_t> &resultDims) {
  Attribute layout = cast<ShardingConstraintOp>(op).getSharding();
  results.push_back(
      rebuild(b, op, operands, dims[0], size,
              {b.getNamedAttr("sharding", withWholeDimension(layout, dims[0]))}));
  resultDims.push_back(dims[0]);
  return success();
}

/// pad: no padding along the batch. A batched padding value fills, per
/// lane, where a padded mask of the operand's positions is false.
LogicalResult batchPad(Operation *op, OpBuilder &b, ValueRange operands,
                       ArrayRef<int64_t> dims, int64_t size,
                       SmallVectorImpl<Value> &results,
                       SmallVectorImpl<int64_t> &resultDims) {
  auto pad = cast<PadOp>(op);
  Location loc = op->getLoc();
  int64_t d = dims[0] == -1 ? 0 : dims[0];
  auto attrs = [&](int64_t at) -> SmallVector<NamedAttribute> {
    return {named(b, "edge_padding_low",
                  inserted(pad.getEdgePaddingLow(), at, 0)),
            named(b, "edge_padding_high",
                  inserted(pad.getEdgePaddingHigh(), at, 0)),
            named(b, "interior_padding",
                  inserted(pad.getInteriorPadding(), at, 0))};
  };
  Value operand = batchAt(b, loc, operands[0], dims[0], d, size);
  if (dims[1] == -1) {
    results.push_back(rebuild(b, op, {operand, operands[1]}, d, size,
                              attrs(d)));
    resultDims.push_back(d);
    return success();
  }
  auto resultType = tensorType(pad.getResult());
  Value padded =
      rebuild(b, op, {operand, zeros(b, loc, pad.getPaddingValue().getType())},
              d, size, attrs(d));
  auto maskType = tensorType(pad.getOperand()).clone(b.getI1Type());
  Value inside = ConstantOp::create(
      b, loc, maskType, DenseElementsAttr::get(maskType, true));
  Value outside = ConstantOp::create(
      b, loc, RankedTensorType::get({}, b.getI1Type()),
      DenseElementsAttr::get(RankedTensorType::get({}, b.getI1Type()), false));
  Value mask = PadOp::create(b, loc, inside, outside, pad.getEdgePaddingLow(),
                             pad.getEdgePaddingHigh(),
                             pad.getInteriorPadding());
  auto batched = batchedType(resultType, d, size);
  Value fill = BroadcastInDimOp::create(b, loc, batched, operands[1],
                                        ArrayRef<int64_t>{d});
  results.push_back(SelectOp::create(
      b, loc, batchAt(b, loc, mask, -1, d, size), padded, fill));
  resultDims.push_back(d);
  return success();
}

/// concatenate: every input batched first.
LogicalResult batchConcatenate(Operation *op, OpBuilder &b,
                               ValueRange operands, ArrayRef<int64_t> dims,
                               int64_t size, SmallVectorImpl<Value> &results,
                               SmallVectorImpl<int64_t> &resultDims) {
  SmallVector<Value> batched;
  for (auto [operand, d] : llvm::zip_equal(operands, dims))
    batched.push_back(batchAt(b, op->getLoc(), operand, d, 0, size));
  results.push_back(rebuild(
      b, op, batched, 0, size,
      {named(b, "dimension", cast<ConcatenateOp>(op).getDimension() + 1)}));
  resultDims.push_back(0);
  return success();
}

//===----------------------------------------------------------------------===//
// Gathers with batched indices, as one take of a flattened operand
//===----------------------------------------------------------------------===//

/// `indices` (batched at 0, of any integer type) clamped into [0, bound]
/// and offset by `stride` times their batch position: indices into the
/// batch dimension and the next one of an operand merged into one.
Value offsetIndices(OpBuilder &b, Location loc, Value indices, int64_t bound,
                    int64_t stride) {
  auto type = tensorType(indices);
  Value clamped = MinOp::create(
      b, loc, MaxOp::create(b, loc, indices, integerSplat(b, loc, type, 0)),
      integerSplat(b, loc, type, bound));
  Value position = IotaOp::create(b, loc, type, 0);
  return AddOp::create(b, loc, clamped,
                       MulOp::create(b, loc, position,
                                     integerSplat(b, loc, type, stride)));
}

/// The permutation that moves dimension `from` of a rank-`rank` tensor to
/// position `to`, keeping the others in order.
SmallVector<int64_t> moving(int64_t rank, int64_t from, int64_t to) {
  SmallVector<int64_t> permutation;
  for (int64_t d = 0; d < rank; ++d)
    if (d != from)
      permutation.push_back(d);
  permutation.insert(permutation.begin() + to, from);
  return permutation;
}

/// `operand` batched at 0 with dimension `dim` (of the unbatched operand)
/// merged into the batch: [B, pre, N, post] -> [B * N, pre, post].
Value mergeIntoBatch(OpBuilder &b, Location loc, Value operand, int64_t dim) {
  auto type = tensorType(operand);
  Value moved = TransposeOp::create(b, loc, operand,
                                    moving(type.getRank(), dim + 1, 1));
  SmallVector<int64_t> shape = {type.getDimSize(0) * type.getDimSize(dim + 1)};
  for (int64_t d = 1; d < type.getRank(); ++d)
    if (d != dim + 1)
      shape.push_back(type.getDimSize(d));
  return ReshapeOp::create(b, loc, type.clone(shape), moved);
}

/// take of `operand` and `indices`, both batched at 0, along `dim`: per
/// batch element, as one take of the operand with the batch merged into
/// the taken dimension. The result is batched at 0.
Value batchedTake(OpBuilder &b, Location loc, Value operand, Value indices,
                  int64_t dim) {
  auto type = tensorType(operand);
  int64_t n = type.getDimSize(dim + 1);
  Value table = mergeIntoBatch(b, loc, operand, dim);
  Value offsets = offsetIndices(b, loc, indices, n - 1, n);
  // [B, idx..., pre..., post...] -> [B, pre..., idx..., post...].
  Value taken = TakeOp::create(b, loc, table, offsets, 0);
  int64_t idxRank = tensorType(indices).getRank() - 1;
  SmallVector<int64_t> permutation = {0};
  for (int64_t d = 0; d < dim; ++d)
    permutation.push_back(1 + idxRank + d);
  for (int64_t d = 0; d < idxRank; ++d)
    permutation.push_back(1 + d);
  for (int64_t d = 1 + idxRank + dim; d < tensorType(taken).getRank(); ++d)
    permutation.push_back(d);
  return TransposeOp::create(b, loc, taken, permutation);
}

/// scatter_add of `updates` into `operand` at `indices`, all batched at 0,
/// along `dim`: the transpose of batchedTake.
Value batchedScatterAdd(OpBuilder &b, Location loc, Value operand,
                        Value indices, Value updates, int64_t dim) {
  auto type = tensorType(operand);
  int64_t n = type.getDimSize(dim + 1);
  Value table = mergeIntoBatch(b, loc, operand, dim);
  Value offsets = offsetIndices(b, loc, indices, n - 1, n);
  // [B, pre..., idx..., post...] -> [B, idx..., pre..., post...].
  int64_t idxRank = tensorType(indices).getRank() - 1;
  SmallVector<int64_t> permutation = {0};
  for (int64_t d = 0; d < idxRank; ++d)
    permutation.push_back(1 + dim + d);
  for (int64_t d = 0; d < dim; ++d)
    permutation.push_back(1 + d);
  for (int64_t d = 1 + dim + idxRank; d < tensorType(updates).getRank(); ++d)
    permutation.push_back(d);
  Value moved = TransposeOp::create(b, loc, updates, permutation);
  Value summed = ScatterAddOp::create(b, loc, table.getType(), table, offsets,
                                      moved, 0);
  // [B * N, pre, post] -> [B, N, pre, post] -> [B, pre, N, post].
  SmallVector<int64_t> split = {type.getDimSize(0), n};
  for (int64_t d = 1; d < type.getRank(); ++d)
    if (d != dim + 1)
      split.push_back(type.getDimSize(d));
  Value unmerged = ReshapeOp::create(b, loc, type.clone(split), summed);
  return TransposeOp::create(b, loc, unmerged,
                             moving(type.getRank(), 1, dim + 1));
}

/// take: a batched operand or batched indices are a take of the same kind;
/// both batched, a take of the batch-merged operand.
LogicalResult batchTake(Operation *op, OpBuilder &b, ValueRange operands,
                        ArrayRef<int64_t> dims, int64_t size,
                        SmallVectorImpl<Value> &results,
                        SmallVectorImpl<int64_t> &resultDims) {
  auto take = cast<TakeOp>(op);
  Location loc = op->getLoc();
  int64_t dim = take.getDimension();
  int64_t indicesRank = tensorType(take.getIndices()).getRank();
  if (dims[1] == -1) {
    int64_t taken = dims[0] <= dim ? dim + 1 : dim;
    int64_t result = dims[0] <= dim ? dims[0] : dims[0] + indicesRank - 1;
    results.push_back(rebuild(b, op, operands, result, size,
                              {named(b, "dimension", taken)}));
    resultDims.push_back(result);
    return success();
  }
  if (dims[0] == -1) {
    results.push_back(rebuild(b, op, operands, dim + dims[1], size));
    resultDims.push_back(dim + dims[1]);
    return success();
  }
  results.push_back(batchedTake(b, loc,
                                moveBatchDim(b, loc, operands[0], dims[0], 0),
                                moveBatchDim(b, loc, operands[1], dims[1], 0),
                                dim));
  resultDims.push_back(0);
  return success();
}

/// scatter_add: with unbatched indices, one scatter_add with the batch
/// first; with batched ones, a scatter_add into the batch-merged operand.
LogicalResult batchScatterAdd(Operation *op, OpBuilder &b, ValueRange operands,
                              ArrayRef<int64_t> dims, int64_t size,
                              SmallVectorImpl<Value> &results,
                              SmallVectorImpl<int64_t> &resultDims) {
  auto scatter = cast<ScatterAddOp>(op);
  Location loc = op->getLoc();
  int64_t dim = scatter.getDimension();
  Value operand = batchAt(b, loc, operands[0], dims[0], 0, size);
  Value updates = batchAt(b, loc, operands[2], dims[2], 0, size);
  if (dims[1] == -1)
    results.push_back(ScatterAddOp::create(b, loc, operand.getType(), operand,
                                           operands[1], updates, dim + 1));
  else
    results.push_back(batchedScatterAdd(
        b, loc, operand, moveBatchDim(b, loc, operands[1], dims[1], 0),
        updates, dim));
  resultDims.push_back(0);
  return success();
}

/// The start indices of a dynamic slice or update, of which some are
/// batched: each clamped into [0, dim - size] and added to an iota, as the
/// indices (batched at 0, shape [B, size]) of a take along that dimension.
SmallVector<Value> windowIndices(OpBuilder &b, Location loc, ValueRange starts,
                                 ArrayRef<int64_t> dims, int64_t size,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> sizes) {
  SmallVector<Value> windows;
  Type i64 = b.getI64Type();
  for (auto [k, start, d] : llvm::enumerate(starts, dims)) {
    auto batchedType = RankedTensorType::get({size}, i64);
    Value wide = ConvertOp::create(
        b, loc, tensorType(start).clone(i64), start);
    Value perElement =
        d == -1 ? BroadcastInDimOp::create(b, loc, batchedType, wide,
                                           ArrayRef<int64_t>{})
                      .getResult()
                : wide;
    auto constant = [&](int64_t value) {
      return integerSplat(b, loc, batchedType, value);
    };
    Value clamped = MinOp::create(
        b, loc, MaxOp::create(b, loc, perElement, constant(0)),
        constant(shape[k] - sizes[k]));
    auto windowType = RankedTensorType::get({size, sizes[k]}, i64);
    windows.push_back(AddOp::create(
        b, loc,
        BroadcastInDimOp::create(b, loc, windowType, clamped,
                                 ArrayRef<int64_t>{0}),
        IotaOp::create(b, loc, windowType, 1)));
  }
  return windows;
}

/// dynamic_slice: with unbatched starts, a dynamic_slice of the whole batch
/// (starting at 0 along it); with batched starts, one batched take per
/// dimension of the window.
LogicalResult batchDynamicSlice(Operation *op, OpBuilder &b,
                                ValueRange operands, ArrayRef<int64_t> dims,
                                int64_t size, SmallVectorImpl<Value> &results,
                                SmallVectorImpl<int64_t> &resultDims) {
  auto slice = cast<DynamicSliceOp>(op);
  Location loc = op->getLoc();
  ArrayRef<int64_t> startDims = dims.drop_front();
  ArrayRef<int64_t> sizes = slice.getSliceSizes();
  if (llvm::all_of(startDims, [](int64_t d) { return d == -1; })) {
    int64_t d = dims[0];
    SmallVector<Value> batched(operands);
    Type index = operands.size() > 1
                     ? operands[1].getType()
                     : RankedTensorType::get({}, b.getI32Type());
    batched.insert(batched.begin() + 1 + d, zeros(b, loc, index));
    results.push_back(rebuild(b, op, batched, d, size,
                              {named(b, "slice_sizes",
                                     inserted(sizes, d, size))}));
    resultDims.push_back(d);
    return success();
  }
  Value window = batchAt(b, loc, operands[0], dims[0], 0, size);
  SmallVector<Value> indices =
      windowIndices(b, loc, operands.drop_front(), startDims, size,
                    tensorType(slice.getOperand()).getShape(), sizes);
  for (auto [k, index] : llvm::enumerate(indices))
    window = batchedTake(b, loc, window, index, k);
  results.push_back(window);
  resultDims.push_back(0);
  return success();
}

/// dynamic_update_slice: with unbatched starts, one update of the whole
/// batch; with batched starts, the operand with the update scattered into
/// it per batch element, and a scattered mask choosing between them.
LogicalResult batchDynamicUpdateSlice(Operation *op, OpBuilder &b,
                                      ValueRange operands,
                                      ArrayRef<int64_t> dims, int64_t size,
                                      SmallVectorImpl<Value> &results,
                                      SmallVectorImpl<int64_t> &resultDims) {
  auto update = cast<DynamicUpdateSliceOp>(op);
  Location loc = op->getLoc();
  ArrayRef<int64_t> startDims = dims.drop_front(2);
  if (llvm::all_of(startDims, [](int64_t d) { return d == -1; })) {
    int64_t d = firstBatched(dims.take_front(2));
    SmallVector<Value> batched = {
        batchAt(b, loc, operands[0], dims[0], d, size),
        batchAt(b, loc, operands[1], dims[1], d, size)};
    llvm::append_range(batched, operands.drop_front(2));
    Type index = operands.size() > 2
                     ? operands[2].getType()
                     : RankedTensorType::get({}, b.getI32Type());
    batched.insert(batched.begin() + 2 + d, zeros(b, loc, index));
    results.push_back(rebuild(b, op, batched, d, size));
    resultDims.push_back(d);
    return success();
  }
  // Per batch element, the flat positions the update covers: a take of
  // the positions of the operand's elements along each window dimension.
  auto type = tensorType(update.getOperand());
  auto updateType = tensorType(update.getUpdate());
  Type i64 = b.getI64Type();
  auto positionsType = batchedType(type.clone(i64), 0, size);
  Value positions = zeros(b, loc, positionsType);
  int64_t stride = 1;
  for (int64_t k = type.getRank() - 1; k >= 0; --k) {
    Value along = IotaOp::create(b, loc, positionsType, k + 1);
    positions = AddOp::create(
        b, loc, positions,
        MulOp::create(b, loc, along,
                      integerSplat(b, loc, positionsType, stride)));
    stride *= type.getDimSize(k);
  }
  SmallVector<Value> indices =
      windowIndices(b, loc, operands.drop_front(2), startDims, size,
                    type.getShape(), updateType.getShape());
  for (auto [k, index] : llvm::enumerate(indices))
    positions = batchedTake(b, loc, positions, index, k);
  auto flatType = RankedTensorType::get({size, type.getNumElements()},
                                        type.getElementType());
  auto flatPositions = RankedTensorType::get(
      {size, updateType.getNumElements()}, i64);
  positions = ReshapeOp::create(b, loc, flatPositions, positions);
  Value values = ReshapeOp::create(
      b, loc, RankedTensorType::get({size, updateType.getNumElements()},
                                    type.getElementType()),
      batchAt(b, loc, operands[1], dims[1], 0, size));
  Value operand = ReshapeOp::create(
      b, loc, flatType, batchAt(b, loc, operands[0], dims[0], 0, size));
  // Booleans are scattered as integers.
  Type element = type.getElementType();
  bool isBool = element.isInteger(1);
  auto scatterType = flatType.clone(isBool ? b.getI32Type() : element);
  if (isBool)
    values = ConvertOp::create(
        b, loc, tensorType(values).clone(b.getI32Type()), values);
  Value scattered = batchedScatterAdd(b, loc, zeros(b, loc, scatterType),
                                      positions, values, 0);
  auto countType = flatType.clone(b.getI32Type());
  Value ones =
      integerSplat(b, loc, tensorType(positions).clone(b.getI32Type()), 1);
  Value covered = CompareOp::create(
      b, loc, ComparisonDirection::GT,
      batchedScatterAdd(b, loc, zeros(b, loc, countType), positions, ones, 0),
      zeros(b, loc, countType));
  if (isBool)
    scattered = CompareOp::create(b, loc, ComparisonDirection::NE, scattered,
                                  zeros(b, loc, scatterType));
  Value chosen = SelectOp::create(b, loc, covered, scattered, operand);
  results.push_back(
      ReshapeOp::create(b, loc, batchedType(type, 0, size), chosen));
  resultDims.push_back(0);
  return success();
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

/// Reductions: in place, the reduced dimensions renumbered; the result's
/// batch dimension is the operand's less the reduced dimensions before it.
LogicalResult batchReduce(Operation *op, OpBuilder &b, ValueRange operands,
                          ArrayRef<int64_t> dims, int64_t size,
                          SmallVectorImpl<Value> &results,
                          SmallVectorImpl<int64_t> &resultDims) {
  auto reduced = op->getAttrOfType<DenseI64ArrayAttr>("dimensions").asArrayRef();
  int64_t d = dims[0];
  int64_t result = d - llvm::count_if(reduced, [&](int64_t r) { return r < d; });
  results.push_back(rebuild(b, op, operands, result, size,
                            {named(b, "dimensions", shifted(reduced, d))}));
  resultDims.push_back(result);
  return success();
}

/// argmax: in place, like a reduction over one dimension.
LogicalResult batchArgmax(Operation *op, OpBuilder &b, ValueRange operands,
                          ArrayRef<int64_t> dims, int64_t size,
                          SmallVectorImpl<Value> &results,
                          SmallVectorImpl<int64_t> &resultDims) {
  int64_t dim = cast<ArgmaxOp>(op).getDimension(), d = dims[0];
  int64_t result = dim < d ? d - 1 : d;
  results.push_back(rebuild(b, op, operands, result, size,
                            {named(b, "dimension", dim >= d ? dim + 1 : dim)}));
  resultDims.push_back(result);
  return success();
}

/// dot_general: both sides batched, the batch is a new batching dimension
/// (first in the result); one side batched, it is a free dimension of that
/// side, where the result keeps that side's free dimensions.
LogicalResult batchDot(Operation *op, OpBuilder &b, ValueRange operands,
                       ArrayRef<int64_t> dims, int64_t size,
                       SmallVectorImpl<Value> &results,
                       SmallVectorImpl<int64_t> &resultDims) {
  auto dot = cast<DotGeneralOp>(op);
  SmallVector<int64_t> lb(dot.getLhsBatchingDimensions()),
      rb(dot.getRhsBatchingDimensions()), lc(dot.getLhsContractingDimensions()),
      rc(dot.getRhsContractingDimensions());
  int64_t result;
  if (dims[0] != -1 && dims[1] != -1) {
    // Batching dimensions come first in the result, in their order.
    lb = inserted(shifted(lb, dims[0]), 0, dims[0]);
    rb = inserted(shifted(rb, dims[1]), 0, dims[1]);
    lc = shifted(lc, dims[0]);
    rc = shifted(rc, dims[1]);
    result = 0;
  } else {
    bool left = dims[0] != -1;
    int64_t d = left ? dims[0] : dims[1];
    SmallVector<int64_t> &batch = left ? lb : rb, &contract = left ? lc : rc;
    batch = shifted(batch, d);
    contract = shifted(contract, d);
    // The result is [batching dims, lhs free dims, rhs free dims].
    auto isFree = [&](int64_t x) {
      return !llvm::is_contained(batch, x) && !llvm::is_contained(contract, x);
    };
    result = int64_t(lb.size()) + llvm::count_if(llvm::seq<int64_t>(0, d), isFree);
    if (!left)
      result += tensorType(dot.getLhs()).getRank() - int64_t(lb.size()) -
                int64_t(lc.size());
  }
  results.push_back(rebuild(b, op, operands, result, size,
                            {named(b, "lhs_batching_dimensions", lb),
                             named(b, "rhs_batching_dimensions", rb),
                             named(b, "lhs_contracting_dimensions", lc),
                             named(b, "rhs_contracting_dimensions", rc)}));
  resultDims.push_back(result);
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// `pred`, a batch of scalar predicates ([size] i1), broadcast to choose
/// between values of `type`, whose batch dimension is `dim`.
Value lanePredicate(OpBuilder &b, Location loc, Value pred, Type type,
                    int64_t dim) {
  auto choice = cast<RankedTensorType>(type).clone(b.getI1Type());
  return BroadcastInDimOp::create(b, loc, choice, pred,
                                  ArrayRef<int64_t>{dim});
}

/// Whether any of `pred`'s lanes ([size] i1) is true, as a scalar.
Value anyLane(OpBuilder &b, Location loc, Value pred) {
  auto ints = tensorType(pred).clone(b.getI32Type());
  Value count = ReduceSumOp::create(
      b, loc, ConvertOp::create(b, loc, ints, pred), ArrayRef<int64_t>{0});
  return CompareOp::create(b, loc, ComparisonDirection::GT, count,
                           zeros(b, loc, count.getType()));
}

/// `a` and `b` (batched at `aDim`, `bDim`) at one batch dimension: the
/// first one batched has, or 0 (broadcasting an unbatched one) if
/// `mustBatch`; -1 if neither is batched and need not be.
int64_t commonDim(int64_t aDim, int64_t bDim, bool mustBatch) {
  if (aDim != -1)
    return aDim;
  if (bDim != -1)
    return bDim;
  return mustBatch ? 0 : -1;
}

/// cond: on a batched predicate, both branches run on the whole batch and
/// each lane selects its branch's result (JAX's rule); on an unbatched one,
/// a cond whose branches yield each result batched alike.
struct CondBatching
    : RegionBatchingOpInterface::ExternalModel<CondBatching, CondOp> {
  LogicalResult buildRegionBatched(Operation *op, OpBuilder &b,
                                   BatchRegionEmitter &engine,
                                   SmallVectorImpl<Value> &results,
                                   SmallVectorImpl<int64_t> &resultDims) const {
    auto cond = cast<CondOp>(op);
    Location loc = op->getLoc();
    int64_t size = engine.batchSize();
    auto [pred, predDim] = engine.batched(cond.getPred());
    SmallVector<Value> yielded[2];
    SmallVector<int64_t> yieldedDims[2];
    if (predDim != -1) {
      for (int i : {0, 1})
        if (failed(engine.emitBlock(b, cond->getRegion(i).front(), {}, {},
                                    yielded[i], yieldedDims[i])))
          return failure();
      for (unsigned j = 0; j < cond.getNumResults(); ++j) {
        int64_t dim = commonDim(yieldedDims[0][j], yieldedDims[1][j], true);
        Value onTrue = batchAt(b, loc, yielded[0][j], yieldedDims[0][j], dim,
                               size);
        Value onFalse = batchAt(b, loc, yielded[1][j], yieldedDims[1][j], dim,
                                size);
        results.push_back(SelectOp::create(
            b, loc, lanePredicate(b, loc, pred, onTrue.getType(), dim),
            onTrue, onFalse));
        resultDims.push_back(dim);
      }
      return success();
    }
    std::unique_ptr<Block> branches[2] = {std::make_unique<Block>(),
                                          std::make_unique<Block>()};
    OpBuilder inner(b.getContext());
    for (int i : {0, 1}) {
      inner.setInsertionPointToEnd(branches[i].get());
      if (failed(engine.emitBlock(inner, cond->getRegion(i).front(), {}, {},
                                  yielded[i], yieldedDims[i])))
        return failure();
    }
    SmallVector<Type> types;
    for (unsigned j = 0; j < cond.getNumResults(); ++j) {
      int64_t dim = yieldedDims[0][j] == yieldedDims[1][j]
                        ? yieldedDims[0][j]
                        : commonDim(yieldedDims[0][j], yieldedDims[1][j], true);
      for (int i : {0, 1}) {
        inner.setInsertionPointToEnd(branches[i].get());
        yielded[i][j] = dim == -1 ? yielded[i][j]
                                  : batchAt(inner, loc, yielded[i][j],
                                            yieldedDims[i][j], dim, size);
      }
      types.push_back(yielded[0][j].getType());
      resultDims.push_back(dim);
    }
    auto batched = CondOp::create(b, loc, types, pred);
    for (int i : {0, 1}) {
      inner.setInsertionPointToEnd(branches[i].get());
      YieldOp::create(inner, loc, yielded[i]);
      batched->getRegion(i).push_back(branches[i].release());
    }
    llvm::append_range(results, batched.getResults());
    return success();
  }
};

/// while: the carried values batched (first) are those batched on entry or
/// made batched by the body, grown to a fixed point. On an unbatched
/// condition the loop is one loop of the batch; on a batched one it runs
/// while any lane's condition holds, and a lane whose condition no longer
/// holds keeps its carried values (JAX's rule).
struct WhileBatching
    : RegionBatchingOpInterface::ExternalModel<WhileBatching, WhileOp> {
  LogicalResult buildRegionBatched(Operation *op, OpBuilder &b,
                                   BatchRegionEmitter &engine,
                                   SmallVectorImpl<Value> &results,
                                   SmallVectorImpl<int64_t> &resultDims) const {
    auto loop = cast<WhileOp>(op);
    Location loc = op->getLoc();
    int64_t size = engine.batchSize();
    unsigned n = loop.getNumOperands();
    SmallVector<Value> inits;
    SmallVector<bool> isBatched;
    SmallVector<int64_t> initDims;
    for (Value operand : loop.getOperands()) {
      auto [value, dim] = engine.batched(operand);
      inits.push_back(value);
      initDims.push_back(dim);
      isBatched.push_back(dim != -1);
    }
    // The fixed point, emitted into scratch blocks that are dropped.
    bool lanes = false;
    for (bool grown = true; grown;) {
      grown = false;
      Block scratch;
      SmallVector<Value> args = carriedArguments(scratch, loop, isBatched,
                                                 size);
      OpBuilder inner(b.getContext());
      inner.setInsertionPointToEnd(&scratch);
      SmallVector<Value> pred, next;
      SmallVector<int64_t> predDim, nextDims;
      if (failed(engine.emitBlock(inner, loop.getCond().front(), args,
                                  dimsOf(isBatched), pred, predDim)) ||
          failed(engine.emitBlock(inner, loop.getBody().front(), args,
                                  dimsOf(isBatched), next, nextDims)))
        return failure();
      lanes = predDim[0] != -1;
      for (unsigned j = 0; j < n; ++j)
        if (!isBatched[j] && (nextDims[j] != -1 || lanes))
          isBatched[j] = grown = true;
      scratch.dropAllDefinedValueUses();
      scratch.dropAllReferences();
    }
    SmallVector<Value> operands;
    for (unsigned j = 0; j < n; ++j)
      operands.push_back(isBatched[j] ? batchAt(b, loc, inits[j], initDims[j],
                                                0, size)
                                      : inits[j]);
    auto batched = WhileOp::create(b, loc, operands);
    batched->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
    OpBuilder inner(b.getContext());
    // The condition: the loop's, or whether any lane's holds.
    Block *condition = new Block();
    batched.getCond().push_back(condition);
    SmallVector<Value> condArgs =
        carriedArguments(*condition, loop, isBatched, size);
    inner.setInsertionPointToEnd(condition);
    SmallVector<Value> pred;
    SmallVector<int64_t> predDim;
    if (failed(engine.emitBlock(inner, loop.getCond().front(), condArgs,
                                dimsOf(isBatched), pred, predDim)))
      return failure();
    YieldOp::create(inner, loc,
                    lanes ? anyLane(inner, loc, pred[0]) : pred[0]);
    // The body, whose finished lanes keep their values.
    Block *body = new Block();
    batched.getBody().push_back(body);
    SmallVector<Value> bodyArgs =
        carriedArguments(*body, loop, isBatched, size);
    inner.setInsertionPointToEnd(body);
    SmallVector<Value> live, next;
    SmallVector<int64_t> liveDim, nextDims;
    if (lanes && failed(engine.emitBlock(inner, loop.getCond().front(),
                                         bodyArgs, dimsOf(isBatched), live,
                                         liveDim)))
      return failure();
    if (failed(engine.emitBlock(inner, loop.getBody().front(), bodyArgs,
                                dimsOf(isBatched), next, nextDims)))
      return failure();
    for (unsigned j = 0; j < n; ++j) {
      if (!isBatched[j])
        continue;
      next[j] = batchAt(inner, loc, next[j], nextDims[j], 0, size);
      if (lanes)
        next[j] = SelectOp::create(
            inner, loc,
            lanePredicate(inner, loc, live[0], next[j].getType(), 0),
            next[j], bodyArgs[j]);
    }
    YieldOp::create(inner, loc, next);
    llvm::append_range(results, batched.getResults());
    llvm::append_range(resultDims, dimsOf(isBatched));
    return success();
  }

  /// Gives `block` one argument per carried value, batched first where
  /// `isBatched` says; returns them.
  static SmallVector<Value> carriedArguments(Block &block, WhileOp loop,
                                             ArrayRef<bool> isBatched,
                                             int64_t size) {
    SmallVector<Value> args;
    for (auto [operand, batched] : llvm::zip_equal(loop.getOperands(),
                                                   isBatched))
      args.push_back(block.addArgument(
          batched ? batchedType(operand.getType(), 0, size)
                  : operand.getType(),
          operand.getLoc()));
    return args;
  }

  static SmallVector<int64_t> dimsOf(ArrayRef<bool> isBatched) {
    SmallVector<int64_t> dims;
    for (bool batched : isBatched)
      dims.push_back(batched ? 0 : -1);
    return dims;
  }
};

template <Rule Batch, typename... Ops>
void attach(MLIRContext *context) {
  (Ops::template attachInterface<BatchingModel<Ops, Batch>>(*context), ...);
}

} // namespace

void kiln::registerBatchingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    attach<batchElementwise, NegOp, AbsOp, SignOp, ExpOp, Expm1Op, LogOp,
           Log1pOp, TanhOp, LogisticOp, SqrtOp, RsqrtOp, SinOp, CosOp, FloorOp,
           CeilOp, NotOp, AddOp, SubOp, MulOp, DivOp, RemOp, MaxOp, MinOp,
           PowOp, Atan2Op, AndOp, OrOp, XorOp, ShiftLeftOp,
           ShiftRightLogicalOp, ShiftRightArithmeticOp, CompareOp, SelectOp,
           ConvertOp, BitcastConvertOp, StopGradientOp, CheckpointNameOp>(
        context);
    attach<batchBroadcast, BroadcastInDimOp>(context);
    attach<batchReshape, ReshapeOp>(context);
    attach<batchTranspose, TransposeOp>(context);
    attach<batchSlice, SliceOp>(context);
    attach<batchReverse, ReverseOp>(context);
    attach<batchShardingConstraint, ShardingConstraintOp>(context);
    attach<batchPad, PadOp>(context);
    attach<batchConcatenate, ConcatenateOp>(context);
    attach<batchDynamicSlice, DynamicSliceOp>(context);
    attach<batchDynamicUpdateSlice, DynamicUpdateSliceOp>(context);
    attach<batchTake, TakeOp>(context);
    attach<batchScatterAdd, ScatterAddOp>(context);
    attach<batchReduce, ReduceSumOp, ReduceProdOp, ReduceMaxOp, ReduceMinOp>(
        context);
    attach<batchArgmax, ArgmaxOp>(context);
    attach<batchDot, DotGeneralOp>(context);
    CondOp::attachInterface<CondBatching>(*context);
    WhileOp::attachInterface<WhileBatching>(*context);
  });
}
