//===- Threads.cpp - the threads compiled code's parallel loops run on ----===//
//
// Compiled code runs its parallel loops as OpenMP worksharing loops
// (kiln-lower-foralls) on LLVM's libomp, which this library links (its
// symbols are versioned: a libgomp in the same process does not take these
// calls): libomp's threads are the pool. For each call the runtime sets, on
// the calling thread, how many threads its loops use and a block time of 0,
// so that a thread idle after a loop sleeps at once instead of spinning
// (spinning runtimes ran 50-100x slower on guests whose vCPUs share a
// core), and restores the caller's own OpenMP settings afterwards.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <algorithm>
#include <atomic>
#include <omp.h>
#include <sched.h>

namespace {
/// The count kiln_set_num_threads set, or 0 for the default.
std::atomic<int64_t> requestedThreads{0};
/// The count for the calls of this thread when it runs a device's part of
/// a partitioned call, or 0.
thread_local int64_t deviceLoopThreads = 0;

/// The CPUs this process may run on.
int64_t availableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return 1;
  return std::max(1, CPU_COUNT(&set));
}
} // namespace

kiln_status_t kiln_set_num_threads(int64_t count) {
  if (count < 1)
    return kiln::runtime::error("num_threads: expected at least 1, got " +
                                std::to_string(count));
  requestedThreads = count;
  return nullptr;
}

int64_t kiln_num_threads(void) {
  // Asked once: a call should not cost a system call.
  static const int64_t defaultThreads = availableCpus();
  int64_t count = requestedThreads;
  return count > 0 ? count : defaultThreads;
}

void kiln::runtime::setDeviceLoopThreads(int64_t count) {
  deviceLoopThreads = count;
}

kiln::runtime::CallThreads::CallThreads()
    : callerThreads(omp_get_max_threads()), callerBlocktime(kmp_get_blocktime()) {
  int64_t count = deviceLoopThreads ? deviceLoopThreads : kiln_num_threads();
  omp_set_num_threads(static_cast<int>(std::min<int64_t>(count, INT32_MAX)));
  kmp_set_blocktime(0);
}

kiln::runtime::CallThreads::~CallThreads() {
  omp_set_num_threads(callerThreads);
  kmp_set_blocktime(callerBlocktime);
}

void *kiln::runtime::openMPSymbol() {
  return reinterpret_cast<void *>(&omp_set_num_threads);
}
