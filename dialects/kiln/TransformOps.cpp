//===- TransformOps.cpp - verifiers of the transformation ops -------------===//
//
// Each transformation op's operands, results and attributes must agree with
// its callee as DESIGN.md's contract table says. Checks of the attributes
// and operands alone run in verify(), so they report even when the callee is
// missing; checks against the callee run as symbol uses, so that the callee
// is looked up once per symbol table.
//
//===----------------------------------------------------------------------===//
#include "TypeInference.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace kiln;

/// The func.func `callee` names, or an error on `op`; `role` names the
/// attribute in errors.
static FailureOr<func::FuncOp> lookupCallee(Operation *op,
                                            FlatSymbolRefAttr callee,
                                            SymbolTableCollection &symbols,
                                            StringRef role = "callee") {
  Operation *symbol = symbols.lookupNearestSymbolFrom(op, callee.getAttr());
  if (!symbol)
    return op->emitOpError(role) << " " << callee << " does not exist";
  auto fn = dyn_cast<func::FuncOp>(symbol);
  if (!fn)
    return op->emitOpError(role)
           << " " << callee << " is a '" << symbol->getName()
           << "', not a func.func";
  // Transformations rewrite tensors; the checks below rely on it.
  auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
  if (!llvm::all_of(fn.getArgumentTypes(), isTensor) ||
      !llvm::all_of(fn.getResultTypes(), isTensor))
    return op->emitOpError(role) << " "
           << callee << " has type " << fn.getFunctionType()
           << "; transformations need ranked tensor arguments and results";
  return fn;
}

/// Gives `op`'s results `types` (as many as it has: the op was verified).
static LogicalResult setResultTypes(Operation *op, TypeRange types) {
  for (auto [result, type] : llvm::zip_equal(op->getResults(), types))
    result.setType(type);
  return success();
}

/// Checks that `actual` equals `expected` type for type; `what` names the
/// values ("operand", "result") and `why` says where the expectation comes
/// from.
static LogicalResult verifyTypes(Operation *op, StringRef what,
                                 TypeRange actual, TypeRange expected,
                                 StringRef why) {
  if (actual.size() != expected.size())
    return op->emitOpError("has ")
           << actual.size() << " " << what << "s but " << why << " give "
           << expected.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(actual, expected))) {
    auto [got, want] = pair;
    if (got != want)
      return op->emitOpError()
             << what << " #" << i << " has type " << got << " but " << why
             << " give " << want;
  }
  return success();
}

/// Checks that `argnums` (distinct and non-negative, checked by
/// verifyDistinctArgnums) name arguments of `fn` of float type, and appends
/// those arguments' types to `types`.
static LogicalResult verifyArgnums(Operation *op, ArrayRef<int64_t> argnums,
                                   func::FuncOp fn,
                                   SmallVectorImpl<Type> &types) {
  int64_t numArgs = fn.getNumArguments();
  for (int64_t argnum : argnums) {
    if (argnum >= numArgs)
      return op->emitOpError("argnums entry ")
             << argnum << " is out of range for callee @" << fn.getName()
             << " with " << numArgs << " arguments";
    Type type = fn.getArgumentTypes()[argnum];
    if (!isa<FloatType>(getElementTypeOrSelf(type)))
      return op->emitOpError("argnums selects argument ")
             << argnum << " of type " << type
             << "; only float arguments have gradients";
    types.push_back(type);
  }
  return success();
}

/// Checks that `argnums` are non-negative and distinct.
static LogicalResult verifyDistinctArgnums(Operation *op,
                                           ArrayRef<int64_t> argnums) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t argnum : argnums) {
    if (argnum < 0)
      return op->emitOpError("argnums entry ") << argnum << " is negative";
    if (!seen.insert(argnum).second)
      return op->emitOpError("argnums repeats ") << argnum;
  }
  return success();
}

LogicalResult GradOp::verify() {
  return verifyDistinctArgnums(*this, getArgnums());
}

