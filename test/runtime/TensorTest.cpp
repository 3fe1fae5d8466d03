//===- TensorTest.cpp - tensors and dtypes --------------------------------===//
//
// Tensors from the C API: layouts, zero fill, booleans, huge pages for
// large ones, and every bad argument and null handle reported by name or
// given a neutral value.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestSupport.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace kiln::test;

namespace {

TEST(Tensor, CreateCopiesDataAndReportsItsLayout) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor t = tensor(KILN_F32, {2, 3}, data, sizeof(data));
  EXPECT_EQ(kiln_tensor_dtype(t.get()), KILN_F32);
  ASSERT_EQ(kiln_tensor_rank(t.get()), 2);
  EXPECT_EQ(kiln_tensor_shape(t.get())[1], 3);
  EXPECT_EQ(kiln_tensor_byte_length(t.get()), sizeof(data));
  EXPECT_EQ(static_cast<float *>(kiln_tensor_data(t.get()))[5], 6);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(kiln_tensor_data(t.get())) % 64, 0u);
}

TEST(Tensor, NullDataIsZeroFilled) {
  Tensor t = tensor(KILN_I64, {4});
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(static_cast<int64_t *>(kiln_tensor_data(t.get()))[i], 0);
}

TEST(Tensor, RejectsBadArgumentsByName) {
  kiln_tensor_t t;
  int64_t shape[] = {2, -3};
  EXPECT_EQ(message(kiln_tensor_create(KILN_F32, 2, shape, nullptr, 0, &t)),
            "shape dimension 1: size -3 is negative");
  EXPECT_EQ(message(kiln_tensor_create(KILN_F32, -1, shape, nullptr, 0, &t)),
            "rank: -1 is negative");
  EXPECT_EQ(message(kiln_tensor_create(KILN_F32, int64_t(1) << 40, shape,
                                       nullptr, 0, &t)),
            "rank: 1099511627776 is more than the 64 supported");
  EXPECT_EQ(message(kiln_tensor_create(KILN_F32, 1, nullptr, nullptr, 0, &t)),
            "shape: must not be null for rank 1");
  EXPECT_EQ(message(kiln_tensor_create(static_cast<kiln_dtype_t>(42), 0,
                                       nullptr, nullptr, 0, &t)),
            "shape: invalid dtype 42");
  int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_EQ(message(kiln_tensor_create(KILN_F64, 2, huge, nullptr, 0, &t)),
            "shape: the shape's size in bytes overflows");
  // The call fuzz target's crash-byte-length-past-2-63: 2^64 - 2 bytes fit
  // in size_t, and the zero fill wrote past a wrapped-around allocation.
  int64_t past[] = {INT64_MAX, 2};
  EXPECT_EQ(message(kiln_tensor_create(KILN_I1, 2, past, nullptr, 0, &t)),
            "shape: the shape's size in bytes overflows");
  float data[3] = {};
  int64_t four[] = {4};
  EXPECT_EQ(
      message(kiln_tensor_create(KILN_F32, 1, four, data, sizeof(data), &t)),
      "byte_length: expected 16 for this dtype and shape, got 12");
  EXPECT_EQ(message(kiln_tensor_create(KILN_F32, 1, four, nullptr, 0, nullptr)),
            "out: must not be null");
}

TEST(Dtype, NamesAndSizes) {
  EXPECT_STREQ(kiln_dtype_name(KILN_BF16), "bf16");
  EXPECT_EQ(kiln_dtype_size(KILN_BF16), 2u);
  EXPECT_EQ(kiln_dtype_size(KILN_I1), 1u);
  EXPECT_STREQ(kiln_dtype_name(KILN_I8), "i8");
  EXPECT_EQ(kiln_dtype_size(KILN_I8), 1u);
  EXPECT_STREQ(kiln_dtype_name(KILN_I16), "i16");
  EXPECT_EQ(kiln_dtype_size(KILN_I16), 2u);
  EXPECT_STREQ(kiln_dtype_name(static_cast<kiln_dtype_t>(9)), "invalid");
  EXPECT_STREQ(kiln_dtype_name(static_cast<kiln_dtype_t>(-1)), "invalid");
  EXPECT_EQ(kiln_dtype_size(static_cast<kiln_dtype_t>(-1)), 0u);
}

TEST(Tensor, NullHandlesGetNeutralValues) {
  EXPECT_STREQ(kiln_dtype_name(kiln_tensor_dtype(nullptr)), "invalid");
  EXPECT_EQ(kiln_tensor_rank(nullptr), -1);
  EXPECT_EQ(kiln_tensor_shape(nullptr), nullptr);
  EXPECT_EQ(kiln_tensor_data(nullptr), nullptr);
  EXPECT_EQ(kiln_tensor_byte_length(nullptr), 0u);
  EXPECT_EQ(kiln_module_entry_count(nullptr), 0u);
  EXPECT_EQ(kiln_module_entry_name(nullptr, 0), nullptr);
}

TEST(Tensor, BoolsAreZeroOrOne) {
  unsigned char bytes[4] = {2, 0, 255, 1};
  Tensor t = tensor(KILN_I1, {4}, bytes, sizeof(bytes));
  const auto *data = static_cast<unsigned char *>(kiln_tensor_data(t.get()));
  EXPECT_EQ(std::vector<int>(data, data + 4), (std::vector<int>{1, 0, 1, 1}));
}

/// The VmFlags of the mapping that holds `address` (/proc/self/smaps), or
/// "" if none does.
std::string mappingFlags(const void *address) {
  std::ifstream smaps("/proc/self/smaps");
  auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0)
      return line;
  }
  return "";
}

TEST(Tensor, LargeOnesAskForHugePages) {
  struct stat info;
  if (stat("/sys/kernel/mm/transparent_hugepage", &info) != 0)
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  // 8 MiB: the kernel's advice flag ("hg") is on the pages inside it.
  Tensor large = tensor(KILN_F32, {1024, 2048});
  const char *data = static_cast<const char *>(kiln_tensor_data(large.get()));
  std::string flags = mappingFlags(data + (4 << 20));
  ASSERT_NE(flags, "");
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
  // 1 MiB: small pages suit it, and no advice is taken.
  Tensor small = tensor(KILN_F32, {256, 1024});
  flags = mappingFlags(kiln_tensor_data(small.get()));
  ASSERT_NE(flags, "");
  EXPECT_EQ(flags.find(" hg"), std::string::npos) << flags;
}

} // namespace
