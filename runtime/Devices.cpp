//===- Devices.cpp - the devices of a partitioned call and their collectives ===//
//
// A partitioned entry (kiln-partition) runs once per device of its mesh on
// its parts of the arguments. The devices are threads of the calling
// process, as XLA's host platform with several devices has them, or
// processes, one device each (kiln_module_call_device: MPI ranks), that
// move buffers through the caller's transport. Either way they meet at the
// collectives compiled code calls (kiln/abi.h) and combine what they
// receive in group order with the same code, so that replicas, and the two
// kinds of devices, agree to the bit.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <condition_variable>
#include <functional>
#include <cstring>
#include <mutex>
#include <thread>

using namespace kiln::runtime;

namespace {

/// A mesh's devices, numbered row-major over its axes.
struct Mesh {
  explicit Mesh(std::vector<int64_t> sizes) : sizes(std::move(sizes)) {
    for (int64_t size : this->sizes)
      count *= size;
  }

  /// The devices of `device`'s group over the mesh axes `axes`, in group
  /// order (the axes numbered major to minor), and `device`'s place in it.
  std::vector<int64_t> members(int64_t device, const std::vector<int64_t> &axes,
                               int64_t &place) const {
    std::vector<int64_t> coords = coordinates(device);
    int64_t size = 1;
    place = 0;
    for (int64_t axis : axes) {
      size *= sizes[axis];
      place = place * sizes[axis] + coords[axis];
    }
    std::vector<int64_t> devices;
    for (int64_t p = 0; p < size; ++p) {
      std::vector<int64_t> member = coords;
      for (int64_t rest = p, k = int64_t(axes.size()) - 1; k >= 0; --k) {
        member[axes[k]] = rest % sizes[axes[k]];
        rest /= sizes[axes[k]];
      }
      int64_t id = 0;
      for (size_t a = 0; a < sizes.size(); ++a)
        id = id * sizes[a] + member[a];
      devices.push_back(id);
    }
    return devices;
  }

  /// `device`'s position along each mesh axis.
  std::vector<int64_t> coordinates(int64_t device) const {
    std::vector<int64_t> coords(sizes.size());
    for (size_t a = sizes.size(); a-- > 0;) {
      coords[a] = device % sizes[a];
      device /= sizes[a];
    }
    return coords;
  }

  std::vector<int64_t> sizes;
  int64_t count = 1;
};

/// The mesh axes a collective names, as the compiler packs them: the count
/// in the low 4 bits, then 4 bits per axis.
std::vector<int64_t> unpackAxes(int64_t packed) {
  std::vector<int64_t> axes(packed & 15);
  for (size_t k = 0; k < axes.size(); ++k)
    axes[k] = (packed >> (4 * (k + 1))) & 15;
  return axes;
}

/// How one device of a partitioned call meets the others at the
/// collectives compiled code calls (kiln/abi.h). Each returns why it
/// failed, or null; the caller abandons the call (a jump that must not
/// skip destructors, hence no C++ objects in between).
class Exchange {
public:
  Exchange(const Mesh &mesh, int64_t device) : mesh(mesh), device(device) {}
  virtual ~Exchange() = default;
  virtual const char *allReduce(int64_t axes, int64_t kind, int64_t dtype,
                                const void *in, void *out, int64_t count) = 0;
  virtual const char *reduceScatter(int64_t axes, int64_t kind, int64_t dtype,
                                    const void *in, void *out,
                                    int64_t count) = 0;
  virtual const char *allGather(int64_t axes, const void *in, void *out,
                                int64_t bytes) = 0;
  virtual const char *allToAll(int64_t axes, const void *in, void *out,
                               int64_t blockBytes) = 0;
  virtual const char *fetch(int64_t axes, int64_t source, const void *in,
                            void *out, int64_t bytes) = 0;

  /// The devices of this device's group over `packedAxes`, and its place.
  std::vector<int64_t> group(int64_t packedAxes, int64_t &place) const {
    return mesh.members(device, unpackAxes(packedAxes), place);
  }