LogicalResult ValueAndGradOp::verify() {
  return verifyDistinctArgnums(*this, getArgnums());
}

LogicalResult VjpOp::verify() {
  return verifyDistinctArgnums(*this, getArgnums().value_or(
                                          ArrayRef<int64_t>()));
}

/// Checks the callee of grad / value_and_grad: its first result is a scalar
/// float, and it has other (aux) results exactly when `hasAux`.
static LogicalResult verifyScalarLoss(Operation *op, func::FuncOp fn,
                                      bool hasAux) {
  TypeRange results = fn.getResultTypes();
  auto loss = results.empty() ? RankedTensorType()
                              : dyn_cast<RankedTensorType>(results.front());
  if (!loss || loss.getRank() != 0 || !isa<FloatType>(loss.getElementType()))
    return op->emitOpError("callee @")
           << fn.getName()
           << "'s first result must be a scalar float tensor such as "
              "tensor<f32>";
  if (!hasAux && results.size() != 1)
    return op->emitOpError("callee @")
           << fn.getName() << " has " << results.size()
           << " results; without has_aux it must have exactly one";
  return success();
}

/// The results of grad (`returnsValue` false) or value_and_grad of `fn`:
/// the callee's results for value_and_grad, the gradients, then the aux
/// results for grad with has_aux.
template <typename OpTy>
static LogicalResult gradLikeResults(OpTy op, func::FuncOp fn,
                                     bool returnsValue,
                                     SmallVectorImpl<Type> &types) {
  if (returnsValue)
    llvm::append_range(types, fn.getResultTypes());
  if (failed(verifyArgnums(op, op.getArgnums(), fn, types)))
    return failure();
  if (!returnsValue && op.getHasAux())
    llvm::append_range(types, fn.getResultTypes().drop_front());
  return success();
}

/// Names the function `specialize` gives for grad or value_and_grad's
/// operands and takes its results.
template <typename OpTy>
static LogicalResult specializeGradLike(OpTy op, SpecializeCallee specialize,
                                        bool returnsValue) {
  FailureOr<func::FuncOp> fn =
      specialize(op.getCalleeAttr(), op.getOperands().getTypes());
  SmallVector<Type> types;
  if (failed(fn) || failed(gradLikeResults(op, *fn, returnsValue, types)))
    return failure();
  op.setCallee(fn->getSymName());
  return setResultTypes(op, types);
}

/// The shared checks of grad and value_and_grad. The results are
/// `valueResults` of the callee's (all for value_and_grad, none for grad),
/// the gradients, then the aux results when grad has them.
template <typename OpTy>
static LogicalResult verifyGradLike(OpTy op, SymbolTableCollection &symbols,
                                    bool returnsValue) {
  // Symbol uses may be verified before the op itself: the checks below
  // rely on valid attributes.
  if (failed(op.verify()))
    return failure();
  FailureOr<func::FuncOp> fn = lookupCallee(op, op.getCalleeAttr(), symbols);
  if (failed(fn) ||
      failed(verifyTypes(op, "operand", op.getOperands().getTypes(),
                         fn->getArgumentTypes(), "the callee's arguments")) ||
      failed(verifyScalarLoss(op, *fn, op.getHasAux())))
    return failure();
  SmallVector<Type> expected;
  if (failed(gradLikeResults(op, *fn, returnsValue, expected)))
    return failure();
  return verifyTypes(op, "result", op.getResultTypes(), expected,
                     returnsValue ? "the callee's results then the gradients"
                                  : "the gradients (then the aux results)");
}

LogicalResult GradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyGradLike(*this, symbols, /*returnsValue=*/false);
}

LogicalResult ValueAndGradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyGradLike(*this, symbols, /*returnsValue=*/true);
}

LogicalResult GradOp::specializeCallees(SpecializeCallee specialize) {
  return specializeGradLike(*this, specialize, /*returnsValue=*/false);
}

LogicalResult ValueAndGradOp::specializeCallees(SpecializeCallee specialize) {
  return specializeGradLike(*this, specialize, /*returnsValue=*/true);
}

