//===- Allocation.cpp - the buffers compiled code allocates ---------------===//
//
// Compiled code allocates its intermediate buffers through MLIR's generic
// allocation functions (finalize-memref-to-llvm's use-generic-functions),
// which the runtime defines here. A failed allocation does not return null
// into code that would write through it: it abandons the call, jumping back
// to the runEntry that runs it, which reports it and frees the buffers the
// call had allocated; so do device errors.
//
// Each buffer carries its size in a header before it, so that the runtime
// counts the bytes compiled code holds and the peak of a call
// (kiln_last_call_peak_bytes). Freed buffers are cached for the next
// allocation of the same size, as PyTorch's and IREE's allocators do: a
// call allocates the same temporaries every time. A fresh large allocation
// comes from mmap and takes a page fault per page it touches; small ones,
// cached by the thread that frees them, skip malloc's bookkeeping (a
// top_k's network steps, a hundred buffers a call, spent 40% of it in
// malloc and free).
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <atomic>
#include <csetjmp>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>

namespace {
/// Where a failed allocation jumps in this thread, when a call is running.
thread_local std::jmp_buf *activeCall = nullptr;
/// Why the running call was abandoned, or what failed outside any call.
thread_local std::string failure;
/// The buffers compiled code allocated in this thread during the running
/// call and has not freed: an abandoned call's longjmp skips the code that
/// would free them, so runEntry does. Each buffer's header holds its slot,
/// so that freeing one moves the last into it instead of searching.
thread_local std::vector<void *> *callBuffers = nullptr;
/// Lists for callBuffers that calls in this thread finished with, kept
/// with their capacity for the next calls.
thread_local std::vector<std::unique_ptr<std::vector<void *>>> spareLists;

/// An empty list for a call's buffers.
std::unique_ptr<std::vector<void *>> listForCall() {
  if (spareLists.empty())
    return std::make_unique<std::vector<void *>>();
  std::unique_ptr<std::vector<void *>> list = std::move(spareLists.back());
  spareLists.pop_back();
  return list;
}

/// Keeps `list`, a finished call's, for listForCall.
void keepForNextCall(std::unique_ptr<std::vector<void *>> list) {
  list->clear();
  spareLists.push_back(std::move(list));
}

/// The bytes of the buffers compiled code holds now, in all threads, and
/// their most since the last call began.
std::atomic<uint64_t> liveBytes{0}, peakBytes{0};
/// kiln_set_memory_limit's; 0 for none.
std::atomic<uint64_t> memoryLimit{0};
/// The peak of the last call this thread ran, above what was live before.
thread_local uint64_t lastCallPeak = 0;

/// What precedes each buffer: where its allocation begins, its size, and
/// its slot in the callBuffers it is in (kUntracked: none).
struct Header {
  uint64_t offset, bytes, slot;
};
constexpr uint64_t kUntracked = UINT64_MAX;
/// The least alignment padding, which holds the header: a power of two, as
/// posix_memalign's alignments are.
constexpr uint64_t kHeaderBytes = 32;
static_assert(sizeof(Header) <= kHeaderBytes);

/// Freed allocations kept for reuse, by header offset (their alignment)
/// and size, at most `limit` bytes in all.
struct BufferCache {
  uint64_t limit, bytes = 0;
  std::map<std::pair<uint64_t, uint64_t>, std::vector<void *>> kept;

  explicit BufferCache(uint64_t limit) : limit(limit) {}
  BufferCache(const BufferCache &) = delete;
  ~BufferCache() { freeAll(); }

  /// A kept allocation of `offset` + `size`, or null.
  void *take(uint64_t offset, uint64_t size) {
    auto it = kept.find({offset, size});
    if (it == kept.end() || it->second.empty())
      return nullptr;
    void *base = it->second.back();
    it->second.pop_back();
    bytes -= offset + size;
    return base;
  }

  /// Keeps the allocation `base` of `offset` + `size` if there is room;
  /// returns whether it did.
  bool keep(void *base, uint64_t offset, uint64_t size) {
    if (bytes + offset + size > limit)
      return false;
    kept[{offset, size}].push_back(base);
    bytes += offset + size;
    return true;
  }

