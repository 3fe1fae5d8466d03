//===- JvpRules.cpp - the forward-mode rule of every kiln op --------------===//
//
// JAX's JVP rules (jax/_src/lax/lax.py, slicing.py), attached to the kiln ops
// as external models. Rules receive their operands' tangents (null: zero)
// and are applied to the op's copy in the JVP function, with the builder
// after it. Four shapes of rule cover the dialect:
//   - zero: the result is piecewise constant (sign, floor, compare, iota...);
//   - linear: the op applied to the tangents of the operands it is linear
//     in, its other operands (indices, predicates) unchanged (convert is
//     linear between float types; from integers its tangent is zero);
//   - bilinear: op(ta, b) + op(a, tb) (mul, dot_general);
//   - a formula in the operands and result (exp, tanh, max, ...).
//
//===----------------------------------------------------------------------===//
#include "Jvp.h"
#include "RuleBuilders.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace kiln;

namespace {

//===----------------------------------------------------------------------===//
// Helpers building kiln ops
//===----------------------------------------------------------------------===//

Value mul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return MulOp::create(b, loc, lhs, rhs);
}

/// t * factor, or zero for a zero tangent.
Value scale(OpBuilder &b, Location loc, Value t, Value factor) {
  return t ? mul(b, loc, t, factor) : Value();
}

Value compare(OpBuilder &b, Location loc, ComparisonDirection direction,
              Value lhs, Value rhs) {
  return CompareOp::create(b, loc, direction, lhs, rhs);
}

//===----------------------------------------------------------------------===//
// Rule shapes
//===----------------------------------------------------------------------===//

/// The result is locally constant: its tangent is zero.
template <typename OpTy>
struct ZeroJvp : JvpOpInterface::ExternalModel<ZeroJvp<OpTy>, OpTy> {
  LogicalResult buildJvp(Operation *op, OpBuilder &, ValueRange,
                         SmallVectorImpl<Value> &resultTangents) const {
    resultTangents.append(op->getNumResults(), Value());
    return success();
  }
};

/// The op is linear in the operands `LinearOperands` selects and constant
/// in the others: its tangent is the op applied to those operands'
/// tangents (zeros where they have none).
template <typename OpTy, bool (*LinearOperands)(unsigned)>
struct LinearJvp
    : JvpOpInterface::ExternalModel<LinearJvp<OpTy, LinearOperands>, OpTy> {
  LogicalResult buildJvp(Operation *op, OpBuilder &b, ValueRange tangents,
                         SmallVectorImpl<Value> &resultTangents) const {
    IRMapping operands;
    for (auto [i, tangent] : llvm::enumerate(tangents))
      if (LinearOperands(i))
        operands.map(op->getOperand(i),
                     tangent ? tangent
                             : zeros(b, op->getLoc(),
                                     op->getOperand(i).getType()));
    llvm::append_range(resultTangents, b.clone(*op, operands)->getResults());
    return success();
  }
};

bool allOperands(unsigned) { return true; }
bool firstOperand(unsigned i) { return i == 0; }
bool firstTwoOperands(unsigned i) { return i < 2; }
bool notFirstOperand(unsigned i) { return i != 0; }
bool operandAndUpdates(unsigned i) { return i == 0 || i == 2; }

/// The operand's tangent, for an op that returns its operand unchanged
/// (checkpoint_name, whose tag stays on the primal value only).
template <typename OpTy>
struct IdentityJvp : JvpOpInterface::ExternalModel<IdentityJvp<OpTy>, OpTy> {
  LogicalResult buildJvp(Operation *, OpBuilder &, ValueRange tangents,
                         SmallVectorImpl<Value> &resultTangents) const {
    resultTangents.push_back(tangents.front());
    return success();
  }
};

