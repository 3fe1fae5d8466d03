//===- JitTest.cpp - kiln_jit_*: entries compiled once, cached ------------===//
//
// Entries compiled on first call and found again by signature, in the jit
// and in the process's memory cache; what counts in the key (the entry's
// IR, not comments or unreached functions); several threads asking for one
// entry at once; errors. The disk cache across processes, its corrupt
// entries and its explanations are tested through kiln-run
// (test/e2e/jit_cache.py).
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestSupport.h"

#include <atomic>
#include <cmath>
#include <thread>

using namespace kiln::test;

namespace {

/// A jit of `source` (written to a temporary file) without a disk cache,
/// whose log lines go to `log`.
struct Jit {
  Jit(const std::string &name, const std::string &source) : file(name, source) {
    kiln_jit_options_t options{};
    options.cache_dir = "";
    options.log = [](void *user, const char *line) {
      static_cast<std::vector<std::string> *>(user)->push_back(line);
    };
    options.log_user = &log;
    status = message(kiln_jit_create(file.path.c_str(), &options, &jit));
  }
  ~Jit() { kiln_jit_free(jit); }
  kiln_jit_stats_t stats() const {
    kiln_jit_stats_t stats;
    kiln_jit_get_stats(jit, &stats);
    return stats;
  }
  /// Calls `entry` on one f32[4] argument; returns its f32[4] result.
  std::vector<float> call(const char *entry, std::vector<float> x) {
    Tensor arg = tensor(KILN_F32, {4}, x.data(), 16);
    kiln_tensor_t raw = arg.get(), result = nullptr;
    EXPECT_EQ(message(kiln_jit_call(jit, entry, 1, &raw, 1, &result)), "ok");
    Tensor owner(result);
    if (!result)
      return {};
    const float *data = owner.data<float>();
    return std::vector<float>(data, data + 4);
  }

  /// Argument `index` of `entry` as the source declares it.
  struct Declared {
    kiln_dtype_t dtype;
    std::vector<int64_t> shape;
    int isStatic;
  };
  std::string declared(const char *entry, size_t index, Declared &out) {
    int64_t rank;
    const int64_t *shape;
    kiln_status_t status = kiln_jit_entry_arg(jit, entry, index, &out.dtype,
                                              &rank, &shape, &out.isStatic);
    if (!status)
      out.shape.assign(shape, shape + rank);
    return message(status);
  }

