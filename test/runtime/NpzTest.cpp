//===- NpzTest.cpp - .npy and .npz files ----------------------------------===//
//
// .npy and .npz round trips in every dtype, stored and deflated, and the
// names a writer refuses.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestSupport.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <tuple>

using namespace kiln::test;

namespace {

TEST(Npy, RoundTripsEveryDtype) {
  for (kiln_dtype_t dtype : {KILN_F32, KILN_F64, KILN_F16, KILN_I1, KILN_I8,
                             KILN_I16, KILN_I32, KILN_I64}) {
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

TEST(Npy, ReadsUnsignedArraysAsTheIntsOfTheSameBits) {
  for (auto [dtype, from, to] :
       {std::tuple{KILN_I8, "|i1", "|u1"}, std::tuple{KILN_I16, "<i2", "<u2"},
        std::tuple{KILN_I32, "<i4", "<u4"}, std::tuple{KILN_I64, "<i8", "<u8"}}) {
    std::vector<unsigned char> bytes(4 * kiln_dtype_size(dtype));
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<unsigned char>(0xF0 + i);
    Tensor t = tensor(dtype, {4}, bytes.data(), bytes.size());
    TempFile file("unsigned.npy");
    ASSERT_EQ(message(kiln_npy_write(file.path.c_str(), t.get())), "ok");
    // The same file as numpy writes an unsigned array of these bits.
    std::string image;
    {
      std::ifstream in(file.path, std::ios::binary);
      image.assign(std::istreambuf_iterator<char>(in), {});
    }
    size_t at = image.find(from);
    ASSERT_NE(at, std::string::npos);
    image.replace(at, 3, to);
    std::ofstream(file.path, std::ios::binary) << image;
    kiln_tensor_t back;
    ASSERT_EQ(message(kiln_npy_read(file.path.c_str(), &back)), "ok");
    Tensor owned(back);
    EXPECT_EQ(kiln_tensor_dtype(back), dtype);
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

TEST(Npz, ReadsOneBlockOfAnArray) {
  // 600x3x500 floats (3.6 MB: several of the reader's 1 MiB pieces when
  // compressed), element (i, j, k) = i * 10000 + j * 1000 + k.
  const int64_t rows = 600, mid = 3, cols = 500;
  std::vector<float> values(rows * mid * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < mid; ++j)
      for (int64_t k = 0; k < cols; ++k)
        values[(i * mid + j) * cols + k] = float(i * 10000 + j * 1000 + k);
  Tensor big = tensor(KILN_F32, {rows, mid, cols}, values.data(),
                      values.size() * 4);
  double scalar = 7.5;
  Tensor small = tensor(KILN_F64, {}, &scalar, sizeof scalar);
  const char *names[] = {"w", "s"};
  kiln_tensor_t tensors[] = {big.get(), small.get()};
  struct Block {
    std::vector<int64_t> offsets, shape;
  };
  const Block blocks[] = {{{0, 0, 0}, {rows, mid, cols}},
                          {{300, 0, 0}, {300, mid, cols}},
                          {{0, 1, 250}, {600, 2, 250}},
                          {{599, 2, 499}, {1, 1, 1}},
                          {{10, 0, 0}, {0, mid, cols}}};
  for (int compress : {0, 1}) {
    TempFile file("blocks.npz");
    ASSERT_EQ(message(kiln_npz_write(file.path.c_str(), 2, names, tensors,
                                     compress)),
              "ok");
    for (const Block &block : blocks) {
      kiln_tensor_t read = nullptr;
      ASSERT_EQ(message(kiln_npz_read_block(file.path.c_str(), "w", 3,
                                            block.offsets.data(),
                                            block.shape.data(), &read)),
                "ok");
      Tensor owned(read);
      ASSERT_EQ(kiln_tensor_rank(read), 3);
      const float *got = static_cast<const float *>(kiln_tensor_data(read));
      size_t mismatches = 0, n = 0;
      for (int64_t i = 0; i < block.shape[0]; ++i)
        for (int64_t j = 0; j < block.shape[1]; ++j)
          for (int64_t k = 0; k < block.shape[2]; ++k, ++n)
            mismatches += got[n] != float((block.offsets[0] + i) * 10000 +
                                          (block.offsets[1] + j) * 1000 +
                                          block.offsets[2] + k);
      EXPECT_EQ(mismatches, 0u) << "compress " << compress << " block at "
                                << block.offsets[0] << "," << block.offsets[1]
                                << "," << block.offsets[2];
    }
    kiln_tensor_t read = nullptr;
    ASSERT_EQ(message(kiln_npz_read_block(file.path.c_str(), "s", 0, nullptr,
                                          nullptr, &read)),
              "ok");
    EXPECT_EQ(*static_cast<double *>(kiln_tensor_data(read)), 7.5);
    kiln_tensor_free(read);

    std::string what = file.path + " member w.npy: ";
    int64_t offsets[] = {0, 2, 0}, shape[] = {600, 2, 500};
    EXPECT_EQ(message(kiln_npz_read_block(file.path.c_str(), "w", 3, offsets,
                                          shape, &read)),
              what + "the block's dimension 1 [2, 4) is not within the "
                     "array's 3");
    EXPECT_EQ(message(kiln_npz_read_block(file.path.c_str(), "w", 2, offsets,
                                          shape, &read)),
              what + "the block has rank 2, the array 3");
    EXPECT_EQ(message(kiln_npz_read_block(file.path.c_str(), "v", 3, offsets,
                                          shape, &read)),
              file.path + ": no array 'v'; its arrays are: w, s");
    EXPECT_EQ(read, nullptr);
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
