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

/// One function's JVP, split into its primal computation (emitted forward)
/// and the transpose of its linear part (emitted backward).
class ReverseEmitter {
public:
  ReverseEmitter(VjpBuilder &vjps, func::FuncOp jvp)
      : vjps(vjps), body(jvp.getBody().front()),
        numArgs(jvp.getNumArguments() / 2),
        numResults(jvp.getNumResults() / 2) {}

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
    for (Operation &op : body.without_terminator()) {
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
      for (Value result : op.getResults()) {
        if (!isDifferentiable(result.getType()))
          return op.emitOpError("applies to a tangent an operation with a "
                                "non-float result, which reverse mode "
                                "cannot transpose");
        linear.insert(result);
      }
    }
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
        accumulate(b, tangent, seeds[i]);
    }
    for (Operation *op : llvm::reverse(linearOps)) {
      SmallVector<Value> resultCotangents;
      for (Value result : op->getResults())
        resultCotangents.push_back(cotangents.lookup(result));
      if (llvm::none_of(resultCotangents, [](Value v) { return bool(v); }))
        continue;
      auto call = dyn_cast<func::CallOp>(op);
      if (failed(call ? transposeCall(b, call, resultCotangents, residual)
                      : transposeOp(b, *op, resultCotangents, residual)))
        return failure();
    }
    for (unsigned i = 0; i < numArgs; ++i)
      argCotangents.push_back(
          cotangents.lookup(body.getArgument(numArgs + i)));
    return success();
  }

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
    calls[call] = {split->backward,
                   SmallVector<Value>(copy.getResults().drop_front(m))};
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

  /// The backward half's value for `v`, a non-linear value of the JVP:
  /// constants are rebuilt, anything else is a residual.
  Value backwardValue(OpBuilder &b, Value v,
                      function_ref<Value(Value)> residual) {
    if (Operation *def = v.getDefiningOp();
        def && matchPattern(def, m_Constant())) {
      Value &constant = constants[v];
      if (!constant)
        constant = b.clone(*def)->getResult(0);
      return constant;
    }
    return residual(forward.lookup(v));
  }

  void accumulate(OpBuilder &b, Value v, Value ct) {
    cotangents[v] = addOrZero(b, v.getLoc(), cotangents.lookup(v), ct);
  }

  VjpBuilder &vjps;
  Block &body;
  unsigned numArgs, numResults;
  /// The forward half's value of every non-linear value of the JVP.
  IRMapping forward;
  /// The JVP's values that are linear in its tangent arguments.
  DenseSet<Value> linear;
  SmallVector<Operation *> linearOps;
  /// For each call of a callee's JVP: the callee's backward half and the
  /// residuals its forward half returned.
  struct SplitCall {
    func::FuncOp backward;
    SmallVector<Value> residuals;
  };
  DenseMap<Operation *, SplitCall> calls;
  DenseMap<Value, Value> cotangents, constants;
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

/// `values[i]`, or zeros of `types[i]` where it is null.
SmallVector<Value> orZeros(OpBuilder &b, Location loc, ArrayRef<Value> values,
                           TypeRange types) {
  SmallVector<Value> result;
  for (auto [v, type] : llvm::zip_equal(values, types))
    result.push_back(v ? v : zeros(b, loc, type));
  return result;
}

} // namespace

FailureOr<func::FuncOp> VjpBuilder::customJvp(Operation *op) {
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
  SmallVector<Type> inputs(args), outputs(results), backInputs(results);
  llvm::append_range(inputs, args);
  llvm::append_range(outputs, results);
  llvm::append_range(backInputs, residuals);
  OpBuilder b(fn);
  b.setInsertionPointAfter(fn);
  Location loc = op->getLoc();
  // Never called: reverse mode replaces calls of it by its split.
  auto jvp = func::FuncOp::create(b, loc, derivedName(fn, "custom_jvp"),
                                  b.getFunctionType(inputs, outputs));
  jvp.setPrivate();
  symbols.insert(jvp);
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
