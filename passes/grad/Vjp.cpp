//===- Vjp.cpp - reverse-mode differentiation of functions ----------------===//
//
// JAX's reverse mode (jax/_src/interpreters/ad.py: linearize, then
// backward_pass) at the IR level. In a function's JVP, the values that
// depend on the tangent arguments are linear in them, since the JVP rules
// apply only linear ops to tangents. The other ops are the primal
// computation and run forward; the linear ops are visited in reverse, each
// transposed by its rule (TransposeOpInterface) from its results'
// cotangents to its linear operands'. Null cotangents are symbolic zeros:
// an op none of whose results has a cotangent is skipped, so no zero is
// accumulated and no work is spent on values the result does not need.
//
//===----------------------------------------------------------------------===//
#include "Vjp.h"
#include "Remat.h"
#include "RuleBuilders.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace kiln;

namespace {

/// Whether `op`, or an op nested in it, uses a value of `values`.
bool usesAny(Operation &op, const DenseSet<Value> &values) {
  if (llvm::any_of(op.getOperands(),
                   [&](Value v) { return values.contains(v); }))
    return true;
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op.getRegions(), captured);
  return llvm::any_of(captured, [&](Value v) { return values.contains(v); });
}

/// Whether `v` is defined in `block` or in an op nested in it.
bool isInside(Value v, Block *block) {
  for (Block *b = v.getParentBlock(); b;) {
    if (b == block)
      return true;
    Operation *parent = b->getParentOp();
    b = parent ? parent->getBlock() : nullptr;
  }
  return false;
}

/// Whether `v` is a constant tensor of +0.0 (or integer zeros).
bool isPositiveZeros(Value v) {
  DenseElementsAttr constant;
  if (!matchPattern(v, m_Constant(&constant)) || !constant.isSplat())
    return false;
  Attribute element = constant.getSplatValue<Attribute>();
  if (auto f = dyn_cast<FloatAttr>(element))
    return f.getValue().isPosZero();
  auto i = dyn_cast<IntegerAttr>(element);
  return i && i.getValue().isZero();
}

/// Where `ct` is a window written into +0.0 (the transpose of a slice, a
/// pad; of a dynamic_slice, a dynamic_update_slice, as a scan reads its
/// xs): the window's values, and its start indices appended to `starts`.
Value windowInZeros(OpBuilder &b, Location loc, Value ct,
                    SmallVectorImpl<Value> &starts) {
  if (auto window = ct.getDefiningOp<DynamicUpdateSliceOp>()) {
    if (!isPositiveZeros(window.getOperand()))
      return Value();
    llvm::append_range(starts, window.getStartIndices());
    return window.getUpdate();
  }
  auto pad = ct.getDefiningOp<PadOp>();
  if (!pad || !isPositiveZeros(pad.getPaddingValue()) ||
      llvm::any_of(pad.getInteriorPadding(), [](int64_t n) { return n; }) ||
      llvm::any_of(pad.getEdgePaddingLow(), [](int64_t n) { return n < 0; }) ||
      llvm::any_of(pad.getEdgePaddingHigh(), [](int64_t n) { return n < 0; }))
    return Value();
  for (int64_t low : pad.getEdgePaddingLow())
    starts.push_back(indexConstant(b, loc, low));
  return pad.getOperand();
}

/// `sum + ct` (either may be null: zero). Where `ct` is a window written
/// into zeros, only that window of the sum is updated, so that summing the
/// cotangents of a tensor's slices (a backward loop's trips, a function's
/// uses of the rows of a stacked weight) costs the slices, not a whole
/// tensor each, and bufferizes in place. Equal up to the sign of zeros: a
/// -0.0 outside the window stays -0.0 where adding +0.0 would give +0.0.
Value addToSum(OpBuilder &b, Location loc, Value sum, Value ct) {
  if (!ct || !sum)
    return sum ? sum : ct;
  SmallVector<Value> starts;
  Value update = windowInZeros(b, loc, ct, starts);
  if (!update)
    return AddOp::create(b, loc, sum, ct);
  Value old = DynamicSliceOp::create(
      b, loc, sum, starts, cast<RankedTensorType>(update.getType()).getShape());
  return DynamicUpdateSliceOp::create(b, loc, sum.getType(), sum,
                                      AddOp::create(b, loc, old, update),
                                      starts);
}

/// The residuals of a nested backward block (a cond branch's, a loop
/// trip's): each value of the forward half it uses becomes an argument of
/// `back`, once, in order of use; values of the forward block `local` are
/// listed in `locals`, the others (from above it) in `outer`, and `isLocal`
/// says which list each argument's value went to.
class NestedResiduals {
public:
  NestedResiduals(Block *back, Block *local, SmallVectorImpl<Value> &locals,
                  SmallVectorImpl<Value> &outer, SmallVectorImpl<bool> &isLocal)
      : back(back), local(local), locals(locals), outer(outer),
        isLocal(isLocal) {}

  Value operator()(Value v) {
    auto [it, added] = slots.try_emplace(v);
    if (added) {
      it->second = back->addArgument(v.getType(), v.getLoc());
      bool inside = isInside(v, local);
      (inside ? locals : outer).push_back(v);
      isLocal.push_back(inside);
    }
    return it->second;
  }

private:
  Block *back, *local;
  SmallVectorImpl<Value> &locals, &outer;
  SmallVectorImpl<bool> &isLocal;
  DenseMap<Value, Value> slots;
};

/// One block of a JVP, split into its primal computation (emitted forward)
/// and the transpose of its linear part (emitted backward). A function's
/// body is one; each branch of a cond that carries tangents is another,
/// nested in it.
class BlockSplitter {
public:
  BlockSplitter(VjpBuilder &vjps, IRMapping &forward, DenseSet<Value> &linear)
      : vjps(vjps), forward(forward), linear(linear) {}