  const Mesh &mesh;
  const int64_t device;
};

/// The exchange of the partitioned call this thread runs.
thread_local Exchange *currentExchange = nullptr;

//===----------------------------------------------------------------------===//
// Combining elements
//===----------------------------------------------------------------------===//

float bf16ToFloat(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

uint16_t floatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffff) > 0x7f800000) // NaN stays NaN.
    return uint16_t((bits >> 16) | 0x40);
  return uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

/// `a` and `b` combined by `kind` (KILN_REDUCE_*); max and min keep NaNs,
/// as kiln.reduce_max does.
template <typename T> T combine(int64_t kind, T a, T b) {
  auto isNan = [](T x) { return x != x; };
  if (kind == KILN_REDUCE_SUM)
    return a + b;
  if (kind == KILN_REDUCE_PROD)
    return a * b;
  if (isNan(a) || isNan(b))
    return isNan(a) ? a : b;
  return (kind == KILN_REDUCE_MAX) == (a < b) ? b : a;
}

/// out[i] = inputs[0][offset + i] combined with each next input's, for
/// `count` elements of `T` (combined as `Wide`: f16 and bf16 widened).
/// Buffers are aligned for their elements (the runtime's allocations).
template <typename T, typename Wide = T, typename Load, typename Store>
void reduceAs(int64_t kind, const std::vector<const char *> &inputs,
              int64_t offset, char *out, int64_t count, Load load,
              Store store) {
  T *result = reinterpret_cast<T *>(out);
  const T *first = reinterpret_cast<const T *>(inputs[0]) + offset;
  std::vector<Wide> acc(count);
  for (int64_t i = 0; i < count; ++i)
    acc[i] = load(first[i]);
  for (size_t g = 1; g < inputs.size(); ++g) {
    const T *next = reinterpret_cast<const T *>(inputs[g]) + offset;
    if (kind == KILN_REDUCE_SUM)
      for (int64_t i = 0; i < count; ++i)
        acc[i] += Wide(load(next[i]));
    else
      for (int64_t i = 0; i < count; ++i)
        acc[i] = combine(kind, acc[i], Wide(load(next[i])));
  }
  for (int64_t i = 0; i < count; ++i)
    result[i] = store(acc[i]);
}

template <typename T>
void reduceSame(int64_t kind, const std::vector<const char *> &inputs,
                int64_t offset, char *out, int64_t count) {
  auto same = [](T x) { return x; };
  reduceAs<T>(kind, inputs, offset, out, count, same, same);
}

/// Narrow integers combine as ints and wrap when stored, as kiln's
/// integer arithmetic does.
template <typename T>
void reduceNarrowInt(int64_t kind, const std::vector<const char *> &inputs,
                     int64_t offset, char *out, int64_t count) {
  reduceAs<T, int>(
      kind, inputs, offset, out, count, [](T x) { return int(x); },
      [](int x) { return T(x); });
}

void reduce(int64_t kind, int64_t dtype, const std::vector<const char *> &inputs,
            int64_t offset, char *out, int64_t count) {
  int64_t code = kind;
  switch (static_cast<kiln_dtype_t>(dtype)) {
  case KILN_F32:
    return reduceSame<float>(code, inputs, offset, out, count);
  case KILN_F64:
    return reduceSame<double>(code, inputs, offset, out, count);
  case KILN_I32:
    return reduceSame<int32_t>(code, inputs, offset, out, count);
  case KILN_I64:
    return reduceSame<int64_t>(code, inputs, offset, out, count);
  case KILN_I8:
    return reduceNarrowInt<int8_t>(code, inputs, offset, out, count);
  case KILN_I16:
    return reduceNarrowInt<int16_t>(code, inputs, offset, out, count);
  case KILN_I1:
    // Booleans combine as 0/1 bytes: sum and max are "or", prod and min
    // "and".
    return reduceAs<uint8_t, int>(
        code == KILN_REDUCE_SUM    ? KILN_REDUCE_MAX
        : code == KILN_REDUCE_PROD ? KILN_REDUCE_MIN
                                   : code,
        inputs, offset, out, count, [](uint8_t x) { return int(x); },
        [](int x) { return uint8_t(x != 0); });
  case KILN_BF16:
    return reduceAs<uint16_t, float>(code, inputs, offset, out, count,
                                     bf16ToFloat, floatToBf16);
  case KILN_F16:
    return reduceAs<_Float16, float>(
        code, inputs, offset, out, count, [](_Float16 x) { return float(x); },
        [](float x) { return _Float16(x); });
  }
}

