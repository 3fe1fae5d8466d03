//===- RuntimeTest.cpp - the runtime's C API ------------------------------===//
//
// Tensors, .npy/.npz files and module calls, with every way a caller can get
// an argument wrong reported by name.
//
//===----------------------------------------------------------------------===//
#include "kiln/runtime.h"
#include "kiln/runtime.hpp"
#include "runtime/Internal.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

/// The message of `status` (freed), or "ok".
std::string message(kiln_status_t status) {
  std::string text = status ? kiln_status_message(status) : "ok";
  kiln_status_free(status);
  return text;
}

using Tensor = std::unique_ptr<kiln_tensor, decltype(&kiln_tensor_free)>;

Tensor tensor(kiln_dtype_t dtype, std::vector<int64_t> shape,
              const void *data = nullptr, size_t bytes = 0) {
  kiln_tensor_t t = nullptr;
  EXPECT_EQ(message(kiln_tensor_create(dtype, shape.size(), shape.data(), data,
                                       bytes, &t)),
            "ok");
  return Tensor(t, kiln_tensor_free);
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
  EXPECT_STREQ(kiln_dtype_name(static_cast<kiln_dtype_t>(-1)), "invalid");
  EXPECT_EQ(kiln_dtype_size(static_cast<kiln_dtype_t>(-1)), 0u);
}

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
    Tensor owned(back, kiln_tensor_free);
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

class ModuleTest : public ::testing::Test {
protected:
  void SetUp() override {
    TempFile source("program.mlir", R"mlir(
func.func @scale(%x: tensor<4xf32>, %k: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
  %kf = kiln.convert %k : (tensor<i32>) -> tensor<f32>
  %b = kiln.broadcast_in_dim %kf, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %y = kiln.mul %x, %b : tensor<4xf32>
  %k2 = kiln.add %k, %k : tensor<i32>
  return %y, %k2 : tensor<4xf32>, tensor<i32>
}
)mlir");
    ASSERT_EQ(message(kiln_module_compile(source.path.c_str(), &module)),
              "ok");
  }
  void TearDown() override { kiln_module_free(module); }

  /// Calls @scale on `args`, expecting two results; returns the status.
  std::string call(std::vector<kiln_tensor_t> args, size_t numResults = 2) {
    kiln_tensor_t results[2] = {};
    std::string text = message(kiln_module_call(
        module, "scale", args.size(), args.data(), numResults, results));
    for (kiln_tensor_t result : results)
      kiln_tensor_free(result);
    return text;
  }

  kiln_module_t module = nullptr;
};

TEST_F(ModuleTest, ListsEntriesWithSignatures) {
  ASSERT_EQ(kiln_module_entry_count(module), 1u);
  EXPECT_STREQ(kiln_module_entry_name(module, 0), "scale");
  EXPECT_EQ(kiln_module_entry_name(module, 1), nullptr);
  EXPECT_STREQ(kiln_module_entry_signature(module, "scale"),
               "(f32[4], i32[]) -> (f32[4], i32[])");
  EXPECT_EQ(kiln_module_entry_signature(module, "nope"), nullptr);
  EXPECT_EQ(kiln_module_entry_num_args(module, "scale"), 2);
  EXPECT_EQ(kiln_module_entry_num_results(module, "nope"), -1);
  kiln_dtype_t dtype;
  int64_t rank;
  const int64_t *shape;
  ASSERT_EQ(message(kiln_module_entry_arg(module, "scale", 0, &dtype, &rank,
                                          &shape)),
            "ok");
  EXPECT_EQ(dtype, KILN_F32);
  EXPECT_EQ(rank, 1);
  EXPECT_EQ(shape[0], 4);
  EXPECT_EQ(message(kiln_module_entry_result(module, "scale", 2, &dtype, &rank,
                                             &shape)),
            "index: scale has 2 results, asked for #2");
}

