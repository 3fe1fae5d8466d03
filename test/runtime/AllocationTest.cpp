//===- AllocationTest.cpp - the buffers compiled code allocates -----------===//
//
// Calls run through runEntry as an artifact's entries do, allocating with
// the functions compiled code calls: the buffers a call holds, freed in any
// order or left to an abandoned call, are counted and released; freed
// buffers come back for the next allocation of their size.
//
//===----------------------------------------------------------------------===//
#include "kiln/runtime.h"
#include "runtime/Internal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

extern "C" {
void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment, uint64_t bytes);
void _mlir_memref_to_llvm_free(void *data);
}

namespace {

/// Small buffers of `bytes` each a call allocates, and the order in which
/// it frees the first `freed` of them (a shuffle: each free moves another
/// buffer into the freed one's slot).
constexpr int kBuffers = 100;
struct Plan {
  uint64_t bytes;
  int freed;
  bool abandon;
  std::vector<void *> buffers;
};

/// An entry that allocates the plan's buffers, frees `freed` of them in a
/// shuffled order, then frees the rest or abandons the call.
void entry(void **args) {
  auto &plan = *static_cast<Plan *>(args[0]);
  plan.buffers.clear();
  for (int i = 0; i < kBuffers; ++i)
    plan.buffers.push_back(_mlir_memref_to_llvm_aligned_alloc(64, plan.bytes));
  std::vector<void *> order = plan.buffers;
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  for (int i = 0; i < plan.freed; ++i)
    _mlir_memref_to_llvm_free(order[i]);
  if (plan.abandon) {
    kiln::runtime::recordFailure("abandoned on purpose");
    kiln::runtime::abandonCall();
  }
  for (int i = plan.freed; i < kBuffers; ++i)
    _mlir_memref_to_llvm_free(order[i]);
}

bool run(Plan &plan, std::string &why) {
  void *args[] = {&plan};
  return kiln::runtime::runEntry(entry, args, why);
}

TEST(Allocation, AbandonedCallsReleaseWhatTheyHold) {
  // Under a limit of one call's buffers: each abandoned call must give
  // back the 60 buffers it still held, or the next call would pass it.
  Plan plan{1000, 40, true, {}};
  kiln_set_memory_limit(kBuffers * plan.bytes);
  std::string why;
  for (int round = 0; round < 5; ++round) {
    EXPECT_FALSE(run(plan, why));
    EXPECT_EQ(why, "abandoned on purpose");
  }
  plan.abandon = false;
  EXPECT_TRUE(run(plan, why)) << why;
  EXPECT_EQ(kiln_last_call_peak_bytes(), kBuffers * plan.bytes);
  kiln_set_memory_limit(0);
}

TEST(Allocation, FreedBuffersComeBackForTheirSize) {
  // A call's small buffers, freed, are the next call's (its temporaries
  // have the same sizes every time); the large ones too.
  for (uint64_t bytes : {uint64_t(48), uint64_t(1) << 20}) {
    Plan plan{bytes, kBuffers, false, {}};
    std::string why;
    ASSERT_TRUE(run(plan, why)) << why;
    std::vector<void *> first = plan.buffers;
    ASSERT_TRUE(run(plan, why)) << why;
    std::sort(first.begin(), first.end());
    std::sort(plan.buffers.begin(), plan.buffers.end());
    EXPECT_EQ(first, plan.buffers) << bytes << " bytes";
    for (void *buffer : plan.buffers)
      EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer) % 64, 0u);
  }
  kiln_free_cached_buffers();
}

} // namespace
