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

} // namespace kiln
