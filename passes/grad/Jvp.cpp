//===- Jvp.cpp - forward-mode differentiation of functions ----------------===//
//
// JAX's jvp at the IR level: each op of a function is copied, then its rule
// (JvpOpInterface) builds its results' tangents from its operands'. A null
// tangent is a symbolic zero: ops whose operands all have zero tangents
// get no rule applied, and zeros are materialized only where a function
// returns one. Calls differentiate their callee once and call its JVP.
//
//===----------------------------------------------------------------------===//
#include "Jvp.h"
#include "RuleBuilders.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace kiln;

namespace {

/// Copies the ops of one function into its JVP, tracking tangents.
class JvpEmitter : public JvpRegionEmitter {
public:
  JvpEmitter(OpBuilder &b, JvpBuilder &jvps) : b(b), jvps(jvps) {}

  /// Emits `op` and its tangents; fails with an error at `op`.
  LogicalResult emit(Operation &op) {
    if (auto call = dyn_cast<func::CallOp>(op))
      return emitCall(call);
    if (isa<CustomVjpOp, CheckpointOp>(op)) {
      FailureOr<func::FuncOp> jvp = jvps.customJvp(&op);
      if (failed(jvp))
        return failure();
      emitJvpCall(&op, *jvp);
      return success();
    }
    SmallVector<Value> operandTangents;
    for (Value operand : op.getOperands())
      operandTangents.push_back(tangents.lookup(operand));
    if (!llvm::any_of(op.getResultTypes(), isDifferentiable) ||
        !dependsOnTangents(op, operandTangents)) {
      b.clone(op, primals);
      return success();
    }
    if (auto rule = dyn_cast<RegionJvpOpInterface>(op))
      return emitRegionOp(rule);
    Operation *copy = b.clone(op, primals);
    auto rule = dyn_cast<JvpOpInterface>(copy);
    if (!rule)
      return op.emitOpError("has no forward-mode (JVP) rule");
    SmallVector<Value> resultTangents;
    if (failed(rule.buildJvp(b, operandTangents, resultTangents)))
      return failure();
    for (auto [result, tangent] :
         llvm::zip_equal(op.getResults(), resultTangents))
      if (tangent && isDifferentiable(result.getType()))
        tangents[result] = tangent;
    return success();
  }

  /// An op with regions, which its rule builds anew.
  LogicalResult emitRegionOp(RegionJvpOpInterface rule) {
    Operation *op = rule.getOperation();
    SmallVector<Value> results, resultTangents;
    if (failed(rule.buildRegionJvp(b, *this, results, resultTangents)))
      return failure();
    for (auto [result, primal, tangent] :
         llvm::zip_equal(op->getResults(), results, resultTangents)) {
      primals.map(result, primal);
      if (tangent && isDifferentiable(result.getType()))
        tangents[result] = tangent;
    }
    return success();
  }

  Value primal(Value v) override { return primals.lookup(v); }
  Value tangent(Value v) override { return tangents.lookup(v); }
  bool forReverseMode() const override { return jvps.forReverseMode(); }

  LogicalResult emitBlock(Block &source, Block &dest, ValueRange argPrimals,
                          ArrayRef<Value> argTangents, bool withTangents,
                          SmallVectorImpl<Value> &yielded,
                          SmallVectorImpl<Value> &yieldedTangents) override {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&dest);
    // A block may be emitted more than once (a loop's tangents grow to a
    // fixed point): forget what an earlier emission derived.
    source.walk([&](Operation *op) {
      for (Value result : op->getResults())
        tangents.erase(result);
    });
    for (auto [arg, primal, tangent] :
         llvm::zip_equal(source.getArguments(), argPrimals, argTangents)) {
      primals.map(arg, primal);
      tangents.erase(arg);
      if (tangent && withTangents)
        tangents[arg] = tangent;
    }
    for (Operation &op : source.without_terminator()) {
      if (!withTangents) {
        b.clone(op, primals);
        continue;
      }
      if (failed(emit(op)))
        return failure();
    }
    for (Value v : source.getTerminator()->getOperands()) {
      yielded.push_back(primals.lookupOrDefault(v));
      yieldedTangents.push_back(withTangents ? tangents.lookup(v) : Value());
    }
    return success();
  }

  /// Whether a result of `op` may have a nonzero tangent: an operand, or a
  /// value its regions use from above, has one.
  bool dependsOnTangents(Operation &op, ArrayRef<Value> operandTangents) {
    if (llvm::any_of(operandTangents, [](Value t) { return bool(t); }))
      return true;
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(op.getRegions(), captured);
    return llvm::any_of(captured, [&](Value v) { return tangents.count(v); });
  }