TEST_F(ModuleTest, CallsComputeTheResults) {
  float x[4] = {1, -2, 3.5, 0};
  int32_t k = 3;
  Tensor tx = tensor(KILN_F32, {4}, x, sizeof(x));
  Tensor tk = tensor(KILN_I32, {}, &k, sizeof(k));
  kiln_tensor_t args[] = {tx.get(), tk.get()};
  kiln_tensor_t results[2];
  ASSERT_EQ(message(kiln_module_call(module, "scale", 2, args, 2, results)),
            "ok");
  Tensor y(results[0], kiln_tensor_free), k2(results[1], kiln_tensor_free);
  const float *out = static_cast<float *>(kiln_tensor_data(y.get()));
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[1], -6);
  EXPECT_EQ(out[2], 10.5);
  EXPECT_EQ(*static_cast<int32_t *>(kiln_tensor_data(k2.get())), 6);
  // The arguments are the caller's: the call did not write into them.
  EXPECT_EQ(static_cast<float *>(kiln_tensor_data(tx.get()))[1], -2);
}

TEST_F(ModuleTest, RejectsEveryWrongArgumentByName) {
  Tensor x = tensor(KILN_F32, {4}), k = tensor(KILN_I32, {});
  Tensor x3 = tensor(KILN_F32, {3}), x2d = tensor(KILN_F32, {4, 1});
  Tensor kf = tensor(KILN_F32, {});
  EXPECT_EQ(call({x.get()}), "num_args: scale takes 2 arguments, got 1");
  EXPECT_EQ(call({x.get(), k.get()}, 1),
            "num_results: scale returns 2 results, got 1");
  EXPECT_EQ(call({x3.get(), k.get()}), "arg0 dimension 0: expected 4, got 3");
  EXPECT_EQ(call({x2d.get(), k.get()}), "arg0: expected rank 1, got 2");
  EXPECT_EQ(call({x.get(), kf.get()}), "arg1: expected dtype i32, got f32");
  EXPECT_EQ(call({x.get(), nullptr}), "arg1: is null");
  kiln_tensor_t results[2];
  EXPECT_EQ(message(kiln_module_call(module, "scales", 0, nullptr, 2, results)),
            "entry: no entry named 'scales'");
  kiln_tensor_t args[] = {x.get(), k.get()};
  EXPECT_EQ(message(kiln_module_call(module, "scale", 2, args, 2, nullptr)),
            "results: must not be null");
  EXPECT_EQ(message(kiln_module_call(nullptr, "scale", 2, args, 2, results)),
            "module: must not be null");
}

TEST(Module, RejectsBoolsThatAreNeitherZeroNorOne) {
  TempFile source("bools.mlir", R"mlir(
func.func @pick(%p: tensor<3xi1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.select %p, %x, %x : tensor<3xi1>, tensor<3xf32>
  return %0 : tensor<3xf32>
}
)mlir");
  kiln_module_t raw = nullptr;
  ASSERT_EQ(message(kiln_module_compile(source.path.c_str(), &raw)), "ok");
  std::unique_ptr<kiln_module, decltype(&kiln_module_free)> module(
      raw, kiln_module_free);
  Tensor p = tensor(KILN_I1, {3}), x = tensor(KILN_F32, {3});
  // Written behind the runtime's back, as a caller may.
  static_cast<unsigned char *>(kiln_tensor_data(p.get()))[2] = 7;
  kiln_tensor_t args[] = {p.get(), x.get()};
  kiln_tensor_t result = nullptr;
  EXPECT_EQ(message(kiln_module_call(raw, "pick", 2, args, 1, &result)),
            "arg0 element 2: a bool must be 0 or 1, got 7");
  EXPECT_EQ(result, nullptr);
}

