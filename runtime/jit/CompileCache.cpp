//===- CompileCache.cpp - keys and the disk cache of compiled entries -----===//
#include "CompileCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

using namespace kiln::jit;

namespace {
constexpr llvm::StringLiteral kMagic = "KILNJIT1";
constexpr llvm::StringLiteral kSuffix = ".kiln-jit";
/// Header bytes after the key text: two sizes and a SHA-256.
constexpr size_t kSizesAndDigest = 8 + 8 + 32;
/// The most bytes of entries the folder keeps ($KILN_CACHE_MAX_BYTES).
constexpr uint64_t kDefaultBudget = uint64_t(1) << 30;
/// A bound on a header's key text, so that a corrupt length is caught
/// before anything is read.
constexpr uint32_t kMaxKeyText = 1 << 20;

std::string sha256Hex(llvm::StringRef bytes) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes)),
                     /*LowerCase=*/true);
}

/// What a part's change means, for explanations.
std::string describeChange(llvm::StringRef name, llvm::StringRef now,
                           llvm::StringRef before) {
  if (name == "ir")
    return "the IR of the entry or of a function it calls changed";
  if (name == "kiln")
    return "the Kiln build changed (" + before.str() + " -> " + now.str() + ")";
  if (name == "features")
    return "the CPU's features changed";
  if (name.starts_with("static"))
    return "static argument " + name.drop_front(6).str() + " " + now.str() +
           " vs " + before.str();
  if (name.consume_front("option:"))
    return "option " + name.str() + " " + now.str() + " vs " + before.str();
  if (name.starts_with("arg"))
    return "argument " + name.drop_front(3).str() + " " + now.str() + " vs " +
           before.str();
  return name.str() + " " + now.str() + " vs " + before.str();
}

/// Reads the key and the rest of the header of the entry in `bytes`;
/// returns why it is no entry, or "" with `key` and `rest` (what follows
/// the key text) set.
std::string readHeader(llvm::StringRef bytes, CacheKey &key,
                       llvm::StringRef &rest) {
  if (!bytes.starts_with(kMagic))
    return "not a Kiln cache entry";
  bytes = bytes.drop_front(kMagic.size());
  if (bytes.size() < 4)
    return "truncated";
  uint32_t length = llvm::support::endian::read32le(bytes.data());
  bytes = bytes.drop_front(4);
  if (length > kMaxKeyText)
    return "corrupt (a key of " + std::to_string(length) + " bytes)";
  if (bytes.size() < length)
    return "truncated";
  std::optional<CacheKey> parsed = CacheKey::parse(bytes.take_front(length));
  if (!parsed)
    return "corrupt (its key cannot be read)";
  key = std::move(*parsed);
  rest = bytes.drop_front(length);
  return "";
}

/// The artifact in the entry `bytes` stored for `expected`, or why there
/// is none.
std::string readEntry(llvm::StringRef bytes, const CacheKey &expected,
                      std::string &artifact) {
  CacheKey key;
  llvm::StringRef rest;
  if (std::string why = readHeader(bytes, key, rest); !why.empty())
    return why;
  if (key.text() != expected.text())
    return "written for another key (" + expected.differences(key) + ")";
  if (rest.size() < kSizesAndDigest)
    return "truncated";
  uint64_t size = llvm::support::endian::read64le(rest.data());
  uint64_t compressed = llvm::support::endian::read64le(rest.data() + 8);
  llvm::StringRef digest = rest.substr(16, 32);
  rest = rest.drop_front(kSizesAndDigest);
  if (compressed != rest.size())
    return compressed > rest.size() ? "truncated" : "corrupt (trailing bytes)";
  // A shared object is far smaller than this; a corrupt size must not make
  // the decompressor allocate it.
  if (size > (uint64_t(1) << 32))
    return "corrupt (an artifact of " + std::to_string(size) + " bytes)";
  llvm::SmallVector<uint8_t, 0> inflated;
  if (llvm::Error failure = llvm::compression::zlib::decompress(
          llvm::arrayRefFromStringRef(rest), inflated, size)) {
    return "corrupt (cannot be inflated: " +
           llvm::toString(std::move(failure)) + ")";
  }
  artifact.assign(inflated.begin(), inflated.end());
  std::array<uint8_t, 32> actual = llvm::SHA256::hash(inflated);
  if (artifact.size() != size ||
      llvm::toStringRef(llvm::ArrayRef<uint8_t>(actual)) != digest)
    return "corrupt (checksum mismatch)";
  return "";
}
} // namespace

std::string CacheKey::text() const {
  std::string text;
  for (const auto &[name, value] : parts)
    text += name + " " + value + "\n";
  return text;
}

std::optional<CacheKey> CacheKey::parse(llvm::StringRef text) {
  CacheKey key;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    if (rest.data() == nullptr && !text.ends_with("\n"))
      return std::nullopt;
    auto [name, value] = line.split(' ');
    if (name.empty())
      return std::nullopt;
    key.parts.emplace_back(name.str(), value.str());
    text = rest;
  }
  if (key.parts.empty())
    return std::nullopt;
  return key;
}

std::string CacheKey::hash() const { return sha256Hex(text()); }

llvm::StringRef CacheKey::get(llvm::StringRef name) const {
  for (const auto &[part, value] : parts)
    if (part == name)
      return value;
  return "";
}

std::string CacheKey::differences(const CacheKey &other) const {
  std::string text;
  auto add = [&](const std::string &change) {
    text += (text.empty() ? "" : "; ") + change;
  };
  for (const auto &[name, value] : parts)
    if (other.get(name) != value)
      add(describeChange(name, value, other.get(name)));
  for (const auto &[name, value] : other.parts)
    if (get(name).empty() && !value.empty())
      add(name + " " + value + " is gone");
  return text.empty() ? "nothing" : text;
}