  /// Emits, with `b`, the primal ops of `block` (but its terminator), and
  /// records its linear ops (those that use a value of `linear`).
  LogicalResult emitForward(OpBuilder &b, Block &block) {
    for (Operation &op : block.without_terminator()) {
      if (!usesAny(op, linear)) {
        b.clone(op, forward);
        continue;
      }
      linearOps.push_back(&op);
      if (auto call = dyn_cast<func::CallOp>(op)) {
        if (failed(emitForwardCall(b, call)))
          return failure();
        continue;
      }
      if (auto cond = dyn_cast<CondOp>(op)) {
        if (failed(emitForwardCond(b, cond)))
          return failure();
        continue;
      }
      if (auto loop = dyn_cast<WhileOp>(op);
          loop && loop->hasAttr(kScanLoopAttr)) {
        if (failed(emitForwardLoop(b, loop)))
          return failure();
        continue;
      }
      for (Value result : op.getResults()) {
        if (!isDifferentiable(result.getType()))
          return op.emitOpError("applies to a tangent an operation with a "
                                "non-float result, which reverse mode "
                                "cannot transpose");
        linear.insert(result);
      }
    }
    return success();
  }

  /// Emits, with `b` after the forward half, the transpose of the linear
  /// ops recorded, in reverse, from the cotangents accumulated so far.
  /// `residual` gives, for a value of the forward half, the value standing
  /// for it in the backward half.
  LogicalResult emitBackward(OpBuilder &b,
                             function_ref<Value(Value)> residual) {
    for (Operation *op : llvm::reverse(linearOps)) {
      SmallVector<Value> resultCotangents;
      for (Value result : op->getResults())
        resultCotangents.push_back(cotangents.lookup(result));
      if (llvm::none_of(resultCotangents, [](Value v) { return bool(v); }))
        continue;
      LogicalResult done = success();
      if (auto call = dyn_cast<func::CallOp>(op))
        done = transposeCall(b, call, resultCotangents, residual);
      else if (auto cond = dyn_cast<CondOp>(op))
        done = transposeCond(b, cond, resultCotangents, residual);
      else if (auto loop = dyn_cast<WhileOp>(op))
        done = transposeLoop(b, loop, resultCotangents, residual);
      else
        done = transposeOp(b, *op, resultCotangents, residual);
      if (failed(done))
        return failure();
    }
    return success();
  }

  void accumulate(OpBuilder &b, Value v, Value ct) {
    cotangents[v] = addToSum(b, v.getLoc(), cotangents.lookup(v), ct);
  }