//===----------------------------------------------------------------------===//
// Devices as threads of this process
//===----------------------------------------------------------------------===//

/// The devices of one partitioned call run by this process's threads.
class DeviceGroup {
public:
  explicit DeviceGroup(const Mesh &mesh) : mesh(mesh), buffers(mesh.count) {}

  /// Waits until every device has arrived; false if the call failed on a
  /// device.
  bool meet() {
    std::unique_lock<std::mutex> lock(mutex);
    if (failed)
      return false;
    uint64_t round = rounds;
    if (++arrived == mesh.count) {
      arrived = 0;
      ++rounds;
      changed.notify_all();
      return true;
    }
    changed.wait(lock, [&] { return rounds != round || failed; });
    return !failed;
  }

  /// Releases the devices waiting for one whose call failed.
  void fail() {
    std::lock_guard<std::mutex> lock(mutex);
    failed = true;
    changed.notify_all();
  }

  const Mesh &mesh;
  /// What each device publishes for the collective under way.
  std::vector<const char *> buffers;

private:
  std::mutex mutex;
  std::condition_variable changed;
  int64_t arrived = 0;
  uint64_t rounds = 0;
  bool failed = false;
};

/// Why a device's call stops when another's failed.
constexpr const char *kReleased = "the call failed on another device";

/// A thread device: each publishes its buffer, all wait for all, each
/// computes its result from its group's buffers in group order (so
/// replicas agree to the bit), and all wait again before the buffers may
/// change. A device whose call fails releases the others, whose calls then
/// fail too.
class ThreadExchange final : public Exchange {
public:
  ThreadExchange(DeviceGroup &devices, int64_t device)
      : Exchange(devices.mesh, device), devices(devices) {}

  const char *allReduce(int64_t axes, int64_t kind, int64_t dtype,
                        const void *in, void *out, int64_t count) override {
    // Each device combines its share of the elements into its result, then
    // copies the others' shares from theirs: the work is split, as in a
    // reduce-scatter followed by an all-gather.
    size_t bytes = kiln_dtype_size(static_cast<kiln_dtype_t>(dtype));
    int64_t share = 0;
    auto reduceShare = [&](const std::vector<const char *> &inputs,
                           int64_t place) {
      int64_t n = int64_t(inputs.size());
      share = (count + n - 1) / n;
      int64_t begin = std::min(count, place * share);
      reduce(kind, dtype, inputs, begin,
             static_cast<char *>(out) + begin * bytes,
             std::min(count, begin + share) - begin);
    };
    auto copyShares = [&](const std::vector<const char *> &outputs,
                          int64_t place) {
      for (int64_t g = 0; g < int64_t(outputs.size()); ++g) {
        int64_t from = std::min(count, g * share);
        int64_t to = std::min(count, from + share);
        if (g != place && to > from)
          std::memcpy(static_cast<char *>(out) + from * bytes,
                      outputs[g] + from * bytes, (to - from) * bytes);
      }
    };
    if (const char *why = collective(axes, in, reduceShare))
      return why;
    return collective(axes, out, copyShares);
  }

  const char *reduceScatter(int64_t axes, int64_t kind, int64_t dtype,
                            const void *in, void *out,
                            int64_t count) override {
    return collective(
        axes, in, [&](const std::vector<const char *> &inputs, int64_t place) {
          reduce(kind, dtype, inputs, place * count, static_cast<char *>(out),
                 count);
        });
  }

