//===- RuntimeTestSupport.h - helpers of the runtime's gtests --*- C++ -*-===//
#ifndef KILN_TEST_RUNTIME_RUNTIMETESTSUPPORT_H
#define KILN_TEST_RUNTIME_RUNTIMETESTSUPPORT_H

#include "kiln/runtime.h"
#include "kiln/runtime.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace kiln::test {

/// The message of `status` (freed), or "ok".
inline std::string message(kiln_status_t status) {
  std::string text = status ? kiln_status_message(status) : "ok";
  kiln_status_free(status);
  return text;
}

using kiln::Tensor;

/// A tensor of `dtype` and `shape` holding `bytes` bytes of `data`.
inline Tensor tensor(kiln_dtype_t dtype, std::vector<int64_t> shape,
              const void *data = nullptr, size_t bytes = 0) {
  kiln_tensor_t t = nullptr;
  EXPECT_EQ(message(kiln_tensor_create(dtype, shape.size(), shape.data(), data,
                                       bytes, &t)),
            "ok");
  return Tensor(t);
}

/// A file in the test's temporary directory, removed at the end.
struct TempFile {
  explicit TempFile(const std::string &name, const std::string &contents = "")
      : path(::testing::TempDir() + std::to_string(getpid()) + "_" + name) {
    if (!contents.empty())
      std::ofstream(path) << contents;
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string path;
};

} // namespace kiln::test

#endif // KILN_TEST_RUNTIME_RUNTIMETESTSUPPORT_H
