//===- NpzTest.cpp - .npy and .npz files ----------------------------------===//
//
// .npy and .npz round trips in every dtype, stored and deflated, and the
// names a writer refuses.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestSupport.h"

#include <cstring>

using namespace kiln::test;

namespace {

TEST(Npy, RoundTripsEveryDtype) {
  for (kiln_dtype_t dtype : {KILN_F32, KILN_F64, KILN_F16, KILN_I1, KILN_I32,
                             KILN_I64}) {
    size_t size = kiln_dtype_size(dtype);
    std::vector<unsigned char> bytes(6 * size);
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = dtype == KILN_I1 ? (i & 1) : static_cast<unsigned char>(i * 7);
    Tensor t = tensor(dtype, {3, 2}, bytes.data(), bytes.size());
    TempFile file("roundtrip.npy");
    ASSERT_EQ(message(kiln_npy_write(file.path.c_str(), t.get())), "ok");
    kiln_tensor_t back;
    ASSERT_EQ(message(kiln_npy_read(file.path.c_str(), &back)), "ok");
    Tensor owned(back);
    EXPECT_EQ(kiln_tensor_dtype(back), dtype);
    ASSERT_EQ(kiln_tensor_rank(back), 2);
    EXPECT_EQ(kiln_tensor_shape(back)[0], 3);
    EXPECT_EQ(0, memcmp(kiln_tensor_data(back), bytes.data(), bytes.size()));
  }
}

TEST(Npz, RoundTripsStoredAndDeflated) {
  int32_t a[3] = {1, -2, 3};
  double b = 2.5;
  Tensor ta = tensor(KILN_I32, {3}, a, sizeof(a));
  Tensor tb = tensor(KILN_F64, {}, &b, sizeof(b));
  const char *names[] = {"a", "scalar"};
  kiln_tensor_t tensors[] = {ta.get(), tb.get()};
  for (int compress : {0, 1}) {
    TempFile file("roundtrip.npz");
    ASSERT_EQ(message(kiln_npz_write(file.path.c_str(), 2, names, tensors,
                                     compress)),
              "ok");
    size_t count;
    char **readNames;
    kiln_tensor_t *read;
    ASSERT_EQ(message(kiln_npz_read(file.path.c_str(), &count, &readNames,
                                    &read)),
              "ok");
    ASSERT_EQ(count, 2u);
    EXPECT_STREQ(readNames[0], "a");
    EXPECT_STREQ(readNames[1], "scalar");
    EXPECT_EQ(static_cast<int32_t *>(kiln_tensor_data(read[0]))[1], -2);
    EXPECT_EQ(kiln_tensor_rank(read[1]), 0);
    EXPECT_EQ(*static_cast<double *>(kiln_tensor_data(read[1])), 2.5);
    kiln_npz_free(count, readNames, read);
  }
}

TEST(Npz, ReportsMissingFilesAndNullArguments) {
  size_t count;
  char **names;
  kiln_tensor_t *tensors;
  EXPECT_EQ(message(kiln_npz_read("/nonexistent/x.npz", &count, &names,
                                  &tensors)),
            "cannot open /nonexistent/x.npz");
  EXPECT_EQ(message(kiln_npz_read("x.npz", nullptr, &names, &tensors)),
            "count, names, tensors: must not be null");
  const char *oneName[] = {"a"};
  kiln_tensor_t none[] = {nullptr};
  EXPECT_EQ(message(kiln_npz_write("x.npz", 1, oneName, none, 0)),
            "names[0], tensors[0]: must not be null");
}

TEST(Npz, WritesOnlyDistinctPlainNames) {
  TempFile file("names.npz");
  Tensor a = tensor(KILN_F32, {2});
  kiln_tensor_t two[] = {a.get(), a.get()};
  const char *repeated[] = {"x", "x"};
  EXPECT_EQ(message(kiln_npz_write(file.path.c_str(), 2, repeated, two, 0)),
            "names[1]: 'x' appears twice");
  for (const char *bad : {"../x", "a/b", "a\\b", "", "..", "."}) {
    const char *names[] = {bad};
    EXPECT_NE(message(kiln_npz_write(file.path.c_str(), 1, names, two, 0)),
              "ok")
        << bad;
  }
  std::ifstream written(file.path);
  EXPECT_FALSE(written.good()) << "a rejected archive was written";
}

} // namespace
