//===- ShardingRules.cpp - the sharding rule of every kiln op -------------===//
//
// Shardy's OpShardingRule for each kiln op family (openxla/shardy,
// sdy/transforms/propagation/op_sharding_rule_registry.cc), attached as
// external models: the op's dimensions as factors, each pass-through,
// reduction or needs-replication, so that propagation and the partitioner
// move shardings across an op without knowing what it computes.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"

#include <numeric>

using namespace mlir;
using namespace kiln;

namespace {

using RuleFn = ShardingRule (*)(Operation *);
/// A localize hook (ShardingRuleOpInterface::localize).
using LocalizeFn = SmallVector<Value> (*)(Operation *, OpBuilder &,
                                          ArrayRef<Attribute>,
                                          PartitionEmitter &);

/// An op whose attributes say nothing of sizes computes its part as it is.
SmallVector<Value> keep(Operation *op, OpBuilder &, ArrayRef<Attribute>,
                        PartitionEmitter &) {
  return SmallVector<Value>(op->getResults());
}

template <typename OpTy, RuleFn Rule, LocalizeFn Localize>
struct ShardingRuleModel
    : ShardingRuleOpInterface::ExternalModel<
          ShardingRuleModel<OpTy, Rule, Localize>, OpTy> {
  ShardingRule getShardingRule(Operation *op) const { return Rule(op); }
  SmallVector<Value> localize(Operation *op, OpBuilder &b,
                              ArrayRef<Attribute> shardings,
                              PartitionEmitter &emitter) const {
    return Localize(op, b, shardings, emitter);
  }
};

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// A rule whose operands and results start without factors (-1 for each
/// dimension).
ShardingRule emptyRule(Operation *op) {
  ShardingRule rule;
  for (Value operand : op->getOperands())
    rule.operandFactors.emplace_back(shapeOf(operand).size(), -1);
  for (Value result : op->getResults())
    rule.resultFactors.emplace_back(shapeOf(result).size(), -1);
  return rule;
}

/// Gives each dimension of result 0 a pass-through factor; returns them.
SmallVector<int64_t> resultDimensionFactors(ShardingRule &rule, Operation *op) {
  SmallVector<int64_t> factors;
  for (int64_t size : shapeOf(op->getResult(0)))
    factors.push_back(rule.addFactor(size));
  rule.resultFactors[0] = factors;
  return factors;
}

/// Marks `factor` as needing replication.
void replicate(ShardingRule &rule, int64_t factor) {
  rule.factorKinds[factor] = FactorKind::NeedReplication;
}

//===----------------------------------------------------------------------===//
// Elementwise ops and ops that only create values
//===----------------------------------------------------------------------===//

/// Operands of the result's rank share its factors; a scalar predicate
/// (select's) has none.
ShardingRule elementwiseRule(Operation *op) {
  ShardingRule rule = emptyRule(op);
  SmallVector<int64_t> factors = resultDimensionFactors(rule, op);
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (shapeOf(operand).size() == factors.size())
      rule.operandFactors[i] = factors;
  return rule;
}

/// constant, iota: each device makes its part of the result.
ShardingRule creationRule(Operation *op) {
  ShardingRule rule = emptyRule(op);
  resultDimensionFactors(rule, op);
  return rule;
}

/// A sharding_constraint has done its work once its operand is laid out as
/// it says: the partitioned program has none.
SmallVector<Value> localizeConstraint(Operation *op, OpBuilder &,
                                      ArrayRef<Attribute>, PartitionEmitter &) {
  Value operand = op->getOperand(0);
  op->getResult(0).replaceAllUsesWith(operand);
  op->erase();
  return {operand};
}

/// A constant's part: a splat of the part's type, or the part cut from the
/// whole constant.
SmallVector<Value> localizeConstant(Operation *op, OpBuilder &b,
                                    ArrayRef<Attribute> shardings,
                                    PartitionEmitter &emitter) {
  auto constant = cast<ConstantOp>(op);
  auto elements = cast<DenseElementsAttr>(constant.getValue());
  auto part = cast<RankedTensorType>(constant.getType());
  if (part == elements.getType())
    return {constant};
  Value local =
      elements.isSplat()
          ? ConstantOp::create(b, op->getLoc(), part,
                               DenseElementsAttr::get(
                                   part, elements.getSplatValue<Attribute>()))
          : emitter.partOf(b, op->getLoc(),
                           ConstantOp::create(b, op->getLoc(), elements),
                           shardings[0]);
  constant->replaceAllUsesWith(ValueRange{local});
  constant->erase();
  return {local};
}

/// An iota's part counts from where the part starts along its dimension.
SmallVector<Value> localizeIota(Operation *op, OpBuilder &b,
                                ArrayRef<Attribute> shardings,
                                PartitionEmitter &emitter) {
  auto iota = cast<IotaOp>(op);
  auto part = cast<RankedTensorType>(iota.getType());
  int64_t dim = iota.getIotaDimension();
  auto sharding = cast<ShardingAttr>(shardings[0]);
  if (sharding.getAxes(dim).empty())
    return {iota};
  Location loc = op->getLoc();
  Value start = emitter.partStart(b, loc, sharding, dim, part.getDimSize(dim));
  auto scalar = RankedTensorType::get({}, part.getElementType());
  if (start.getType() != scalar)
    start = ConvertOp::create(b, loc, scalar, start);
  Value offset =
      BroadcastInDimOp::create(b, loc, part, start, ArrayRef<int64_t>{});
  Value counted = AddOp::create(b, loc, iota, offset);
  iota.getResult().replaceAllUsesExcept(counted, counted.getDefiningOp());
  return {counted};
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// broadcast_in_dim: an operand dimension is the factor of the result
/// dimension it maps to unless it is a broadcast size-1 dimension; the
/// dimensions of `like` carry only sizes.
ShardingRule broadcastRule(Operation *op) {
  auto broadcast = cast<BroadcastInDimOp>(op);
  ShardingRule rule = emptyRule(op);
  SmallVector<int64_t> factors = resultDimensionFactors(rule, op);
  ArrayRef<int64_t> operandShape = shapeOf(broadcast.getOperand());
  ArrayRef<int64_t> resultShape = shapeOf(broadcast.getResult());
  for (auto [d, to] : llvm::enumerate(broadcast.getBroadcastDimensions()))
    if (operandShape[d] == resultShape[to])
      rule.operandFactors[0][d] = factors[to];
  return rule;
}

/// reshape: the shapes split into groups of dimensions of equal products.
/// A group's majormost dimensions on both sides share a factor (a device's
/// part of them is contiguous in both layouts when their split divides
/// both sizes); its other dimensions must be whole.
ShardingRule reshapeRule(Operation *op) {
  ShardingRule rule = emptyRule(op);
  ArrayRef<int64_t> from = shapeOf(op->getOperand(0));
  ArrayRef<int64_t> to = shapeOf(op->getResult(0));
  SmallVector<int64_t> &fromFactors = rule.operandFactors[0];
  SmallVector<int64_t> &toFactors = rule.resultFactors[0];
  size_t i = 0, j = 0;
  auto skipOnes = [&] {
    while (i < from.size() && from[i] == 1)
      ++i;
    while (j < to.size() && to[j] == 1)
      ++j;
  };
  for (skipOnes(); i < from.size() && j < to.size(); skipOnes()) {
    fromFactors[i] = toFactors[j] = rule.addFactor(std::gcd(from[i], to[j]));
    int64_t fromProduct = from[i++], toProduct = to[j++];
    while (fromProduct != toProduct) {
      bool growFrom = fromProduct < toProduct;
      int64_t size = growFrom ? from[i] : to[j];
      int64_t factor = rule.addFactor(size, FactorKind::NeedReplication);
      if (growFrom) {
        fromFactors[i++] = factor;
        fromProduct *= size;
      } else {
        toFactors[j++] = factor;
        toProduct *= size;
      }
    }
  }
  return rule;
}

/// transpose: result dimension k is operand dimension permutation[k].
ShardingRule transposeRule(Operation *op) {
  ShardingRule rule = emptyRule(op);
  SmallVector<int64_t> factors = resultDimensionFactors(rule, op);
  for (auto [k, d] : llvm::enumerate(cast<TransposeOp>(op).getPermutation()))
    rule.operandFactors[0][d] = factors[k];
  return rule;
}

/// An op whose operand 0 and result have one shape but for dimensions
/// `changed` (sliced, padded, reversed, updated): those must be whole,
/// the others pass through, and operand `alike` (an update), if any, has
/// the operand's factors.
ShardingRule sameShapeRule(Operation *op, ArrayRef<bool> changed,
                           std::optional<unsigned> alike = std::nullopt) {
  ShardingRule rule = emptyRule(op);
  SmallVector<int64_t> factors = resultDimensionFactors(rule, op);
  for (auto [d, factor] : llvm::enumerate(factors))
    if (changed[d])
      replicate(rule, factor);
  rule.operandFactors[0] = factors;
  if (alike)
    rule.operandFactors[*alike] = factors;
  return rule;
}

/// The dimensions of `op`'s result whose size differs from operand 0's.
SmallVector<bool> resizedDims(Operation *op) {
  SmallVector<bool> changed;
  for (auto [in, out] :
       llvm::zip_equal(shapeOf(op->getOperand(0)), shapeOf(op->getResult(0))))
    changed.push_back(in != out);
  return changed;
}

ShardingRule sliceRule(Operation *op) {
  SmallVector<bool> changed = resizedDims(op);
  for (auto [d, stride] : llvm::enumerate(cast<SliceOp>(op).getStrides()))
    changed[d] = changed[d] || stride != 1;
  return sameShapeRule(op, changed);
}

ShardingRule padRule(Operation *op) {
  auto pad = cast<PadOp>(op);
  SmallVector<bool> changed;
  for (auto [low, high, interior] :
       llvm::zip_equal(pad.getEdgePaddingLow(), pad.getEdgePaddingHigh(),
                       pad.getInteriorPadding()))
    changed.push_back(low != 0 || high != 0 || interior != 0);
  return sameShapeRule(op, changed);
}

ShardingRule reverseRule(Operation *op) {
  SmallVector<bool> changed(shapeOf(op->getResult(0)).size(), false);
  for (int64_t d : cast<ReverseOp>(op).getDimensions())
    changed[d] = true;
  return sameShapeRule(op, changed);
}

ShardingRule dynamicSliceRule(Operation *op) {
  return sameShapeRule(op, resizedDims(op));
}

/// A slice or dynamic_slice of whole dimensions takes all of each part:
/// its bounds become the part's sizes.
SmallVector<Value> localizeSliceBounds(Operation *op, OpBuilder &b,
                                       ArrayRef<Attribute>,
                                       PartitionEmitter &) {
  ArrayRef<int64_t> part = shapeOf(op->getResult(0));
  if (auto slice = dyn_cast<SliceOp>(op)) {
    SmallVector<int64_t> limits(slice.getLimitIndices());
    for (auto [d, size] : llvm::enumerate(part))
      if (slice.getStartIndices()[d] == 0 && slice.getStrides()[d] == 1)
        limits[d] = size;
    slice.setLimitIndices(limits);
  } else {
    cast<DynamicSliceOp>(op).setSliceSizes(part);
  }
  return {op->getResult(0)};
}

/// dynamic_update_slice: the dimensions the update does not cover whole
/// must be whole.
ShardingRule dynamicUpdateSliceRule(Operation *op) {
  SmallVector<bool> changed;
  for (auto [in, update] : llvm::zip_equal(shapeOf(op->getOperand(0)),
                                           shapeOf(op->getOperand(1))))
    changed.push_back(in != update);
  return sameShapeRule(op, changed, 1);
}

/// concatenate: every input shares the result's factors but along the
/// concatenated dimension, which is whole.
ShardingRule concatenateRule(Operation *op) {
  ShardingRule rule = emptyRule(op);
  SmallVector<int64_t> factors = resultDimensionFactors(rule, op);
  int64_t dim = cast<ConcatenateOp>(op).getDimension();
  replicate(rule, factors[dim]);
  for (SmallVector<int64_t> &operand : rule.operandFactors) {
    operand = factors;
    operand[dim] = rule.addFactor(1, FactorKind::NeedReplication);
  }
  return rule;
}

//===----------------------------------------------------------------------===//
// Gathers and scatters along one dimension
//===----------------------------------------------------------------------===//

/// take: the result is operand[:dim] + indices + operand[dim + 1:]; the
/// indexed dimension of the operand is whole.
ShardingRule takeRule(Operation *op) {
  auto take = cast<TakeOp>(op);
  ShardingRule rule = emptyRule(op);
  SmallVector<int64_t> factors = resultDimensionFactors(rule, op);
  int64_t dim = take.getDimension();
  int64_t indexRank = shapeOf(take.getIndices()).size();
  int64_t operandRank = shapeOf(take.getOperand()).size();
  for (int64_t d = 0; d < operandRank; ++d)
    rule.operandFactors[0][d] =
        d < dim    ? factors[d]
        : d == dim ? rule.addFactor(shapeOf(take.getOperand())[dim],
                                    FactorKind::NeedReplication)
                   : factors[d + indexRank - 1];
  for (int64_t k = 0; k < indexRank; ++k)
    rule.operandFactors[1][k] = factors[dim + k];
  return rule;
}

/// scatter_add: the updates are operand[:dim] + indices + operand[dim+1:].
/// Their index dimensions (and the indices') must be whole, like the
/// scattered dimension: split, each device would add the operand to its
/// partial sum.
ShardingRule scatterAddRule(Operation *op) {
  auto scatter = cast<ScatterAddOp>(op);
  ShardingRule rule = emptyRule(op);
  SmallVector<int64_t> factors = resultDimensionFactors(rule, op);
  int64_t dim = scatter.getDimension();
  replicate(rule, factors[dim]);
  rule.operandFactors[0] = factors;
  ArrayRef<int64_t> indexShape = shapeOf(scatter.getIndices());
  int64_t indexRank = indexShape.size();
  SmallVector<int64_t> &updates = rule.operandFactors[2];
  for (auto [k, size] : llvm::enumerate(indexShape))
    rule.operandFactors[1][k] = updates[dim + k] =
        rule.addFactor(size, FactorKind::NeedReplication);
  for (int64_t d = 0; d < int64_t(factors.size()); ++d)
    if (d != dim)
      updates[d < dim ? d : d + indexRank - 1] = factors[d];
  return rule;
}

//===----------------------------------------------------------------------===//
// Reductions and contractions
//===----------------------------------------------------------------------===//

/// The reductions: reduced dimensions are reduction factors (argmax's must
/// be whole: its index is not a sum); the others pass through.
template <typename OpTy>
ShardingRule reductionRule(Operation *op) {
  auto reduce = cast<OpTy>(op);
  ShardingRule rule = emptyRule(op);
  SmallVector<int64_t> factors = resultDimensionFactors(rule, op);
  SmallVector<int64_t> reduced;
  FactorKind kind = FactorKind::Reduction;
  if constexpr (std::is_same_v<OpTy, ReduceProdOp>)
    rule.reduction = ReductionKind::prod;
  if constexpr (std::is_same_v<OpTy, ReduceMaxOp>)
    rule.reduction = ReductionKind::max;
  if constexpr (std::is_same_v<OpTy, ReduceMinOp>)
    rule.reduction = ReductionKind::min;
  if constexpr (std::is_same_v<OpTy, ArgmaxOp>) {
    reduced.push_back(reduce.getDimension());
    kind = FactorKind::NeedReplication;
  } else {
    llvm::append_range(reduced, reduce.getDimensions());
  }
  ArrayRef<int64_t> shape = shapeOf(op->getOperand(0));
  for (int64_t d = 0, kept = 0; d < int64_t(shape.size()); ++d)
    rule.operandFactors[0][d] = llvm::is_contained(reduced, d)
                                    ? rule.addFactor(shape[d], kind)
                                    : factors[kept++];
  return rule;
}

/// dot_general: batching factors (both sides and the result), free factors
/// of each side, contracting factors summed over.
ShardingRule dotRule(Operation *op) {
  auto dot = cast<DotGeneralOp>(op);
  ShardingRule rule = emptyRule(op);
  SmallVector<int64_t> factors = resultDimensionFactors(rule, op);
  ArrayRef<int64_t> lhsShape = shapeOf(dot.getLhs());
  ArrayRef<int64_t> rhsShape = shapeOf(dot.getRhs());
  auto &lhs = rule.operandFactors[0], &rhs = rule.operandFactors[1];
  size_t next = 0;
  for (auto [l, r] : llvm::zip_equal(dot.getLhsBatchingDimensions(),
                                     dot.getRhsBatchingDimensions()))
    lhs[l] = rhs[r] = factors[next++];
  for (auto [l, r] : llvm::zip_equal(dot.getLhsContractingDimensions(),
                                     dot.getRhsContractingDimensions()))
    lhs[l] = rhs[r] = rule.addFactor(lhsShape[l], FactorKind::Reduction);
  for (auto *side : {&lhs, &rhs})
    for (size_t d = 0; d < (side == &lhs ? lhsShape : rhsShape).size(); ++d)
      if ((*side)[d] == -1)
        (*side)[d] = factors[next++];
  return rule;
}

//===----------------------------------------------------------------------===//
// Control flow: results and region values tied to what flows into them
//===----------------------------------------------------------------------===//

/// cond: each result has its own factors; each branch yields it.
ShardingRule condRule(Operation *op) {
  ShardingRule rule = emptyRule(op);
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    for (auto [d, size] : llvm::enumerate(shapeOf(result)))
      rule.resultFactors[i][d] = rule.addFactor(size);
    for (Region &branch : op->getRegions())
      rule.tiedYields.emplace_back(
          &branch.front().getTerminator()->getOpOperand(i), result);
  }
  return rule;
}

/// while: carried value i is operand i, result i, the argument i of both
/// regions and what the body yields at i.
ShardingRule whileRule(Operation *op) {
  auto loop = cast<WhileOp>(op);
  ShardingRule rule = emptyRule(op);
  for (auto [i, operand] : llvm::enumerate(loop.getOperands())) {
    for (auto [d, size] : llvm::enumerate(shapeOf(operand)))
      rule.operandFactors[i][d] = rule.resultFactors[i][d] =
          rule.addFactor(size);
    rule.tiedArguments.emplace_back(loop.getCond().getArgument(i), i);
    rule.tiedArguments.emplace_back(loop.getBody().getArgument(i), i);
    rule.tiedYields.emplace_back(
        &loop.getBody().front().getTerminator()->getOpOperand(i),
        loop->getResult(i));
  }
  return rule;
}

template <RuleFn Rule, typename... Ops>
void attach(MLIRContext *context) {
  (Ops::template attachInterface<ShardingRuleModel<Ops, Rule, keep>>(*context),
   ...);
}

template <RuleFn Rule, LocalizeFn Localize, typename OpTy>
void attachLocalized(MLIRContext *context) {
  OpTy::template attachInterface<ShardingRuleModel<OpTy, Rule, Localize>>(
      *context);
}

} // namespace