  TempFile file;
  std::vector<std::string> log;
  std::string status;
  kiln_jit_t jit = nullptr;
};

/// A source with entries @twice and @square and an unreached helper; each
/// test makes its own (`tag` changes @twice's IR) so that no other test's
/// entries are in the process's memory cache.
std::string program(float tag, const std::string &helper = "kiln.add") {
  return "// a comment\nfunc.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
         "  %k = kiln.constant dense<" + std::to_string(tag) +
         "> : tensor<4xf32>\n"
         "  %y = kiln.mul %x, %k : tensor<4xf32>\n"
         "  return %y : tensor<4xf32>\n}\n"
         "func.func @square(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
         "  %y = kiln.mul %x, %x : tensor<4xf32>\n"
         "  return %y : tensor<4xf32>\n}\n"
         "func.func private @unused(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
         "  %y = " + helper + " %x, %x : tensor<4xf32>\n"
         "  return %y : tensor<4xf32>\n}\n";
}

TEST(Jit, CompilesEachEntryOnceAndCallsIt) {
  Jit jit("once.mlir", program(2.5));
  ASSERT_EQ(jit.status, "ok");
  EXPECT_EQ(jit.call("twice", {1, 2, 3, 4}), (std::vector<float>{2.5, 5, 7.5, 10}));
  EXPECT_EQ(jit.call("twice", {0, 1, 0, 1}), (std::vector<float>{0, 2.5, 0, 2.5}));
  EXPECT_EQ(jit.stats().compiled, 1u);
  EXPECT_EQ(jit.call("square", {1, 2, 3, 4}), (std::vector<float>{1, 4, 9, 16}));
  EXPECT_EQ(jit.stats().compiled, 2u);
  // The first compile of each entry said why it missed.
  ASSERT_EQ(jit.log.size(), 4u);
  EXPECT_NE(jit.log[0].find("@twice(tensor<4xf32>): cache miss: the cache "
                            "holds no compiled @twice; compiling"),
            std::string::npos)
      << jit.log[0];
  EXPECT_NE(jit.log[1].find("@twice(tensor<4xf32>): compiled in"),
            std::string::npos)
      << jit.log[1];
}

TEST(Jit, KeysIgnoreCommentsFormattingAndUnreachedFunctions) {
  Jit first("first.mlir", program(3.5));
  ASSERT_EQ(first.status, "ok");
  first.call("twice", {1, 1, 1, 1});
  // The same entry, reformatted, with another comment and another unused
  // helper: found in the memory cache, not compiled again.
  std::string text = program(3.5, "kiln.sub");
  text.replace(text.find("// a comment"), 12, "// another comment\n\n");
  Jit second("second.mlir", text);
  ASSERT_EQ(second.status, "ok");
  EXPECT_EQ(second.call("twice", {1, 2, 3, 4}),
            (std::vector<float>{3.5, 7, 10.5, 14}));
  EXPECT_EQ(second.stats().compiled, 0u);
  EXPECT_EQ(second.stats().memory_hits, 1u);
}

TEST(Jit, ExplainsAMissCausedByChangedIR) {
  Jit first("before.mlir", program(4.5));
  ASSERT_EQ(first.status, "ok");
  first.call("twice", {1, 1, 1, 1});
  Jit second("after.mlir", program(5.5));
  ASSERT_EQ(second.status, "ok");
  EXPECT_EQ(second.call("twice", {1, 1, 1, 1}),
            (std::vector<float>{5.5, 5.5, 5.5, 5.5}));
  EXPECT_EQ(second.stats().compiled, 1u);
  ASSERT_FALSE(second.log.empty());
  EXPECT_NE(second.log[0].find("the closest cached @twice differs: the IR of "
                               "the entry or of a function it calls changed"),
            std::string::npos)
      << second.log[0];
}

TEST(Jit, ThreadsAskingAtOnceCompileOnce) {
  Jit jit("threads.mlir", program(6.5));
  ASSERT_EQ(jit.status, "ok");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      float x = float(t);
      if (jit.call("twice", {x, x, x, x}) !=
          std::vector<float>(4, x * 6.5f))
        ++wrong;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(jit.stats().compiled, 1u);
}

TEST(Jit, ReportsBadEntriesAndArguments) {
  Jit jit("errors.mlir", program(7.5));
  ASSERT_EQ(jit.status, "ok");
  kiln_module_t module = nullptr;
  std::string missing =
      message(kiln_jit_module(jit.jit, "nothere", 0, nullptr, &module));
  EXPECT_NE(missing.find("has no entry 'nothere'; its entries are: twice, "
                         "square"),
            std::string::npos)
      << missing;
  EXPECT_EQ(module, nullptr);
  // A call with the wrong shape names the argument.
  Tensor wide = tensor(KILN_F32, {5});
  kiln_tensor_t raw = wide.get(), result = nullptr;
  EXPECT_EQ(message(kiln_jit_call(jit.jit, "twice", 1, &raw, 1, &result)),
            "arg0 dimension 0: expected 4, got 5");
  EXPECT_EQ(message(kiln_jit_module(nullptr, "twice", 0, nullptr, &module)),
            "jit: must not be null");
  EXPECT_EQ(message(kiln_jit_module(jit.jit, "twice", 1, nullptr, &module)),
            "args: must not be null when num_args is 1");
  Jit broken("broken.mlir", "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                            "  return %y : tensor<4xf32>\n}\n");
  EXPECT_NE(broken.status.find("broken.mlir:2:10: error: use of undeclared "
                               "SSA value name"),
            std::string::npos)
      << broken.status;
}

/// x * k with k static (kiln.static).
const char *const kStaticScale = R"mlir(
func.func @scale(%x: tensor<4xf32>, %k: tensor<f32> {kiln.static}) -> tensor<4xf32> {
  %b = kiln.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %y = kiln.mul %x, %b : tensor<4xf32>
  return %y : tensor<4xf32>
}
)mlir";

