//===- HostTensors.h - runtime tensors to interpreter values ----*- C++ -*-===//
#ifndef KILN_RUNTIME_JIT_HOSTTENSORS_H
#define KILN_RUNTIME_JIT_HOSTTENSORS_H

#include "interpreter/HostTensor.h"
#include "kiln/runtime.h"

namespace kiln::jit {

/// The elements of `tensor`, a host tensor already checked to have
/// `type`'s dtype and shape, as the interpreter's value of `type`.
HostTensor toHostTensor(kiln_tensor_t tensor, mlir::RankedTensorType type);

/// A new runtime tensor holding `value`.
kiln_status_t fromHostTensor(const HostTensor &value, kiln_tensor_t *out);

} // namespace kiln::jit

#endif // KILN_RUNTIME_JIT_HOSTTENSORS_H
