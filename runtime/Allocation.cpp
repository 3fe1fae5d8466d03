//===- Allocation.cpp - the buffers compiled code allocates ---------------===//
//
// Compiled code allocates its intermediate buffers through MLIR's generic
// allocation functions (finalize-memref-to-llvm's use-generic-functions),
// which the runtime defines here. A failed allocation does not return null
// into code that would write through it: it abandons the call, jumping back
// to the runEntry that runs it, which reports it; so do device errors.
// (Buffers the call had allocated before are then not freed.)
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <csetjmp>
#include <string>
#include <utility>
#include <cstdlib>
#include <dlfcn.h>

namespace {
/// Where a failed allocation jumps in this thread, when a call is running.
thread_local std::jmp_buf *activeCall = nullptr;
/// Why the running call was abandoned, or what failed outside any call.
thread_local std::string failure;

void *allocate(uint64_t alignment, uint64_t bytes) {
  void *data = nullptr;
  if (alignment < sizeof(void *))
    alignment = sizeof(void *);
  if (posix_memalign(&data, alignment, bytes ? bytes : 1) != 0)
    data = nullptr;
  if (!data && activeCall)
    kiln::runtime::abandonCall("out of memory allocating a buffer of " +
                std::to_string(bytes) + " bytes");
  return data;
}
} // namespace

extern "C" {
void *_mlir_memref_to_llvm_alloc(uint64_t bytes) { return allocate(0, bytes); }
void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment, uint64_t bytes) {
  return allocate(alignment, bytes);
}
void _mlir_memref_to_llvm_free(void *data) { std::free(data); }
}

void kiln::runtime::abandonCall(const std::string &why) {
  if (failure.empty())
    failure = why;
  if (activeCall)
    std::longjmp(*activeCall, 1);
}

std::string kiln::runtime::takeFailure() { return std::exchange(failure, {}); }

bool kiln::runtime::runEntry(EntryFunction function, void **args,
                             std::string &why) {
  std::jmp_buf jump;
  std::jmp_buf *outer = activeCall;
  activeCall = &jump;
  failure.clear();
  if (setjmp(jump) != 0) {
    activeCall = outer;
    why = takeFailure();
    return false;
  }
  function(args);
  activeCall = outer;
  return true;
}

void kiln::runtime::exportAllocationFunctions() {
  // Compiled code finds the functions above through the global symbol
  // scope, which this library is not part of when it was itself opened
  // with RTLD_LOCAL (Python's ctypes does that): promote it.
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc), &info) &&
      info.dli_fname)
    if (void *self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD |
                                                RTLD_GLOBAL))
      dlclose(self);
}