TEST(Jit, StaticArgumentsAreBakedInAndKeyedByValue) {
  Jit jit("static.mlir", kStaticScale);
  ASSERT_EQ(jit.status, "ok");
  auto scale = [&](float k, std::vector<float> &out) {
    float x[4] = {1, 2, 3, 4};
    Tensor arg = tensor(KILN_F32, {4}, x, 16), factor = tensor(KILN_F32, {}, &k, 4);
    kiln_tensor_t args[] = {arg.get(), factor.get()}, result = nullptr;
    std::string status = message(kiln_jit_call(jit.jit, "scale", 2, args, 1, &result));
    Tensor owner(result);
    if (result)
      out.assign(owner.data<float>(), owner.data<float>() + 4);
    return status;
  };
  std::vector<float> out;
  ASSERT_EQ(scale(2, out), "ok");
  EXPECT_EQ(out, (std::vector<float>{2, 4, 6, 8}));
  ASSERT_EQ(scale(2, out), "ok");
  EXPECT_EQ(jit.stats().compiled, 1u);
  ASSERT_EQ(scale(0.5, out), "ok");
  EXPECT_EQ(out, (std::vector<float>{0.5, 1, 1.5, 2}));
  EXPECT_EQ(jit.stats().compiled, 2u);
  ASSERT_EQ(jit.log.size(), 4u);
  EXPECT_NE(jit.log[2].find("differs: static argument 1 f32[] "
                            "dense<5.000000e-01> vs f32[] dense<2.000000e+00>"),
            std::string::npos)
      << jit.log[2];
  // Each value's module stays: 2 again compiles nothing.
  ASSERT_EQ(scale(2, out), "ok");
  EXPECT_EQ(out, (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(jit.stats().compiled, 2u);

  // The source's signature says which arguments are static.
  EXPECT_EQ(kiln_jit_entry_num_args(jit.jit, "scale"), 2);
  EXPECT_EQ(kiln_jit_entry_num_args(jit.jit, "nothere"), -1);
  Jit::Declared arg;
  ASSERT_EQ(jit.declared("scale", 1, arg), "ok");
  EXPECT_EQ(arg.dtype, KILN_F32);
  EXPECT_EQ(arg.shape, std::vector<int64_t>{});
  EXPECT_EQ(arg.isStatic, 1);
  ASSERT_EQ(jit.declared("scale", 0, arg), "ok");
  EXPECT_EQ(arg.shape, std::vector<int64_t>{4});
  EXPECT_EQ(arg.isStatic, 0);
  EXPECT_EQ(jit.declared("scale", 2, arg), "index 2: @scale takes 2 arguments");

  kiln_module_t module = nullptr;
  EXPECT_EQ(message(kiln_jit_module(jit.jit, "scale", 0, nullptr, &module)),
            "@scale's argument 1 is static (kiln.static): its value is part "
            "of the code, so pass all 2 arguments");
  Tensor x = tensor(KILN_F32, {4}), k = tensor(KILN_I32, {});
  kiln_tensor_t wrong[] = {x.get(), k.get()};
  EXPECT_EQ(message(kiln_jit_module(jit.jit, "scale", 2, wrong, &module)),
            "arg1: static argument of type tensor<f32> given i32[]");
}

TEST(Jit, DynamicDimensionsAreSpecializedPerShape) {
  // Row sums of x * k, with k a static argument of dynamic shape too.
  Jit jit("dynamic.mlir", R"mlir(
func.func @rowsum(%x: tensor<?x3xf32>, %k: tensor<?xf32> {kiln.static}) -> tensor<?xf32> {
  %s = kiln.reduce_sum %x, dims = [1] : (tensor<?x3xf32>) -> tensor<?xf32>
  %y = kiln.mul %s, %k : tensor<?xf32>
  return %y : tensor<?xf32>
}
)mlir");
  ASSERT_EQ(jit.status, "ok");
  auto rowsum = [&](int64_t rows, std::vector<float> &out, int64_t kRows = -1) {
    std::vector<float> x(rows * 3), k(kRows < 0 ? rows : kRows, 2);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i);
    Tensor arg = tensor(KILN_F32, {rows, 3}, x.data(), x.size() * 4),
           factor = tensor(KILN_F32, {int64_t(k.size())}, k.data(), k.size() * 4);
    kiln_tensor_t args[] = {arg.get(), factor.get()}, result = nullptr;
    std::string status =
        message(kiln_jit_call(jit.jit, "rowsum", 2, args, 1, &result));
    Tensor owner(result);
    if (result)
      out.assign(owner.data<float>(), owner.data<float>() + rows);
    return status;
  };
  std::vector<float> out;
  ASSERT_EQ(rowsum(2, out), "ok");
  EXPECT_EQ(out, (std::vector<float>{6, 24}));
  ASSERT_EQ(rowsum(3, out), "ok");
  EXPECT_EQ(out, (std::vector<float>{6, 24, 42}));
  EXPECT_EQ(jit.stats().compiled, 2u);
  // The second compile names the argument whose shape changed.
  ASSERT_EQ(jit.log.size(), 4u);
  EXPECT_NE(jit.log[2].find("@rowsum(tensor<3x3xf32>, tensor<3xf32>): cache "
                            "miss: the closest cached @rowsum differs: "
                            "argument 0 tensor<3x3xf32> vs tensor<2x3xf32>; "
                            "argument 1 tensor<3xf32> vs tensor<2xf32>"),
            std::string::npos)
      << jit.log[2];
  // Each shape's module stays.
  ASSERT_EQ(rowsum(2, out), "ok");
  EXPECT_EQ(out, (std::vector<float>{6, 24}));
  EXPECT_EQ(jit.stats().compiled, 2u);

  // Sizes that disagree are reported at the op, quoting the source.
  std::string mismatch = rowsum(2, out, 5);
  EXPECT_NE(mismatch.find("dynamic.mlir:4:8: error: 'kiln.mul' op all "
                          "non-scalar operands/results must have the same "
                          "shape"),
            std::string::npos)
      << mismatch;
  // Arguments are checked as calls check them.
  Tensor wide = tensor(KILN_F32, {2, 4}), doubles = tensor(KILN_F64, {2, 3}),
         k = tensor(KILN_F32, {2});
  kiln_tensor_t wrongSize[] = {wide.get(), k.get()},
                wrongType[] = {doubles.get(), k.get()};
  kiln_module_t module = nullptr;
  EXPECT_EQ(message(kiln_jit_module(jit.jit, "rowsum", 2, wrongSize, &module)),
            "arg0 dimension 1: expected 3, got 4");
  EXPECT_EQ(message(kiln_jit_module(jit.jit, "rowsum", 2, wrongType, &module)),
            "arg0: expected dtype f32, got f64");
  EXPECT_EQ(message(kiln_jit_module(jit.jit, "rowsum", 0, nullptr, &module)),
            "@rowsum has dynamic dimensions: the shapes of its arguments "
            "decide what is compiled, so pass all 2 arguments");

  // The declared shape says which sizes are dynamic.
  Jit::Declared arg;
  ASSERT_EQ(jit.declared("rowsum", 0, arg), "ok");
  EXPECT_EQ(arg.shape, (std::vector<int64_t>{-1, 3}));
}

TEST(Jit, StaticArgumentsFromAsyncCallsAreReadOnceComputed) {
  // @factor takes a while (a 384^3 product) before it gives 2 * k.
  Jit jit("static-async.mlir", R"mlir(
func.func @factor(%k: tensor<f32>, %a: tensor<384x384xf32>) -> tensor<f32> {
  %p = kiln.dot_general %a, %a, contracting = [1] x [0]
      : (tensor<384x384xf32>, tensor<384x384xf32>) -> tensor<384x384xf32>
  %s = kiln.reduce_sum %p, dims = [0, 1] : (tensor<384x384xf32>) -> tensor<f32>
  %z = kiln.mul %s, %k : tensor<f32>
  %w = kiln.sub %z, %z : tensor<f32>
  %d = kiln.add %k, %k : tensor<f32>
  %r = kiln.add %d, %w : tensor<f32>
  return %r : tensor<f32>
}
)mlir" + std::string(kStaticScale));
  ASSERT_EQ(jit.status, "ok");
  float x[4] = {1, 2, 3, 4};
  Tensor a = tensor(KILN_F32, {384, 384}), arg = tensor(KILN_F32, {4}, x, 16);
  for (float k : {1.5f, 0.25f}) {
    Tensor half = tensor(KILN_F32, {}, &k, 4);
    kiln_tensor_t factorArgs[] = {half.get(), a.get()}, factor = nullptr;
    ASSERT_EQ(message(kiln_jit_call_async(jit.jit, "factor", 2, factorArgs, 1,
                                          &factor)),
              "ok");
    Tensor owner(factor);
    kiln_tensor_t args[] = {arg.get(), factor}, result = nullptr;
    ASSERT_EQ(message(kiln_jit_call(jit.jit, "scale", 2, args, 1, &result)),
              "ok");
    Tensor scaled(result);
    EXPECT_EQ(std::vector<float>(scaled.data<float>(), scaled.data<float>() + 4),
              (std::vector<float>{2 * k, 4 * k, 6 * k, 8 * k}));
  }
}

TEST(Jit, CpuOptionsArePartOfTheKey) {
  // An entry no other test compiles: the closest cached entry is this
  // test's own.
  TempFile file("options.mlir", R"mlir(
func.func @tanh4(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.tanh %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
)mlir");
  std::vector<std::string> log;
  auto create = [&](const char *cpuOptions, kiln_jit_t *jit) {
    kiln_jit_options_t options{};
    options.cache_dir = "";
    options.cpu_options = cpuOptions;
    options.log = [](void *user, const char *line) {
      static_cast<std::vector<std::string> *>(user)->push_back(line);
    };
    options.log_user = &log;
    return message(kiln_jit_create(file.path.c_str(), &options, jit));
  };
  kiln_jit_t exact = nullptr, approximate = nullptr, bad = nullptr;
  ASSERT_EQ(create("approximate-math=false", &exact), "ok");
  ASSERT_EQ(create(nullptr, &approximate), "ok");
  float x[4] = {-2, -0.5, 0.25, 3};
  Tensor arg = tensor(KILN_F32, {4}, x, 16);
  kiln_tensor_t raw = arg.get();
  for (kiln_jit_t jit : {exact, approximate}) {
    kiln_tensor_t result = nullptr;
    ASSERT_EQ(message(kiln_jit_call(jit, "tanh4", 1, &raw, 1, &result)), "ok");
    Tensor owner(result);
    for (int i = 0; i < 4; ++i)
      EXPECT_NEAR(owner.data<float>()[i], std::tanh(x[i]), 1e-6f);
  }
  // The second compile names the option that changed.
  ASSERT_EQ(log.size(), 4u);
  EXPECT_NE(log[2].find("the closest cached @tanh4 differs: option "
                        "approximate-math true vs false"),
            std::string::npos)
      << log[2];
  EXPECT_EQ(create("approximate-math=sometimes cache-tile-k=64", &bad),
            "options->cpu_options: CPU options 'approximate-math=sometimes "
            "cache-tile-k=64': a value is invalid");
  EXPECT_EQ(create("no-such-option=1", &bad),
            "options->cpu_options: CPU options 'no-such-option=1': "
            "<Pass-Options-Parser>: no such option no-such-option");
  kiln_jit_free(exact);
  kiln_jit_free(approximate);
}

TEST(Jit, AsyncCallsRunInOrderAndEqualSyncCalls) {
  Jit jit("async.mlir", program(9.5));
  ASSERT_EQ(jit.status, "ok");
  float x[4] = {1, -2, 3, 0.25};
  // Three dependent calls enqueued before any result is read; the first
  // argument and the middle results are freed at once (freeing waits).
  int64_t four = 4;
  kiln_tensor_t input = nullptr;
  ASSERT_EQ(message(kiln_tensor_create(KILN_F32, 1, &four, x, 16, &input)),
            "ok");
  kiln_tensor_t y1, y2, y3;
  ASSERT_EQ(message(kiln_jit_call_async(jit.jit, "twice", 1, &input, 1, &y1)),
            "ok");
  ASSERT_EQ(message(kiln_jit_call_async(jit.jit, "square", 1, &y1, 1, &y2)),
            "ok");
  ASSERT_EQ(message(kiln_jit_call_async(jit.jit, "twice", 1, &y2, 1, &y3)),
            "ok");
  kiln_tensor_free(input);
  kiln_tensor_free(y1);
  kiln_tensor_free(y2);
  EXPECT_EQ(message(kiln_tensor_wait(y3)), "ok");
  Tensor async(y3);
  // The same three calls, synchronously.
  std::vector<float> sync = jit.call(
      "twice", jit.call("square", jit.call("twice", {x[0], x[1], x[2], x[3]})));
  EXPECT_EQ(std::vector<float>(async.data<float>(), async.data<float>() + 4),
            sync);
  EXPECT_EQ(sync[1], 9.5f * (9.5f * -2) * (9.5f * -2));
}

TEST(Jit, AsyncErrorsSurfaceWhenResultsAreRead) {
  // @huge's 16 MiB buffer is past the memory limit: its calls fail when
  // they run.
  kiln_set_memory_limit(1 << 20);
  Jit jit("async-errors.mlir", R"mlir(
func.func @huge(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = kiln.broadcast_in_dim %a, dims = [1] : (tensor<4xf32>) -> tensor<1048576x4xf32>
  %s = kiln.reduce_sum %b, dims = [0] : (tensor<1048576x4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @neg(%a: tensor<4xf32>) -> tensor<4xf32> {
  %n = kiln.neg %a : tensor<4xf32>
  return %n : tensor<4xf32>
}
)mlir");
  ASSERT_EQ(jit.status, "ok");
  Tensor a = tensor(KILN_F32, {4});
  kiln_tensor_t raw = a.get(), sync = nullptr, failed = nullptr,
                after = nullptr;
  std::string syncError =
      message(kiln_jit_call(jit.jit, "huge", 1, &raw, 1, &sync));
  EXPECT_EQ(syncError, "huge: out of memory allocating a buffer of 16777216 "
                       "bytes (past the limit of 1048576 bytes set by "
                       "kiln_set_memory_limit)");
  kiln_set_memory_limit(0);
  EXPECT_EQ(message(kiln_jit_call(jit.jit, "huge", 1, &raw, 1, &sync)), "ok");
  kiln_tensor_free(sync);
  kiln_set_memory_limit(1 << 20);
  // The call is enqueued fine; its error comes with its result, and a call
  // that reads that result fails naming it.
  ASSERT_EQ(message(kiln_jit_call_async(jit.jit, "huge", 1, &raw, 1, &failed)),
            "ok");
  ASSERT_EQ(message(kiln_jit_call_async(jit.jit, "neg", 1, &failed, 1, &after)),
            "ok");
  EXPECT_EQ(message(kiln_tensor_wait(failed)), "tensor: comes from an "
            "asynchronous call that failed: " + syncError);
  EXPECT_EQ(kiln_tensor_data(failed), nullptr);
  EXPECT_EQ(message(kiln_tensor_wait(after)),
            "tensor: comes from an asynchronous call that failed: arg0: comes "
            "from an asynchronous call that failed: " + syncError);
  kiln_tensor_t next = nullptr;
  EXPECT_EQ(message(kiln_jit_call(jit.jit, "neg", 1, &failed, 1, &next)),
            "arg0: comes from an asynchronous call that failed: " + syncError);
  kiln_tensor_free(failed);
  kiln_tensor_free(after);
  // Bad arguments are reported when the call is enqueued.
  Tensor wide = tensor(KILN_F32, {5});
  kiln_tensor_t wideRaw = wide.get(), result = nullptr;
  EXPECT_EQ(message(kiln_jit_call_async(jit.jit, "neg", 1, &wideRaw, 1, &result)),
            "arg0 dimension 0: expected 4, got 5");
  EXPECT_EQ(message(kiln_jit_call_async(jit.jit, "neg", 1, &raw, 2, &result)),
            "num_results: neg returns 1 results, got 2");
  kiln_set_memory_limit(0);
}

TEST(Jit, DonatedArgumentsGiveTheirBuffersToResults) {
  Jit jit("donate.mlir", R"mlir(
func.func @step(%w: tensor<256x256xf32> {kiln.donate}, %g: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<f32>) {
  %lr = kiln.constant dense<0.5> : tensor<256x256xf32>
  %u = kiln.mul %g, %lr : tensor<256x256xf32>
  %n = kiln.sub %w, %u : tensor<256x256xf32>
  %s = kiln.reduce_sum %w, dims = [0, 1] : (tensor<256x256xf32>) -> tensor<f32>
  return %n, %s : tensor<256x256xf32>, tensor<f32>
}
)mlir");
  ASSERT_EQ(jit.status, "ok");
  std::vector<float> ones(256 * 256, 1.0f);
  Tensor g = tensor(KILN_F32, {256, 256}, ones.data(), ones.size() * 4);
  kiln_tensor_t w = nullptr;
  int64_t shape[] = {256, 256};
  ASSERT_EQ(message(kiln_tensor_create(KILN_F32, 2, shape, ones.data(),
                                       ones.size() * 4, &w)),
            "ok");
  kiln_module_t module = nullptr;
  ASSERT_EQ(message(kiln_jit_module(jit.jit, "step", 0, nullptr, &module)),
            "ok");
  EXPECT_EQ(kiln_module_entry_result_donor(module, "step", 0), 0);
  EXPECT_EQ(kiln_module_entry_result_donor(module, "step", 1), -1);
  // Ten SGD steps, each donating the weights it was given: after the first,
  // a step allocates only its loss (4 bytes), not new weights.
  uint64_t tensorsBefore = 0, bytesBefore = 0, tensorsAfter, bytesAfter;
  kiln_tensor_t first = w;
  for (int step = 0; step < 10; ++step) {
    if (step == 1)
      kiln_allocation_stats(&tensorsBefore, &bytesBefore);
    kiln_tensor_t args[] = {w, g.get()}, results[2] = {};
    ASSERT_EQ(message(kiln_jit_call(jit.jit, "step", 2, args, 2, results)),
              "ok");
    EXPECT_EQ(*static_cast<float *>(kiln_tensor_data(results[1])),
              (1.0f - 0.5f * step) * 256 * 256);
    if (step > 0)
      kiln_tensor_free(w);
    w = results[0];
    kiln_tensor_free(results[1]);
  }
  kiln_allocation_stats(&tensorsAfter, &bytesAfter);
  EXPECT_EQ(tensorsAfter - tensorsBefore, 9u);
  EXPECT_EQ(bytesAfter - bytesBefore, 9u * 4);
  EXPECT_EQ(static_cast<float *>(kiln_tensor_data(w))[12345], -4.0f);
  // The first weights were donated: any use of them is an error naming
  // them, and their data is gone.
  EXPECT_EQ(kiln_tensor_data(first), nullptr);
  kiln_tensor_t stale[] = {first, g.get()}, results[2] = {};
  EXPECT_EQ(message(kiln_jit_call(jit.jit, "step", 2, stale, 2, results)),
            "arg0: was donated to a call of step (kiln.donate), which "
            "reused its buffer for a result: use that result instead");
  EXPECT_EQ(message(kiln_tensor_wait(first)),
            "tensor: was donated to a call of step (kiln.donate), which "
            "reused its buffer for a result: use that result instead");
  kiln_tensor_free(first);
  // A donated argument cannot also be another argument.
  kiln_tensor_t twice[] = {w, w};
  EXPECT_EQ(message(kiln_jit_call(jit.jit, "step", 2, twice, 2, results)),
            "arg0: is donated (kiln.donate), so it must not also be arg1");

  // Asynchronous steps donate too: each enqueues with the weights the
  // previous one is computing, which are consumed at once, and allocates
  // only its loss.
  std::vector<kiln_tensor_t> losses;
  kiln_allocation_stats(&tensorsBefore, &bytesBefore);
  for (int step = 0; step < 6; ++step) {
    kiln_tensor_t args[] = {w, g.get()}, results[2] = {};
    ASSERT_EQ(message(kiln_jit_call_async(jit.jit, "step", 2, args, 2,
                                          results)),
              "ok");
    EXPECT_EQ(kiln_tensor_data(w), nullptr);
    kiln_tensor_free(w);
    w = results[0];
    losses.push_back(results[1]);
  }
  kiln_allocation_stats(&tensorsAfter, &bytesAfter);
  EXPECT_EQ(bytesAfter - bytesBefore, 6u * 4);
  for (int step = 0; step < 6; ++step) {
    EXPECT_EQ(*static_cast<float *>(kiln_tensor_data(losses[step])),
              (-4.0f - 0.5f * step) * 256 * 256);
    kiln_tensor_free(losses[step]);
  }
  EXPECT_EQ(static_cast<float *>(kiln_tensor_data(w))[777], -7.0f);
  kiln_tensor_free(w);
}

TEST(Jit, CppWrapperCompilesOnceAndCalls) {
  TempFile file("wrapper.mlir", program(8.5));
  kiln_jit_options_t options{};
  options.cache_dir = "";
  kiln::Jit jit;
  ASSERT_TRUE(kiln::Jit::create(file.path, jit, &options).ok());
  float x[4] = {1, 2, 3, 4};
  std::vector<Tensor> results;
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(jit.call("twice", {tensor(KILN_F32, {4}, x, 16)}, results).ok());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].data<float>()[3], 34.0f);
  EXPECT_EQ(jit.stats().compiled, 1u);
  std::vector<Tensor> pending;
  ASSERT_TRUE(jit.callAsync("twice", {results[0]}, pending).ok());
  ASSERT_TRUE(pending[0].wait().ok());
  EXPECT_EQ(pending[0].data<float>()[3], 34.0f * 8.5f);
  kiln::Status missing = jit.call("nothere", {}, results);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("has no entry 'nothere'"), std::string::npos);
}

} // namespace
