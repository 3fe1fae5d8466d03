//===- HostTensors.cpp - runtime tensors to interpreter values ------------===//
//
// Elements move through their bit patterns: floats of every width through
// APFloat (f16 and bf16 have no C++ type), integers sign-extended, i1 as a
// byte.
//
//===----------------------------------------------------------------------===//
#include "HostTensors.h"
#include "kiln/TypeInference.h"
#include "lowering/common/Passes.h"

#include "llvm/ADT/APFloat.h"

#include <cstring>

using namespace mlir;

namespace kiln::jit {
namespace {

/// The bits at `bytes` (`count` of them, little-endian as the host).
uint64_t readBits(const char *bytes, size_t count) {
  uint64_t bits = 0;
  std::memcpy(&bits, bytes, count);
  return bits;
}

} // namespace

HostTensor toHostTensor(kiln_tensor_t tensor, RankedTensorType type) {
  HostTensor value(type);
  Type element = type.getElementType();
  size_t bytes = kiln::elementBytes(element);
  unsigned width = element.getIntOrFloatBitWidth();
  const char *data = static_cast<const char *>(kiln_tensor_data(tensor));
  for (int64_t i = 0; i < value.size(); ++i) {
    uint64_t bits = readBits(data + i * bytes, bytes);
    if (auto floatType = dyn_cast<FloatType>(element)) {
      llvm::APFloat number(floatType.getFloatSemantics(),
                           llvm::APInt(width, bits));
      bool lost;
      number.convert(llvm::APFloat::IEEEdouble(),
                     llvm::APFloat::rmNearestTiesToEven, &lost);
      value.setFloat(i, number.convertToDouble());
    } else {
      value.setInt(i, width == 1 ? int64_t(bits != 0)
                                 : llvm::APInt(width, bits).getSExtValue());
    }
  }
  return value;
}

kiln_status_t fromHostTensor(const HostTensor &value, kiln_tensor_t *out) {
  Type element = value.elementType();
  std::vector<int64_t> shape(value.shape());
  kiln_status_t status = kiln_tensor_create(
      kiln_dtype_t(runtimeDtypeCode(element)), int64_t(shape.size()),
      shape.data(), nullptr, 0, out);
  if (status)
    return status;
  size_t bytes = kiln::elementBytes(element);
  char *data = static_cast<char *>(kiln_tensor_data(*out));
  for (int64_t i = 0; i < value.size(); ++i) {
    uint64_t bits;
    if (auto floatType = dyn_cast<FloatType>(element)) {
      llvm::APFloat number(value.getFloat(i));
      bool lost;
      number.convert(floatType.getFloatSemantics(),
                     llvm::APFloat::rmNearestTiesToEven, &lost);
      bits = number.bitcastToAPInt().getZExtValue();
    } else {
      bits = uint64_t(value.getInt(i));
    }
    std::memcpy(data + i * bytes, &bits, bytes);
  }
  return nullptr;
}

} // namespace kiln::jit
