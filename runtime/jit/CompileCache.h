//===- CompileCache.h - keys and the disk cache of compiled entries -*- C++ -*-===//
//
// A compiled entry is keyed by what decides its code, kept as named parts
// so that a miss can say which part differed from the closest entry the
// cache holds. On disk, an entry is one file named after its key's hash:
//
//   "KILNJIT1" | u32 key text length | key text | u64 artifact bytes |
//   u64 compressed bytes | SHA-256 of the artifact (32 bytes) |
//   the artifact (a shared object), zlib-compressed
//
// written to a temporary file and renamed into place, so that a reader sees
// a whole entry or none. Integers are little-endian.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_JIT_COMPILECACHE_H
#define KILN_RUNTIME_JIT_COMPILECACHE_H

#include "llvm/ADT/StringRef.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::jit {

/// What decides a compiled entry's code: (name, value) parts in a fixed
/// order ("entry", "arg0", ..., "ir", "options", "cpu", "features",
/// "kiln").
struct CacheKey {
  std::vector<std::pair<std::string, std::string>> parts;

  /// One "name value" line per part.
  std::string text() const;
  /// The key parsed from text(), or none if `text` is no key.
  static std::optional<CacheKey> parse(llvm::StringRef text);
  /// The SHA-256 of text(), in hex: the entry's file name.
  std::string hash() const;
  /// The value of part `name`, or "".
  llvm::StringRef get(llvm::StringRef name) const;
  /// How this key differs from `other`, part by part ("arg0 f32[32,784] vs
  /// f32[64,784]", "the IR of the entry or a function it calls changed").
  std::string differences(const CacheKey &other) const;
};

/// Receives a line of the cache's log.
using Log = std::function<void(const std::string &line)>;

/// The folder of compiled entries (one file per key).
class DiskCache {
public:
  DiskCache(std::string folder, Log log)
      : folder(std::move(folder)), log(std::move(log)) {}

  /// The artifact stored for `key`, or none: no entry, or one that is
  /// corrupt, truncated or written for another key (reported, removed).
  /// Sets `corrupt` when it found a bad entry.
  std::optional<std::string> load(const CacheKey &key, bool &corrupt);
  /// Stores `artifact` for `key` (atomically; a failure is only logged:
  /// the cache is an optimization) and evicts the entries used longest
  /// ago while the folder holds more than its budget.
  void store(const CacheKey &key, llvm::StringRef artifact);
  /// The keys of the entries in the folder (their headers only).
  std::vector<CacheKey> keys();
  /// The path of `key`'s entry.
  std::string pathOf(const CacheKey &key) const;

private:
  void evict();

  std::string folder;
  Log log;
};

/// Writes `bytes` to the open file `fd` and closes it; why it failed, or "".
std::string writeAndClose(int fd, llvm::StringRef bytes);

/// The disk cache's folder when the caller names none: $KILN_CACHE_DIR,
/// else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln ("" if none is set).
std::string defaultCacheFolder();

/// Why `key` missed: how it differs from the closest of `known` (the one
/// for the same entry that differs in the fewest parts), or that the
/// cache holds nothing for its entry.
std::string explainMiss(const CacheKey &key, const std::vector<CacheKey> &known);

} // namespace kiln::jit

#endif // KILN_RUNTIME_JIT_COMPILECACHE_H