  /// The cotangent accumulated for `v` (null: zero).
  Value cotangent(Value v) const { return cotangents.lookup(v); }

private:
  /// A call of a callee's JVP: the callee's forward half now, its backward
  /// half on the way back.
  LogicalResult emitForwardCall(OpBuilder &b, func::CallOp call) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    FailureOr<VjpBuilder::Split> split = vjps.getOrBuildSplit(callee);
    if (failed(split))
      return failure();
    unsigned n = callee.getNumArguments() / 2, m = callee.getNumResults() / 2;
    SmallVector<Value> operands;
    for (Value operand : call.getOperands().take_front(n))
      operands.push_back(forward.lookup(operand));
    auto copy =
        func::CallOp::create(b, call.getLoc(), split->forward, operands);
    for (unsigned j = 0; j < m; ++j) {
      forward.map(call.getResult(j), copy.getResult(j));
      if (isDifferentiable(call.getResult(m + j).getType()))
        linear.insert(call.getResult(m + j));
    }
    // A residual that the forward half returns as it got it (one of its
    // arguments) is taken from the call's operand, so that a loop around
    // the call sees it invariant rather than stacks it.
    SmallVector<Value> residuals;
    Operation *returned = split->forward.getBody().front().getTerminator();
    for (unsigned r = m; r < copy.getNumResults(); ++r) {
      auto arg = dyn_cast<BlockArgument>(returned->getOperand(r));
      residuals.push_back(arg ? operands[arg.getArgNumber()]
                              : copy.getResult(r));
    }
    calls[call] = {split->backward, residuals};
    return success();
  }

  LogicalResult transposeCall(OpBuilder &b, func::CallOp call,
                              ArrayRef<Value> resultCotangents,
                              function_ref<Value(Value)> residual) {
    const SplitCall &split = calls[call];
    unsigned n = call.getNumOperands() / 2, m = call.getNumResults() / 2;
    SmallVector<Value> operands;
    for (unsigned j = 0; j < m; ++j) {
      Value ct = resultCotangents[m + j];
      operands.push_back(ct ? ct
                            : zeros(b, call.getLoc(),
                                    call.getResult(m + j).getType()));
    }
    for (Value v : split.residuals)
      operands.push_back(residual(v));
    auto back =
        func::CallOp::create(b, call.getLoc(), split.backward, operands);
    for (unsigned i = 0; i < n; ++i)
      if (linear.contains(call.getOperand(n + i)))
        accumulate(b, call.getOperand(n + i), back.getResult(i));
    return success();
  }

  /// A cond whose branches compute tangents (JAX's partial evaluation of
  /// cond): a forward cond yields the primal results and the residuals of
  /// the branch taken (zeros in the other's slots); a backward cond on the
  /// same predicate runs that branch's transpose. Both branches are split
  /// now; their backward halves wait, in blocks whose arguments are the
  /// results' cotangents and the residuals, for the way back.
  LogicalResult emitForwardCond(OpBuilder &b, CondOp cond) {
    Location loc = cond.getLoc();
    SplitCond &split = conds[cond];
    std::unique_ptr<Block> forwardBlocks[2];
    std::unique_ptr<BlockSplitter> branches[2];
    for (int i : {0, 1}) {
      forwardBlocks[i] = std::make_unique<Block>();
      branches[i] = std::make_unique<BlockSplitter>(vjps, forward, linear);
      OpBuilder inner(b.getContext());
      inner.setInsertionPointToEnd(forwardBlocks[i].get());
      if (failed(branches[i]->emitForward(inner, cond->getRegion(i).front())))
        return failure();
    }
    Operation *yields[2] = {cond->getRegion(0).front().getTerminator(),
                            cond->getRegion(1).front().getTerminator()};
    // A result is linear if a branch yields a linear value for it (the
    // other may yield a constant zero).
    SmallVector<unsigned> primalResults;
    for (unsigned j = 0; j < cond.getNumResults(); ++j) {
      if (linear.contains(yields[0]->getOperand(j)) ||
          linear.contains(yields[1]->getOperand(j)))
        split.linearResults.push_back(j);
      else
        primalResults.push_back(j);
    }
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(cond->getRegions(), captured);
    for (Value v : captured)
      if (linear.contains(v))
        split.outerLinear.push_back(v);

    // Each branch's backward half, with its residuals as arguments.
    SmallVector<Value> locals[2];
    for (int i : {0, 1}) {
      split.backward[i] = std::make_unique<Block>();
      Block *back = split.backward[i].get();
      OpBuilder inner(b.getContext());
      inner.setInsertionPointToEnd(back);
      for (unsigned j : split.linearResults) {
        Value arg = back->addArgument(cond.getResult(j).getType(), loc);
        if (linear.contains(yields[i]->getOperand(j)))
          branches[i]->accumulate(inner, yields[i]->getOperand(j), arg);
      }
      NestedResiduals residual(back, forwardBlocks[i].get(), locals[i],
                               split.outer[i], split.isLocal[i]);
      if (failed(branches[i]->emitBackward(inner, residual)))
        return failure();
      SmallVector<Value> cts;
      for (Value v : split.outerLinear) {
        Value ct = branches[i]->cotangent(v);
        cts.push_back(ct ? ct : zeros(inner, loc, v.getType()));
      }
      YieldOp::create(inner, loc, cts);
    }

    // The forward cond: primal results, then each branch's residuals.
    SmallVector<Type> types;
    for (unsigned j : primalResults)
      types.push_back(cond.getResult(j).getType());
    for (int i : {0, 1})
      for (Value v : locals[i])
        types.push_back(v.getType());
    for (int i : {0, 1}) {
      OpBuilder inner(b.getContext());
      inner.setInsertionPointToEnd(forwardBlocks[i].get());
      SmallVector<Value> values;
      for (unsigned j : primalResults)
        values.push_back(forward.lookupOrDefault(yields[i]->getOperand(j)));
      for (int other : {0, 1})
        for (Value v : locals[other])
          values.push_back(other == i ? v : zeros(inner, loc, v.getType()));
      YieldOp::create(inner, loc, values);
    }
    auto copy = CondOp::create(b, loc, types, forward.lookup(cond.getPred()));
    for (int i : {0, 1})
      copy->getRegion(i).push_back(forwardBlocks[i].release());
    for (auto [k, j] : llvm::enumerate(primalResults))
      forward.map(cond.getResult(j), copy.getResult(k));
    for (unsigned j : split.linearResults)
      linear.insert(cond.getResult(j));
    auto residuals = copy.getResults().drop_front(primalResults.size());
    split.localResiduals[0].assign(residuals.begin(),
                                   residuals.begin() + locals[0].size());
    split.localResiduals[1].assign(residuals.begin() + locals[0].size(),
                                   residuals.end());
    return success();
  }

  LogicalResult transposeCond(OpBuilder &b, CondOp cond,
                              ArrayRef<Value> resultCotangents,
                              function_ref<Value(Value)> residual) {
    Location loc = cond.getLoc();
    SplitCond &split = conds[cond];
    SmallVector<Value> cts;
    for (unsigned j : split.linearResults)
      cts.push_back(resultCotangents[j]
                        ? resultCotangents[j]
                        : zeros(b, loc, cond.getResult(j).getType()));
    Value pred = backwardValue(b, cond.getPred(), residual);
    for (int i : {0, 1}) {
      Block *back = split.backward[i].get();
      SmallVector<Value> values(cts);
      unsigned local = 0, outer = 0;
      for (bool isLocal : split.isLocal[i])
        values.push_back(
            isLocal ? residual(split.localResiduals[i][local++])
                    : backwardOfForward(b, split.outer[i][outer++], residual));
      for (auto [arg, value] : llvm::zip_equal(back->getArguments(), values))
        arg.replaceAllUsesWith(value);
      back->eraseArguments(0, back->getNumArguments());
    }
    SmallVector<Type> types;
    for (Value v : split.outerLinear)
      types.push_back(v.getType());
    auto transposed = CondOp::create(b, loc, types, pred);
    for (int i : {0, 1})
      transposed->getRegion(i).push_back(split.backward[i].release());
    for (auto [v, ct] :
         llvm::zip_equal(split.outerLinear, transposed.getResults()))
      accumulate(b, v, ct);
    return success();
  }

  /// A scan's loop whose carried values include tangents (JAX's partial
  /// evaluation and transpose of scan): a forward loop runs the primal part
  /// of each trip and stacks, per trip, the residuals its transpose needs
  /// (values from outside the loop are not stacked); a backward loop runs
  /// the trips' transposes from last to first, carrying the cotangents of
  /// the linear carried values and summing those of the linear values the
  /// body uses from outside. The backward trip is built now, in a block
  /// whose arguments are the backward loop's carried values, then the
  /// residuals, which the way back binds to slices of the stacks.
  LogicalResult emitForwardLoop(OpBuilder &b, WhileOp loop) {
    Location loc = loop.getLoc();
    SplitLoop &split = loops[loop];
    split.trips = loop->getAttrOfType<IntegerAttr>(kScanLoopAttr).getInt();
    unsigned n = loop.getNumOperands();
    Block &body = loop.getBody().front();
    Operation *yield = body.getTerminator();
    // Which carried values are linear: those that start linear or that the
    // body makes linear, grown to a fixed point.
    SmallVector<bool> isLinear;
    for (Value init : loop.getOperands())
      isLinear.push_back(linear.contains(init));
    std::unique_ptr<Block> forwardBody;
    std::unique_ptr<BlockSplitter> trip;
    for (bool grown = true; grown;) {
      forwardBody = std::make_unique<Block>();
      trip = std::make_unique<BlockSplitter>(vjps, forward, linear);
      for (auto [arg, lin] : llvm::zip_equal(body.getArguments(), isLinear))
        if (lin)
          linear.insert(arg);
        else
          forward.map(arg, forwardBody->addArgument(arg.getType(), loc));
      OpBuilder inner(b.getContext());
      inner.setInsertionPointToEnd(forwardBody.get());
      if (failed(trip->emitForward(inner, body)))
        return failure();
      grown = false;
      for (unsigned j = 0; j < n; ++j)
        if (!isLinear[j] && linear.contains(yield->getOperand(j)))
          isLinear[j] = grown = true;
    }
    for (unsigned j = 0; j < n; ++j)
      (isLinear[j] ? split.linearCarried : split.primalCarried).push_back(j);
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(loop->getRegions(), captured);
    for (Value v : captured)
      if (linear.contains(v))
        split.outerLinear.push_back(v);

    // The backward trip: [trip counter, carried cotangents, outer
    // cotangent sums], then residuals.
    split.backward = std::make_unique<Block>();
    Block *back = split.backward.get();
    OpBuilder inner(b.getContext());
    inner.setInsertionPointToEnd(back);
    auto i64 = RankedTensorType::get({}, b.getI64Type());
    Value counter = back->addArgument(i64, loc);
    SmallVector<Value> carriedCts, sums;
    for (unsigned j : split.linearCarried) {
      carriedCts.push_back(
          back->addArgument(loop.getResult(j).getType(), loc));
      if (linear.contains(yield->getOperand(j)))
        trip->accumulate(inner, yield->getOperand(j), carriedCts.back());
    }
    for (Value v : split.outerLinear)
      sums.push_back(back->addArgument(v.getType(), loc));
    split.numCarried = back->getNumArguments();
    SmallVector<Value> locals;
    NestedResiduals residual(back, forwardBody.get(), locals, split.outer,
                             split.isLocal);
    if (failed(trip->emitBackward(inner, residual)))
      return failure();
    SmallVector<Value> next = {AddOp::create(
        inner, loc, counter, indexConstant(inner, loc, 1))};
    for (unsigned j : split.linearCarried) {
      Value ct = trip->cotangent(body.getArgument(j));
      next.push_back(ct ? ct : zeros(inner, loc, body.getArgument(j).getType()));
    }
    for (auto [v, sum] : llvm::zip_equal(split.outerLinear, sums))
      next.push_back(addToSum(inner, loc, sum, trip->cotangent(v)));
    YieldOp::create(inner, loc, next);

    // The forward loop: the primal carried values, the residual stacks and
    // a trip counter.
    SmallVector<Value> operands;
    for (unsigned j : split.primalCarried)
      operands.push_back(forward.lookup(loop.getOperand(j)));
    for (Value v : locals)
      operands.push_back(zeros(b, loc, stackedType(v.getType(), split.trips)));
    operands.push_back(indexConstant(b, loc, 0));
    auto copy = WhileOp::create(b, loc, operands);
    // Its condition: the loop's, on the primal values.
    Block *condition = new Block();
    copy.getCond().push_back(condition);
    IRMapping conditionArgs;
    for (Value v : operands)
      condition->addArgument(v.getType(), loc);
    for (auto [k, j] : llvm::enumerate(split.primalCarried))
      conditionArgs.map(loop.getCond().front().getArgument(j),
                        condition->getArgument(k));
    llvm::SetVector<Value> conditionUses;
    getUsedValuesDefinedAbove(loop.getCond(), conditionUses);
    for (Value v : conditionUses)
      conditionArgs.map(v, forward.lookupOrDefault(v));
    DenseSet<Value> linearArgs;
    for (unsigned j : split.linearCarried)
      linearArgs.insert(loop.getCond().front().getArgument(j));
    inner.setInsertionPointToEnd(condition);
    for (Operation &op : loop.getCond().front()) {
      if (usesAny(op, linearArgs))
        return op.emitOpError("makes the condition of a scan's loop depend "
                              "on a tangent");
      inner.clone(op, conditionArgs);
    }
    // Its trip: the primal part, then each residual written at the trip.
    Block *forwardTrip = forwardBody.release();
    copy.getBody().push_back(forwardTrip);
    SmallVector<Value> stacks;
    for (unsigned k = 0; k < locals.size(); ++k)
      stacks.push_back(forwardTrip->addArgument(operands[split.primalCarried.size() + k].getType(), loc));
    Value tripIndex = forwardTrip->addArgument(i64, loc);
    inner.setInsertionPointToEnd(forwardTrip);
    SmallVector<Value> yielded;
    for (unsigned j : split.primalCarried)
      yielded.push_back(forward.lookupOrDefault(yield->getOperand(j)));
    for (auto [v, stack] : llvm::zip_equal(locals, stacks))
      yielded.push_back(writeRow(inner, loc, stack, v, tripIndex));
    yielded.push_back(
        AddOp::create(inner, loc, tripIndex, indexConstant(inner, loc, 1)));
    YieldOp::create(inner, loc, yielded);

    for (auto [k, j] : llvm::enumerate(split.primalCarried))
      forward.map(loop.getResult(j), copy.getResult(k));
    for (unsigned j : split.linearCarried)
      linear.insert(loop.getResult(j));
    auto stackResults = copy.getResults().slice(split.primalCarried.size(),
                                                locals.size());
    split.stacks.assign(stackResults.begin(), stackResults.end());
    return success();
  }

  LogicalResult transposeLoop(OpBuilder &b, WhileOp loop,
                              ArrayRef<Value> resultCotangents,
                              function_ref<Value(Value)> residual) {
    Location loc = loop.getLoc();
    SplitLoop &split = loops[loop];
    Block *back = split.backward.get();
    // The residuals: slices of the stacks at the trip (counted down), and
    // values from outside the loop.
    SmallVector<Value> stacks, outer;
    for (Value stack : split.stacks)
      stacks.push_back(residual(stack));
    for (Value v : split.outer)
      outer.push_back(backwardOfForward(b, v, residual));
    OpBuilder inner(b.getContext());
    inner.setInsertionPointToStart(back);
    Value position = SubOp::create(inner, loc,
                                   indexConstant(inner, loc, split.trips - 1),
                                   back->getArgument(0));
    unsigned local = 0, outside = 0;
    for (auto [k, isLocal] : llvm::enumerate(split.isLocal)) {
      BlockArgument slot = back->getArgument(split.numCarried + k);
      slot.replaceAllUsesWith(isLocal ? readRow(inner, loc, stacks[local++],
                                                position, slot.getType())
                                      : outer[outside++]);
    }
    back->eraseArguments(split.numCarried,
                         back->getNumArguments() - split.numCarried);

    SmallVector<Value> operands = {indexConstant(b, loc, 0)};
    for (unsigned j : split.linearCarried)
      operands.push_back(resultCotangents[j]
                             ? resultCotangents[j]
                             : zeros(b, loc, loop.getResult(j).getType()));
    for (Value v : split.outerLinear)
      operands.push_back(zeros(b, loc, v.getType()));
    auto transposed = WhileOp::create(b, loc, operands);
    Block *condition = new Block();
    transposed.getCond().push_back(condition);
    for (Value v : operands)
      condition->addArgument(v.getType(), loc);
    inner.setInsertionPointToEnd(condition);
    YieldOp::create(inner, loc,
                    CompareOp::create(inner, loc, ComparisonDirection::LT,
                                      condition->getArgument(0),
                                      indexConstant(inner, loc, split.trips))
                        .getResult());
    transposed.getBody().push_back(split.backward.release());
    for (auto [k, j] : llvm::enumerate(split.linearCarried))
      if (linear.contains(loop.getOperand(j)))
        accumulate(b, loop.getOperand(j), transposed.getResult(1 + k));
    unsigned first = 1 + split.linearCarried.size();
    for (auto [k, v] : llvm::enumerate(split.outerLinear))
      accumulate(b, v, transposed.getResult(first + k));
    return success();
  }

  /// Applies `op`'s transpose rule to a copy of it in the backward half,
  /// whose non-linear operands are their backward values; the linear ones
  /// still name the JVP's values, which rules use for their types only.
  LogicalResult transposeOp(OpBuilder &b, Operation &op,
                            ArrayRef<Value> resultCotangents,
                            function_ref<Value(Value)> residual) {
    if (!isa<TransposeOpInterface>(op))
      return op.emitOpError("has no reverse-mode (transpose) rule");
    IRMapping mapping;
    SmallVector<bool> isLinear;
    for (Value v : op.getOperands()) {
      isLinear.push_back(linear.contains(v));
      if (!isLinear.back())
        mapping.map(v, backwardValue(b, v, residual));
    }
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(op.getRegions(), captured);
    for (Value v : captured)
      if (!linear.contains(v))
        mapping.map(v, backwardValue(b, v, residual));
    Operation *copy = b.clone(op, mapping);
    SmallVector<Value> operandCotangents;
    LogicalResult built = cast<TransposeOpInterface>(copy).buildTranspose(
        b, resultCotangents, isLinear, operandCotangents);
    copy->erase();
    if (failed(built))
      return failure();
    for (auto [operand, ct, isLin] :
         llvm::zip_equal(op.getOperands(), operandCotangents, isLinear))
      if (ct && isLin)
        accumulate(b, operand, ct);
    return success();
  }

  /// The backward half's value for `v`, a non-linear value of the JVP.
  Value backwardValue(OpBuilder &b, Value v,
                      function_ref<Value(Value)> residual) {
    return backwardOfForward(b, forward.lookup(v), residual);
  }

  /// The backward half's value for `v`, a value of the forward half:
  /// constants are rebuilt, anything else is a residual.
  Value backwardOfForward(OpBuilder &b, Value v,
                          function_ref<Value(Value)> residual) {
    if (Operation *def = v.getDefiningOp();
        def && matchPattern(def, m_Constant())) {
      Value &constant = constants[v];
      if (!constant)
        constant = b.clone(*def)->getResult(0);
      return constant;
    }
    return residual(v);
  }

  VjpBuilder &vjps;
  /// The forward half's value of every non-linear value of the JVP, and the
  /// JVP's values that are linear in its tangent arguments: shared with
  /// the splitters of nested blocks.
  IRMapping &forward;
  DenseSet<Value> &linear;
  SmallVector<Operation *> linearOps;
  /// For each call of a callee's JVP: the callee's backward half and the
  /// residuals its forward half returned.
  struct SplitCall {
    func::FuncOp backward;
    SmallVector<Value> residuals;
  };
  DenseMap<Operation *, SplitCall> calls;
  /// For each cond that carries tangents: its linear results, the linear
  /// values its branches use from above (whose cotangents the backward
  /// cond yields), and per branch the backward block waiting for its
  /// arguments: the linear results' cotangents, then residuals, each
  /// either of the branch (a result of the forward cond) or from above (a
  /// value of the forward half).
  struct SplitCond {
    SmallVector<unsigned> linearResults;
    SmallVector<Value> outerLinear;
    std::unique_ptr<Block> backward[2];
    SmallVector<bool> isLocal[2];
    SmallVector<Value> localResiduals[2], outer[2];
  };
  std::map<Operation *, SplitCond> conds;
  /// For each scan loop that carries tangents: its trip count, which
  /// carried values are primal and which linear, the linear values its
  /// body uses from outside, the backward trip (whose first `numCarried`
  /// arguments are the backward loop's carried values, the others
  /// residuals, each stacked per trip by the forward loop or from
  /// outside), and the forward loop's stacks.
  struct SplitLoop {
    int64_t trips = 0;
    SmallVector<unsigned> primalCarried, linearCarried;
    SmallVector<Value> outerLinear;
    std::unique_ptr<Block> backward;
    unsigned numCarried = 0;
    SmallVector<bool> isLocal;
    SmallVector<Value> outer, stacks;
  };
  std::map<Operation *, SplitLoop> loops;
  /// Cotangents accumulated in this block's backward half; constants
  /// rebuilt there.
  DenseMap<Value, Value> cotangents, constants;
};

