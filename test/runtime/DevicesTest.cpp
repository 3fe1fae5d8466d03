//===- DevicesTest.cpp - partitioned calls as one device per caller -------===//
//
// kiln_module_call_device with a transport written here (threads meeting
// on a shared board, standing for processes) gives the results of the
// runtime's own thread devices bit for bit, and rejects a missing
// transport, an unpartitioned module, a device outside the mesh and a
// failing transport by name.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestSupport.h"

#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

using namespace kiln::test;

namespace {

/// A sharded program whose partitioned form uses all-reduces (the
/// contraction over "y"), all-gathers and fetches (the whole results).
const char *const kProgram = R"mlir(
kiln.mesh @mesh ["x"=2, "y"=2]
func.func @f(%a: tensor<8x6xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"x"}, {"y"}]>},
             %b: tensor<6x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<8x4xf32> {kiln.sharding = #kiln.sharding<@mesh, [{"x"}, {}]>},
        tensor<8x4xf32>) {
  %p = kiln.dot_general %a, %b, contracting = [1] x [0]
      : (tensor<8x6xf32>, tensor<6x4xf32>) -> tensor<8x4xf32>
  %t = kiln.tanh %p : tensor<8x4xf32>
  return %p, %t : tensor<8x4xf32>, tensor<8x4xf32>
}
)mlir";

/// Devices that are threads of this test, meeting at one board: each
/// publishes its buffer (and its source, for fetches), all wait, each copies
/// what it receives, and all wait again.
class Board {
public:
  explicit Board(int64_t count) : count(count), buffers(count), sources(count) {}

  /// A transport for `device`.
  kiln_transport_t transport(int64_t device, bool broken = false) {
    kiln_transport_t t{};
    t.context = this;
    t.device = device;
    t.all_to_all = broken ? fails : allToAll;
    t.all_gather = allGather;
    t.fetch = fetch;
    return t;
  }

private:
  static int fails(void *, const int64_t *, int64_t, const void *, void *,
                   int64_t) {
    return 1;
  }

  /// Publishes `in` as `device`'s and waits for every device.
  void publish(int64_t device, const void *in, int64_t source) {
    buffers[device] = static_cast<const char *>(in);
    sources[device] = source;
    meet();
  }

  void meet() {
    std::unique_lock<std::mutex> lock(mutex);
    uint64_t round = rounds;
    if (++arrived == count) {
      arrived = 0;
      ++rounds;
      changed.notify_all();
    } else {
      changed.wait(lock, [&] { return rounds != round; });
    }
  }

  /// This device's place in `group`, given the device as its context's.
  static int64_t placeOf(const int64_t *group, int64_t size, int64_t device) {
    for (int64_t g = 0; g < size; ++g)
      if (group[g] == device)
        return g;
    return -1;
  }

  static thread_local int64_t self;

  static int allToAll(void *context, const int64_t *group, int64_t size,
                      const void *in, void *out, int64_t bytes) {
    Board &board = *static_cast<Board *>(context);
    board.publish(self, in, 0);
    int64_t place = placeOf(group, size, self);
    for (int64_t g = 0; g < size; ++g)
      std::memcpy(static_cast<char *>(out) + g * bytes,
                  board.buffers[group[g]] + place * bytes, bytes);
    board.meet();
    return 0;
  }

  static int allGather(void *context, const int64_t *group, int64_t size,
                       const void *in, void *out, int64_t bytes) {
    Board &board = *static_cast<Board *>(context);
    board.publish(self, in, 0);
    for (int64_t g = 0; g < size; ++g)
      std::memcpy(static_cast<char *>(out) + g * bytes,
                  board.buffers[group[g]], bytes);
    board.meet();
    return 0;
  }

  static int fetch(void *context, const int64_t *group, int64_t,
                   int64_t source, const void *in, void *out, int64_t bytes) {
    Board &board = *static_cast<Board *>(context);
    board.publish(self, in, source);
    if (source >= 0)
      std::memcpy(out, board.buffers[group[source]], bytes);
    board.meet();
    return 0;
  }

