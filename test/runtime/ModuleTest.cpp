//===- ModuleTest.cpp - compiled modules and calls ------------------------===//
//
// Modules compiled in process or loaded from artifacts, their entries, and
// calls with every wrong argument reported by name.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestSupport.h"

#include <cstring>
#include <thread>

using namespace kiln::test;

namespace {

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
  Tensor y(results[0]), k2(results[1]);
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

TEST(Module, OverwritesABoolResultBufferWhateverItHeld) {
  TempFile source("positive.mlir", R"mlir(
func.func @positive(%x: tensor<3xf32>) -> tensor<3xi1> {
  %z = kiln.constant dense<0.0> : tensor<3xf32>
  %0 = kiln.compare GT, %x, %z : tensor<3xf32>
  return %0 : tensor<3xi1>
}
)mlir");
  kiln_module_t raw = nullptr;
  ASSERT_EQ(message(kiln_module_compile(source.path.c_str(), &raw)), "ok");
  std::unique_ptr<kiln_module, decltype(&kiln_module_free)> module(
      raw, kiln_module_free);
  float values[] = {-1.0f, 2.0f, 0.0f};
  Tensor x = tensor(KILN_F32, {3}, values, sizeof values),
         out = tensor(KILN_I1, {3});
  // A result's old bytes are not read: garbage is no error.
  auto *bytes = static_cast<unsigned char *>(kiln_tensor_data(out.get()));
  bytes[0] = 7;
  kiln_tensor_t args[] = {x.get()};
  kiln_tensor_t results[] = {out.get()};
  ASSERT_EQ(message(kiln_module_call_into(raw, "positive", 1, args, 1,
                                          results)),
            "ok");
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[1], 1);
  EXPECT_EQ(bytes[2], 0);
}

TEST(Module, ReportsTheIntermediateBytesOfTheLastCall) {
  // A product feeding another product lives in a buffer of its own (900
  // KiB; 480 rows are whole register tiles on AVX-512 (8) and AVX2 (6),
  // where rows past the last whole tile took a buffer of their own); in
  // @two, the first product is still needed by the third, so two
  // such buffers are held at once. Buffers this large are cached between
  // calls: the figures and the results stay the same across calls and
  // once the cache is emptied.
  TempFile source("peak.mlir", R"mlir(
func.func @one(%x: tensor<480x480xf32>) -> tensor<480x480xf32> {
  %d = kiln.dot_general %x, %x, contracting = [1] x [0] : (tensor<480x480xf32>, tensor<480x480xf32>) -> tensor<480x480xf32>
  %r = kiln.dot_general %d, %x, contracting = [1] x [0] : (tensor<480x480xf32>, tensor<480x480xf32>) -> tensor<480x480xf32>
  return %r : tensor<480x480xf32>
}
func.func @two(%x: tensor<480x480xf32>) -> tensor<480x480xf32> {
  %d = kiln.dot_general %x, %x, contracting = [1] x [0] : (tensor<480x480xf32>, tensor<480x480xf32>) -> tensor<480x480xf32>
  %e = kiln.dot_general %d, %x, contracting = [1] x [0] : (tensor<480x480xf32>, tensor<480x480xf32>) -> tensor<480x480xf32>
  %r = kiln.dot_general %e, %d, contracting = [1] x [0] : (tensor<480x480xf32>, tensor<480x480xf32>) -> tensor<480x480xf32>
  return %r : tensor<480x480xf32>
}
)mlir");
  kiln::Module module;
  ASSERT_TRUE(kiln::Module::compile(source.path, module).ok());
  // x = I / 2: @one gives x^3 = I / 8, @two x^5 = I / 32.
  std::vector<float> half(480 * 480, 0.0f);
  for (int i = 0; i < 480; ++i)
    half[i * 481] = 0.5f;
  kiln::Tensor x;
  ASSERT_TRUE(kiln::Tensor::create(KILN_F32, {480, 480}, half.data(),
                                   half.size() * sizeof(float), x));
  std::vector<kiln::Tensor> results;
  for (int round = 0; round < 3; ++round) {
    if (round == 2)
      kiln_free_cached_buffers();
    ASSERT_TRUE(module.call("two", {x}, results).ok());
    EXPECT_EQ(kiln_last_call_peak_bytes(), 2 * 921600u);
    EXPECT_EQ(results[0].data<float>()[481], 1.0f / 32);
    ASSERT_TRUE(module.call("one", {x}, results).ok());
    EXPECT_EQ(kiln_last_call_peak_bytes(), 921600u);
    EXPECT_EQ(results[0].data<float>()[0], 1.0f / 8);
    EXPECT_EQ(results[0].data<float>()[1], 0.0f);
  }
}

TEST(Module, ParallelLoopsGiveTheSameResultsOnAnyNumberOfThreads) {
  // A 256^3 integer matmul is large enough to run in chunks on threads.
  // Every thread count gives the exact product (a loop of sums here), also
  // with two host threads calling at once.
  TempFile source("threads.mlir", R"mlir(
func.func @matmul(%a: tensor<256x256xi32>, %b: tensor<256x256xi32>) -> tensor<256x256xi32> {
  %r = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<256x256xi32>, tensor<256x256xi32>) -> tensor<256x256xi32>
  return %r : tensor<256x256xi32>
}
)mlir");
  kiln::Module module;
  ASSERT_TRUE(kiln::Module::compile(source.path, module).ok());
  constexpr int n = 256;
  std::vector<int32_t> a(n * n), b(n * n), expected(n * n, 0);
  for (int i = 0; i < n * n; ++i) {
    a[i] = i % 7 - 3;
    b[i] = i % 5 - 2;
  }
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        expected[i * n + j] += a[i * n + k] * b[k * n + j];
  kiln::Tensor x, y;
  ASSERT_TRUE(kiln::Tensor::create(KILN_I32, {n, n}, a.data(), a.size() * 4, x));
  ASSERT_TRUE(kiln::Tensor::create(KILN_I32, {n, n}, b.data(), b.size() * 4, y));
  auto product = [&](std::vector<int32_t> &out) {
    std::vector<kiln::Tensor> results;
    ASSERT_TRUE(module.call("matmul", {x, y}, results).ok());
    out.assign(results[0].data<int32_t>(), results[0].data<int32_t>() + n * n);
  };
  int64_t initial = kiln::numThreads();
  EXPECT_GE(initial, 1);
  EXPECT_EQ(kiln::setNumThreads(0).message(),
            "num_threads: expected at least 1, got 0");
  EXPECT_EQ(kiln::numThreads(), initial);
  for (int64_t threads : {1, 2, 3}) {
    ASSERT_TRUE(kiln::setNumThreads(threads).ok());
    EXPECT_EQ(kiln::numThreads(), threads);
    std::vector<int32_t> got, other;
    std::thread second([&] { product(other); });
    product(got);
    second.join();
    EXPECT_EQ(got, expected) << threads << " threads";
    EXPECT_EQ(other, expected) << threads << " threads, second caller";
  }
  ASSERT_TRUE(kiln::setNumThreads(initial).ok());
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
