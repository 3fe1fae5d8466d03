//===- FuzzSupport.h - what the fuzz targets share --------------*- C++ -*-===//
//
// Each fuzz target defines LLVMFuzzerTestOneInput; libFuzzer drives it
// (LLVM_USE_SANITIZE_COVERAGE, scripts/fuzz-targets.sh) or FuzzReplay.cpp
// runs it once per file of its corpus (ctest).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TEST_FUZZ_FUZZSUPPORT_H
#define KILN_TEST_FUZZ_FUZZSUPPORT_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace kiln::fuzz {

/// A file holding `size` bytes at `data`, for readers that take a path:
/// one per process and target, rewritten for each input (in /dev/shm when
/// there is one, so inputs do not wear a disk).
inline std::string writeInput(const char *target, const uint8_t *data,
                              size_t size) {
  static std::string path;
  static bool once = [&] {
    const char *folder = std::getenv("TMPDIR");
    if (access("/dev/shm", W_OK) == 0)
      folder = "/dev/shm";
    else if (!folder || !*folder)
      folder = "/tmp";
    path = std::string(folder) + "/kiln-fuzz-" + target + "-" +
           std::to_string(getpid());
    return std::atexit([] { unlink(path.c_str()); }) == 0;
  }();
  (void)once;
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file || std::fwrite(data, 1, size, file) != size ||
      std::fclose(file) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

/// `valid` (a well-formed file) edited as `data` says: its first two bytes
/// (little-endian) are where the file is cut (nowhere when past its end),
/// each three bytes after them an offset (two bytes, modulo the length)
/// and the byte written there. Truncations and single-byte edits of a
/// valid file reach far deeper than random bytes do.
inline std::string edited(std::string valid, const uint8_t *data,
                          size_t size) {
  if (size < 2 || valid.empty())
    return valid;
  size_t cut = data[0] | size_t(data[1]) << 8;
  for (size_t i = 2; i + 3 <= size; i += 3)
    valid[(data[i] | size_t(data[i + 1]) << 8) % valid.size()] =
        char(data[i + 2]);
  if (cut < valid.size())
    valid.resize(cut);
  return valid;
}

/// Stops the run with `what`: an input broke a promise Kiln makes (a
/// failure without a diagnostic, a round trip that changes its value).
[[noreturn]] inline void broken(const std::string &what) {
  std::fprintf(stderr, "kiln fuzz: %s\n", what.c_str());
  std::abort();
}

} // namespace kiln::fuzz

#endif // KILN_TEST_FUZZ_FUZZSUPPORT_H