/// `types` followed by `types` again (primals then tangents).
static SmallVector<Type> twice(TypeRange types) {
  SmallVector<Type> result(types);
  llvm::append_range(result, types);
  return result;
}

LogicalResult JvpOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<func::FuncOp> fn = lookupCallee(*this, getCalleeAttr(), symbols);
  if (failed(fn) ||
      failed(verifyTypes(*this, "operand", getOperands().getTypes(),
                         twice(fn->getArgumentTypes()),
                         "the callee's arguments then their tangents")))
    return failure();
  return verifyTypes(*this, "result", getResultTypes(),
                     twice(fn->getResultTypes()),
                     "the callee's results then their tangents");
}

LogicalResult JvpOp::specializeCallees(SpecializeCallee specialize) {
  TypeRange primals =
      TypeRange(getOperands()).take_front(getNumOperands() / 2);
  FailureOr<func::FuncOp> fn = specialize(getCalleeAttr(), primals);
  if (failed(fn))
    return failure();
  setCallee(fn->getSymName());
  return setResultTypes(*this, twice(fn->getResultTypes()));
}

/// The results of vjp of `fn`: its results, then one cotangent per argnum
/// (default: every argument).
static LogicalResult vjpResults(VjpOp op, func::FuncOp fn,
                                SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> argnums =
      op.getArgnums()
          ? llvm::to_vector(*op.getArgnums())
          : llvm::to_vector(llvm::seq<int64_t>(fn.getNumArguments()));
  llvm::append_range(types, fn.getResultTypes());
  return verifyArgnums(op, argnums, fn, types);
}

LogicalResult VjpOp::verifySymbolUses(SymbolTableCollection &symbols) {
  if (failed(verify())) // See verifyGradLike.
    return failure();
  FailureOr<func::FuncOp> fn = lookupCallee(*this, getCalleeAttr(), symbols);
  if (failed(fn))
    return failure();
  SmallVector<Type> operands(fn->getArgumentTypes());
  llvm::append_range(operands, fn->getResultTypes());
  if (failed(verifyTypes(*this, "operand", getOperands().getTypes(), operands,
                         "the callee's arguments then one cotangent per "
                         "callee result")))
    return failure();
  SmallVector<Type> results;
  if (failed(vjpResults(*this, *fn, results)))
    return failure();
  return verifyTypes(*this, "result", getResultTypes(), results,
                     "the callee's results then one cotangent per argnum");
}

LogicalResult VjpOp::specializeCallees(SpecializeCallee specialize) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      *this, getCalleeAttr());
  TypeRange primals =
      TypeRange(getOperands()).take_front(callee.getNumArguments());
  FailureOr<func::FuncOp> fn = specialize(getCalleeAttr(), primals);
  SmallVector<Type> results;
  if (failed(fn) || failed(vjpResults(*this, *fn, results)))
    return failure();
  setCallee(fn->getSymName());
  return setResultTypes(*this, results);
}

//===----------------------------------------------------------------------===//
// vmap
//===----------------------------------------------------------------------===//

/// `type` with a dimension of `size` inserted at `axis`.
static RankedTensorType insertDimension(RankedTensorType type, int64_t axis,
                                        int64_t size) {
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + axis, size);
  return type.clone(shape);
}

/// `types`, each with a dimension of `size` inserted at its entry of `axes`
/// (none for -1).
static SmallVector<Type> batched(TypeRange types, ArrayRef<int64_t> axes,
                                 int64_t size) {
  SmallVector<Type> result;
  for (auto [axis, type] : llvm::zip(axes, types)) {
    auto tensor = cast<RankedTensorType>(type);
    result.push_back(axis == -1 ? tensor : insertDimension(tensor, axis, size));
  }
  return result;
}