  const char *allGather(int64_t axes, const void *in, void *out,
                        int64_t bytes) override {
    return collective(
        axes, in, [&](const std::vector<const char *> &inputs, int64_t) {
          for (size_t g = 0; g < inputs.size(); ++g)
            std::memcpy(static_cast<char *>(out) + g * bytes, inputs[g],
                        bytes);
        });
  }

  const char *allToAll(int64_t axes, const void *in, void *out,
                       int64_t blockBytes) override {
    return collective(
        axes, in, [&](const std::vector<const char *> &inputs, int64_t place) {
          for (size_t g = 0; g < inputs.size(); ++g)
            std::memcpy(static_cast<char *>(out) + g * blockBytes,
                        inputs[g] + place * blockBytes, blockBytes);
        });
  }

  const char *fetch(int64_t axes, int64_t source, const void *in, void *out,
                    int64_t bytes) override {
    return collective(
        axes, in, [&](const std::vector<const char *> &inputs, int64_t) {
          if (source < 0)
            std::memset(out, 0, bytes);
          else
            std::memcpy(out, inputs[source], bytes);
        });
  }

private:
  /// Publishes `in`, waits for the group, calls `body` with the group's
  /// buffers in group order and this device's place, and waits again.
  template <typename Body>
  const char *collective(int64_t packedAxes, const void *in, Body body) {
    devices.buffers[device] = static_cast<const char *>(in);
    if (!devices.meet())
      return kReleased;
    int64_t place;
    std::vector<const char *> inputs;
    for (int64_t member : group(packedAxes, place))
      inputs.push_back(devices.buffers[member]);
    body(inputs, place);
    return devices.meet() ? nullptr : kReleased;
  }

  DeviceGroup &devices;
};

/// Threads that stay for the next partitioned call: a new thread per call
/// would pay for its creation and for OpenMP's per-thread setup each time.
class DeviceThreads {
public:
  /// Runs `task(1)` ... `task(count - 1)` on pool threads and `task(0)` on
  /// the caller; returns when all have returned.
  void run(int64_t count, const std::function<void(int64_t)> &task) {
    std::unique_lock<std::mutex> lock(mutex);
    // One partitioned call at a time uses the pool.
    idle.wait(lock, [&] { return !busy; });
    busy = true;
    while (int64_t(threads.size()) < count - 1)
      threads.emplace_back(
          [this, index = int64_t(threads.size()) + 1, start = round] {
            work(index, start);
          });
    current = &task;
    pending = count - 1;
    active = count;
    ++round;
    wake.notify_all();
    lock.unlock();
    task(0);
    lock.lock();
    done.wait(lock, [&] { return pending == 0; });
    busy = false;
    idle.notify_all();
  }

private:
  /// Runs the task of each round after `seen` that has a device `index`.
  void work(int64_t index, uint64_t seen) {
    std::unique_lock<std::mutex> lock(mutex);
    for (;; seen = round) {
      wake.wait(lock, [&] { return round != seen && index < active; });
      const std::function<void(int64_t)> *task = current;
      lock.unlock();
      (*task)(index);
      lock.lock();
      if (--pending == 0)
        done.notify_all();
    }
  }

  std::mutex mutex;
  std::condition_variable wake, done, idle;
  std::vector<std::thread> threads;
  const std::function<void(int64_t)> *current = nullptr;
  int64_t pending = 0, active = 0;
  uint64_t round = 0;
  bool busy = false;
};

/// The pool, alive until the process exits (its threads wait forever).
DeviceThreads &deviceThreads() {
  static DeviceThreads *pool = new DeviceThreads();
  return *pool;
}

//===----------------------------------------------------------------------===//
// Devices as processes (a kiln_transport_t between them)
//===----------------------------------------------------------------------===//

/// A process device: buffers move through the caller's transport, and
/// each device combines the blocks it receives in group order with the
/// thread devices' code, so the results are theirs to the bit. An
/// all-reduce is an all-to-all of shares, a reduction and an all-gather:
/// the bytes of a ring all-reduce.
class TransportExchange final : public Exchange {
public:
  TransportExchange(const Mesh &mesh, const kiln_transport_t &transport)
      : Exchange(mesh, transport.device), transport(transport) {}

