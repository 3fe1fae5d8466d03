//===- CudaDriver.cpp - the CUDA driver and the mgpu* entry points --------===//
//
// Code compiled by kiln-to-nvvm-pipeline calls the mgpu* functions that
// MLIR's gpu-to-llvm emits (module load at dlopen, kernel launch, stream
// ordered allocation and copies); Debian ships no libmlir_cuda_runtime, so
// the runtime core defines them here over the driver API. A driver error
// inside a call abandons the call and is reported by it, naming the driver
// function; one while an artifact loads is reported by kiln_module_load.
//
//===----------------------------------------------------------------------===//
#include "CudaDriver.h"
#include "../Internal.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <vector>

using namespace kiln::runtime;

namespace {
// The driver API's types, as cuda.h defines them.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUmemoryPool = void *;
constexpr unsigned kStreamNonBlocking = 1;
/// CU_MEMPOOL_ATTR_RELEASE_THRESHOLD in cuda.h's CUmemPool_attribute.
constexpr int kPoolReleaseThreshold = 4;

/// The driver functions Kiln uses, looked up once.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream);
  CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuDeviceGetDefaultMemPool)(CUmemoryPool *, CUdevice);
  CUresult (*cuMemPoolSetAttribute)(CUmemoryPool, int, void *);
  CUcontext context = nullptr;
  /// Why the driver cannot be used; empty when it can.
  std::string absent;
};

/// Looks up `name` (its _v2 form first, as cuda.h maps it) into `slot`.
template <typename F>
bool bindSymbol(void *library, const char *name, F &slot) {
  std::string versioned = std::string(name) + "_v2";
  void *address = dlsym(library, versioned.c_str());
  if (!address)
    address = dlsym(library, name);
  slot = reinterpret_cast<F>(address);
  return address != nullptr;
}

std::string errorText(const Driver &driver, CUresult code) {
  const char *name = nullptr, *text = nullptr;
  if (driver.cuGetErrorName)
    driver.cuGetErrorName(code, &name);
  if (driver.cuGetErrorString)
    driver.cuGetErrorString(code, &text);
  return std::string(name ? name : "CUDA error") + " (" +
         std::to_string(code) + ")" + (text ? std::string(": ") + text : "");
}

Driver loadDriver() {
  Driver driver{};
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    driver.absent = std::string("the CUDA device is absent: cannot load "
                                "libcuda.so.1 (") +
                    (why ? why : "not found") +
                    "); the NVIDIA driver is not installed here";
    return driver;
  }
#define KILN_BIND(name)                                                        \
  if (!bindSymbol(library, #name, driver.name)) {                              \
    driver.absent = "the CUDA driver lacks " #name;                            \
    return driver;                                                             \
  }
  KILN_BIND(cuInit)
  KILN_BIND(cuDeviceGet)
  KILN_BIND(cuDevicePrimaryCtxRetain)
  KILN_BIND(cuCtxSetCurrent)
  KILN_BIND(cuGetErrorName)
  KILN_BIND(cuGetErrorString)
  KILN_BIND(cuMemAlloc)
  KILN_BIND(cuMemFree)
  KILN_BIND(cuMemcpyHtoD)
  KILN_BIND(cuMemcpyDtoH)
  KILN_BIND(cuMemcpyAsync)
  KILN_BIND(cuMemAllocAsync)
  KILN_BIND(cuMemFreeAsync)
  KILN_BIND(cuModuleLoadData)
  KILN_BIND(cuModuleUnload)
  KILN_BIND(cuModuleGetFunction)
  KILN_BIND(cuLaunchKernel)
  KILN_BIND(cuStreamCreate)
  KILN_BIND(cuStreamSynchronize)
  KILN_BIND(cuDeviceGetDefaultMemPool)
  KILN_BIND(cuMemPoolSetAttribute)
#undef KILN_BIND
  int ordinal = 0;
  if (const char *chosen = std::getenv("KILN_CUDA_DEVICE"))
    ordinal = std::atoi(chosen);
  CUdevice device;
  CUresult code = driver.cuInit(0);
  if (code == 0)
    code = driver.cuDeviceGet(&device, ordinal);
  if (code == 0)
    code = driver.cuDevicePrimaryCtxRetain(&driver.context, device);
  // The buffers a call allocates and frees (cuMemAllocAsync) stay in the
  // device's pool for the next call instead of going back to the driver at
  // every synchronization, which made a softmax's scratch cost more than
  // its kernels.
  CUmemoryPool pool = nullptr;
  uint64_t keepAll = UINT64_MAX;
  if (code == 0)
    code = driver.cuDeviceGetDefaultMemPool(&pool, device);
  if (code == 0)
    code = driver.cuMemPoolSetAttribute(pool, kPoolReleaseThreshold, &keepAll);
  if (code != 0)
    driver.absent = "the CUDA device is absent: setting up device " +
                    std::to_string(ordinal) + " failed: " +
                    errorText(driver, code);
  return driver;
}

Driver &driver() {
  static Driver loaded = loadDriver();
  return loaded;
}

/// The failure of driver function `call`, or null.
kiln_status_t check(const char *call, CUresult code) {
  if (code == 0)
    return nullptr;
  return error(std::string(call) + " failed: " + errorText(driver(), code));
}