/// Checks that each batch axis in `axes` (attribute `what`, one per type in
/// `unbatched`) is -1 or a valid position to insert a dimension.
static LogicalResult verifyAxes(Operation *op, StringRef what,
                                ArrayRef<int64_t> axes, TypeRange unbatched,
                                StringRef entries) {
  if (axes.size() != unbatched.size())
    return op->emitOpError()
           << what << " has " << axes.size() << " entries but there are "
           << unbatched.size() << " " << entries;
  for (auto [i, pair] : llvm::enumerate(llvm::zip(axes, unbatched))) {
    auto [axis, type] = pair;
    int64_t rank = cast<RankedTensorType>(type).getRank();
    if (axis < -1 || axis > rank)
      return op->emitOpError()
             << what << " entry " << axis << " for #" << i
             << " must be -1 or in [0, " << rank << "]";
  }
  return success();
}

LogicalResult VmapOp::verify() {
  if (std::optional<int64_t> size = getAxisSize(); size && *size < 0)
    return emitOpError("axis_size ") << *size << " is negative";
  if (!getAxisSize() && llvm::all_of(getInAxes(), [](int64_t axis) {
        return axis == -1;
      }))
    return emitOpError("needs axis_size when no operand is batched");
  return success();
}

LogicalResult VmapOp::verifySymbolUses(SymbolTableCollection &symbols) {
  if (failed(verify())) // See verifyGradLike.
    return failure();
  FailureOr<func::FuncOp> fn = lookupCallee(*this, getCalleeAttr(), symbols);
  if (failed(fn))
    return failure();
  TypeRange args = fn->getArgumentTypes();
  if (getOperands().size() != args.size())
    return emitOpError("has ")
           << getOperands().size() << " operands but callee @"
           << fn->getName() << " takes " << args.size();
  if (failed(verifyAxes(*this, "in_axes", getInAxes(), args, "operands")) ||
      failed(verifyAxes(*this, "out_axes", getOutAxes(), fn->getResultTypes(),
                        "callee results")))
    return failure();

  // The batch size: from axis_size, and from every batched operand.
  std::optional<int64_t> batchSize = getAxisSize();
  SmallVector<Type> expectedOperands;
  for (auto [i, axis, value, arg] :
       llvm::enumerate(getInAxes(), getOperands(), args)) {
    auto argType = cast<RankedTensorType>(arg);
    if (axis == -1) {
      expectedOperands.push_back(argType);
      continue;
    }
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() != argType.getRank() + 1)
      return emitOpError("operand #")
             << i << " has type " << type << "; batched along axis " << axis
             << " it must have rank " << argType.getRank() + 1;
    int64_t size = type.getDimSize(axis);
    if (batchSize && sizesConflict(*batchSize, size))
      return emitOpError("operand #")
             << i << " has batch size " << size
             << " but the batch size is " << *batchSize;
    if (!batchSize || ShapedType::isDynamic(*batchSize))
      batchSize = size;
    expectedOperands.push_back(insertDimension(argType, axis, size));
  }
  if (failed(verifyTypes(*this, "operand", getOperands().getTypes(),
                         expectedOperands,
                         "the callee's arguments batched by in_axes")))
    return failure();

  return verifyTypes(*this, "result", getResultTypes(),
                     batched(fn->getResultTypes(), getOutAxes(), *batchSize),
                     "the callee's results batched by out_axes");
}

LogicalResult VmapOp::specializeCallees(SpecializeCallee specialize) {
  std::optional<int64_t> batchSize = getAxisSize();
  SmallVector<Type> args;
  for (auto [axis, type] : llvm::zip(getInAxes(), getOperands().getTypes())) {
    auto tensor = cast<RankedTensorType>(type);
    if (axis == -1) {
      args.push_back(tensor);
      continue;
    }
    batchSize = tensor.getDimSize(axis);
    SmallVector<int64_t> shape(tensor.getShape());
    shape.erase(shape.begin() + axis);
    args.push_back(tensor.clone(shape));
  }
  FailureOr<func::FuncOp> fn = specialize(getCalleeAttr(), args);
  if (failed(fn))
    return failure();
  setCallee(fn->getSymName());
  // The verifier asks for axis_size when no operand is batched.
  return setResultTypes(
      *this, batched(fn->getResultTypes(), getOutAxes(), *batchSize));
}

