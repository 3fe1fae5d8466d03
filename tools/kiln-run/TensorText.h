//===- TensorText.h - tensors as numpy prints them, bf16 bits --*- C++ -*-===//
#ifndef KILN_TOOLS_KILNRUN_TENSORTEXT_H
#define KILN_TOOLS_KILNRUN_TENSORTEXT_H

#include "kiln/runtime.h"

#include <cstdint>
#include <string>

namespace kiln {

/// bf16 of `value`, rounded to nearest even (NaN stays a quiet NaN).
uint16_t floatToBF16(float value);
/// The float a bf16 holds exactly.
float bf16ToFloat(uint16_t bits);

/// "f32[2,3]" and the elements as numpy prints them, with "..." past 1000
/// elements.
std::string formatTensor(kiln_tensor_t tensor);

} // namespace kiln

#endif // KILN_TOOLS_KILNRUN_TENSORTEXT_H
