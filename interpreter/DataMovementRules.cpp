//===- DataMovementRules.cpp - evaluating ops that move elements ----------===//
//
// Each result element is found from its index: the operand element it
// comes from (or the padding), so every rule is one walk over the result.
//
//===----------------------------------------------------------------------===//
#include "interpreter/Rules.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace kiln {
namespace {

/// Fills the result from `source`: for each result index, the operand
/// index its element comes from (false: none, and it stays as it is).
LogicalResult
gather(Evaluation &evaluation, const HostTensor &operand,
       llvm::function_ref<bool(ArrayRef<int64_t> resultIndex,
                               SmallVectorImpl<int64_t> &operandIndex)>
           source) {
  HostTensor &result = evaluation.result(0);
  SmallVector<int64_t> strides = operand.strides(), operandIndex;
  forEachIndex(result.shape(), [&](ArrayRef<int64_t> index, int64_t flat) {
    operandIndex.assign(operand.shape().size(), 0);
    if (source(index, operandIndex))
      result.copyElement(flat, operand, flatIndex(operandIndex, strides));
  });
  return success();
}

/// Writes `part` into `result` with its origin at `offsets`.
void insertAt(HostTensor &result, const HostTensor &part,
              ArrayRef<int64_t> offsets) {
  SmallVector<int64_t> strides = result.strides(), to(offsets.size());
  forEachIndex(part.shape(), [&](ArrayRef<int64_t> index, int64_t flat) {
    for (size_t d = 0; d < index.size(); ++d)
      to[d] = offsets[d] + index[d];
    result.copyElement(flatIndex(to, strides), part, flat);
  });
}

LogicalResult identity(Evaluation &evaluation) {
  evaluation.result(0) = evaluation.operand(0);
  return success();
}

LogicalResult reshape(Evaluation &evaluation) {
  const HostTensor &operand = evaluation.operand(0);
  for (int64_t i = 0; i < operand.size(); ++i)
    evaluation.result(0).copyElement(i, operand, i);
  return success();
}

LogicalResult constant(Evaluation &evaluation) {
  auto op = cast<ConstantOp>(evaluation.getOp());
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return op.emitOpError("holds ")
           << op.getValue() << ": the interpreter reads dense elements only";
  HostTensor &result = evaluation.result(0);
  int64_t i = 0;
  if (result.isFloat())
    for (const llvm::APFloat &value : dense.getValues<llvm::APFloat>())
      result.setFloat(i++, value.convertToDouble());
  else
    for (const llvm::APInt &value : dense.getValues<llvm::APInt>())
      result.setInt(i++, value.getSExtValue());
  return success();
}

LogicalResult iota(Evaluation &evaluation) {
  int64_t dim = cast<IotaOp>(evaluation.getOp()).getIotaDimension();
  HostTensor &result = evaluation.result(0);
  forEachIndex(result.shape(), [&](ArrayRef<int64_t> index, int64_t flat) {
    if (result.isFloat())
      result.setFloat(flat, double(index[dim]));
    else
      result.setInt(flat, index[dim]);
  });
  return success();
}

LogicalResult broadcastInDim(Evaluation &evaluation) {
  auto op = cast<BroadcastInDimOp>(evaluation.getOp());
  ArrayRef<int64_t> dims = op.getBroadcastDimensions();
  const HostTensor &operand = evaluation.operand(0);
  return gather(evaluation, operand, [&](ArrayRef<int64_t> index,
                                         SmallVectorImpl<int64_t> &from) {
    for (auto [i, dim] : llvm::enumerate(dims))
      from[i] = operand.shape()[i] == 1 ? 0 : index[dim];
    return true;
  });
}

LogicalResult transpose(Evaluation &evaluation) {
  ArrayRef<int64_t> permutation =
      cast<TransposeOp>(evaluation.getOp()).getPermutation();
  return gather(evaluation, evaluation.operand(0),
                [&](ArrayRef<int64_t> index, SmallVectorImpl<int64_t> &from) {
                  for (auto [i, dim] : llvm::enumerate(permutation))
                    from[dim] = index[i];
                  return true;
                });
}

LogicalResult slice(Evaluation &evaluation) {
  auto op = cast<SliceOp>(evaluation.getOp());
  ArrayRef<int64_t> starts = op.getStartIndices(), strides = op.getStrides();
  return gather(evaluation, evaluation.operand(0),
                [&](ArrayRef<int64_t> index, SmallVectorImpl<int64_t> &from) {
                  for (size_t d = 0; d < index.size(); ++d)
                    from[d] = starts[d] + index[d] * strides[d];
                  return true;
                });
}

LogicalResult reverse(Evaluation &evaluation) {
  ArrayRef<int64_t> dims = cast<ReverseOp>(evaluation.getOp()).getDimensions();
  const HostTensor &operand = evaluation.operand(0);
  return gather(evaluation, operand, [&](ArrayRef<int64_t> index,
                                         SmallVectorImpl<int64_t> &from) {
    for (size_t d = 0; d < index.size(); ++d)
      from[d] = llvm::is_contained(dims, int64_t(d))
                    ? operand.shape()[d] - 1 - index[d]
                    : index[d];
    return true;
  });
}

/// The start indices (operands `first` on, scalar tensors) clamped so that
/// a window of `window`'s sizes lies inside `shape`, as jax.lax clamps them.
SmallVector<int64_t> clampedStarts(Evaluation &evaluation, unsigned first,
                                   ArrayRef<int64_t> shape,
                                   ArrayRef<int64_t> window) {
  SmallVector<int64_t> starts;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t start = evaluation.operand(first + d).getInt(0);
    starts.push_back(std::clamp<int64_t>(start, 0, shape[d] - window[d]));
  }
  return starts;
}

