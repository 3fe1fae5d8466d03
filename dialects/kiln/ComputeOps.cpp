//===- ComputeOps.cpp - contractions, reductions and gathers --------------===//
#include "TypeInference.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace kiln;

//===----------------------------------------------------------------------===//
// dot_general
//===----------------------------------------------------------------------===//

/// Checks one operand's batching and contracting dimensions: each list valid
/// and no dimension in both.
static LogicalResult verifyDotSide(EmitError emit, StringRef side,
                                   ArrayRef<int64_t> batching,
                                   ArrayRef<int64_t> contracting,
                                   int64_t rank) {
  std::string batchName = (side + "_batching_dimensions").str();
  std::string contractName = (side + "_contracting_dimensions").str();
  if (failed(verifyDimensionList(emit, batchName, batching, rank)) ||
      failed(verifyDimensionList(emit, contractName, contracting, rank)))
    return failure();
  for (int64_t dim : batching)
    if (llvm::is_contained(contracting, dim))
      return emit() << side << " dimension " << dim
                    << " is both a batching and a contracting dimension";
  return success();
}

/// Checks that paired dimensions of lhs and rhs (attributes `what`) agree in
/// number and size.
static LogicalResult verifyDotPairs(EmitError emit, StringRef what,
                                    ArrayRef<int64_t> lhsDims,
                                    ArrayRef<int64_t> rhsDims,
                                    RankedTensorType lhs,
                                    RankedTensorType rhs) {
  if (lhsDims.size() != rhsDims.size())
    return emit() << "has " << lhsDims.size() << " lhs and " << rhsDims.size()
                  << " rhs " << what << " dimensions";
  for (auto [l, r] : llvm::zip(lhsDims, rhsDims))
    if (sizesConflict(lhs.getDimSize(l), rhs.getDimSize(r)))
      return emit() << what << " dimensions lhs " << l << " (size "
                    << lhs.getDimSize(l) << ") and rhs " << r << " (size "
                    << rhs.getDimSize(r) << ") differ in size";
  return success();
}

/// Whether `result` may hold a dot_general of `operand` elements: the same
/// type, or a wider one of the same kind (JAX's preferred_element_type).
static bool isValidDotResultType(Type operand, Type result) {
  if (operand == result)
    return true;
  return isa<FloatType>(operand) == isa<FloatType>(result) &&
         result.getIntOrFloatBitWidth() > operand.getIntOrFloatBitWidth();
}

LogicalResult DotGeneralOp::verify() {
  auto emit = [&] { return emitOpError(); };
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType();
  ArrayRef<int64_t> lhsBatch = getLhsBatchingDimensions();
  ArrayRef<int64_t> rhsBatch = getRhsBatchingDimensions();
  ArrayRef<int64_t> lhsContract = getLhsContractingDimensions();
  ArrayRef<int64_t> rhsContract = getRhsContractingDimensions();
  if (failed(verifyDotSide(emit, "lhs", lhsBatch, lhsContract,
                           lhs.getRank())) ||
      failed(verifyDotSide(emit, "rhs", rhsBatch, rhsContract,
                           rhs.getRank())) ||
      failed(verifyDotPairs(emit, "batching", lhsBatch, rhsBatch, lhs, rhs)) ||
      failed(verifyDotPairs(emit, "contracting", lhsContract, rhsContract,
                            lhs, rhs)))
    return failure();

  Type resultElement = getType().getElementType();
  if (!isValidDotResultType(lhs.getElementType(), resultElement))
    return emitOpError("result element type ")
           << resultElement << " is neither the operands' "
           << lhs.getElementType() << " nor a wider type of the same kind";

  auto expected = RankedTensorType::get(
      dotGeneralShape(lhs.getShape(), rhs.getShape(), lhsBatch, rhsBatch,
                      lhsContract, rhsContract),
      resultElement);
  if (expected != getType())
    return emitOpError("result type should be ")
           << expected << " (batch, then lhs free, then rhs free dimensions)"
           << " but is " << getType();
  return success();
}