/// One function's JVP, split into its primal computation (emitted forward)
/// and the transpose of its linear part (emitted backward).
class ReverseEmitter {
public:
  ReverseEmitter(VjpBuilder &vjps, func::FuncOp jvp)
      : body(jvp.getBody().front()), numArgs(jvp.getNumArguments() / 2),
        numResults(jvp.getNumResults() / 2),
        splitter(vjps, forward, linear) {}

  /// Emits, with `b`, the primal computation on `args` (the function's
  /// arguments) and appends the function's results to `results`.
  LogicalResult emitForward(OpBuilder &b, ValueRange args,
                            SmallVectorImpl<Value> &results) {
    for (unsigned i = 0; i < numArgs; ++i) {
      forward.map(body.getArgument(i), args[i]);
      BlockArgument tangent = body.getArgument(numArgs + i);
      if (isDifferentiable(tangent.getType()))
        linear.insert(tangent);
    }
    if (failed(splitter.emitForward(b, body)))
      return failure();
    for (Value v : body.getTerminator()->getOperands().take_front(numResults))
      results.push_back(forward.lookup(v));
    return success();
  }

  /// Emits, with `b` after the forward half, the cotangents of the
  /// arguments (appended to `argCotangents`; null: zero) from those of the
  /// results, `seeds` (null: zero). `residual` gives, for a value of the
  /// forward half, the value standing for it in the backward half.
  LogicalResult emitBackward(OpBuilder &b, ValueRange seeds,
                             function_ref<Value(Value)> residual,
                             SmallVectorImpl<Value> &argCotangents) {
    Operation *terminator = body.getTerminator();
    for (unsigned i = 0; i < numResults; ++i) {
      Value tangent = terminator->getOperand(numResults + i);
      if (seeds[i] && linear.contains(tangent))
        splitter.accumulate(b, tangent, seeds[i]);
    }
    if (failed(splitter.emitBackward(b, residual)))
      return failure();
    for (unsigned i = 0; i < numArgs; ++i)
      argCotangents.push_back(
          splitter.cotangent(body.getArgument(numArgs + i)));
    return success();
  }

private:
  Block &body;
  unsigned numArgs, numResults;
  IRMapping forward;
  DenseSet<Value> linear;
  BlockSplitter splitter;
};