  const char *allReduce(int64_t axes, int64_t kind, int64_t dtype,
                        const void *in, void *out, int64_t count) override {
    size_t bytes = kiln_dtype_size(static_cast<kiln_dtype_t>(dtype));
    int64_t place;
    std::vector<int64_t> members = group(axes, place);
    int64_t n = int64_t(members.size());
    int64_t share = (count + n - 1) / n;
    std::vector<char> padded(n * share * bytes, 0), mine(share * bytes),
        all(n * share * bytes);
    std::memcpy(padded.data(), in, count * bytes);
    if (const char *why = reduceBlocks(members, kind, dtype, padded.data(),
                                       mine.data(), share))
      return why;
    if (const char *why =
            gather(members, mine.data(), all.data(), share * bytes))
      return why;
    std::memcpy(out, all.data(), count * bytes);
    return nullptr;
  }

  const char *reduceScatter(int64_t axes, int64_t kind, int64_t dtype,
                            const void *in, void *out,
                            int64_t count) override {
    int64_t place;
    return reduceBlocks(group(axes, place), kind, dtype, in, out, count);
  }

  const char *allGather(int64_t axes, const void *in, void *out,
                        int64_t bytes) override {
    int64_t place;
    return gather(group(axes, place), in, out, bytes);
  }

  const char *allToAll(int64_t axes, const void *in, void *out,
                       int64_t blockBytes) override {
    int64_t place;
    return scatter(group(axes, place), in, out, blockBytes);
  }

  const char *fetch(int64_t axes, int64_t source, const void *in, void *out,
                    int64_t bytes) override {
    int64_t place;
    std::vector<int64_t> members = group(axes, place);
    if (transport.fetch(transport.context, members.data(),
                        int64_t(members.size()), source, in, out, bytes))
      return "the transport's fetch failed";
    if (source < 0)
      std::memset(out, 0, bytes);
    return nullptr;
  }

private:
  /// The transport's all_gather and all_to_all over `members`.
  const char *gather(const std::vector<int64_t> &members, const void *in,
                     void *out, int64_t bytes) {
    return transport.all_gather(transport.context, members.data(),
                                int64_t(members.size()), in, out, bytes)
               ? "the transport's all_gather failed"
               : nullptr;
  }
  const char *scatter(const std::vector<int64_t> &members, const void *in,
                      void *out, int64_t bytes) {
    return transport.all_to_all(transport.context, members.data(),
                                int64_t(members.size()), in, out, bytes)
               ? "the transport's all_to_all failed"
               : nullptr;
  }

  /// Combines by `kind` block g (`count` elements) of each member's `in`
  /// into this member g's `out`.
  const char *reduceBlocks(const std::vector<int64_t> &members, int64_t kind,
                           int64_t dtype, const void *in, void *out,
                           int64_t count) {
    size_t bytes = count * kiln_dtype_size(static_cast<kiln_dtype_t>(dtype));
    std::vector<char> blocks(members.size() * bytes);
    if (const char *why = scatter(members, in, blocks.data(), bytes))
      return why;
    std::vector<const char *> inputs;
    for (size_t g = 0; g < members.size(); ++g)
      inputs.push_back(blocks.data() + g * bytes);
    reduce(kind, dtype, inputs, 0, static_cast<char *>(out), count);
    return nullptr;
  }

  const kiln_transport_t &transport;
};

//===----------------------------------------------------------------------===//
// Moving parts between whole tensors and devices
//===----------------------------------------------------------------------===//

/// Copies between `whole` and `part` (row-major, elements of `bytes`) the
/// block of `part`'s shape at `offsets` in `whole`: into `part` if
/// `toPart`, else back.
void copyBlock(char *whole, const std::vector<int64_t> &wholeShape, char *part,
               const std::vector<int64_t> &partShape,
               const std::vector<int64_t> &offsets, size_t bytes,
               bool toPart) {
  forEachRun(wholeShape, partShape, offsets, bytes,
             [&](size_t wholeAt, size_t partAt, size_t length) {
               if (toPart)
                 std::memcpy(part + partAt, whole + wholeAt, length);
               else
                 std::memcpy(whole + wholeAt, part + partAt, length);
             });
}