std::string DiskCache::pathOf(const CacheKey &key) const {
  llvm::SmallString<256> path(folder);
  llvm::sys::path::append(path, key.hash() + kSuffix.str());
  return std::string(path);
}

std::optional<std::string> DiskCache::load(const CacheKey &key,
                                           bool &corrupt) {
  corrupt = false;
  std::string path = pathOf(key);
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return std::nullopt;
  std::string artifact;
  std::string why = readEntry((*file)->getBuffer(), key, artifact);
  if (why.empty()) {
    // Eviction goes by last use.
    int fd;
    if (!llvm::sys::fs::openFileForWrite(path, fd,
                                         llvm::sys::fs::CD_OpenExisting,
                                         llvm::sys::fs::OF_Append)) {
      llvm::sys::fs::setLastAccessAndModificationTime(
          fd, std::chrono::system_clock::now());
      llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    }
    return artifact;
  }
  corrupt = true;
  log("cache entry " + path + " is " + why + "; removed, recompiling");
  llvm::sys::fs::remove(path);
  return std::nullopt;
}

void DiskCache::store(const CacheKey &key, llvm::StringRef artifact) {
  if (std::error_code code = llvm::sys::fs::create_directories(folder)) {
    log("cannot create the cache folder " + folder + ": " + code.message());
    return;
  }
  std::string keyText = key.text();
  llvm::SmallVector<uint8_t, 0> compressed;
  llvm::compression::zlib::compress(llvm::arrayRefFromStringRef(artifact),
                                    compressed);
  std::string entry(kMagic);
  char word[8];
  llvm::support::endian::write32le(word, keyText.size());
  entry.append(word, 4);
  entry += keyText;
  llvm::support::endian::write64le(word, artifact.size());
  entry.append(word, 8);
  llvm::support::endian::write64le(word, compressed.size());
  entry.append(word, 8);
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(artifact));
  entry.append(digest.begin(), digest.end());
  entry.append(compressed.begin(), compressed.end());

  // A unique temporary name in the folder, then a rename over the entry:
  // readers in other processes see the whole entry or none.
  std::string path = pathOf(key);
  int fd;
  llvm::SmallString<256> temporary;
  if (std::error_code code = llvm::sys::fs::createUniqueFile(
          path + ".tmp-%%%%%%%%", fd, temporary)) {
    log("cannot write a cache entry in " + folder + ": " + code.message());
    return;
  }
  if (std::string why = writeAndClose(fd, entry); !why.empty()) {
    log("cannot write " + std::string(temporary) + ": " + why);
    llvm::sys::fs::remove(temporary);
    return;
  }
  if (std::error_code code = llvm::sys::fs::rename(temporary, path)) {
    log("cannot store " + path + ": " + code.message());
    llvm::sys::fs::remove(temporary);
    return;
  }
  evict();
}

std::vector<CacheKey> DiskCache::keys() {
  std::vector<CacheKey> found;
  std::error_code code;
  for (llvm::sys::fs::directory_iterator it(folder, code), end;
       !code && it != end; it.increment(code)) {
    if (!llvm::StringRef(it->path()).ends_with(kSuffix))
      continue;
    auto file = llvm::MemoryBuffer::getFile(it->path(), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    CacheKey key;
    llvm::StringRef rest;
    if (file && readHeader((*file)->getBuffer(), key, rest).empty())
      found.push_back(std::move(key));
  }
  return found;
}

void DiskCache::evict() {
  uint64_t budget = kDefaultBudget;
  if (const char *text = std::getenv("KILN_CACHE_MAX_BYTES"))
    llvm::StringRef(text).getAsInteger(10, budget);
  struct Entry {
    std::string path;
    uint64_t bytes;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code code;
  for (llvm::sys::fs::directory_iterator it(folder, code), end;
       !code && it != end; it.increment(code)) {
    llvm::sys::fs::file_status status;
    if (!llvm::StringRef(it->path()).ends_with(kSuffix) ||
        llvm::sys::fs::status(it->path(), status))
      continue;
    entries.push_back({it->path(), status.getSize(),
                       status.getLastModificationTime()});
    total += status.getSize();
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.used < b.used; });
  for (const Entry &entry : entries) {
    if (total <= budget)
      break;
    if (!llvm::sys::fs::remove(entry.path)) {
      total -= entry.bytes;
      log("evicted " + entry.path + " (the cache holds more than " +
          std::to_string(budget) + " bytes)");
    }
  }
}

std::string kiln::jit::writeAndClose(int fd, llvm::StringRef bytes) {
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << bytes;
  os.flush();
  if (!os.has_error())
    return "";
  std::string why = os.error().message();
  os.clear_error();
  return why;
}

std::string kiln::jit::defaultCacheFolder() {
  if (const char *folder = std::getenv("KILN_CACHE_DIR"))
    return folder;
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    path = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    llvm::sys::path::append(path, home, ".cache");
  else
    return "";
  llvm::sys::path::append(path, "kiln");
  return std::string(path);
}

std::string kiln::jit::explainMiss(const CacheKey &key,
                                   const std::vector<CacheKey> &known) {
  const CacheKey *closest = nullptr;
  size_t fewest = 0;
  for (const CacheKey &other : known) {
    if (other.get("entry") != key.get("entry"))
      continue;
    size_t differing = 0;
    for (const auto &[name, value] : key.parts)
      differing += other.get(name) != value;
    if (!closest || differing < fewest) {
      closest = &other;
      fewest = differing;
    }
  }
  if (!closest)
    return "the cache holds no compiled @" + key.get("entry").str();
  return "the closest cached @" + key.get("entry").str() +
         " differs: " + key.differences(*closest);
}