/// op(ta, b) + op(a, tb) for an op linear in each of its two operands.
template <typename OpTy>
struct BilinearJvp : JvpOpInterface::ExternalModel<BilinearJvp<OpTy>, OpTy> {
  LogicalResult buildJvp(Operation *op, OpBuilder &b, ValueRange tangents,
                         SmallVectorImpl<Value> &resultTangents) const {
    Value sum;
    for (unsigned i : {0u, 1u}) {
      if (!tangents[i])
        continue;
      Operation *term = b.clone(*op);
      term->setOperand(i, tangents[i]);
      sum = addOrZero(b, op->getLoc(), sum, term->getResult(0));
    }
    resultTangents.push_back(sum);
    return success();
  }
};

/// A unary op whose derivative is `Derivative(x, y)`: t * f'(x).
using UnaryDerivative = Value (*)(OpBuilder &, Location, Value x, Value y);

template <typename OpTy, UnaryDerivative Derivative>
struct UnaryJvp
    : JvpOpInterface::ExternalModel<UnaryJvp<OpTy, Derivative>, OpTy> {
  LogicalResult buildJvp(Operation *op, OpBuilder &b, ValueRange tangents,
                         SmallVectorImpl<Value> &resultTangents) const {
    Location loc = op->getLoc();
    Value d = Derivative(b, loc, op->getOperand(0), op->getResult(0));
    resultTangents.push_back(scale(b, loc, tangents[0], d));
    return success();
  }
};

/// A binary op whose partial derivatives are `Partials(x, y, z)` (z the
/// result): t_x * d/dx + t_y * d/dy, skipping zero tangents.
using BinaryPartials = std::pair<Value, Value> (*)(OpBuilder &, Location,
                                                   Value x, Value y, Value z,
                                                   bool needX, bool needY);