//===----------------------------------------------------------------------===//
// scan
//===----------------------------------------------------------------------===//

/// `types` each stacked `length` times along a new leading dimension.
static SmallVector<Type> stacked(TypeRange types, int64_t length) {
  SmallVector<Type> result;
  for (Type type : types)
    result.push_back(insertDimension(cast<RankedTensorType>(type), 0, length));
  return result;
}

/// The carries (the first `numCarry` of `types`), then the others stacked
/// `length` times.
static SmallVector<Type> scanned(TypeRange types, int64_t numCarry,
                                 int64_t length) {
  SmallVector<Type> result(types.take_front(numCarry));
  llvm::append_range(result, stacked(types.drop_front(numCarry), length));
  return result;
}

LogicalResult ScanOp::verify() {
  // I64Attr getters return uint64_t: read them as signed.
  int64_t length = getLength(), unroll = getUnroll(), numCarry = getNumCarry();
  if (length < 0)
    return emitOpError("length ") << length << " is negative";
  if (unroll < 1)
    return emitOpError("unroll ") << unroll << " must be at least 1";
  if (numCarry < 0)
    return emitOpError("num_carry ") << numCarry << " is negative";
  if (int64_t checkpoints = getCheckpoints(); checkpoints < 0)
    return emitOpError("checkpoints ") << checkpoints << " is negative";
  return success();
}

LogicalResult ScanOp::verifySymbolUses(SymbolTableCollection &symbols) {
  if (failed(verify())) // See verifyGradLike.
    return failure();
  FailureOr<func::FuncOp> fn = lookupCallee(*this, getCalleeAttr(), symbols);
  if (failed(fn))
    return failure();
  int64_t numCarry = getNumCarry(), length = getLength();
  TypeRange args = fn->getArgumentTypes(), results = fn->getResultTypes();
  if (numCarry > static_cast<int64_t>(args.size()) ||
      numCarry > static_cast<int64_t>(results.size()))
    return emitOpError("num_carry ")
           << numCarry << " must be in [0, " << std::min(args.size(), results.size())
           << "] for callee @" << fn->getName() << " with " << args.size()
           << " arguments and " << results.size() << " results";
  if (args.take_front(numCarry) != results.take_front(numCarry))
    return emitOpError("callee @")
           << fn->getName() << " takes carries (" << args.take_front(numCarry)
           << ") but returns carries (" << results.take_front(numCarry) << ")";

  SmallVector<Type> operands(args.take_front(numCarry));
  llvm::append_range(operands, stacked(args.drop_front(numCarry), length));
  if (failed(verifyTypes(*this, "operand", getOperands().getTypes(), operands,
                         "the carries then the xs stacked `length` times")))
    return failure();
  return verifyTypes(*this, "result", getResultTypes(),
                     scanned(results, numCarry, length),
                     "the carries then the ys stacked `length` times");
}

LogicalResult ScanOp::specializeCallees(SpecializeCallee specialize) {
  int64_t numCarry = getNumCarry(), length = getLength();
  SmallVector<Type> args(TypeRange(getOperands()).take_front(numCarry));
  for (Type type : TypeRange(getOperands()).drop_front(numCarry)) {
    auto tensor = cast<RankedTensorType>(type);
    args.push_back(tensor.clone(tensor.getShape().drop_front()));
  }
  FailureOr<func::FuncOp> fn = specialize(getCalleeAttr(), args);
  if (failed(fn))
    return failure();
  setCallee(fn->getSymName());
  return setResultTypes(*this,
                        scanned(fn->getResultTypes(), numCarry, length));
}

//===----------------------------------------------------------------------===//
// checkpoint
//===----------------------------------------------------------------------===//

LogicalResult CheckpointOp::verify() {
  if (!getNames().empty() && getPolicy() != RematPolicy::save_only_these_names)
    return emitOpError("names are only used by policy save_only_these_names");
  return success();
}

