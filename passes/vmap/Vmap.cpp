//===- Vmap.cpp - batching functions (vmap) -------------------------------===//
//
// JAX's vmap at the IR level: each op of a function is replaced by its
// batching rule applied to its operands' batched values, each of which
// knows where its batch dimension is (or that it has none). Ops none of
// whose operands is batched are copied unchanged, so work that does not
// depend on the batch is done once. Calls batch their callee once per
// batching of its arguments and call that.
//
//===----------------------------------------------------------------------===//
#include "Vmap.h"
#include "BatchBuilders.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace kiln;

namespace {

/// Copies the ops of one function into its batched version.
class BatchEmitter : public BatchRegionEmitter {
public:
  BatchEmitter(OpBuilder &b, VmapBuilder &vmaps, int64_t size)
      : b(b), vmaps(vmaps), size(size) {}

  /// Binds `original` to `value`, batched along `dim` (-1: not batched).
  void bind(Value original, Value value, int64_t dim) {
    values.map(original, value);
    if (dim == -1)
      dims.erase(original);
    else
      dims[original] = dim;
  }

  std::pair<Value, int64_t> batched(Value v) override {
    auto it = dims.find(v);
    return {values.lookupOrDefault(v), it == dims.end() ? -1 : it->second};
  }

  int64_t batchSize() const override { return size; }

  /// Emits the batched `op`; fails with an error at `op`.
  LogicalResult emit(Operation &op) {
    SmallVector<Value> operands;
    SmallVector<int64_t> operandDims;
    for (Value operand : op.getOperands()) {
      auto [value, dim] = batched(operand);
      operands.push_back(value);
      operandDims.push_back(dim);
    }
    if (!dependsOnBatch(op, operandDims)) {
      b.clone(op, values);
      return success();
    }
    SmallVector<Value> results;
    SmallVector<int64_t> resultDims;
    LogicalResult built = failure();
    if (auto call = dyn_cast<func::CallOp>(op))
      built = emitCall(call, operands, operandDims, results, resultDims);
    else if (isa<CustomVjpOp>(op))
      built = emitCustomVjp(op, operands, operandDims, results, resultDims);
    else if (auto checkpoint = dyn_cast<CheckpointOp>(op))
      built = emitCheckpoint(checkpoint, operands, operandDims, results,
                             resultDims);
    else if (auto rule = dyn_cast<RegionBatchingOpInterface>(op))
      built = rule.buildRegionBatched(b, *this, results, resultDims);
    else if (auto rule = dyn_cast<BatchingOpInterface>(op))
      built = rule.buildBatched(b, operands, operandDims, size, results,
                                resultDims);
    else
      return op.emitOpError("has no batching rule");
    if (failed(built))
      return failure();
    for (auto [result, value, dim] :
         llvm::zip_equal(op.getResults(), results, resultDims))
      bind(result, value, dim);
    return success();
  }

  LogicalResult emitBlock(OpBuilder &builder, Block &source, ValueRange args,
                          ArrayRef<int64_t> argDims,
                          SmallVectorImpl<Value> &yielded,
                          SmallVectorImpl<int64_t> &yieldedDims) override {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(builder.getInsertionBlock(),
                        builder.getInsertionPoint());
    for (auto [arg, value, dim] :
         llvm::zip_equal(source.getArguments(), args, argDims))
      bind(arg, value, dim);
    for (Operation &op : source.without_terminator())
      if (failed(emit(op)))
        return failure();
    for (Value v : source.getTerminator()->getOperands()) {
      auto [value, dim] = batched(v);
      yielded.push_back(value);
      yieldedDims.push_back(dim);
    }
    return success();
  }

private:
  /// Whether a result of `op` may depend on the batch: an operand, or a
  /// value its regions use from above, is batched.
  bool dependsOnBatch(Operation &op, ArrayRef<int64_t> operandDims) {
    if (llvm::any_of(operandDims, [](int64_t d) { return d != -1; }))
      return true;
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(op.getRegions(), captured);
    return llvm::any_of(captured, [&](Value v) { return dims.count(v); });
  }

