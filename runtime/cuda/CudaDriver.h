//===- CudaDriver.h - the CUDA driver, loaded at run time -------*- C++ -*-===//
//
// libcuda.so.1 is opened with dlopen on first use, never linked: every
// machine builds and runs Kiln, and one without a driver reports the CUDA
// device as absent. Calls run in the primary context of device 0
// ($KILN_CUDA_DEVICE overrides), current on every thread that asks.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CUDA_CUDADRIVER_H
#define KILN_RUNTIME_CUDA_CUDADRIVER_H

#include "kiln/runtime.h"

#include <cstddef>
#include <string>

namespace kiln::runtime::cuda {

/// Null when the driver is loaded and its context current on this thread;
/// else why the CUDA device is absent or unusable.
kiln_status_t ready();

/// `bytes` of device memory in `device` (at least one byte).
kiln_status_t allocate(size_t bytes, void **device);
/// Frees device memory from allocate (null is ignored).
void release(void *device);
/// Synchronous copies between host and device memory.
kiln_status_t copyToDevice(void *device, const void *host, size_t bytes);
kiln_status_t copyToHost(void *host, const void *device, size_t bytes);

} // namespace kiln::runtime::cuda

#endif // KILN_RUNTIME_CUDA_CUDADRIVER_H
