//===- BatchBuilders.cpp - moving and adding batch dimensions -------------===//
#include "BatchBuilders.h"
#include "kiln/KilnDialect.h"

using namespace mlir;

namespace kiln {

RankedTensorType batchedType(Type type, int64_t dim, int64_t size) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape.insert(shape.begin() + dim, size);
  return tensor.clone(shape);
}

Value moveBatchDim(OpBuilder &b, Location loc, Value v, int64_t from,
                   int64_t to) {
  if (from == to)
    return v;
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<int64_t> permutation;
  for (int64_t d = 0; d < rank; ++d)
    if (d != from)
      permutation.push_back(d);
  permutation.insert(permutation.begin() + to, from);
  return TransposeOp::create(b, loc, v, permutation);
}

Value batchAt(OpBuilder &b, Location loc, Value v, int64_t from, int64_t to,
              int64_t size) {
  if (from != -1)
    return moveBatchDim(b, loc, v, from, to);
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(d < to ? d : d + 1);
  return BroadcastInDimOp::create(b, loc, batchedType(v.getType(), to, size),
                                  v, dims);
}

} // namespace kiln