/// Where `device`'s part of a tensor split over `parts` starts, per
/// dimension, and whether it is the first device holding that part (the
/// others hold replicas).
std::vector<int64_t> partOffsets(const Mesh &mesh, int64_t device,
                                 const std::vector<std::vector<int64_t>> &parts,
                                 const std::vector<int64_t> &partShape,
                                 bool &first) {
  std::vector<int64_t> coords = mesh.coordinates(device);
  std::vector<bool> used(coords.size(), false);
  std::vector<int64_t> offsets;
  for (size_t d = 0; d < partShape.size(); ++d) {
    int64_t place = 0;
    for (int64_t axis : parts[d]) {
      place = place * mesh.sizes[axis] + coords[axis];
      used[axis] = true;
    }
    offsets.push_back(place * partShape[d]);
  }
  first = true;
  for (size_t a = 0; a < coords.size(); ++a)
    first = first && (used[a] || coords[a] == 0);
  return offsets;
}

/// The part of tensor `t` (arguments, then results) of `entry` that
/// `device` holds, where it starts in the whole (`offsets`), and whether
/// the device is the first holding it.
TensorSpec devicePart(const Mesh &mesh, const EntrySignature &entry, size_t t,
                      int64_t device, std::vector<int64_t> &offsets,
                      bool &first) {
  size_t numArgs = entry.args.size();
  const TensorSpec &whole =
      t < numArgs ? entry.args[t] : entry.results[t - numArgs];
  // An entry without parts takes every tensor whole.
  std::vector<std::vector<int64_t>> split =
      entry.parts.empty()
          ? std::vector<std::vector<int64_t>>(whole.shape.size())
          : entry.parts[t];
  TensorSpec spec = partSpec(whole, split, mesh.sizes);
  offsets = partOffsets(mesh, device, split, spec.shape, first);
  return spec;
}

} // namespace

TensorSpec kiln::runtime::devicePart(const Manifest &manifest,
                                     const EntrySignature &entry, size_t t,
                                     int64_t device,
                                     std::vector<int64_t> &offsets) {
  bool first;
  return devicePart(Mesh(manifest.meshSizes), entry, t, device, offsets,
                    first);
}

//===----------------------------------------------------------------------===//
// The collectives compiled code calls (kiln/abi.h)
//===----------------------------------------------------------------------===//

namespace {
/// The running call's exchange; abandons the call outside a partitioned
/// one.
Exchange *exchange(const char *op) {
  if (!currentExchange) {
    recordFailure(std::string(op) + " runs only in a partitioned call");
    abandonCall();
  }
  return currentExchange;
}

/// Abandons the call if a collective failed.
void check(const char *why) {
  if (why) {
    recordFailure(why);
    abandonCall();
  }
}
} // namespace

extern "C" {
int64_t kiln_rt_axis_index(int64_t axes) {
  // A device's place needs no meeting.
  Exchange *current = exchange("axis_index");
  if (!current)
    return 0;
  int64_t place;
  current->group(axes, place);
  return place;
}

void kiln_rt_all_reduce(int64_t axes, int64_t kind, int64_t dtype,
                        const void *in, void *out, int64_t count) {
  if (Exchange *current = exchange("all_reduce"))
    check(current->allReduce(axes, kind, dtype, in, out, count));
}

void kiln_rt_reduce_scatter(int64_t axes, int64_t kind, int64_t dtype,
                            const void *in, void *out, int64_t count) {
  if (Exchange *current = exchange("reduce_scatter"))
    check(current->reduceScatter(axes, kind, dtype, in, out, count));
}

void kiln_rt_all_gather(int64_t axes, const void *in, void *out,
                        int64_t bytes) {
  if (Exchange *current = exchange("all_gather"))
    check(current->allGather(axes, in, out, bytes));
}

void kiln_rt_all_to_all(int64_t axes, const void *in, void *out,
                        int64_t blockBytes) {
  if (Exchange *current = exchange("all_to_all"))
    check(current->allToAll(axes, in, out, blockBytes));
}

void kiln_rt_fetch(int64_t axes, int64_t source, const void *in, void *out,
                   int64_t bytes) {
  if (Exchange *current = exchange("fetch"))
    check(current->fetch(axes, source, in, out, bytes));
}
}