  void freeAll() {
    for (auto &[size, bases] : kept)
      for (void *base : bases)
        std::free(base);
    kept.clear();
    bytes = 0;
  }
};

/// Allocations of at least kCachedBytes are kept in one cache that threads
/// share, up to 1 GiB; smaller ones in a cache of the thread that frees
/// them, up to 4 MiB each.
constexpr uint64_t kCachedBytes = 64 << 10;
std::mutex cacheMutex;
BufferCache sharedCache(uint64_t(1) << 30);
thread_local BufferCache threadCache(4 << 20);

/// A cached allocation of `offset` + `bytes`, or null.
void *takeCached(uint64_t offset, uint64_t bytes) {
  if (offset + bytes < kCachedBytes)
    return threadCache.take(offset, bytes);
  std::lock_guard<std::mutex> lock(cacheMutex);
  return sharedCache.take(offset, bytes);
}

/// Keeps the allocation `base` of `offset` + `bytes` for reuse if its cache
/// has room; else frees it.
void cacheOrFree(void *base, uint64_t offset, uint64_t bytes) {
  bool kept;
  if (offset + bytes < kCachedBytes) {
    kept = threadCache.keep(base, offset, bytes);
  } else {
    std::lock_guard<std::mutex> lock(cacheMutex);
    kept = sharedCache.keep(base, offset, bytes);
  }
  if (!kept)
    std::free(base);
}

void *allocate(uint64_t alignment, uint64_t bytes) {
  // The header fits in the alignment padding before the buffer.
  uint64_t offset = kHeaderBytes;
  while (offset < alignment)
    offset *= 2;
  uint64_t limit = memoryLimit;
  bool overLimit = limit && (bytes > limit || liveBytes + bytes > limit);
  void *base = nullptr;
  if (!overLimit && bytes <= UINT64_MAX - offset &&
      !(base = takeCached(offset, bytes))) {
    if (posix_memalign(&base, offset, offset + bytes) == 0)
      kiln::runtime::adviseHugePages(static_cast<char *>(base) + offset, bytes);
    else
      base = nullptr;
  }
  if (!base) {
    if (activeCall) {
      kiln::runtime::recordFailure(
          "out of memory allocating a buffer of " + std::to_string(bytes) +
          " bytes" +
          (overLimit ? " (past the limit of " + std::to_string(limit) +
                           " bytes set by kiln_set_memory_limit)"
                     : ""));
      kiln::runtime::abandonCall();
    }
    return nullptr;
  }
  char *data = static_cast<char *>(base) + offset;
  reinterpret_cast<Header *>(data)[-1] = {
      offset, bytes, callBuffers ? callBuffers->size() : kUntracked};
  if (callBuffers)
    callBuffers->push_back(data);
  uint64_t live = liveBytes += bytes;
  for (uint64_t peak = peakBytes; peak < live &&
                                  !peakBytes.compare_exchange_weak(peak, live);)
    ;
  return data;
}

void release(void *data) {
  if (!data)
    return;
  Header header = static_cast<Header *>(data)[-1];
  // Buffers another thread or call allocated are in no slot of this one's.
  if (callBuffers && header.slot < callBuffers->size() &&
      (*callBuffers)[header.slot] == data) {
    void *last = callBuffers->back();
    (*callBuffers)[header.slot] = last;
    static_cast<Header *>(last)[-1].slot = header.slot;
    callBuffers->pop_back();
  }
  liveBytes -= header.bytes;
  cacheOrFree(static_cast<char *>(data) - header.offset, header.offset,
              header.bytes);
}
} // namespace

void kiln::runtime::adviseHugePages(void *data, size_t bytes) {
  constexpr size_t kHugePageBytes = 4 << 20;
  if (bytes < kHugePageBytes)
    return;
  // madvise takes whole pages: those inside the buffer.
  uintptr_t page = sysconf(_SC_PAGESIZE);
  uintptr_t begin =
      (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / page * page;
  // Advice only: where the kernel declines it, the buffer keeps small pages.
  (void)madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
}

extern "C" {
void *_mlir_memref_to_llvm_alloc(uint64_t bytes) { return allocate(0, bytes); }
void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment, uint64_t bytes) {
  return allocate(alignment, bytes);
}
void _mlir_memref_to_llvm_free(void *data) { release(data); }
}

uint64_t kiln_last_call_peak_bytes(void) { return lastCallPeak; }

void kiln_set_memory_limit(uint64_t bytes) { memoryLimit = bytes; }

uint64_t kiln_memory_limit(void) { return memoryLimit; }

void kiln_free_cached_buffers(void) {
  threadCache.freeAll();
  std::lock_guard<std::mutex> lock(cacheMutex);
  sharedCache.freeAll();
}

void kiln::runtime::recordFailure(const std::string &why) {
  if (failure.empty())
    failure = why;
}

void kiln::runtime::abandonCall() {
  if (activeCall)
    std::longjmp(*activeCall, 1);
}

std::string kiln::runtime::takeFailure() { return std::exchange(failure, {}); }

bool kiln::runtime::runEntry(EntryFunction function, void **args,
                             std::string &why) {
  CallThreads threads;
  std::jmp_buf jump;
  std::jmp_buf *outer = activeCall;
  std::vector<void *> *outerBuffers = callBuffers;
  // On the heap: locals that change between setjmp and longjmp are
  // indeterminate after it.
  std::unique_ptr<std::vector<void *>> buffers = listForCall();
  activeCall = &jump;
  callBuffers = buffers.get();
  failure.clear();
  uint64_t before = liveBytes;
  peakBytes = before;
  if (setjmp(jump) != 0) {
    activeCall = outer;
    callBuffers = outerBuffers;
    for (void *buffer : *buffers)
      release(buffer);
    keepForNextCall(std::move(buffers));
    why = takeFailure();
    return false;
  }
  function(args);
  activeCall = outer;
  callBuffers = outerBuffers;
  lastCallPeak = peakBytes - before;
  keepForNextCall(std::move(buffers));
  return true;
}

namespace {
/// Adds the shared library that defines `symbol` to the global symbol
/// scope, which it is not part of when it (or a library that needs it) was
/// opened with RTLD_LOCAL, as Python's ctypes does.
void promoteLibraryOf(void *symbol) {
  Dl_info info;
  if (dladdr(symbol, &info) && info.dli_fname)
    if (void *library = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD |
                                                   RTLD_GLOBAL))
      dlclose(library);
}
} // namespace

void kiln::runtime::exportRuntimeSymbols() {
  // Compiled code finds the allocation functions above and OpenMP's entry
  // points (kiln/abi.h) through the global symbol scope.
  promoteLibraryOf(reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc));
  promoteLibraryOf(openMPSymbol());
}