  int64_t count;
  std::vector<const char *> buffers;
  std::vector<int64_t> sources;
  std::mutex mutex;
  std::condition_variable changed;
  int64_t arrived = 0;
  uint64_t rounds = 0;

public:
  /// Runs `body(device)` on a thread per device, each knowing its device.
  template <typename Body> void runDevices(Body body) {
    std::vector<std::thread> threads;
    for (int64_t d = 0; d < count; ++d)
      threads.emplace_back([&, d] {
        self = d;
        body(d);
      });
    for (std::thread &thread : threads)
      thread.join();
  }
};
thread_local int64_t Board::self = -1;

class DevicesTest : public ::testing::Test {
protected:
  void SetUp() override {
    TempFile source("sharded.mlir", kProgram);
    ASSERT_EQ(message(kiln_module_compile(source.path.c_str(), &module)),
              "ok");
    std::vector<float> a(48), b(24);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = std::sin(float(i)) * 0.7f;
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = std::cos(float(i) * 1.3f);
    args.push_back(tensor(KILN_F32, {8, 6}, a.data(), a.size() * 4));
    args.push_back(tensor(KILN_F32, {6, 4}, b.data(), b.size() * 4));
    raw = {args[0].get(), args[1].get()};
  }
  void TearDown() override { kiln_module_free(module); }

  /// Calls @f as `device` through `transport`; the status, and the results
  /// in `results`.
  std::string callDevice(const kiln_transport_t *transport,
                         std::vector<Tensor> &results) {
    kiln_tensor_t out[2] = {};
    std::string text = message(kiln_module_call_device(
        module, "f", transport, raw.size(), raw.data(), 2, out));
    for (kiln_tensor_t result : out)
      results.emplace_back(result);
    return text;
  }

  /// Expects every device's call to have succeeded with the results
  /// `expected` (which it frees), bit for bit.
  static void expectEqual(const std::vector<std::string> &statuses,
                          const std::vector<std::vector<Tensor>> &results,
                          kiln_tensor_t expected[2]) {
    for (size_t device = 0; device < statuses.size(); ++device) {
      ASSERT_EQ(statuses[device], "ok") << "device " << device;
      for (size_t r = 0; r < 2; ++r)
        EXPECT_EQ(std::memcmp(kiln_tensor_data(results[device][r].get()),
                              kiln_tensor_data(expected[r]), 32 * 4),
                  0)
            << "device " << device << " result " << r;
    }
    for (int r = 0; r < 2; ++r)
      kiln_tensor_free(expected[r]);
  }

  kiln_module_t module = nullptr;
  std::vector<Tensor> args;
  std::vector<kiln_tensor_t> raw;
};

TEST_F(DevicesTest, EachCallerAsOneDeviceGivesTheThreadDevicesResults) {
  ASSERT_EQ(kiln_module_device_count(module), 4);
  kiln_tensor_t expected[2] = {};
  ASSERT_EQ(message(kiln_module_call(module, "f", 2, raw.data(), 2, expected)),
            "ok");
  Board board(4);
  std::vector<std::vector<Tensor>> results(4);
  std::vector<std::string> statuses(4);
  board.runDevices([&](int64_t device) {
    kiln_transport_t transport = board.transport(device);
    statuses[device] = callDevice(&transport, results[device]);
  });
  expectEqual(statuses, results, expected);
}