/// The name of the function derived from `fn` as `suffix` (`f_fwd`).
std::string derivedName(func::FuncOp fn, StringRef suffix) {
  return (fn.getName() + "_" + suffix).str();
}

func::FuncOp createFunction(OpBuilder &b, SymbolTable &symbols, Location loc,
                            StringRef name, FunctionType type) {
  auto fn = func::FuncOp::create(b, loc, name, type);
  fn.setPrivate();
  symbols.insert(fn); // Renames it if the name is taken.
  fn.addEntryBlock();
  return fn;
}

/// A private declaration, named after `fn` as `suffix`, with the type of
/// `fn`'s JVP: it stands for the JVP of an op whose split reverse mode is
/// given (custom_vjp, checkpoint), and is never called.
func::FuncOp declareJvp(OpBuilder &b, SymbolTable &symbols, Location loc,
                        func::FuncOp fn, StringRef suffix) {
  FunctionType type = fn.getFunctionType();
  SmallVector<Type> inputs(type.getInputs()), outputs(type.getResults());
  llvm::append_range(inputs, type.getInputs());
  llvm::append_range(outputs, type.getResults());
  auto decl = func::FuncOp::create(b, loc, derivedName(fn, suffix),
                                   b.getFunctionType(inputs, outputs));
  decl.setPrivate();
  symbols.insert(decl); // Renames it if the name is taken.
  return decl;
}