LogicalResult dynamicSlice(Evaluation &evaluation) {
  const HostTensor &operand = evaluation.operand(0);
  SmallVector<int64_t> starts = clampedStarts(
      evaluation, 1, operand.shape(), evaluation.result(0).shape());
  return gather(evaluation, operand,
                [&](ArrayRef<int64_t> index, SmallVectorImpl<int64_t> &from) {
                  for (size_t d = 0; d < index.size(); ++d)
                    from[d] = starts[d] + index[d];
                  return true;
                });
}

LogicalResult dynamicUpdateSlice(Evaluation &evaluation) {
  const HostTensor &operand = evaluation.operand(0),
                   &update = evaluation.operand(1);
  SmallVector<int64_t> starts =
      clampedStarts(evaluation, 2, operand.shape(), update.shape());
  HostTensor &result = evaluation.result(0) = operand;
  insertAt(result, update, starts);
  return success();
}

LogicalResult concatenate(Evaluation &evaluation) {
  int64_t dim = cast<ConcatenateOp>(evaluation.getOp()).getDimension();
  HostTensor &result = evaluation.result(0);
  SmallVector<int64_t> offsets(result.shape().size(), 0);
  for (const HostTensor &input : evaluation.getOperands()) {
    insertAt(result, input, offsets);
    offsets[dim] += input.shape()[dim];
  }
  return success();
}

LogicalResult pad(Evaluation &evaluation) {
  auto op = cast<PadOp>(evaluation.getOp());
  ArrayRef<int64_t> low = op.getEdgePaddingLow(),
                    interior = op.getInteriorPadding();
  const HostTensor &operand = evaluation.operand(0);
  HostTensor &result = evaluation.result(0);
  for (int64_t i = 0; i < result.size(); ++i)
    result.copyElement(i, evaluation.operand(1), 0);
  return gather(evaluation, operand, [&](ArrayRef<int64_t> index,
                                         SmallVectorImpl<int64_t> &from) {
    for (size_t d = 0; d < index.size(); ++d) {
      // The position in the operand spread by its interior padding.
      int64_t spread = index[d] - low[d], step = interior[d] + 1;
      if (spread < 0 || spread % step != 0 ||
          spread / step >= operand.shape()[d])
        return false;
      from[d] = spread / step;
    }
    return true;
  });
}

} // namespace

void attachDataMovementRules(MLIRContext *context) {
  attachRule<constant, ConstantOp>(context);
  attachRule<iota, IotaOp>(context);
  attachRule<identity, StopGradientOp, ShardingConstraintOp, CheckpointNameOp>(
      context);
  attachRule<broadcastInDim, BroadcastInDimOp>(context);
  attachRule<reshape, ReshapeOp>(context);
  attachRule<transpose, TransposeOp>(context);
  attachRule<slice, SliceOp>(context);
  attachRule<dynamicSlice, DynamicSliceOp>(context);
  attachRule<dynamicUpdateSlice, DynamicUpdateSliceOp>(context);
  attachRule<concatenate, ConcatenateOp>(context);
  attachRule<pad, PadOp>(context);
  attachRule<reverse, ReverseOp>(context);
}

} // namespace kiln
