//===- TensorText.cpp - tensors as numpy prints them ----------------------===//
#include "TensorText.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace kiln {

uint16_t floatToBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if (std::isnan(value))
    return static_cast<uint16_t>(bits >> 16 | 0x40);
  uint32_t roundingBias = 0x7fff + (bits >> 16 & 1);
  return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

float bf16ToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

namespace {
/// IEEE half to float.
float halfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f,
           mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400),
                           static_cast<int>(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

std::string element(kiln_tensor_t tensor, int64_t index) {
  const char *data = static_cast<const char *>(kiln_tensor_data(tensor));
  char text[64];
  auto real = [&](double v) {
    if (std::isnan(v))
      return std::string("nan");
    if (std::isinf(v))
      return std::string(v < 0 ? "-inf" : "inf");
    std::snprintf(text, sizeof(text), "%.8g", v);
    std::string s = text;
    if (s.find_first_of(".e") == std::string::npos)
      s += ".";
    return s;
  };
  switch (kiln_tensor_dtype(tensor)) {
  case KILN_F32: {
    float v;
    std::memcpy(&v, data + 4 * index, 4);
    return real(v);
  }
  case KILN_F64: {
    double v;
    std::memcpy(&v, data + 8 * index, 8);
    return real(v);
  }
  case KILN_F16:
  case KILN_BF16: {
    uint16_t v;
    std::memcpy(&v, data + 2 * index, 2);
    return real(kiln_tensor_dtype(tensor) == KILN_F16 ? halfToFloat(v)
                                                      : bf16ToFloat(v));
  }
  case KILN_I1:
    return data[index] ? "True" : "False";
  case KILN_I8:
    return std::to_string(int(static_cast<int8_t>(data[index])));
  case KILN_I16: {
    int16_t v;
    std::memcpy(&v, data + 2 * index, 2);
    return std::to_string(v);
  }
  case KILN_I32: {
    int32_t v;
    std::memcpy(&v, data + 4 * index, 4);
    return std::to_string(v);
  }
  case KILN_I64: {
    int64_t v;
    std::memcpy(&v, data + 8 * index, 8);
    return std::to_string(v);
  }
  }
  return "?";
}

/// Appends dimension `dim` of the sub-array at `offset` (in elements),
/// eliding the middle of long dimensions when `summarize`.
void append(std::string &out, kiln_tensor_t tensor, int64_t dim,
            int64_t offset, bool summarize) {
  int64_t rank = kiln_tensor_rank(tensor);
  const int64_t *shape = kiln_tensor_shape(tensor);
  int64_t stride = 1;
  for (int64_t d = dim + 1; d < rank; ++d)
    stride *= shape[d];
  constexpr int64_t kEdge = 3;
  out += "[";
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (summarize && shape[dim] > 2 * kEdge && i == kEdge) {
      out += dim + 1 == rank ? "... " : "...\n" + std::string(dim + 1, ' ');
      i = shape[dim] - kEdge - 1;
      continue;
    }
    if (dim + 1 == rank)
      out += element(tensor, offset + i);
    else
      append(out, tensor, dim + 1, offset + i * stride, summarize);
    if (i + 1 < shape[dim])
      out += dim + 1 == rank ? " " : "\n" + std::string(dim + 1, ' ');
  }
  out += "]";
}
} // namespace

std::string formatTensor(kiln_tensor_t tensor) {
  int64_t rank = kiln_tensor_rank(tensor);
  const int64_t *shape = kiln_tensor_shape(tensor);
  std::string out = kiln_dtype_name(kiln_tensor_dtype(tensor));
  out += "[";
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    out += (d ? "," : "") + std::to_string(shape[d]);
    count *= shape[d];
  }
  out += "]\n";
  if (rank == 0)
    return out + element(tensor, 0);
  append(out, tensor, 0, 0, count > 1000);
  return out;
}

} // namespace kiln