//===----------------------------------------------------------------------===//
// Partitioned calls
//===----------------------------------------------------------------------===//

namespace {
/// One device's tensors in a partitioned call of an entry: its parts of the
/// arguments and results, or the whole tensors where it holds them whole.
struct DeviceTensors {
  /// What the device's code gets: arguments, then results.
  std::vector<kiln_tensor_t> raw;
  std::vector<std::unique_ptr<kiln_tensor>> owned;
  /// Where each part starts in its whole tensor.
  std::vector<std::vector<int64_t>> offsets;
  /// Whether the device writes its part of each result into the whole
  /// (the first device holding it, when that part is not the whole).
  std::vector<bool> writes;
};

/// Cuts `device`'s parts of `tensors` (whole arguments, then whole
/// results) of `entry` into `out`. A whole argument is shared (entries
/// only read their arguments); a whole result is written in place by the
/// first device holding it, or by every device if `ownResults` (each
/// process has its own). Why it failed, or "".
std::string cutParts(const EntrySignature &entry, const Mesh &mesh,
                     int64_t device, const std::vector<kiln_tensor_t> &tensors,
                     bool ownResults, DeviceTensors &out) {
  size_t numArgs = entry.args.size();
  for (size_t t = 0; t < tensors.size(); ++t) {
    const TensorSpec &whole =
        t < numArgs ? entry.args[t] : entry.results[t - numArgs];
    bool first;
    out.offsets.emplace_back();
    TensorSpec spec = devicePart(mesh, entry, t, device, out.offsets.back(),
                                 first);
    out.writes.push_back(first);
    // An argument may also be given as this device's part already.
    if ((spec.shape == whole.shape && (t < numArgs || first || ownResults)) ||
        (t < numArgs && tensors[t]->shape == spec.shape)) {
      out.raw.push_back(tensors[t]);
      out.writes.back() = false;
      continue;
    }
    std::string what = (t < numArgs ? "arg" : "result") +
                       std::to_string(t < numArgs ? t : t - numArgs);
    size_t bytes;
    if (kiln_status_t status =
            tensorByteLength(spec.dtype, spec.shape, what, bytes)) {
      std::string why = kiln_status_message(status);
      kiln_status_free(status);
      return why;
    }
    kiln_tensor_t part = newTensor(spec.dtype, spec.shape, bytes, false);
    if (!part)
      return "out of memory for its part of " + what;
    out.owned.emplace_back(part);
    out.raw.push_back(part);
    if (t < numArgs)
      copyBlock(static_cast<char *>(tensors[t]->data.get()), whole.shape,
                static_cast<char *>(part->data.get()), spec.shape,
                out.offsets.back(), kiln_dtype_size(spec.dtype),
                /*toPart=*/true);
  }
  return "";
}

/// Runs entry `index` on `device`'s tensors: why it failed, or "".
std::string runDevice(Executable &executable, size_t index,
                      const DeviceTensors &tensors) {
  if (kiln_status_t status = executable.invoke(index, tensors.raw)) {
    std::string why = kiln_status_message(status);
    kiln_status_free(status);
    return why;
  }
  return "";
}

/// Writes `part` (at `offsets`) into the whole tensor `whole`.
void writePart(kiln_tensor_t whole, const char *part,
               const std::vector<int64_t> &partShape,
               const std::vector<int64_t> &offsets) {
  copyBlock(static_cast<char *>(whole->data.get()), whole->shape,
            const_cast<char *>(part), partShape, offsets,
            kiln_dtype_size(whole->dtype), /*toPart=*/false);
}

/// Each process's whole results from every device's parts: the parts
/// gathered from all devices through `transport`, each written by the
/// first device holding it. Why it failed, or "".
std::string gatherResults(const EntrySignature &entry, const Mesh &mesh,
                          const kiln_transport_t &transport,
                          const std::vector<kiln_tensor_t> &tensors,
                          const DeviceTensors &mine) {
  std::vector<int64_t> everyone(mesh.count);
  for (int64_t d = 0; d < mesh.count; ++d)
    everyone[d] = d;
  for (size_t t = entry.args.size(); t < tensors.size(); ++t) {
    kiln_tensor_t part = mine.raw[t];
    if (part == tensors[t])
      continue; // Held whole by every device.
    std::vector<char> parts(mesh.count * part->byteLength);
    if (transport.all_gather(transport.context, everyone.data(), mesh.count,
                             part->data.get(), parts.data(),
                             int64_t(part->byteLength)))
      return "the transport's all_gather failed gathering result" +
             std::to_string(t - entry.args.size());
    const std::vector<std::vector<int64_t>> &split = entry.parts[t];
    for (int64_t d = 0; d < mesh.count; ++d) {
      bool first;
      std::vector<int64_t> offsets =
          partOffsets(mesh, d, split, part->shape, first);
      if (first)
        writePart(tensors[t], parts.data() + d * part->byteLength, part->shape,
                  offsets);
    }
  }
  return "";
}
} // namespace