LogicalResult DotGeneralOp::specializeResultTypes(SmallVectorImpl<Type> &types) {
  types.push_back(RankedTensorType::get(
      dotGeneralShape(getLhs().getType().getShape(),
                      getRhs().getType().getShape(),
                      getLhsBatchingDimensions(), getRhsBatchingDimensions(),
                      getLhsContractingDimensions(),
                      getRhsContractingDimensions()),
      getType().getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// reductions
//===----------------------------------------------------------------------===//

/// The result type of reducing `operand` over `dims`, or failure.
static LogicalResult inferReduceType(OptionalEmitter emit, Value operand,
                                     ArrayRef<int64_t> dims,
                                     SmallVectorImpl<Type> &types) {
  auto type = cast<RankedTensorType>(operand.getType());
  if (failed(verifyDimensionList(emit, "dimensions", dims, type.getRank())))
    return failure();
  types.push_back(type.clone(dropDimensions(type.getShape(), dims)));
  return success();
}

#define KILN_DEFINE_REDUCTION(OP)                                              \
  LogicalResult OP::inferReturnTypes(MLIRContext *context,                     \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferReduceType({loc, context, getOperationName()},                 \
                           adaptor.getOperand(), adaptor.getDimensions(),      \
                           types);                                             \
  }                                                                            \
  /* Reducing over no dimension is the identity. */                            \
  OpFoldResult OP::fold(FoldAdaptor) {                                         \
    return getDimensions().empty() ? getOperand() : Value();                   \
  }

KILN_DEFINE_REDUCTION(ReduceSumOp)
KILN_DEFINE_REDUCTION(ReduceProdOp)
KILN_DEFINE_REDUCTION(ReduceMaxOp)
KILN_DEFINE_REDUCTION(ReduceMinOp)
#undef KILN_DEFINE_REDUCTION

LogicalResult ArgmaxOp::verify() {
  RankedTensorType type = getOperand().getType();
  int64_t dim = getDimension();
  if (failed(verifyDimension([&] { return emitOpError(); }, "dimension", dim,
                             type.getRank())))
    return failure();
  if (type.getDimSize(dim) == 0)
    return emitOpError("dimension ")
           << dim << " has no elements to take the argmax of";
  SmallVector<int64_t> shape = dropDimensions(type.getShape(), {dim});
  if (getType().getShape() != ArrayRef<int64_t>(shape))
    return emitOpError("result type ")
           << getType() << " should have the operand's shape without "
           << "dimension " << dim;
  return success();
}

LogicalResult ArgmaxOp::specializeResultTypes(SmallVectorImpl<Type> &types) {
  int64_t dim = getDimension();
  types.push_back(getType().clone(
      dropDimensions(getOperand().getType().getShape(), {dim})));
  return success();
}

//===----------------------------------------------------------------------===//
// take, scatter_add
//===----------------------------------------------------------------------===//

LogicalResult TakeOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  OptionalEmitter emit{loc, context, getOperationName()};
  auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t dim = adaptor.getDimension();
  if (failed(verifyDimension(emit, "dimension", dim, type.getRank())))
    return failure();
  types.push_back(
      type.clone(takeShape(type.getShape(), indices.getShape(), dim)));
  return success();
}

LogicalResult ScatterAddOp::verify() {
  RankedTensorType type = getOperand().getType();
  int64_t dim = getDimension();
  if (failed(verifyDimension([&] { return emitOpError(); }, "dimension", dim,
                             type.getRank())))
    return failure();
  SmallVector<int64_t> shape =
      takeShape(type.getShape(), getIndices().getType().getShape(), dim);
  if (getUpdates().getType().getShape() != ArrayRef<int64_t>(shape))
    return emitOpError("updates have type ")
           << getUpdates().getType() << " but kiln.take of these indices "
           << "would give shape " << RankedTensorType::get(shape, type.getElementType());
  return success();
}

LogicalResult ScatterAddOp::specializeResultTypes(SmallVectorImpl<Type> &types) {
  types.push_back(getOperand().getType());
  return success();
}
