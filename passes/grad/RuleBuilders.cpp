//===- RuleBuilders.cpp - ops the differentiation rules build -------------===//
#include "RuleBuilders.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace kiln {

bool isDifferentiable(Type type) {
  return isa<FloatType>(getElementTypeOrSelf(type));
}

Value splat(OpBuilder &b, Location loc, Type type, double value) {
  auto tensor = cast<RankedTensorType>(type);
  auto element = cast<FloatType>(tensor.getElementType());
  return ConstantOp::create(
      b, loc, tensor,
      DenseElementsAttr::get(tensor, FloatAttr::get(element, value)));
}

Value integerSplat(OpBuilder &b, Location loc, Type type, int64_t value) {
  auto tensor = cast<RankedTensorType>(type);
  return ConstantOp::create(
      b, loc, tensor,
      DenseElementsAttr::get(
          tensor, b.getIntegerAttr(tensor.getElementType(), value)));
}

Value zeros(OpBuilder &b, Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return ConstantOp::create(b, loc, tensor,
                            cast<ElementsAttr>(b.getZeroAttr(tensor)));
}

Value addOrZero(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (!lhs)
    return rhs;
  if (!rhs)
    return lhs;
  return AddOp::create(b, loc, lhs, rhs);
}

Value broadcastBack(OpBuilder &b, Location loc, Value reduced,
                    RankedTensorType operand, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < operand.getRank(); ++d)
    if (!llvm::is_contained(dims, d))
      kept.push_back(d);
  auto type = operand.clone(
      cast<RankedTensorType>(reduced.getType()).getElementType());
  return BroadcastInDimOp::create(b, loc, type, reduced, kept);
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return integerSplat(b, loc, RankedTensorType::get({}, b.getI64Type()), value);
}

RankedTensorType stackedType(Type type, int64_t rows) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape = {rows};
  llvm::append_range(shape, tensor.getShape());
  return tensor.clone(shape);
}

SmallVector<Value> rowStarts(OpBuilder &b, Location loc, Value stack,
                             Value row) {
  SmallVector<Value> starts = {row};
  starts.append(cast<RankedTensorType>(stack.getType()).getRank() - 1,
                indexConstant(b, loc, 0));
  return starts;
}

Value writeRow(OpBuilder &b, Location loc, Value stack, Value v, Value row) {
  Value asRow = ReshapeOp::create(b, loc, stackedType(v.getType(), 1), v);
  return DynamicUpdateSliceOp::create(b, loc, stack.getType(), stack, asRow,
                                      rowStarts(b, loc, stack, row));
}

Value readRow(OpBuilder &b, Location loc, Value stack, Value row, Type type) {
  Value slice = DynamicSliceOp::create(b, loc, stack,
                                       rowStarts(b, loc, stack, row),
                                       stackedType(type, 1).getShape());
  return ReshapeOp::create(b, loc, type, slice);
}

} // namespace kiln