/// In compiled code: abandons the call with `status`'s message (or records
/// it for kiln_module_load when no call runs), freeing it; false if there
/// was a failure.
bool succeeded(kiln_status_t status) {
  if (!status)
    return true;
  recordFailure(status->message);
  kiln_status_free(status);
  abandonCall();
  return false;
}

/// In compiled code: abandons the call on a driver error.
void require(const char *call, CUresult code) { succeeded(check(call, code)); }

/// In compiled code: the driver, ready on this thread, or null when it is
/// not (outside a call; inside one, the call is abandoned).
Driver *use() {
  return succeeded(kiln::runtime::cuda::ready()) ? &driver() : nullptr;
}

/// Whether the driver is ready on this thread, for cleanups that have no
/// one to report to.
bool usable() {
  kiln_status_t status = kiln::runtime::cuda::ready();
  bool ready = !status;
  kiln_status_free(status);
  return ready;
}

/// Streams are reused: the host code asks for one per call and per region.
thread_local std::vector<CUstream> idleStreams;
} // namespace

kiln_status_t kiln::runtime::cuda::ready() {
  Driver &cuda = driver();
  if (!cuda.absent.empty())
    return error(cuda.absent);
  thread_local bool current = false;
  if (!current) {
    if (kiln_status_t status =
            check("cuCtxSetCurrent", cuda.cuCtxSetCurrent(cuda.context)))
      return status;
    current = true;
  }
  return nullptr;
}

kiln_status_t kiln::runtime::cuda::allocate(size_t bytes, void **device) {
  if (kiln_status_t status = ready())
    return status;
  CUdeviceptr address = 0;
  if (kiln_status_t status =
          check("cuMemAlloc", driver().cuMemAlloc(&address, bytes ? bytes : 1)))
    return status;
  *device = reinterpret_cast<void *>(address);
  return nullptr;
}

void kiln::runtime::cuda::release(void *device) {
  if (device && usable())
    driver().cuMemFree(reinterpret_cast<CUdeviceptr>(device));
}

kiln_status_t kiln::runtime::cuda::copyToDevice(void *device, const void *host,
                                                size_t bytes) {
  if (kiln_status_t status = ready())
    return status;
  return bytes ? check("cuMemcpyHtoD",
                       driver().cuMemcpyHtoD(
                           reinterpret_cast<CUdeviceptr>(device), host, bytes))
               : nullptr;
}

kiln_status_t kiln::runtime::cuda::copyToHost(void *host, const void *device,
                                              size_t bytes) {
  if (kiln_status_t status = ready())
    return status;
  return bytes ? check("cuMemcpyDtoH",
                       driver().cuMemcpyDtoH(
                           host, reinterpret_cast<CUdeviceptr>(device), bytes))
               : nullptr;
}

// The functions gpu-to-llvm's host code calls, with its signatures.
extern "C" {
void *mgpuModuleLoad(void *data, uint64_t /*size*/) {
  CUmodule module = nullptr;
  if (Driver *cuda = use())
    require("cuModuleLoadData", cuda->cuModuleLoadData(&module, data));
  return module;
}

void mgpuModuleUnload(void *module) {
  // At exit the driver may already be gone; nothing is left to report to.
  if (module && usable())
    driver().cuModuleUnload(module);
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  CUfunction function = nullptr;
  if (Driver *cuda = use())
    require("cuModuleGetFunction",
            cuda->cuModuleGetFunction(&function, module, name));
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, size_t /*paramCount*/) {
  // An empty grid has nothing to do (the driver rejects it).
  Driver *cuda = use();
  if (!cuda || gridX == 0 || gridY == 0 || gridZ == 0)
    return;
  require("cuLaunchKernel",
          cuda->cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                               blockZ, sharedBytes, stream, params, extra));
}

void *mgpuStreamCreate() {
  Driver *cuda = use();
  if (!cuda)
    return nullptr;
  if (!idleStreams.empty()) {
    CUstream stream = idleStreams.back();
    idleStreams.pop_back();
    return stream;
  }
  CUstream stream = nullptr;
  require("cuStreamCreate", cuda->cuStreamCreate(&stream, kStreamNonBlocking));
  return stream;
}

void mgpuStreamSynchronize(void *stream) {
  if (Driver *cuda = use())
    require("cuStreamSynchronize", cuda->cuStreamSynchronize(stream));
}

void mgpuStreamDestroy(void *stream) { idleStreams.push_back(stream); }

void *mgpuMemAlloc(uint64_t bytes, void *stream, bool /*hostShared*/) {
  CUdeviceptr address = 0;
  Driver *cuda = use();
  if (!cuda)
    return nullptr;
  CUresult code = cuda->cuMemAllocAsync(&address, bytes ? bytes : 1, stream);
  if (code == 2 /*CUDA_ERROR_OUT_OF_MEMORY*/) {
    recordFailure("out of device memory allocating a buffer of " +
                  std::to_string(bytes) + " bytes");
    abandonCall();
  }
  require("cuMemAllocAsync", code);
  return reinterpret_cast<void *>(address);
}

void mgpuMemFree(void *pointer, void *stream) {
  if (Driver *cuda = use())
    require("cuMemFreeAsync",
            cuda->cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(pointer), stream));
}

void mgpuMemcpy(void *destination, void *source, size_t bytes, void *stream) {
  if (Driver *cuda = use())
    require("cuMemcpyAsync",
            cuda->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(destination),
                                reinterpret_cast<CUdeviceptr>(source), bytes,
                                stream));
}
}
