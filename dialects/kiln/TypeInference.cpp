//===- TypeInference.cpp - shape inference of the kiln ops ----------------===//
#include "TypeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;

namespace kiln {

InFlightDiagnostic OptionalEmitter::operator()() const {
  Location where = loc ? *loc : UnknownLoc::get(context);
  return emitError(where) << "'" << opName << "' op ";
}

LogicalResult verifyDimension(EmitError emitError, StringRef what, int64_t dim,
                              int64_t rank) {
  if (dim < 0 || dim >= rank)
    return emitError() << what << " " << dim << " is out of range for rank "
                       << rank;
  return success();
}

LogicalResult verifyDimensionList(EmitError emitError, StringRef what,
                                  ArrayRef<int64_t> dims, int64_t rank) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t dim : dims) {
    if (failed(verifyDimension(emitError, what, dim, rank)))
      return failure();
    if (!seen.insert(dim).second)
      return emitError() << what << " repeats dimension " << dim;
  }
  return success();
}

LogicalResult verifyRankMatches(EmitError emitError, StringRef what,
                                ArrayRef<int64_t> list, int64_t rank) {
  if (static_cast<int64_t>(list.size()) != rank)
    return emitError() << what << " has " << list.size()
                       << " entries but the operand has rank " << rank;
  return success();
}

SmallVector<int64_t> dropDimensions(ArrayRef<int64_t> shape,
                                    ArrayRef<int64_t> dims) {
  SmallVector<int64_t> kept;
  for (auto [i, size] : llvm::enumerate(shape))
    if (!llvm::is_contained(dims, static_cast<int64_t>(i)))
      kept.push_back(size);
  return kept;
}

SmallVector<int64_t> dotGeneralShape(ArrayRef<int64_t> lhs,
                                     ArrayRef<int64_t> rhs,
                                     ArrayRef<int64_t> lhsBatch,
                                     ArrayRef<int64_t> rhsBatch,
                                     ArrayRef<int64_t> lhsContract,
                                     ArrayRef<int64_t> rhsContract) {
  SmallVector<int64_t> shape;
  for (int64_t dim : lhsBatch)
    shape.push_back(lhs[dim]);
  SmallVector<int64_t> lhsUsed(lhsBatch), rhsUsed(rhsBatch);
  llvm::append_range(lhsUsed, lhsContract);
  llvm::append_range(rhsUsed, rhsContract);
  llvm::append_range(shape, dropDimensions(lhs, lhsUsed));
  llvm::append_range(shape, dropDimensions(rhs, rhsUsed));
  return shape;
}

std::optional<int64_t> checkedNumElements(ArrayRef<int64_t> shape) {
  std::optional<int64_t> count = 1;
  for (int64_t size : shape)
    if (!ShapedType::isDynamic(size) &&
        !(count = llvm::checkedMul(*count, size)))
      return std::nullopt;
  return count;
}

int64_t elementBytes(Type type) {
  if (auto complex = dyn_cast<ComplexType>(type))
    return 2 * elementBytes(complex.getElementType());
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return 1;
}

std::optional<int64_t> staticBytes(ShapedType type) {
  std::optional<int64_t> count = checkedNumElements(type.getShape());
  if (!count)
    return std::nullopt;
  return llvm::checkedMul(*count, elementBytes(type.getElementType()));
}

bool hasAddressableSize(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && staticBytes(tensor).has_value();
}

SmallVector<int64_t> takeShape(ArrayRef<int64_t> operand,
                               ArrayRef<int64_t> indices, int64_t dim) {
  SmallVector<int64_t> shape(operand.take_front(dim));
  llvm::append_range(shape, indices);
  llvm::append_range(shape, operand.drop_front(dim + 1));
  return shape;
}

} // namespace kiln