/// `values[i]`, or zeros of `types[i]` where it is null.
SmallVector<Value> orZeros(OpBuilder &b, Location loc, ArrayRef<Value> values,
                           TypeRange types) {
  SmallVector<Value> result;
  for (auto [v, type] : llvm::zip_equal(values, types))
    result.push_back(v ? v : zeros(b, loc, type));
  return result;
}

} // namespace

FailureOr<func::FuncOp> VjpBuilder::rematJvp(Operation *op) {
  auto checkpoint = cast<CheckpointOp>(op);
  auto fn = symbols.lookup<func::FuncOp>(checkpoint.getCallee());
  RematPolicy policy = checkpoint.getPolicy();
  if (policy == RematPolicy::everything_saveable)
    return jvps.getOrBuild(fn);
  std::string key = (fn.getName() + "/remat/" + stringifyRematPolicy(policy)).str();
  for (StringRef name : checkpoint.getNames().getAsValueRange<StringAttr>())
    key += ("/" + name).str();
  if (func::FuncOp done = built[key])
    return done;
  FailureOr<func::FuncOp> jvp = jvps.getOrBuild(fn);
  if (failed(jvp))
    return failure();
  FailureOr<Split> split = getOrBuildSplit(*jvp);
  if (failed(split))
    return failure();
  TypeRange args = fn.getArgumentTypes(), results = fn.getResultTypes();
  OpBuilder b(fn);
  b.setInsertionPointAfter(fn);
  Location loc = op->getLoc();
  func::FuncOp decl = declareJvp(b, symbols, loc, fn, "remat_jvp");
  // Forward: the results, then the residuals: the arguments and the values
  // the policy saves.
  func::FuncOp forward =
      createFunction(b, symbols, loc, derivedName(fn, "remat_fwd"),
                     b.getFunctionType(args, {}));
  b.setInsertionPointToStart(&forward.front());
  // Where the policy saves nothing, the forward half is the function itself
  // and the backward one calls its forward half: a checkpoint of checkpoints
  // (a budgeted scan's segments) stays one call deep.
  bool savesNothing = !rematSavesWithin(checkpoint, split->forward);
  SmallVector<Value> saved;
  SmallVector<Value> returned(
      savesNothing
          ? SmallVector<Value>(func::CallOp::create(b, loc, fn,
                                                    forward.getArguments())
                                   .getResults())
          : ArrayRef(emitRemat(b, checkpoint, split->forward,
                               forward.getArguments(), saved,
                               /*reuse=*/false))
                .take_front(results.size()));
  llvm::append_range(returned, forward.getArguments());
  llvm::append_range(returned, saved);
  func::ReturnOp::create(b, loc, returned);
  forward.setType(
      b.getFunctionType(args, ValueRange(returned).getTypes()));
  // Backward: the forward half again, with the saved values in place of the
  // ops that computed them, for its residuals; then the backward half.
  SmallVector<Type> backInputs(results);
  llvm::append_range(backInputs, args);
  llvm::append_range(backInputs, ValueRange(saved).getTypes());
  b.setInsertionPointAfter(forward);
  func::FuncOp backward =
      createFunction(b, symbols, loc, derivedName(fn, "remat_bwd"),
                     b.getFunctionType(backInputs, args));
  b.setInsertionPointToStart(&backward.front());
  ValueRange backArgs = backward.getArguments();
  SmallVector<Value> savedArgs(backArgs.drop_front(results.size() + args.size()));
  ValueRange primalArgs = backArgs.slice(results.size(), args.size());
  SmallVector<Value> again =
      savesNothing
          ? SmallVector<Value>(
                func::CallOp::create(b, loc, split->forward, primalArgs)
                    .getResults())
          : emitRemat(b, checkpoint, split->forward, primalArgs, savedArgs,
                      /*reuse=*/true);
  SmallVector<Value> operands(backArgs.take_front(results.size()));
  llvm::append_range(operands, ArrayRef(again).drop_front(results.size()));
  func::ReturnOp::create(
      b, loc,
      func::CallOp::create(b, loc, split->backward, operands).getResults());
  if (failed(jvps.finish(forward)) || failed(jvps.finish(backward)))
    return failure();
  splits[decl] = {forward, backward};
  return built[key] = decl;
}

