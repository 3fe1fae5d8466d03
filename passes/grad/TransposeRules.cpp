//===- TransposeRules.cpp - the reverse-mode rule of every linear op ------===//
//
// JAX's transpose rules (jax/_src/lax/lax.py, slicing.py), attached to the
// kiln ops that the JVP rules apply to tangents. A rule gets the cotangent
// of each result (null: zero) and which operands are linear; the others are
// constants of the linear map. It returns the cotangent of each linear
// operand: the adjoint of the op applied to the result's cotangent.
//
//===----------------------------------------------------------------------===//
#include "RuleBuilders.h"
#include "Vjp.h"
#include "kiln/KilnDialect.h"
#include "kiln/TypeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace kiln;

namespace {

/// A rule `Rule(op, b, ct, isLinear, operandCts)` for a single-result op.
using Rule = LogicalResult (*)(Operation *, OpBuilder &, Value,
                               ArrayRef<bool>, MutableArrayRef<Value>);

template <typename OpTy, Rule Transpose>
struct TransposeModel
    : TransposeOpInterface::ExternalModel<TransposeModel<OpTy, Transpose>,
                                          OpTy> {
  LogicalResult buildTranspose(Operation *op, OpBuilder &b,
                               ValueRange cotangents, ArrayRef<bool> isLinear,
                               SmallVectorImpl<Value> &operandCts) const {
    operandCts.assign(op->getNumOperands(), Value());
    return Transpose(op, b, cotangents[0], isLinear, operandCts);
  }
};

/// The error of a rule whose op is not linear in the operands it is given.
LogicalResult notLinear(Operation *op) {
  return op->emitOpError("is not linear in the tangents it is applied to, so "
                         "reverse mode cannot transpose it");
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult transposeNeg(Operation *op, OpBuilder &b, Value ct,
                           ArrayRef<bool>, MutableArrayRef<Value> cts) {
  cts[0] = NegOp::create(b, op->getLoc(), ct);
  return success();
}

LogicalResult transposeAdd(Operation *, OpBuilder &, Value ct,
                           ArrayRef<bool>, MutableArrayRef<Value> cts) {
  cts[0] = cts[1] = ct;
  return success();
}

LogicalResult transposeSub(Operation *op, OpBuilder &b, Value ct,
                           ArrayRef<bool> isLinear,
                           MutableArrayRef<Value> cts) {
  cts[0] = ct;
  if (isLinear[1])
    cts[1] = NegOp::create(b, op->getLoc(), ct);
  return success();
}

/// mul is linear in one operand: the cotangent times the other.
LogicalResult transposeMul(Operation *op, OpBuilder &b, Value ct,
                           ArrayRef<bool> isLinear,
                           MutableArrayRef<Value> cts) {
  if (isLinear[0] && isLinear[1])
    return notLinear(op);
  unsigned lin = isLinear[0] ? 0 : 1;
  cts[lin] = MulOp::create(b, op->getLoc(), ct, op->getOperand(1 - lin));
  return success();
}

/// div is linear in its numerator.
LogicalResult transposeDiv(Operation *op, OpBuilder &b, Value ct,
                           ArrayRef<bool> isLinear,
                           MutableArrayRef<Value> cts) {
  if (isLinear[1])
    return notLinear(op);
  cts[0] = DivOp::create(b, op->getLoc(), ct, op->getOperand(1));
  return success();
}

LogicalResult transposeSelect(Operation *op, OpBuilder &b, Value ct,
                              ArrayRef<bool> isLinear,
                              MutableArrayRef<Value> cts) {
  Location loc = op->getLoc();
  Value pred = op->getOperand(0), zero = zeros(b, loc, ct.getType());
  if (isLinear[1])
    cts[1] = SelectOp::create(b, loc, pred, ct, zero);
  if (isLinear[2])
    cts[2] = SelectOp::create(b, loc, pred, zero, ct);
  return success();
}

/// convert (between float widths) and reshape: the same op, back to the
/// operand's type.
template <typename OpTy>
LogicalResult transposeToOperandType(Operation *op, OpBuilder &b, Value ct,
                                     ArrayRef<bool>,
                                     MutableArrayRef<Value> cts) {
  cts[0] = OpTy::create(b, op->getLoc(), op->getOperand(0).getType(), ct);
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// Sums the broadcast dimensions back: those the operand lacks and those
/// it has with size 1 that the result repeats.
LogicalResult transposeBroadcast(Operation *op, OpBuilder &b, Value ct,
                                 ArrayRef<bool>, MutableArrayRef<Value> cts) {
  auto broadcast = cast<BroadcastInDimOp>(op);
  Location loc = op->getLoc();
  RankedTensorType operand = tensorType(broadcast.getOperand());
  RankedTensorType result = broadcast.getType();
  ArrayRef<int64_t> mapped = broadcast.getBroadcastDimensions();
  SmallVector<int64_t> summed;
  for (int64_t d = 0; d < result.getRank(); ++d) {
    auto it = llvm::find(mapped, d);
    if (it == mapped.end() ||
        (operand.getDimSize(it - mapped.begin()) == 1 &&
         result.getDimSize(d) != 1))
      summed.push_back(d);
  }
  Value sum = summed.empty() ? ct : ReduceSumOp::create(b, loc, ct, summed);
  cts[0] = sum.getType() == operand ? sum
                                    : ReshapeOp::create(b, loc, operand, sum);
  return success();
}

LogicalResult transposeTranspose(Operation *op, OpBuilder &b, Value ct,
                                 ArrayRef<bool>, MutableArrayRef<Value> cts) {
  ArrayRef<int64_t> permutation = cast<TransposeOp>(op).getPermutation();
  SmallVector<int64_t> inverse(permutation.size());
  for (auto [i, p] : llvm::enumerate(permutation))
    inverse[p] = i;
  cts[0] = TransposeOp::create(b, op->getLoc(), ct, inverse);
  return success();
}

LogicalResult transposeReverse(Operation *op, OpBuilder &b, Value ct,
                               ArrayRef<bool>, MutableArrayRef<Value> cts) {
  cts[0] = ReverseOp::create(b, op->getLoc(), ct,
                             cast<ReverseOp>(op).getDimensions());
  return success();
}

/// with_sharding_constraint's transpose: the cotangent takes the layout.
LogicalResult transposeShardingConstraint(Operation *op, OpBuilder &b, Value ct,
                                          ArrayRef<bool>,
                                          MutableArrayRef<Value> cts) {
  cts[0] = ShardingConstraintOp::create(
      b, op->getLoc(), ct, cast<ShardingConstraintOp>(op).getSharding());
  return success();
}

/// A scalar zero of `type`'s element type.
Value scalarZero(OpBuilder &b, Location loc, Type type) {
  return zeros(b, loc,
               RankedTensorType::get({}, getElementTypeOrSelf(type)));
}

/// The slice's cotangent in place in zeros: a pad with the slice's start
/// before, its stride minus one between elements and the rest after.
LogicalResult transposeSlice(Operation *op, OpBuilder &b, Value ct,
                             ArrayRef<bool>, MutableArrayRef<Value> cts) {
  auto slice = cast<SliceOp>(op);
  RankedTensorType operand = tensorType(slice.getOperand());
  SmallVector<int64_t> low, high, interior;
  for (int64_t d = 0; d < operand.getRank(); ++d) {
    int64_t count = slice.getType().getDimSize(d);
    int64_t start = slice.getStartIndices()[d];
    int64_t stride = slice.getStrides()[d];
    int64_t covered = count == 0 ? 0 : (count - 1) * stride + 1;
    low.push_back(count == 0 ? 0 : start);
    interior.push_back(count == 0 ? 0 : stride - 1);
    high.push_back(operand.getDimSize(d) - low.back() - covered);
  }
  cts[0] = PadOp::create(b, op->getLoc(), ct,
                         scalarZero(b, op->getLoc(), ct.getType()), low, high,
                         interior);
  return success();
}

/// JAX's _pad_transpose: the operand's part is the cotangent with the edge
/// padding cut (negative padding) and the interior skipped (strides); the
/// padding value's is everything else.
LogicalResult transposePad(Operation *op, OpBuilder &b, Value ct,
                           ArrayRef<bool> isLinear,
                           MutableArrayRef<Value> cts) {
  auto pad = cast<PadOp>(op);
  Location loc = op->getLoc();
  RankedTensorType operand = tensorType(pad.getOperand());
  int64_t rank = operand.getRank();
  auto negate = [](ArrayRef<int64_t> values) {
    return llvm::map_to_vector(values, [](int64_t v) { return -v; });
  };
  Value unpadded = PadOp::create(
      b, loc, ct, scalarZero(b, loc, ct.getType()),
      negate(pad.getEdgePaddingLow()), negate(pad.getEdgePaddingHigh()),
      SmallVector<int64_t>(rank, 0));
  SmallVector<int64_t> strides;
  for (int64_t interior : pad.getInteriorPadding())
    strides.push_back(interior + 1);
  Value operandCt = SliceOp::create(
      b, loc, unpadded, SmallVector<int64_t>(rank, 0),
      tensorType(unpadded).getShape(), strides);
  if (isLinear[0])
    cts[0] = operandCt;
  if (isLinear[1]) {
    auto all = [&](Value v) {
      return ReduceSumOp::create(
          b, loc, v, llvm::to_vector(llvm::seq<int64_t>(tensorType(v).getRank())));
    };
    cts[1] = SubOp::create(b, loc, all(ct), all(operandCt));
  }
  return success();
}

LogicalResult transposeConcatenate(Operation *op, OpBuilder &b, Value ct,
                                   ArrayRef<bool> isLinear,
                                   MutableArrayRef<Value> cts) {
  auto concat = cast<ConcatenateOp>(op);
  int64_t dim = concat.getDimension(), offset = 0;
  RankedTensorType result = concat.getType();
  for (auto [i, input] : llvm::enumerate(concat.getInputs())) {
    int64_t size = tensorType(input).getDimSize(dim);
    if (isLinear[i]) {
      SmallVector<int64_t> start(result.getRank(), 0);
      SmallVector<int64_t> limit(result.getShape());
      start[dim] = offset;
      limit[dim] = offset + size;
      cts[i] = SliceOp::create(b, op->getLoc(), ct, start, limit,
                               SmallVector<int64_t>(result.getRank(), 1));
    }
    offset += size;
  }
  return success();
}

LogicalResult transposeDynamicSlice(Operation *op, OpBuilder &b, Value ct,
                                    ArrayRef<bool>,
                                    MutableArrayRef<Value> cts) {
  auto slice = cast<DynamicSliceOp>(op);
  Location loc = op->getLoc();
  cts[0] = DynamicUpdateSliceOp::create(
      b, loc, slice.getOperand().getType(),
      zeros(b, loc, slice.getOperand().getType()), ct,
      slice.getStartIndices());
  return success();
}

LogicalResult transposeDynamicUpdateSlice(Operation *op, OpBuilder &b,
                                          Value ct, ArrayRef<bool> isLinear,
                                          MutableArrayRef<Value> cts) {
  auto update = cast<DynamicUpdateSliceOp>(op);
  Location loc = op->getLoc();
  if (isLinear[0])
    cts[0] = DynamicUpdateSliceOp::create(
        b, loc, ct.getType(), ct,
        zeros(b, loc, update.getUpdate().getType()), update.getStartIndices());
  if (isLinear[1])
    cts[1] = DynamicSliceOp::create(b, loc, ct, update.getStartIndices(),
                                    tensorType(update.getUpdate()).getShape());
  return success();
}

LogicalResult transposeTake(Operation *op, OpBuilder &b, Value ct,
                            ArrayRef<bool>, MutableArrayRef<Value> cts) {
  auto take = cast<TakeOp>(op);
  Location loc = op->getLoc();
  Type operand = take.getOperand().getType();
  cts[0] = ScatterAddOp::create(b, loc, operand, zeros(b, loc, operand),
                                take.getIndices(), ct, take.getDimension());
  return success();
}

LogicalResult transposeScatterAdd(Operation *op, OpBuilder &b, Value ct,
                                  ArrayRef<bool> isLinear,
                                  MutableArrayRef<Value> cts) {
  auto scatter = cast<ScatterAddOp>(op);
  if (isLinear[0])
    cts[0] = ct;
  if (isLinear[2])
    cts[2] = TakeOp::create(b, op->getLoc(), ct, scatter.getIndices(),
                            scatter.getDimension());
  return success();
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

LogicalResult transposeReduceSum(Operation *op, OpBuilder &b, Value ct,
                                 ArrayRef<bool>, MutableArrayRef<Value> cts) {
  auto reduce = cast<ReduceSumOp>(op);
  cts[0] = broadcastBack(b, op->getLoc(), ct,
                         tensorType(reduce.getOperand()),
                         reduce.getDimensions());
  return success();
}

/// `[0, n)`, `[n, n + m)`, ...: consecutive ranges of the given lengths.
SmallVector<SmallVector<int64_t>> consecutive(ArrayRef<size_t> lengths) {
  SmallVector<SmallVector<int64_t>> ranges;
  int64_t next = 0;
  for (size_t length : lengths) {
    ranges.push_back(llvm::to_vector(llvm::seq<int64_t>(next, next + length)));
    next += length;
  }
  return ranges;
}

/// The dimensions of a rank-`rank` operand that are neither batching nor
/// contracting.
SmallVector<int64_t> freeDims(int64_t rank, ArrayRef<int64_t> batch,
                              ArrayRef<int64_t> contract) {
  SmallVector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(batch, d) && !llvm::is_contained(contract, d))
      free.push_back(d);
  return free;
}

/// The cotangent of dot_general's operand `x` from the result's `ct` and
/// the other operand `y` (JAX's _dot_general_transpose_lhs; `xIsRhs` is
/// its swap_ans). The product is taken in the result's element type and
/// converted back to x's.
Value dotTransposeOne(OpBuilder &b, Location loc, Value ct, Value x, Value y,
                      ArrayRef<int64_t> xBatch, ArrayRef<int64_t> yBatch,
                      ArrayRef<int64_t> xContract,
                      ArrayRef<int64_t> yContract, bool xIsRhs) {
  RankedTensorType xType = tensorType(x), yType = tensorType(y);
  RankedTensorType ctType = tensorType(ct);
  SmallVector<int64_t> xKept = freeDims(xType.getRank(), xBatch, xContract);
  SmallVector<int64_t> yKept = freeDims(yType.getRank(), yBatch, yContract);
  // The result's dimensions: batch, then lhs's free ones, then rhs's.
  auto ranges = xIsRhs ? consecutive({xBatch.size(), yKept.size(),
                                      xKept.size()})
                       : consecutive({xBatch.size(), xKept.size(),
                                      yKept.size()});
  ArrayRef<int64_t> ctBatch = ranges[0];
  ArrayRef<int64_t> ctY = xIsRhs ? ranges[1] : ranges[2];
  Type element = ctType.getElementType();
  if (yType.getElementType() != element)
    y = ConvertOp::create(b, loc, yType.clone(element), y);
  // ct · y over y's free dimensions gives batch, x's free dimensions, then
  // x's contracting ones in the order of y's; for the rhs, y · ct gives
  // them the other way around (JAX's swap_ans), x's usual order.
  SmallVector<int64_t> shape =
      xIsRhs ? dotGeneralShape(yType.getShape(), ctType.getShape(), yBatch,
                               ctBatch, yKept, ctY)
             : dotGeneralShape(ctType.getShape(), yType.getShape(), ctBatch,
                               yBatch, ctY, yKept);
  auto productType = RankedTensorType::get(shape, element);
  Value product =
      xIsRhs ? DotGeneralOp::create(b, loc, productType, y, ct, yBatch,
                                    ctBatch, yKept, ctY, /*precision=*/nullptr)
             : DotGeneralOp::create(b, loc, productType, ct, y, ctBatch,
                                    yBatch, ctY, yKept, /*precision=*/nullptr);
  SmallVector<int64_t> byY = llvm::to_vector(llvm::seq<int64_t>(0, yContract.size()));
  llvm::sort(byY, [&](int64_t a, int64_t c) { return yContract[a] < yContract[c]; });
  SmallVector<int64_t> contracted;
  for (int64_t i : byY)
    contracted.push_back(xContract[i]);
  SmallVector<int64_t> order(xBatch);
  llvm::append_range(order, xIsRhs ? contracted : xKept);
  llvm::append_range(order, xIsRhs ? xKept : contracted);
  // order[k] is the x dimension that product dimension k holds.
  SmallVector<int64_t> permutation(order.size());
  for (auto [k, d] : llvm::enumerate(order))
    permutation[d] = k;
  Value result = TransposeOp::create(b, loc, product, permutation);
  if (xType.getElementType() != element)
    result = ConvertOp::create(b, loc, xType, result);
  return result;
}

LogicalResult transposeDot(Operation *op, OpBuilder &b, Value ct,
                           ArrayRef<bool> isLinear,
                           MutableArrayRef<Value> cts) {
  if (isLinear[0] && isLinear[1])
    return notLinear(op);
  auto dot = cast<DotGeneralOp>(op);
  Location loc = op->getLoc();
  if (isLinear[0])
    cts[0] = dotTransposeOne(b, loc, ct, dot.getLhs(), dot.getRhs(),
                             dot.getLhsBatchingDimensions(),
                             dot.getRhsBatchingDimensions(),
                             dot.getLhsContractingDimensions(),
                             dot.getRhsContractingDimensions(), false);
  else
    cts[1] = dotTransposeOne(b, loc, ct, dot.getRhs(), dot.getLhs(),
                             dot.getRhsBatchingDimensions(),
                             dot.getLhsBatchingDimensions(),
                             dot.getRhsContractingDimensions(),
                             dot.getLhsContractingDimensions(), true);
  return success();
}

template <Rule Transpose, typename... Ops>
void attach(MLIRContext *context) {
  (Ops::template attachInterface<TransposeModel<Ops, Transpose>>(*context),
   ...);
}

} // namespace

void kiln::registerTransposeRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    attach<transposeNeg, NegOp>(context);
    attach<transposeAdd, AddOp>(context);
    attach<transposeSub, SubOp>(context);
    attach<transposeMul, MulOp>(context);
    attach<transposeDiv, DivOp>(context);
    attach<transposeSelect, SelectOp>(context);
    attach<transposeToOperandType<ConvertOp>, ConvertOp>(context);
    attach<transposeBroadcast, BroadcastInDimOp>(context);
    attach<transposeToOperandType<ReshapeOp>, ReshapeOp>(context);
    attach<transposeTranspose, TransposeOp>(context);
    attach<transposeReverse, ReverseOp>(context);
    attach<transposeShardingConstraint, ShardingConstraintOp>(context);
    attach<transposeSlice, SliceOp>(context);
    attach<transposePad, PadOp>(context);
    attach<transposeConcatenate, ConcatenateOp>(context);
    attach<transposeDynamicSlice, DynamicSliceOp>(context);
    attach<transposeDynamicUpdateSlice, DynamicUpdateSliceOp>(context);
    attach<transposeTake, TakeOp>(context);
    attach<transposeScatterAdd, ScatterAddOp>(context);
    attach<transposeReduceSum, ReduceSumOp>(context);
    attach<transposeDot, DotGeneralOp>(context);
  });
}