LogicalResult CheckpointOp::verifySymbolUses(SymbolTableCollection &symbols) {
  if (failed(verify())) // See verifyGradLike.
    return failure();
  FailureOr<func::FuncOp> fn = lookupCallee(*this, getCalleeAttr(), symbols);
  if (failed(fn) ||
      failed(verifyTypes(*this, "operand", getOperands().getTypes(),
                         fn->getArgumentTypes(), "the callee's arguments")))
    return failure();
  return verifyTypes(*this, "result", getResultTypes(), fn->getResultTypes(),
                     "the callee's results");
}

LogicalResult CheckpointOp::specializeCallees(SpecializeCallee specialize) {
  FailureOr<func::FuncOp> fn =
      specialize(getCalleeAttr(), getOperands().getTypes());
  if (failed(fn))
    return failure();
  setCallee(fn->getSymName());
  return setResultTypes(*this, fn->getResultTypes());
}

LogicalResult CheckpointNameOp::verify() {
  if (getName().empty())
    return emitOpError("name must not be empty");
  return success();
}

//===----------------------------------------------------------------------===//
// custom_vjp
//===----------------------------------------------------------------------===//

LogicalResult CustomVjpOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<func::FuncOp> fn = lookupCallee(*this, getCalleeAttr(), symbols);
  if (failed(fn) ||
      failed(verifyTypes(*this, "operand", getOperands().getTypes(),
                         fn->getArgumentTypes(), "the callee's arguments")) ||
      failed(verifyTypes(*this, "result", getResultTypes(),
                         fn->getResultTypes(), "the callee's results")))
    return failure();
  FailureOr<func::FuncOp> fwd =
      lookupCallee(*this, getFwdAttr(), symbols, "fwd");
  if (failed(fwd))
    return failure();
  FailureOr<func::FuncOp> bwd =
      lookupCallee(*this, getBwdAttr(), symbols, "bwd");
  if (failed(bwd))
    return failure();
  TypeRange fwdResults = fwd->getResultTypes();
  unsigned numResults = fn->getNumResults();
  if (fwd->getArgumentTypes() != fn->getArgumentTypes() ||
      fwdResults.size() < numResults ||
      fwdResults.take_front(numResults) != fn->getResultTypes())
    return emitOpError("fwd @")
           << fwd->getName()
           << " must take the callee's arguments and return its results, "
              "then the residuals";
  SmallVector<Type> bwdInputs(fwdResults.drop_front(numResults));
  llvm::append_range(bwdInputs, fn->getResultTypes());
  if (TypeRange(bwdInputs) != bwd->getArgumentTypes() ||
      bwd->getResultTypes() != fn->getArgumentTypes())
    return emitOpError("bwd @")
           << bwd->getName() << " must have type "
           << FunctionType::get(getContext(), bwdInputs,
                                fn->getArgumentTypes())
           << ": the residuals of fwd, then one cotangent per result, to one "
              "cotangent per argument";
  return success();
}

LogicalResult CustomVjpOp::specializeCallees(SpecializeCallee specialize) {
  TypeRange operands = getOperands().getTypes();
  FailureOr<func::FuncOp> fn = specialize(getCalleeAttr(), operands);
  if (failed(fn))
    return failure();
  FailureOr<func::FuncOp> fwd = specialize(getFwdAttr(), operands);
  if (failed(fwd))
    return failure();
  SmallVector<Type> bwdInputs(
      fwd->getResultTypes().drop_front(fn->getNumResults()));
  llvm::append_range(bwdInputs, fn->getResultTypes());
  FailureOr<func::FuncOp> bwd = specialize(getBwdAttr(), bwdInputs);
  if (failed(bwd))
    return failure();
  setCallee(fn->getSymName());
  setFwd(fwd->getSymName());
  setBwd(bwd->getSymName());
  return setResultTypes(*this, fn->getResultTypes());
}
