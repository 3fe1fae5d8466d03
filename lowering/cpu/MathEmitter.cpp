//===- MathEmitter.cpp - arithmetic for math approximations ---------------===//
#include "MathEmitter.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln {

/// n-D vectors are reduced a row at a time: this runs after the vector
/// lowering that would handle shape casts and multi-reductions.
Value MathEmitter::any(Value flags) const {
  if (!shape)
    return flags;
  ArrayRef<int64_t> sizes = shape.getShape();
  int64_t rows = 1;
  for (int64_t size : sizes.drop_back())
    rows *= size;
  Value result;
  for (int64_t row = 0; row < rows; ++row) {
    SmallVector<int64_t> position(sizes.size() - 1);
    for (int64_t d = int64_t(position.size()) - 1, rest = row; d >= 0; --d) {
      position[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    Value line =
        position.empty()
            ? flags
            : vector::ExtractOp::create(b, loc, flags, position).getResult();
    Value rowAny =
        vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, line);
    result = result ? either(result, rowAny) : rowAny;
  }
  return result;
}

Value MathEmitter::unlessAny(Value slow, Value fast,
                             llvm::function_ref<Value()> exact) const {
  auto branch = scf::IfOp::create(b, loc, TypeRange{fast.getType()}, any(slow),
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  scf::YieldOp::create(b, loc, select(slow, exact(), fast));
  b.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(b, loc, fast);
  return branch.getResult(0);
}

} // namespace kiln