void kiln::registerShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    attach<elementwiseRule, NegOp, AbsOp, SignOp, ExpOp, Expm1Op, LogOp,
           Log1pOp, TanhOp, LogisticOp, SqrtOp, RsqrtOp, SinOp, CosOp, FloorOp,
           CeilOp, NotOp, AddOp, SubOp, MulOp, DivOp, RemOp, MaxOp, MinOp,
           PowOp, Atan2Op, AndOp, OrOp, XorOp, ShiftLeftOp,
           ShiftRightLogicalOp, ShiftRightArithmeticOp, CompareOp, SelectOp,
           ConvertOp, BitcastConvertOp, StopGradientOp, CheckpointNameOp>(
        context);
    attachLocalized<elementwiseRule, localizeConstraint, ShardingConstraintOp>(
        context);
    attachLocalized<creationRule, localizeConstant, ConstantOp>(context);
    attachLocalized<creationRule, localizeIota, IotaOp>(context);
    attach<broadcastRule, BroadcastInDimOp>(context);
    attach<reshapeRule, ReshapeOp>(context);
    attach<transposeRule, TransposeOp>(context);
    attachLocalized<sliceRule, localizeSliceBounds, SliceOp>(context);
    attach<padRule, PadOp>(context);
    attach<reverseRule, ReverseOp>(context);
    attachLocalized<dynamicSliceRule, localizeSliceBounds, DynamicSliceOp>(
        context);
    attach<dynamicUpdateSliceRule, DynamicUpdateSliceOp>(context);
    attach<concatenateRule, ConcatenateOp>(context);
    attach<takeRule, TakeOp>(context);
    attach<scatterAddRule, ScatterAddOp>(context);
    attach<reductionRule<ReduceSumOp>, ReduceSumOp>(context);
    attach<reductionRule<ReduceProdOp>, ReduceProdOp>(context);
    attach<reductionRule<ReduceMaxOp>, ReduceMaxOp>(context);
    attach<reductionRule<ReduceMinOp>, ReduceMinOp>(context);
    attach<reductionRule<ArgmaxOp>, ArgmaxOp>(context);
    attach<dotRule, DotGeneralOp>(context);
    attach<condRule, CondOp>(context);
    attach<whileRule, WhileOp>(context);
  });
}
