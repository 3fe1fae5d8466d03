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
  if (returnsValue)
    llvm::append_range(expected, fn->getResultTypes());
  if (failed(verifyArgnums(op, op.getArgnums(), *fn, expected)))
    return failure();
  if (!returnsValue && op.getHasAux())
    llvm::append_range(expected, fn->getResultTypes().drop_front());
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
  SmallVector<int64_t> argnums =
      getArgnums() ? llvm::to_vector(*getArgnums())
                   : llvm::to_vector(llvm::seq<int64_t>(fn->getNumArguments()));
  SmallVector<Type> results(fn->getResultTypes());
  if (failed(verifyArgnums(*this, argnums, *fn, results)))
    return failure();
  return verifyTypes(*this, "result", getResultTypes(), results,
                     "the callee's results then one cotangent per argnum");
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
    batchSize = size;
    expectedOperands.push_back(insertDimension(argType, axis, size));
  }
  if (failed(verifyTypes(*this, "operand", getOperands().getTypes(),
                         expectedOperands,
                         "the callee's arguments batched by in_axes")))
    return failure();

  SmallVector<Type> expectedResults;
  for (auto [axis, result] : llvm::zip(getOutAxes(), fn->getResultTypes())) {
    auto type = cast<RankedTensorType>(result);
    expectedResults.push_back(axis == -1 ? type
                                         : insertDimension(type, axis,
                                                           *batchSize));
  }
  return verifyTypes(*this, "result", getResultTypes(), expectedResults,
                     "the callee's results batched by out_axes");
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
  SmallVector<Type> expected(results.take_front(numCarry));
  llvm::append_range(expected, stacked(results.drop_front(numCarry), length));
  return verifyTypes(*this, "result", getResultTypes(), expected,
                     "the carries then the ys stacked `length` times");
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
