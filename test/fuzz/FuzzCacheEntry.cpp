//===- FuzzCacheEntry.cpp - entries of the jit's disk cache ---------------===//
//
// Any bytes, and a valid entry edited as the bytes say (FuzzSupport.h),
// are read as the disk cache's entry for a key (and as one of the folder's
// entries when the cache lists its keys): the artifact stored for that
// key, or a miss that removes the file; never a crash or an allocation a
// corrupt size asks for.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "runtime/jit/CompileCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <fstream>

using namespace kiln::jit;

namespace {
const std::string kArtifact = "an artifact's bytes, stored compressed";

/// A cache in a folder of its own, removed at exit.
DiskCache &cache() {
  static const std::string folder =
      kiln::fuzz::writeInput("cache-entry", nullptr, 0) + ".d";
  static DiskCache cache(folder, [](const std::string &) {});
  static bool once = std::atexit([] {
    llvm::sys::fs::remove_directories(folder);
  }) == 0;
  (void)once;
  return cache;
}

const CacheKey &key() {
  static const CacheKey key{{{"entry", "f"},
                             {"arg0", "f32[4]"},
                             {"ir", "0123"},
                             {"options", ""},
                             {"cpu", "znver5"},
                             {"features", "+avx2"},
                             {"kiln", "0.1.0"}}};
  return key;
}

/// The entry the cache writes for kArtifact, checked to read back.
std::string validEntry() {
  cache().store(key(), kArtifact);
  auto file = llvm::MemoryBuffer::getFile(cache().pathOf(key()));
  bool corrupt;
  if (!file || cache().load(key(), corrupt) != kArtifact)
    kiln::fuzz::broken("the cache does not read back what it stored");
  return (*file)->getBuffer().str();
}

/// Loads `bytes` as the key's entry.
void load(const std::string &bytes) {
  {
    std::ofstream entry(cache().pathOf(key()), std::ios::binary);
    entry.write(bytes.data(), bytes.size());
  }
  (void)cache().keys();
  bool corrupt;
  (void)cache().load(key(), corrupt);
  llvm::sys::fs::remove(cache().pathOf(key()));
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string valid = validEntry();
  load(std::string(reinterpret_cast<const char *>(data), size));
  load(kiln::fuzz::edited(valid, data, size));
  return 0;
}