  /// A call: the callee's JVP on the primals and their tangents.
  LogicalResult emitCall(func::CallOp call) {
    auto callee = dyn_cast_or_null<func::FuncOp>(
        SymbolTable::lookupNearestSymbolFrom(call, call.getCalleeAttr()));
    if (!callee || callee.isExternal())
      return call.emitOpError("calls @")
             << call.getCallee()
             << ", which has no body to differentiate";
    FailureOr<func::FuncOp> jvp = jvps.getOrBuild(callee);
    if (failed(jvp))
      return failure();
    emitJvpCall(call, *jvp);
    return success();
  }

  /// Replaces `op` by a call of `jvp`, a function from `op`'s operands and
  /// their tangents to its results and theirs.
  void emitJvpCall(Operation *op, func::FuncOp jvp) {
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(primals.lookup(operand));
    for (Value operand : op->getOperands())
      operands.push_back(tangentOrZeros(operand, op->getLoc()));
    auto copy = func::CallOp::create(b, op->getLoc(), jvp, operands);
    unsigned n = op->getNumResults();
    for (unsigned i = 0; i < n; ++i) {
      primals.map(op->getResult(i), copy.getResult(i));
      if (isDifferentiable(op->getResult(i).getType()))
        tangents[op->getResult(i)] = copy.getResult(n + i);
    }
  }

  /// The tangent of the original value `v`, zeros if it has none.
  Value tangentOrZeros(Value v, Location loc) {
    if (Value t = tangents.lookup(v))
      return t;
    return zeros(b, loc, v.getType());
  }

  IRMapping primals;
  DenseMap<Value, Value> tangents;

private:
  OpBuilder &b;
  JvpBuilder &jvps;
};

} // namespace

FailureOr<func::FuncOp> JvpBuilder::customJvp(Operation *op) {
  if (custom)
    return custom(op);
  // Forward mode stores nothing: a checkpoint is a call of its function.
  if (auto checkpoint = dyn_cast<CheckpointOp>(op))
    return getOrBuild(symbols.lookup<func::FuncOp>(checkpoint.getCallee()));
  return op->emitOpError(
      "defines reverse mode only: forward-mode differentiation (kiln.jvp) "
      "of it is not supported, as for JAX's custom_vjp");
}

FailureOr<func::FuncOp> JvpBuilder::getOrBuild(func::FuncOp fn) {
  if (func::FuncOp done = built.lookup(fn))
    return done;
  if (!fn.getBody().hasOneBlock())
    return fn.emitOpError("cannot be differentiated: its body is not one "
                          "block");
  FunctionType type = fn.getFunctionType();
  SmallVector<Type> inputs(type.getInputs()), results(type.getResults());
  llvm::append_range(inputs, type.getInputs());
  llvm::append_range(results, type.getResults());
  OpBuilder b(fn);
  b.setInsertionPointAfter(fn);
  auto jvp = func::FuncOp::create(b, fn.getLoc(), (fn.getName() + "_jvp").str(),
                                  b.getFunctionType(inputs, results));
  jvp.setPrivate();
  symbols.insert(jvp); // Renames it if the name is taken.
  built[fn] = jvp;
  sources[jvp] = fn;

  Block *entry = jvp.addEntryBlock();
  b.setInsertionPointToStart(entry);
  JvpEmitter emitter(b, *this);
  unsigned n = fn.getNumArguments();
  for (unsigned i = 0; i < n; ++i) {
    BlockArgument arg = fn.getArgument(i);
    emitter.primals.map(arg, entry->getArgument(i));
    if (isDifferentiable(arg.getType()))
      emitter.tangents[arg] = entry->getArgument(n + i);
  }
  for (Operation &op : fn.getBody().front().without_terminator())
    if (failed(emitter.emit(op))) {
      built.erase(fn);
      sources.erase(jvp);
      jvp.erase();
      return failure();
    }
  Operation *terminator = fn.getBody().front().getTerminator();
  SmallVector<Value> returned;
  for (Value v : terminator->getOperands())
    returned.push_back(emitter.primals.lookup(v));
  for (Value v : terminator->getOperands())
    returned.push_back(emitter.tangentOrZeros(v, terminator->getLoc()));
  func::ReturnOp::create(b, terminator->getLoc(), returned);
  if (failed(tidy(jvp)))
    return failure();
  return jvp;
}