template <typename OpTy, BinaryPartials Partials>
struct BinaryJvp
    : JvpOpInterface::ExternalModel<BinaryJvp<OpTy, Partials>, OpTy> {
  LogicalResult buildJvp(Operation *op, OpBuilder &b, ValueRange tangents,
                         SmallVectorImpl<Value> &resultTangents) const {
    Location loc = op->getLoc();
    auto [dx, dy] = Partials(b, loc, op->getOperand(0), op->getOperand(1),
                             op->getResult(0), bool(tangents[0]),
                             bool(tangents[1]));
    resultTangents.push_back(addOrZero(b, loc, scale(b, loc, tangents[0], dx),
                                         scale(b, loc, tangents[1], dy)));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Derivatives of the elementwise ops (as jax.lax defines them)
//===----------------------------------------------------------------------===//

Value dAbs(OpBuilder &b, Location loc, Value x, Value) {
  return SignOp::create(b, loc, x);
}
Value dExp(OpBuilder &, Location, Value, Value y) { return y; }
Value dExpm1(OpBuilder &b, Location loc, Value, Value y) {
  return AddOp::create(b, loc, y, splat(b, loc, y.getType(), 1.0));
}
Value dLog(OpBuilder &b, Location loc, Value x, Value) {
  return DivOp::create(b, loc, splat(b, loc, x.getType(), 1.0), x);
}
Value dLog1p(OpBuilder &b, Location loc, Value x, Value) {
  Value one = splat(b, loc, x.getType(), 1.0);
  return DivOp::create(b, loc, one, AddOp::create(b, loc, x, one));
}
Value dTanh(OpBuilder &b, Location loc, Value, Value y) {
  return SubOp::create(b, loc, splat(b, loc, y.getType(), 1.0),
                       mul(b, loc, y, y));
}
Value dLogistic(OpBuilder &b, Location loc, Value, Value y) {
  return mul(b, loc, y,
             SubOp::create(b, loc, splat(b, loc, y.getType(), 1.0), y));
}
Value dSqrt(OpBuilder &b, Location loc, Value, Value y) {
  return DivOp::create(b, loc, splat(b, loc, y.getType(), 0.5), y);
}
Value dRsqrt(OpBuilder &b, Location loc, Value x, Value y) {
  // d/dx x^(-1/2) = -y / (2x).
  return DivOp::create(b, loc, mul(b, loc, y, splat(b, loc, y.getType(), -0.5)),
                       x);
}
Value dSin(OpBuilder &b, Location loc, Value x, Value) {
  return CosOp::create(b, loc, x);
}
Value dCos(OpBuilder &b, Location loc, Value x, Value) {
  return NegOp::create(b, loc, SinOp::create(b, loc, x));
}

std::pair<Value, Value> dDiv(OpBuilder &b, Location loc, Value x, Value y,
                             Value z, bool needX, bool needY) {
  // d/dx = 1/y, d/dy = -z/y.
  Value dx = needX ? DivOp::create(b, loc, splat(b, loc, y.getType(), 1.0), y)
                   : Value();
  Value dy = needY ? NegOp::create(b, loc, DivOp::create(b, loc, z, y))
                   : Value();
  return {dx, dy};
}

std::pair<Value, Value> dRem(OpBuilder &b, Location loc, Value x, Value y,
                             Value, bool needX, bool needY) {
  // rem(x, y) = x - y * trunc(x / y): d/dx = 1, d/dy = -trunc(x / y).
  Value dx = needX ? splat(b, loc, x.getType(), 1.0) : Value();
  Value dy;
  if (needY) {
    Value quotient = DivOp::create(b, loc, x, y);
    Value truncated =
        mul(b, loc, SignOp::create(b, loc, quotient),
            FloorOp::create(b, loc, AbsOp::create(b, loc, quotient)));
    dy = NegOp::create(b, loc, truncated);
  }
  return {dx, dy};
}

/// JAX's max/min rule: the chosen operand gets the tangent; ties split it
/// half and half.
std::pair<Value, Value> dChooser(OpBuilder &b, Location loc, Value x, Value y,
                                 Value z, bool, bool) {
  Type type = z.getType();
  Value one = splat(b, loc, type, 1.0), half = splat(b, loc, type, 0.5),
        zero = splat(b, loc, type, 0.0);
  Value xChosen = compare(b, loc, ComparisonDirection::EQ, x, z);
  Value yChosen = compare(b, loc, ComparisonDirection::EQ, y, z);
  Value dx = SelectOp::create(b, loc, xChosen,
                              SelectOp::create(b, loc, yChosen, half, one),
                              zero);
  Value dy = SelectOp::create(
      b, loc, yChosen, SelectOp::create(b, loc, xChosen, half, one), zero);
  return {dx, dy};
}

std::pair<Value, Value> dPow(OpBuilder &b, Location loc, Value x, Value y,
                             Value z, bool needX, bool needY) {
  Type type = z.getType();
  Value zero = splat(b, loc, type, 0.0), one = splat(b, loc, type, 1.0);
  Value dx, dy;
  if (needX) {
    // y * x^(y-1), and 0 where y = 0 (JAX: x^0 is constant even at x = 0).
    Value power = PowOp::create(b, loc, x, SubOp::create(b, loc, y, one));
    dx = SelectOp::create(b, loc,
                          compare(b, loc, ComparisonDirection::EQ, y, zero),
                          zero, mul(b, loc, y, power));
  }
  if (needY) {
    // log(x) * x^y, with log(1) where x = 0 (JAX's _replace_zero).
    Value safe = SelectOp::create(
        b, loc, compare(b, loc, ComparisonDirection::EQ, x, zero), one, x);
    dy = mul(b, loc, LogOp::create(b, loc, safe), z);
  }
  return {dx, dy};
}

std::pair<Value, Value> dAtan2(OpBuilder &b, Location loc, Value x, Value y,
                               Value, bool needX, bool needY) {
  // atan2(x, y): d/dx = y / (x^2 + y^2), d/dy = -x / (x^2 + y^2).
  Value norm = AddOp::create(b, loc, mul(b, loc, x, x), mul(b, loc, y, y));
  Value dx = needX ? DivOp::create(b, loc, y, norm) : Value();
  Value dy =
      needY ? DivOp::create(b, loc, NegOp::create(b, loc, x), norm) : Value();
  return {dx, dy};
}

//===----------------------------------------------------------------------===//
// Reductions that choose or multiply
//===----------------------------------------------------------------------===//

/// reduce_max / reduce_min: the tangents at the chosen positions, averaged
/// over ties (JAX's _reduce_chooser_jvp_rule).
template <typename OpTy>
struct ReduceChooserJvp
    : JvpOpInterface::ExternalModel<ReduceChooserJvp<OpTy>, OpTy> {
  LogicalResult buildJvp(Operation *op, OpBuilder &b, ValueRange tangents,
                         SmallVectorImpl<Value> &resultTangents) const {
    auto reduce = cast<OpTy>(op);
    Location loc = op->getLoc();
    auto operandType = cast<RankedTensorType>(reduce.getOperand().getType());
    ArrayRef<int64_t> dims = reduce.getDimensions();
    Value chosen = compare(
        b, loc, ComparisonDirection::EQ, reduce.getOperand(),
        broadcastBack(b, loc, reduce.getResult(), operandType, dims));
    Value indicator =
        SelectOp::create(b, loc, chosen, splat(b, loc, operandType, 1.0),
                         splat(b, loc, operandType, 0.0));
    Value counts = ReduceSumOp::create(b, loc, indicator, dims);
    Value picked = ReduceSumOp::create(b, loc, mul(b, loc, tangents[0], indicator),
                                       dims);
    resultTangents.push_back(DivOp::create(b, loc, picked, counts));
    return success();
  }
};

/// The exclusive prefix products of `x` (rank 2) along dimension 1:
/// out[:, i] = x[:, 0] * ... * x[:, i-1], 1 for i = 0. Hillis and Steele's
/// scan, log2(n) multiplications of shifted copies, made of differentiable
/// ops only, so that the rule's own derivative is exact too.
Value exclusivePrefixProducts(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t n = type.getDimSize(1);
  Value one = splat(b, loc, RankedTensorType::get({}, type.getElementType()),
                    1.0);
  // x shifted right by k along dimension 1, filled with ones.
  auto shift = [&](Value v, int64_t k) -> Value {
    return PadOp::create(b, loc, v, one, ArrayRef<int64_t>{0, k},
                         ArrayRef<int64_t>{0, -k}, ArrayRef<int64_t>{0, 0});
  };
  Value inclusive = x;
  for (int64_t k = 1; k < n; k *= 2)
    inclusive = mul(b, loc, inclusive, shift(inclusive, k));
  return shift(inclusive, 1);
}

/// reduce_prod: sum of t_i times the product of the other elements, the
/// latter as the product of the exclusive prefix and suffix products
/// (JAX's _reduce_prod_jvp_rule): exact where elements are zero, to any
/// order, with no division.
struct ReduceProdJvp
    : JvpOpInterface::ExternalModel<ReduceProdJvp, ReduceProdOp> {
  LogicalResult buildJvp(Operation *op, OpBuilder &b, ValueRange tangents,
                         SmallVectorImpl<Value> &resultTangents) const {
    auto reduce = cast<ReduceProdOp>(op);
    Location loc = op->getLoc();
    Value x = reduce.getOperand();
    auto type = cast<RankedTensorType>(x.getType());
    ArrayRef<int64_t> dims = reduce.getDimensions();
    // The kept dimensions first, then the reduced ones, as [kept, reduced].
    SmallVector<int64_t> permutation;
    int64_t kept = 1, reduced = 1;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!llvm::is_contained(dims, d)) {
        permutation.push_back(d);
        kept *= type.getDimSize(d);
      }
    for (int64_t d : dims) {
      permutation.push_back(d);
      reduced *= type.getDimSize(d);
    }
    auto matrix = RankedTensorType::get({kept, reduced}, type.getElementType());
    auto asMatrix = [&](Value v) -> Value {
      return ReshapeOp::create(b, loc, matrix,
                               TransposeOp::create(b, loc, v, permutation));
    };
    Value xs = asMatrix(x), ts = asMatrix(tangents[0]);
    Value prefix = exclusivePrefixProducts(b, loc, xs);
    Value suffix = ReverseOp::create(
        b, loc,
        exclusivePrefixProducts(b, loc,
                                ReverseOp::create(b, loc, xs,
                                                  ArrayRef<int64_t>{1})),
        ArrayRef<int64_t>{1});
    Value others = mul(b, loc, prefix, suffix);
    Value sum = ReduceSumOp::create(b, loc, mul(b, loc, ts, others),
                                    ArrayRef<int64_t>{1});
    resultTangents.push_back(
        ReshapeOp::create(b, loc, reduce.getResult().getType(), sum));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// `tangents[i]`, or zeros of `values[i]`'s type where it is null; built
/// with `b`.
SmallVector<Value> tangentsOrZeros(OpBuilder &b, Location loc,
                                   ValueRange values, ArrayRef<Value> tangents,
                                   ArrayRef<bool> keep) {
  SmallVector<Value> result;
  for (auto [v, t, kept] : llvm::zip_equal(values, tangents, keep))
    if (kept)
      result.push_back(t ? t : zeros(b, loc, v.getType()));
  return result;
}

/// cond: one cond whose branches compute the results and the tangents of
/// those that either branch gives a nonzero tangent (JAX's _cond_jvp).
/// Reverse mode splits it into a forward and a backward cond.
struct CondJvp : RegionJvpOpInterface::ExternalModel<CondJvp, CondOp> {
  LogicalResult buildRegionJvp(Operation *op, OpBuilder &b,
                               JvpRegionEmitter &engine,
                               SmallVectorImpl<Value> &results,
                               SmallVectorImpl<Value> &resultTangents) const {
    auto cond = cast<CondOp>(op);
    Location loc = op->getLoc();
    unsigned n = op->getNumResults();
    std::unique_ptr<Block> branches[2] = {std::make_unique<Block>(),
                                          std::make_unique<Block>()};
    SmallVector<Value> yielded[2], yieldedTangents[2];
    Region *sources[2] = {&cond.getTrueBranch(), &cond.getFalseBranch()};
    for (int i : {0, 1})
      if (failed(engine.emitBlock(sources[i]->front(), *branches[i], {}, {},
                                  /*withTangents=*/true, yielded[i],
                                  yieldedTangents[i])))
        return failure();
    SmallVector<bool> carried;
    SmallVector<Type> types(op->getResultTypes());
    for (unsigned j = 0; j < n; ++j) {
      carried.push_back(yieldedTangents[0][j] || yieldedTangents[1][j]);
      if (carried.back())
        types.push_back(op->getResult(j).getType());
    }
    auto jvp = CondOp::create(b, loc, types, engine.primal(cond.getPred()));
    OpBuilder inner(b.getContext());
    for (int i : {0, 1}) {
      inner.setInsertionPointToEnd(branches[i].get());
      SmallVector<Value> values(yielded[i]);
      llvm::append_range(values, tangentsOrZeros(inner, loc, yielded[i],
                                                 yieldedTangents[i], carried));
      YieldOp::create(inner, loc, values);
      jvp->getRegion(i).push_back(branches[i].release());
    }
    llvm::append_range(results, jvp.getResults().take_front(n));
    auto tangentResults = jvp.getResults().drop_front(n);
    for (unsigned j = 0, k = 0; j < n; ++j)
      resultTangents.push_back(carried[j] ? tangentResults[k++] : Value());
    return success();
  }
};

/// while (forward mode): the loop carries the tangents of the carried
/// values that have one, the set grown to a fixed point over the body as
/// JAX's _while_loop_jvp does. Reverse mode cannot transpose it: its trip
/// count is known only once it has run.
struct WhileJvp : RegionJvpOpInterface::ExternalModel<WhileJvp, WhileOp> {
  LogicalResult buildRegionJvp(Operation *op, OpBuilder &b,
                               JvpRegionEmitter &engine,
                               SmallVectorImpl<Value> &results,
                               SmallVectorImpl<Value> &resultTangents) const {
    // The reverse-mode engine splits a scan's loop, whose trip count it
    // knows, into a forward and a backward loop.
    if (engine.forReverseMode() && !op->hasAttr(kScanLoopAttr))
      return op->emitOpError(
          "cannot be differentiated in reverse mode: its trip count is known "
          "only once it has run; write the loop as kiln.scan, whose length "
          "is fixed");
    auto loop = cast<WhileOp>(op);
    Location loc = op->getLoc();
    SmallVector<Value> inits, initTangents;
    SmallVector<bool> carried;
    for (Value operand : loop.getOperands()) {
      inits.push_back(engine.primal(operand));
      initTangents.push_back(engine.tangent(operand));
      carried.push_back(bool(initTangents.back()));
    }
    // Emits the body with the tangents of `carried`; repeats while the body
    // gives a tangent to a carried value that had none.
    std::unique_ptr<Block> body;
    SmallVector<Value> yielded, yieldedTangents;
    for (bool grown = true; grown;) {
      body = std::make_unique<Block>();
      SmallVector<Value> argTangents = addArguments(*body, loop, carried);
      yielded.clear();
      yieldedTangents.clear();
      if (failed(engine.emitBlock(loop.getBody().front(), *body,
                                  body->getArguments().take_front(
                                      inits.size()),
                                  argTangents, /*withTangents=*/true, yielded,
                                  yieldedTangents)))
        return failure();
      grown = false;
      for (auto [has, t] : llvm::zip_equal(carried, yieldedTangents))
        if (!has && t)
          has = grown = true;
    }
    // The blocks have no region yet, so the builder is not made from them.
    OpBuilder inner(b.getContext());
    inner.setInsertionPointToEnd(body.get());
    SmallVector<Value> next(yielded);
    llvm::append_range(next, tangentsOrZeros(inner, loc, yielded,
                                             yieldedTangents, carried));
    YieldOp::create(inner, loc, next);

    auto condition = std::make_unique<Block>();
    addArguments(*condition, loop, carried);
    SmallVector<Value> predicate, unused;
    if (failed(engine.emitBlock(loop.getCond().front(), *condition,
                                condition->getArguments().take_front(
                                    inits.size()),
                                SmallVector<Value>(inits.size()),
                                /*withTangents=*/false, predicate, unused)))
      return failure();
    inner.setInsertionPointToEnd(condition.get());
    YieldOp::create(inner, loc, predicate);

    SmallVector<Value> operands(inits);
    llvm::append_range(operands,
                       tangentsOrZeros(b, loc, inits, initTangents, carried));
    auto jvp = WhileOp::create(b, loc, operands);
    jvp->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    jvp.getCond().push_back(condition.release());
    jvp.getBody().push_back(body.release());
    unsigned n = inits.size();
    llvm::append_range(results, jvp.getResults().take_front(n));
    auto tangentResults = jvp.getResults().drop_front(n);
    for (unsigned j = 0, k = 0; j < n; ++j)
      resultTangents.push_back(carried[j] ? tangentResults[k++] : Value());
    return success();
  }

  /// Gives `block` the loop's carried values, then the tangents of those
  /// `carried` selects, as arguments; returns one tangent per carried value
  /// (null where not carried).
  static SmallVector<Value> addArguments(Block &block, WhileOp loop,
                                         ArrayRef<bool> carried) {
    for (Value operand : loop.getOperands())
      block.addArgument(operand.getType(), operand.getLoc());
    SmallVector<Value> tangents;
    for (auto [operand, has] : llvm::zip_equal(loop.getOperands(), carried))
      tangents.push_back(has ? block.addArgument(operand.getType(),
                                                 operand.getLoc())
                             : Value());
    return tangents;
  }
};

template <typename... Ops>
void attachZero(MLIRContext *context) {
  (Ops::template attachInterface<ZeroJvp<Ops>>(*context), ...);
}

template <bool (*Linear)(unsigned), typename... Ops>
void attachLinear(MLIRContext *context) {
  (Ops::template attachInterface<LinearJvp<Ops, Linear>>(*context), ...);
}

} // namespace

void kiln::registerJvpRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    attachZero<SignOp, FloorOp, CeilOp, NotOp, AndOp, OrOp, XorOp,
               ShiftLeftOp, ShiftRightLogicalOp, ShiftRightArithmeticOp,
               BitcastConvertOp, CompareOp, ArgmaxOp, IotaOp, ConstantOp,
               StopGradientOp>(context);
    attachLinear<allOperands, NegOp, AddOp, SubOp, BroadcastInDimOp, ReshapeOp,
                 TransposeOp, SliceOp, ReverseOp, ConcatenateOp, PadOp,
                 ReduceSumOp, ConvertOp, ShardingConstraintOp>(context);
    attachLinear<firstOperand, DynamicSliceOp, TakeOp>(context);
    attachLinear<firstTwoOperands, DynamicUpdateSliceOp>(context);
    attachLinear<operandAndUpdates, ScatterAddOp>(context);
    attachLinear<notFirstOperand, SelectOp>(context);
    CheckpointNameOp::attachInterface<IdentityJvp<CheckpointNameOp>>(*context);
    MulOp::attachInterface<BilinearJvp<MulOp>>(*context);
    DotGeneralOp::attachInterface<BilinearJvp<DotGeneralOp>>(*context);
    AbsOp::attachInterface<UnaryJvp<AbsOp, dAbs>>(*context);
    ExpOp::attachInterface<UnaryJvp<ExpOp, dExp>>(*context);
    Expm1Op::attachInterface<UnaryJvp<Expm1Op, dExpm1>>(*context);
    LogOp::attachInterface<UnaryJvp<LogOp, dLog>>(*context);
    Log1pOp::attachInterface<UnaryJvp<Log1pOp, dLog1p>>(*context);
    TanhOp::attachInterface<UnaryJvp<TanhOp, dTanh>>(*context);
    LogisticOp::attachInterface<UnaryJvp<LogisticOp, dLogistic>>(*context);
    SqrtOp::attachInterface<UnaryJvp<SqrtOp, dSqrt>>(*context);
    RsqrtOp::attachInterface<UnaryJvp<RsqrtOp, dRsqrt>>(*context);
    SinOp::attachInterface<UnaryJvp<SinOp, dSin>>(*context);
    CosOp::attachInterface<UnaryJvp<CosOp, dCos>>(*context);
    DivOp::attachInterface<BinaryJvp<DivOp, dDiv>>(*context);
    RemOp::attachInterface<BinaryJvp<RemOp, dRem>>(*context);
    MaxOp::attachInterface<BinaryJvp<MaxOp, dChooser>>(*context);
    MinOp::attachInterface<BinaryJvp<MinOp, dChooser>>(*context);
    PowOp::attachInterface<BinaryJvp<PowOp, dPow>>(*context);
    Atan2Op::attachInterface<BinaryJvp<Atan2Op, dAtan2>>(*context);
    ReduceMaxOp::attachInterface<ReduceChooserJvp<ReduceMaxOp>>(*context);
    ReduceMinOp::attachInterface<ReduceChooserJvp<ReduceMinOp>>(*context);
    ReduceProdOp::attachInterface<ReduceProdJvp>(*context);
    CondOp::attachInterface<CondJvp>(*context);
    WhileOp::attachInterface<WhileJvp>(*context);
  });
}