kiln_status_t kiln::runtime::invokeOnDevices(
    Executable &executable, const Manifest &manifest, size_t index,
    const std::vector<kiln_tensor_t> &tensors,
    const kiln_transport_t *transport) {
  const EntrySignature &entry = manifest.entries[index];
  Mesh mesh(manifest.meshSizes);
  if (transport) {
    if (transport->device < 0 || transport->device >= mesh.count)
      return error("transport: device " + std::to_string(transport->device) +
                   " is not one of the mesh's " + std::to_string(mesh.count));
    DeviceTensors mine;
    std::string why = cutParts(entry, mesh, transport->device, tensors,
                               /*ownResults=*/true, mine);
    if (why.empty()) {
      TransportExchange exchange(mesh, *transport);
      currentExchange = &exchange;
      why = runDevice(executable, index, mine);
      currentExchange = nullptr;
    }
    if (why.empty())
      why = gatherResults(entry, mesh, *transport, tensors, mine);
    return why.empty() ? nullptr
                       : error("device " + std::to_string(transport->device) +
                               ": " + why);
  }
  DeviceGroup group(mesh);
  // One thread per device, sharing the process's threads for their loops.
  std::vector<std::string> failures(mesh.count);
  int64_t loopThreads = std::max<int64_t>(1, kiln_num_threads() / mesh.count);
  auto run = [&](int64_t device) {
    ThreadExchange exchange(group, device);
    currentExchange = &exchange;
    setDeviceLoopThreads(loopThreads);
    DeviceTensors mine;
    std::string &why = failures[device];
    why = cutParts(entry, mesh, device, tensors, /*ownResults=*/false, mine);
    if (why.empty())
      why = runDevice(executable, index, mine);
    if (!why.empty())
      group.fail();
    // Devices write disjoint parts of the results: each part once.
    for (size_t t = entry.args.size(); why.empty() && t < tensors.size(); ++t)
      if (mine.writes[t])
        writePart(tensors[t], static_cast<char *>(mine.raw[t]->data.get()),
                  mine.raw[t]->shape, mine.offsets[t]);
    setDeviceLoopThreads(0);
    currentExchange = nullptr;
  };
  deviceThreads().run(mesh.count, run);
  // The device whose own call failed, not those it released.
  int64_t failed = -1;
  for (int64_t device = mesh.count; device-- > 0;)
    if (!failures[device].empty() &&
        (failed < 0 || failures[device] != kReleased))
      failed = device;
  if (failed >= 0)
    return error("device " + std::to_string(failed) + ": " + failures[failed]);
  return nullptr;
}