FailureOr<func::FuncOp> VjpBuilder::customJvp(Operation *op) {
  if (isa<CheckpointOp>(op))
    return rematJvp(op);
  auto custom = cast<CustomVjpOp>(op);
  std::string key = (custom.getCallee() + "/custom_vjp/" + custom.getFwd() +
                     "/" + custom.getBwd())
                        .str();
  if (func::FuncOp done = built[key])
    return done;
  auto fn = symbols.lookup<func::FuncOp>(custom.getCallee());
  auto fwd = symbols.lookup<func::FuncOp>(custom.getFwd());
  auto bwd = symbols.lookup<func::FuncOp>(custom.getBwd());
  TypeRange args = fn.getArgumentTypes(), results = fn.getResultTypes();
  TypeRange residuals = fwd.getResultTypes().drop_front(results.size());
  SmallVector<Type> backInputs(results);
  llvm::append_range(backInputs, residuals);
  OpBuilder b(fn);
  b.setInsertionPointAfter(fn);
  Location loc = op->getLoc();
  func::FuncOp jvp = declareJvp(b, symbols, loc, fn, "custom_jvp");
  // The backward half takes the cotangents first; the user's bwd last.
  func::FuncOp back =
      createFunction(b, symbols, loc, derivedName(fn, "custom_bwd"),
                     b.getFunctionType(backInputs, args));
  b.setInsertionPointToStart(&back.front());
  SmallVector<Value> operands(
      back.getArguments().drop_front(results.size()));
  llvm::append_range(operands, back.getArguments().take_front(results.size()));
  func::ReturnOp::create(
      b, loc, func::CallOp::create(b, loc, bwd, operands).getResults());
  splits[jvp] = {fwd, back};
  return built[key] = jvp;
}

