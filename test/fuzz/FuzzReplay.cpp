//===- FuzzReplay.cpp - a fuzz target's corpus as an ordinary test --------===//
//
// The main of a fuzz target built without libFuzzer: runs its
// LLVMFuzzerTestOneInput once on every file named or found (recursively)
// in a folder named, and says how many it ran. Flags (libFuzzer's, such
// as -runs=0) are ignored, so ctest passes the same command to both kinds
// of build. A crash is the test's failure; the input's path is printed
// first so it can be replayed.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

namespace fs = std::filesystem;

static void runOne(const fs::path &path) {
  std::ifstream file(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  if (!file.eof() && file.fail()) {
    std::cerr << "cannot read " << path << "\n";
    std::exit(1);
  }
  std::cerr << "running " << path.string() << "\n";
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                         bytes.size());
}

int main(int argc, char **argv) {
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-')
      continue;
    fs::path root(argv[i]);
    std::error_code error;
    if (fs::is_regular_file(root, error)) {
      runOne(root);
      ++count;
      continue;
    }
    if (!fs::is_directory(root, error)) {
      std::cerr << root << ": no such file or folder\n";
      return 1;
    }
    std::vector<fs::path> files;
    for (const fs::directory_entry &entry :
         fs::recursive_directory_iterator(root))
      if (entry.is_regular_file())
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path &file : files)
      runOne(file);
    count += files.size();
  }
  std::cout << "ran " << count << " inputs\n";
  return count ? 0 : 1;
}