TEST(CppWrapper, CompilesCallsAndReportsErrors) {
  TempFile source("wrapper.mlir", R"mlir(
func.func @negate(%x: tensor<3xi64>) -> tensor<3xi64> {
  %0 = kiln.neg %x : tensor<3xi64>
  return %0 : tensor<3xi64>
}
)mlir");
  kiln::Module module;
  ASSERT_TRUE(kiln::Module::compile(source.path, module).ok());
  EXPECT_EQ(module.entries(), std::vector<std::string>{"negate"});
  int64_t values[3] = {1, -2, 3};
  kiln::Tensor x, out;
  ASSERT_TRUE(kiln::Tensor::create(KILN_I64, {3}, values, sizeof(values), x));
  std::vector<kiln::Tensor> results;
  ASSERT_TRUE(module.call("negate", {x}, results).ok());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].shape(), std::vector<int64_t>{3});
  EXPECT_EQ(results[0].data<int64_t>()[1], 2);
  ASSERT_TRUE(kiln::Tensor::create(KILN_I64, {3}, nullptr, 0, out));
  ASSERT_TRUE(module.callInto("negate", {x}, {out}).ok());
  EXPECT_EQ(out.data<int64_t>()[2], -3);
  kiln::Tensor wrong;
  ASSERT_TRUE(kiln::Tensor::create(KILN_I32, {3}, nullptr, 0, wrong));
  kiln::Status status = module.callInto("negate", {x}, {wrong});
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "result0: expected dtype i64, got i32");
  EXPECT_EQ(module.callInto("negate", {x}, {x}).message(),
            "result0: is also arg0");
  kiln::Module missing;
  EXPECT_EQ(kiln::Module::load("", missing).message(),
            "./ is not a regular file");
}

TEST(Manifest, RoundTripsAndRejectsCorruptText) {
  using namespace kiln::runtime;
  Manifest manifest;
  manifest.entries.push_back({"f", {{KILN_F32, {4, 8}}, {KILN_I1, {}}},
                              {{KILN_BF16, {0}}}, ""});
  Manifest parsed;
  ASSERT_EQ(message(parseManifest(serializeManifest(manifest), parsed)), "ok");
  ASSERT_EQ(parsed.entries.size(), 1u);
  EXPECT_EQ(parsed.entries[0].text, "(f32[4,8], i1[]) -> (bf16[0])");
  auto reject = [](const std::string &text) {
    Manifest ignored;
    return message(parseManifest(text, ignored));
  };
  EXPECT_EQ(reject("not a manifest\n"),
            "manifest: missing the 'kiln-manifest 1' header");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\narg q32 4\nend\n"),
            "manifest line 3: unknown dtype 'q32'");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\narg f32 -4\nend\n"),
            "manifest line 3: invalid shape");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\narg f32 4x\nend\n"),
            "manifest line 3: invalid dimension");
  EXPECT_EQ(reject("kiln-manifest 1\nresult f32\n"),
            "manifest line 2: result outside an entry");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\n"),
            "manifest: entry f has no end");
  EXPECT_EQ(reject("kiln-manifest 1\nentry f\nentry g\n"),
            "manifest line 3: entry before the previous one's end");
  EXPECT_EQ(reject("kiln-manifest 1\nbogus\n"),
            "manifest line 2: unknown item 'bogus'");
}

TEST(Module, CompileReportsErrorsWithLocations) {
  TempFile source("bad.mlir", "func.func @f(%x: tensor<4xf32>) {\n"
                              "  %0 = kiln.bogus %x : tensor<4xf32>\n"
                              "  return\n}\n");
  kiln_module_t module;
  std::string text = message(kiln_module_compile(source.path.c_str(), &module));
  EXPECT_NE(text.find("bad.mlir:2:8: error: custom op 'kiln.bogus' is unknown"),
            std::string::npos)
      << text;
}

TEST(Module, LoadRejectsFilesThatAreNotArtifacts) {
  TempFile notObject("not-an-artifact.kmod", "hello");
  kiln_module_t module;
  std::string text = message(kiln_module_load(notObject.path.c_str(), &module));
  EXPECT_EQ(text, notObject.path + " is not a Kiln artifact: not an ELF file");
  EXPECT_EQ(message(kiln_module_load(nullptr, &module)),
            "path: must not be null");
}

} // namespace