TEST_F(DevicesTest, EachCallerMayPassItsPartsOnly) {
  kiln_tensor_t expected[2] = {};
  ASSERT_EQ(message(kiln_module_call(module, "f", 2, raw.data(), 2, expected)),
            "ok");
  // Device 2 * x + y holds rows [4x, 4x + 4) and columns [3y, 3y + 3) of
  // %a and rows [3y, 3y + 3) of %b.
  std::vector<std::vector<Tensor>> parts(4);
  for (int64_t device = 0; device < 4; ++device) {
    int64_t x = device / 2, y = device % 2;
    int64_t offsets[2], shape[2];
    ASSERT_EQ(kiln_module_entry_part(module, "f", 0, 0, device, offsets, shape),
              2);
    EXPECT_EQ(std::vector<int64_t>(offsets, offsets + 2),
              (std::vector<int64_t>{4 * x, 3 * y}));
    EXPECT_EQ(std::vector<int64_t>(shape, shape + 2),
              (std::vector<int64_t>{4, 3}));
    ASSERT_EQ(kiln_module_entry_part(module, "f", 0, 1, device, offsets, shape),
              2);
    EXPECT_EQ(offsets[0], 3 * y);
    EXPECT_EQ(shape[0], 3);
    const float *a = static_cast<const float *>(kiln_tensor_data(raw[0]));
    const float *b = static_cast<const float *>(kiln_tensor_data(raw[1]));
    std::vector<float> partA, partB;
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 3; ++j)
        partA.push_back(a[(4 * x + i) * 6 + 3 * y + j]);
    partB.assign(b + 3 * y * 4, b + (3 * y + 3) * 4);
    parts[device].push_back(tensor(KILN_F32, {4, 3}, partA.data(), 48));
    parts[device].push_back(tensor(KILN_F32, {3, 4}, partB.data(), 48));
  }
  EXPECT_EQ(kiln_module_entry_part(module, "f", 0, 0, 4, nullptr, nullptr), -1);
  EXPECT_EQ(kiln_module_entry_part(module, "f", 1, 2, 0, nullptr, nullptr), -1);
  Board board(4);
  std::vector<std::vector<Tensor>> results(4);
  std::vector<std::string> statuses(4);
  board.runDevices([&](int64_t device) {
    kiln_transport_t transport = board.transport(device);
    kiln_tensor_t mine[2] = {parts[device][0].get(), parts[device][1].get()};
    kiln_tensor_t out[2] = {};
    statuses[device] = message(
        kiln_module_call_device(module, "f", &transport, 2, mine, 2, out));
    for (kiln_tensor_t result : out)
      results[device].emplace_back(result);
  });
  expectEqual(statuses, results, expected);
  // Another device's part shape is neither.
  std::vector<float> zeros(40);
  Tensor wrong = tensor(KILN_F32, {4, 10}, zeros.data(), 160);
  kiln_tensor_t bad[2] = {wrong.get(), raw[1]};
  kiln_transport_t transport = board.transport(1);
  kiln_tensor_t out[2] = {};
  EXPECT_EQ(message(kiln_module_call_device(module, "f", &transport, 2, bad, 2,
                                            out)),
            "arg0 dimension 0: expected 8, got 4 (nor is it device 1's part "
            "of it)");
}

TEST_F(DevicesTest, AFailingTransportFailsTheCallNamingTheDevice) {
  Board board(4);
  std::vector<std::string> statuses(4);
  board.runDevices([&](int64_t device) {
    // Every device's all-to-all fails, so none waits for another.
    kiln_transport_t transport = board.transport(device, /*broken=*/true);
    std::vector<Tensor> results;
    statuses[device] = callDevice(&transport, results);
  });
  for (int64_t device = 0; device < 4; ++device)
    EXPECT_EQ(statuses[device],
              "device " + std::to_string(device) +
                  ": f: the transport's all_to_all failed");
}

TEST_F(DevicesTest, RejectsTransportsAndModulesThatCannotRunADevice) {
  std::vector<Tensor> results;
  EXPECT_EQ(callDevice(nullptr, results),
            "transport: a transport with all three functions is needed");
  Board board(4);
  kiln_transport_t outside = board.transport(4);
  EXPECT_EQ(callDevice(&outside, results),
            "transport: device 4 is not one of the mesh's 4");
  kiln_transport_t partial = board.transport(0);
  partial.fetch = nullptr;
  EXPECT_EQ(callDevice(&partial, results),
            "transport: a transport with all three functions is needed");

  TempFile source("whole.mlir", "func.func @g(%x: tensor<2xf32>) -> "
                                "tensor<2xf32> {\n  return %x : tensor<2xf32>\n}\n");
  kiln_module_t whole = nullptr;
  ASSERT_EQ(message(kiln_module_compile(source.path.c_str(), &whole)), "ok");
  kiln_transport_t transport = board.transport(0);
  kiln_tensor_t out = nullptr;
  EXPECT_EQ(message(kiln_module_call_device(whole, "g", &transport, 1, raw.data(),
                                            1, &out)),
            "module: it is not partitioned over a mesh (kiln-partition), so "
            "it runs on one device: call kiln_module_call");
  kiln_module_free(whole);
}

} // namespace
