//===- HostTensor.cpp - the reference interpreter's values ----------------===//
#include "interpreter/HostTensor.h"

#include "llvm/ADT/APFloat.h"

using namespace mlir;

namespace kiln {

HostTensor::HostTensor(RankedTensorType type)
    : type(type), count(type.getNumElements()),
      floating(isa<FloatType>(type.getElementType())) {
  if (floating)
    floats.assign(count, 0.0);
  else
    ints.assign(count, 0);
}

double roundToFloat(Type type, double value) {
  if (type.isF64())
    return value;
  if (type.isF32())
    return double(float(value));
  llvm::APFloat rounded(value);
  bool lost;
  rounded.convert(cast<FloatType>(type).getFloatSemantics(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
  return rounded.convertToDouble();
}

int64_t wrapToInt(Type type, int64_t value) {
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 1)
    return value & 1;
  if (width >= 64)
    return value;
  // Sign-extends the low `width` bits (through unsigned: no overflow).
  uint64_t shift = 64 - width;
  return int64_t(uint64_t(value) << shift) >> shift;
}

void HostTensor::setFloat(int64_t i, double value) {
  floats[i] = roundToFloat(elementType(), value);
}

void HostTensor::setInt(int64_t i, int64_t value) {
  ints[i] = wrapToInt(elementType(), value);
}

SmallVector<int64_t> HostTensor::strides() const {
  SmallVector<int64_t> result(shape().size(), 1);
  for (int64_t d = int64_t(result.size()) - 2; d >= 0; --d)
    result[d] = result[d + 1] * shape()[d + 1];
  return result;
}

void forEachIndex(ArrayRef<int64_t> shape,
                  llvm::function_ref<void(ArrayRef<int64_t>, int64_t)> body) {
  for (int64_t size : shape)
    if (size == 0)
      return;
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0;; ++flat) {
    body(index, flat);
    int64_t d = int64_t(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

int64_t flatIndex(ArrayRef<int64_t> index, ArrayRef<int64_t> strides) {
  int64_t flat = 0;
  for (auto [i, stride] : llvm::zip(index, strides))
    flat += i * stride;
  return flat;
}

} // namespace kiln