FailureOr<VjpBuilder::Split> VjpBuilder::getOrBuildSplit(func::FuncOp jvp) {
  if (auto it = splits.find(jvp); it != splits.end())
    return it->second;
  unsigned n = jvp.getNumArguments() / 2, m = jvp.getNumResults() / 2;
  TypeRange inputs = jvp.getArgumentTypes(), results = jvp.getResultTypes();
  // Named after the function the JVP differentiates.
  func::FuncOp source = jvps.sourceOf(jvp);
  OpBuilder b(jvp);
  b.setInsertionPointAfter(jvp);
  Location loc = jvp.getLoc();
  Split split{
      createFunction(b, symbols, loc, derivedName(source, "fwd"),
                     b.getFunctionType(inputs.take_front(n),
                                       results.take_front(m))),
      createFunction(b, symbols, loc, derivedName(source, "bwd"),
                     b.getFunctionType(results.drop_front(m),
                                       inputs.drop_front(n)))};
  auto discard = [&] {
    split.forward.erase();
    split.backward.erase();
    return failure();
  };
  ReverseEmitter emitter(*this, jvp);
  Block &fwd = split.forward.front(), &bwd = split.backward.front();
  OpBuilder fb = OpBuilder::atBlockEnd(&fwd), bb = OpBuilder::atBlockEnd(&bwd);
  SmallVector<Value> returned, argCotangents;
  if (failed(emitter.emitForward(fb, fwd.getArguments(), returned)))
    return discard();
  // Residuals become arguments of the backward half as it needs them.
  SmallVector<Value> seeds(bwd.getArguments());
  DenseMap<Value, Value> residualArgs;
  auto residual = [&](Value v) {
    auto [it, added] = residualArgs.try_emplace(v);
    if (added) {
      it->second = bwd.addArgument(v.getType(), v.getLoc());
      returned.push_back(v);
    }
    return it->second;
  };
  if (failed(emitter.emitBackward(bb, seeds, residual, argCotangents)))
    return discard();
  func::ReturnOp::create(fb, loc, returned);
  func::ReturnOp::create(
      bb, loc, orZeros(bb, loc, argCotangents, inputs.drop_front(n)));
  split.forward.setType(
      b.getFunctionType(fwd.getArgumentTypes(), ValueRange(returned).getTypes()));
  split.backward.setType(
      b.getFunctionType(bwd.getArgumentTypes(), inputs.drop_front(n)));
  if (failed(jvps.finish(split.forward)) || failed(jvps.finish(split.backward)))
    return failure();
  return splits[jvp] = split;
}

FailureOr<func::FuncOp> VjpBuilder::getOrBuild(Operation *op) {
  auto callee = symbols.lookup<func::FuncOp>(
      cast<TransformOpInterface>(op).getTransformedCallee().getValue());
  StringRef kind = op->getName().stripDialect();
  bool isVjp = isa<VjpOp>(op), returnsValue = !isa<GradOp>(op), hasAux = false;
  SmallVector<int64_t> argnums;
  if (auto vjp = dyn_cast<VjpOp>(op))
    argnums = vjp.getArgnums()
                  ? llvm::to_vector(*vjp.getArgnums())
                  : llvm::to_vector(
                        llvm::seq<int64_t>(callee.getNumArguments()));
  else if (auto grad = dyn_cast<GradOp>(op))
    argnums = llvm::to_vector(grad.getArgnums()), hasAux = grad.getHasAux();
  else if (auto grad = dyn_cast<ValueAndGradOp>(op))
    argnums = llvm::to_vector(grad.getArgnums()), hasAux = grad.getHasAux();

  std::string key = (callee.getName() + "/" + kind + "/").str();
  for (int64_t argnum : argnums)
    key += std::to_string(argnum) + ",";
  key += hasAux ? "aux" : "";
  if (func::FuncOp done = built[key])
    return done;
  FailureOr<func::FuncOp> jvp = jvps.getOrBuild(callee);
  if (failed(jvp))
    return failure();

  TypeRange args = callee.getArgumentTypes(), results = callee.getResultTypes();
  SmallVector<Type> inputs(args), outputs;
  if (isVjp)
    llvm::append_range(inputs, results);
  if (returnsValue)
    llvm::append_range(outputs, results);
  for (int64_t argnum : argnums)
    outputs.push_back(args[argnum]);
  if (!returnsValue && hasAux)
    llvm::append_range(outputs, results.drop_front());
  OpBuilder b(callee);
  b.setInsertionPointAfter(callee);
  Location loc = op->getLoc();
  func::FuncOp fn = createFunction(b, symbols, callee.getLoc(),
                                   derivedName(callee, kind),
                                   b.getFunctionType(inputs, outputs));
  Block &entry = fn.front();
  b.setInsertionPointToStart(&entry);
  ReverseEmitter emitter(*this, *jvp);
  SmallVector<Value> primalResults, argCotangents;
  if (failed(emitter.emitForward(b, entry.getArguments().take_front(
                                        args.size()),
                                 primalResults))) {
    fn.erase();
    return failure();
  }
  SmallVector<Value> seeds;
  if (isVjp)
    llvm::append_range(seeds, entry.getArguments().drop_front(args.size()));
  else {
    seeds.push_back(splat(b, loc, results.front(), 1.0));
    seeds.append(results.size() - 1, Value());
  }
  if (failed(emitter.emitBackward(
          b, seeds, [](Value v) { return v; }, argCotangents))) {
    fn.erase();
    return failure();
  }
  SmallVector<Value> returned;
  if (returnsValue)
    llvm::append_range(returned, primalResults);
  for (int64_t argnum : argnums)
    returned.push_back(argCotangents[argnum]);
  if (!returnsValue && hasAux)
    llvm::append_range(returned, ArrayRef(primalResults).drop_front());
  func::ReturnOp::create(b, loc, orZeros(b, loc, returned, outputs));
  if (failed(jvps.finish(fn)))
    return failure();
  return built[key] = fn;
}