  /// A call: of the callee batched as its operands are, its results batched
  /// first.
  LogicalResult emitCall(func::CallOp call, ValueRange operands,
                         ArrayRef<int64_t> operandDims,
                         SmallVectorImpl<Value> &results,
                         SmallVectorImpl<int64_t> &resultDims) {
    auto callee = dyn_cast_or_null<func::FuncOp>(
        SymbolTable::lookupNearestSymbolFrom(call, call.getCalleeAttr()));
    if (!callee || callee.isExternal())
      return call.emitOpError("calls @")
             << call.getCallee() << ", which has no body to batch";
    SmallVector<int64_t> outAxes(call.getNumResults(), 0);
    FailureOr<func::FuncOp> batchedCallee =
        vmaps.getOrBuild(callee, operandDims, outAxes, size);
    if (failed(batchedCallee))
      return failure();
    llvm::append_range(
        results,
        func::CallOp::create(b, call.getLoc(), *batchedCallee, operands)
            .getResults());
    resultDims.append(call.getNumResults(), 0);
    return success();
  }

  /// A checkpoint: of its function, batched, with the same policy.
  LogicalResult emitCheckpoint(CheckpointOp op, ValueRange operands,
                               ArrayRef<int64_t> operandDims,
                               SmallVectorImpl<Value> &results,
                               SmallVectorImpl<int64_t> &resultDims) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, op.getCalleeAttr());
    SmallVector<int64_t> outAxes(op.getNumResults(), 0);
    FailureOr<func::FuncOp> batched =
        vmaps.getOrBuild(callee, operandDims, outAxes, size);
    if (failed(batched))
      return failure();
    Operation *copy = b.clone(*op);
    copy->setOperands(operands);
    copy->setAttr("callee", SymbolRefAttr::get(*batched));
    for (Value result : copy->getResults()) {
      result.setType(batchedType(result.getType(), 0, size));
      results.push_back(result);
      resultDims.push_back(0);
    }
    return success();
  }

  /// A custom_vjp: of its function, batched, with its rule batched.
  LogicalResult emitCustomVjp(Operation &op, ValueRange operands,
                              ArrayRef<int64_t> operandDims,
                              SmallVectorImpl<Value> &results,
                              SmallVectorImpl<int64_t> &resultDims) {
    FailureOr<VmapBuilder::CustomRule> rule =
        vmaps.getOrBuildCustom(&op, operandDims, size);
    if (failed(rule))
      return failure();
    Operation *copy = b.clone(op);
    copy->setOperands(operands);
    copy->setAttr("callee", SymbolRefAttr::get(rule->callee));
    copy->setAttr("fwd", SymbolRefAttr::get(rule->fwd));
    copy->setAttr("bwd", SymbolRefAttr::get(rule->bwd));
    for (Value result : copy->getResults()) {
      result.setType(batchedType(result.getType(), 0, size));
      results.push_back(result);
      resultDims.push_back(0);
    }
    return success();
  }

  OpBuilder &b;
  VmapBuilder &vmaps;
  int64_t size;
  IRMapping values;
  /// The batch dimension of each batched value (absent: not batched).
  DenseMap<Value, int64_t> dims;
};

} // namespace

FailureOr<func::FuncOp> VmapBuilder::getOrBuild(func::FuncOp fn,
                                                ArrayRef<int64_t> inAxes,
                                                ArrayRef<int64_t> outAxes,
                                                int64_t batchSize) {
  std::string key = fn.getName().str() + "/";
  for (int64_t axis : inAxes)
    key += std::to_string(axis) + ",";
  key += "/";
  for (int64_t axis : outAxes)
    key += std::to_string(axis) + ",";
  key += "/" + std::to_string(batchSize);
  if (func::FuncOp done = built[key])
    return done;
  if (!fn.getBody().hasOneBlock())
    return fn.emitOpError("cannot be batched: its body is not one block");

  FunctionType type = fn.getFunctionType();
  auto batchedTypes = [&](TypeRange types, ArrayRef<int64_t> axes) {
    SmallVector<Type> result;
    for (auto [t, axis] : llvm::zip_equal(types, axes))
      result.push_back(axis == -1 ? t : batchedType(t, axis, batchSize));
    return result;
  };
  OpBuilder b(fn);
  b.setInsertionPointAfter(fn);
  auto batched = func::FuncOp::create(
      b, fn.getLoc(), (fn.getName() + "_vmap").str(),
      b.getFunctionType(batchedTypes(type.getInputs(), inAxes),
                        batchedTypes(type.getResults(), outAxes)));
  batched.setPrivate();
  symbols.insert(batched); // Renames it if the name is taken.
  Block *entry = batched.addEntryBlock();
  b.setInsertionPointToStart(entry);
  BatchEmitter emitter(b, *this, batchSize);
  for (auto [arg, value, axis] :
       llvm::zip_equal(fn.getArguments(), entry->getArguments(), inAxes))
    emitter.bind(arg, value, axis);
  auto discard = [&] {
    batched.erase();
    return failure();
  };
  for (Operation &op : fn.getBody().front().without_terminator())
    if (failed(emitter.emit(op)))
      return discard();
  Operation *terminator = fn.getBody().front().getTerminator();
  SmallVector<Value> returned;
  for (auto [i, v, axis] :
       llvm::enumerate(terminator->getOperands(), outAxes)) {
    auto [value, dim] = emitter.batched(v);
    if (axis == -1 && dim != -1) {
      terminator->emitOpError("result #")
          << i << " of @" << fn.getName()
          << " depends on the batch, but its out_axes entry is -1";
      return discard();
    }
    returned.push_back(
        axis == -1 ? value
                   : batchAt(b, terminator->getLoc(), value, dim, axis,
                             batchSize));
  }
  func::ReturnOp::create(b, terminator->getLoc(), returned);
  if (failed(tidy(batched)))
    return failure();
  return built[key] = batched;
}

FailureOr<VmapBuilder::CustomRule>
VmapBuilder::getOrBuildCustom(Operation *customVjp,
                              ArrayRef<int64_t> operandDims,
                              int64_t batchSize) {
  auto custom = cast<CustomVjpOp>(customVjp);
  auto fn = symbols.lookup<func::FuncOp>(custom.getCallee());
  auto fwd = symbols.lookup<func::FuncOp>(custom.getFwd());
  auto bwd = symbols.lookup<func::FuncOp>(custom.getBwd());
  unsigned n = fn.getNumArguments(), m = fn.getNumResults();
  unsigned r = fwd.getNumResults() - m;
  SmallVector<int64_t> first(std::max(n, m + r), 0);
  FailureOr<func::FuncOp> callee =
      getOrBuild(fn, operandDims, ArrayRef(first).take_front(m), batchSize);
  if (failed(callee))
    return failure();
  FailureOr<func::FuncOp> batchedFwd = getOrBuild(
      fwd, operandDims, ArrayRef(first).take_front(m + r), batchSize);
  if (failed(batchedFwd))
    return failure();
  FailureOr<func::FuncOp> batchedBwd =
      getOrBuild(bwd, ArrayRef(first).take_front(r + m),
                 ArrayRef(first).take_front(n), batchSize);
  if (failed(batchedBwd))
    return failure();

  // The backward rule of the batched custom_vjp: each cotangent where its
  // operand has its batch, summed where the operand has none.
  std::string key = batchedBwd->getName().str() + "/operands/";
  for (int64_t dim : operandDims)
    key += std::to_string(dim) + ",";
  if (func::FuncOp done = built[key])
    return CustomRule{*callee, *batchedFwd, done};
  OpBuilder b(*batchedBwd);
  b.setInsertionPointAfter(*batchedBwd);
  Location loc = custom.getLoc();
  auto adjoint = func::FuncOp::create(
      b, loc, (bwd.getName() + "_vmap_cotangents").str(),
      b.getFunctionType(batchedBwd->getArgumentTypes(),
                        callee->getArgumentTypes()));
  adjoint.setPrivate();
  symbols.insert(adjoint);
  b.setInsertionPointToStart(adjoint.addEntryBlock());
  auto cotangents =
      func::CallOp::create(b, loc, *batchedBwd, adjoint.getArguments());
  SmallVector<Value> returned;
  for (auto [ct, dim, type] : llvm::zip_equal(
           cotangents.getResults(), operandDims, callee->getArgumentTypes())) {
    if (dim != -1) {
      returned.push_back(moveBatchDim(b, loc, ct, 0, dim));
      continue;
    }
    // A non-float operand has no derivative: any lane's zero will do.
    if (isa<FloatType>(getElementTypeOrSelf(type))) {
      returned.push_back(ReduceSumOp::create(b, loc, ct, ArrayRef<int64_t>{0}));
      continue;
    }
    auto tensor = cast<RankedTensorType>(type);
    SmallVector<int64_t> start(tensor.getRank() + 1, 0),
        limit = {1}, strides(tensor.getRank() + 1, 1);
    llvm::append_range(limit, tensor.getShape());
    returned.push_back(ReshapeOp::create(
        b, loc, tensor, SliceOp::create(b, loc, ct, start, limit, strides)));
  }
  func::ReturnOp::create(b, loc, returned);
  if (failed(tidy(adjoint)))
    return failure();
  built[key] = adjoint;
  return CustomRule{*callee, *batchedFwd, adjoint};
}
