//===- Devices.cpp - in-process CPU devices and their collectives ---------===//
//
// A partitioned entry (kiln-partition) runs once per device of its mesh,
// each device a thread of the calling process on its parts of the
// arguments, as XLA's host platform with several devices does. The devices
// meet at the collectives compiled code calls (kiln/abi.h): each publishes
// its buffer, all wait for all, each computes its result from its group's
// buffers in group order (so replicas agree to the bit), and all wait
// again before the buffers may change. A device whose call fails releases
// the others, whose calls then fail too.
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

/// The devices of one partitioned call.
class DeviceGroup {
public:
  explicit DeviceGroup(std::vector<int64_t> meshSizes)
      : meshSizes(std::move(meshSizes)) {
    for (int64_t size : this->meshSizes)
      count *= size;
    buffers.resize(count);
  }

  /// Waits until every device has arrived; false if the call failed on a
  /// device.
  bool meet() {
    std::unique_lock<std::mutex> lock(mutex);
    if (failed)
      return false;
    uint64_t round = rounds;
    if (++arrived == count) {
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

  /// The devices of `device`'s group over the mesh axes `axes`, in group
  /// order (the axes numbered major to minor), and `device`'s place in it.
  std::vector<int64_t> members(int64_t device, const std::vector<int64_t> &axes,
                               int64_t &place) const {
    std::vector<int64_t> coords = coordinates(device);
    int64_t size = 1;
    place = 0;
    for (int64_t axis : axes) {
      size *= meshSizes[axis];
      place = place * meshSizes[axis] + coords[axis];
    }
    std::vector<int64_t> devices;
    for (int64_t p = 0; p < size; ++p) {
      std::vector<int64_t> member = coords;
      for (int64_t rest = p, k = int64_t(axes.size()) - 1; k >= 0; --k) {
        member[axes[k]] = rest % meshSizes[axes[k]];
        rest /= meshSizes[axes[k]];
      }
      int64_t id = 0;
      for (size_t a = 0; a < meshSizes.size(); ++a)
        id = id * meshSizes[a] + member[a];
      devices.push_back(id);
    }
    return devices;
  }

  /// `device`'s position along each mesh axis (devices are numbered
  /// row-major over the axes).
  std::vector<int64_t> coordinates(int64_t device) const {
    std::vector<int64_t> coords(meshSizes.size());
    for (size_t a = meshSizes.size(); a-- > 0;) {
      coords[a] = device % meshSizes[a];
      device /= meshSizes[a];
    }
    return coords;
  }

  std::vector<int64_t> meshSizes;
  int64_t count = 1;
  /// What each device publishes for the collective under way.
  std::vector<const char *> buffers;

private:
  std::mutex mutex;
  std::condition_variable changed;
  int64_t arrived = 0;
  uint64_t rounds = 0;
  bool failed = false;
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

/// Why a device's call stops when another's failed.
constexpr const char *kReleased = "the call failed on another device";

/// The group and device of the partitioned call this thread runs.
thread_local DeviceGroup *currentGroup = nullptr;
thread_local int64_t currentDevice = 0;

/// The mesh axes a collective names, as the compiler packs them: the count
/// in the low 4 bits, then 4 bits per axis.
std::vector<int64_t> unpackAxes(int64_t packed) {
  std::vector<int64_t> axes(packed & 15);
  for (size_t k = 0; k < axes.size(); ++k)
    axes[k] = (packed >> (4 * (k + 1))) & 15;
  return axes;
}

/// Runs a collective: publishes `in`, waits for the group, calls `body`
/// with the group's buffers in group order and this device's place, and
/// waits again. Abandons the call if it fails on another device.
template <typename Body>
void collective(int64_t packedAxes, const void *in, Body body) {
  DeviceGroup *group = currentGroup;
  if (!group) {
    abandonCall("a collective runs only in a partitioned call");
    return;
  }
  group->buffers[currentDevice] = static_cast<const char *>(in);
  if (!group->meet())
    abandonCall(kReleased);
  int64_t place;
  std::vector<const char *> inputs;
  for (int64_t member :
       group->members(currentDevice, unpackAxes(packedAxes), place))
    inputs.push_back(group->buffers[member]);
  body(inputs, place);
  if (!group->meet())
    abandonCall(kReleased);
}

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
// Moving parts between whole tensors and devices
//===----------------------------------------------------------------------===//

/// Copies between `whole` and `part` (row-major, elements of `bytes`) the
/// block of `part`'s shape at `offsets` in `whole`: into `part` if
/// `toPart`, else back.
void copyBlock(char *whole, const std::vector<int64_t> &wholeShape, char *part,
               const std::vector<int64_t> &partShape,
               const std::vector<int64_t> &offsets, size_t bytes, bool toPart,
               size_t dim = 0) {
  if (dim == wholeShape.size()) {
    std::memcpy(toPart ? part : whole, toPart ? whole : part, bytes);
    return;
  }
  size_t wholeStride = bytes, partStride = bytes;
  for (size_t d = dim + 1; d < wholeShape.size(); ++d) {
    wholeStride *= wholeShape[d];
    partStride *= partShape[d];
  }
  whole += offsets[dim] * wholeStride;
  // The innermost dimensions that a part holds whole are one run.
  if (wholeStride == partStride) {
    size_t run = partStride * partShape[dim];
    std::memcpy(toPart ? part : whole, toPart ? whole : part, run);
    return;
  }
  for (int64_t i = 0; i < partShape[dim]; ++i)
    copyBlock(whole + i * wholeStride, wholeShape, part + i * partStride,
              partShape, offsets, bytes, toPart, dim + 1);
}

/// Where `device`'s part of a tensor split over `parts` starts, per
/// dimension, and whether it is the first device holding that part (the
/// others hold replicas).
std::vector<int64_t> partOffsets(const DeviceGroup &group, int64_t device,
                                 const std::vector<std::vector<int64_t>> &parts,
                                 const std::vector<int64_t> &partShape,
                                 bool &first) {
  std::vector<int64_t> coords = group.coordinates(device);
  std::vector<bool> used(coords.size(), false);
  std::vector<int64_t> offsets;
  for (size_t d = 0; d < partShape.size(); ++d) {
    int64_t place = 0;
    for (int64_t axis : parts[d]) {
      place = place * group.meshSizes[axis] + coords[axis];
      used[axis] = true;
    }
    offsets.push_back(place * partShape[d]);
  }
  first = true;
  for (size_t a = 0; a < coords.size(); ++a)
    first = first && (used[a] || coords[a] == 0);
  return offsets;
}

} // namespace

//===----------------------------------------------------------------------===//
// The collectives compiled code calls (kiln/abi.h)
//===----------------------------------------------------------------------===//

extern "C" {
int64_t kiln_rt_axis_index(int64_t axes) {
  // A device's place needs no meeting.
  if (!currentGroup) {
    abandonCall("axis_index runs only in a partitioned call");
    return 0;
  }
  int64_t place;
  currentGroup->members(currentDevice, unpackAxes(axes), place);
  return place;
}

void kiln_rt_all_reduce(int64_t axes, int64_t kind, int64_t dtype,
                        const void *in, void *out, int64_t count) {
  // Each device combines its share of the elements into its result, then
  // copies the others' shares from theirs: the work is split, as in a
  // reduce-scatter followed by an all-gather.
  size_t bytes = kiln_dtype_size(static_cast<kiln_dtype_t>(dtype));
  int64_t share = 0, begin = 0;
  collective(axes, in,
             [&](const std::vector<const char *> &inputs, int64_t place) {
               int64_t n = int64_t(inputs.size());
               share = (count + n - 1) / n;
               begin = std::min(count, place * share);
               reduce(kind, dtype, inputs, begin,
                      static_cast<char *>(out) + begin * bytes,
                      std::min(count, begin + share) - begin);
             });
  collective(axes, out,
             [&](const std::vector<const char *> &outputs, int64_t place) {
               for (int64_t g = 0; g < int64_t(outputs.size()); ++g) {
                 int64_t from = std::min(count, g * share);
                 int64_t to = std::min(count, from + share);
                 if (g != place && to > from)
                   std::memcpy(static_cast<char *>(out) + from * bytes,
                               outputs[g] + from * bytes, (to - from) * bytes);
               }
             });
}

void kiln_rt_reduce_scatter(int64_t axes, int64_t kind, int64_t dtype,
                            const void *in, void *out, int64_t count) {
  collective(axes, in,
             [&](const std::vector<const char *> &inputs, int64_t place) {
               reduce(kind, dtype, inputs, place * count,
                      static_cast<char *>(out), count);
             });
}

void kiln_rt_all_gather(int64_t axes, const void *in, void *out,
                        int64_t bytes) {
  collective(axes, in, [&](const std::vector<const char *> &inputs, int64_t) {
    for (size_t g = 0; g < inputs.size(); ++g)
      std::memcpy(static_cast<char *>(out) + g * bytes, inputs[g], bytes);
  });
}

void kiln_rt_all_to_all(int64_t axes, const void *in, void *out,
                        int64_t blockBytes) {
  collective(axes, in,
             [&](const std::vector<const char *> &inputs, int64_t place) {
               for (size_t g = 0; g < inputs.size(); ++g)
                 std::memcpy(static_cast<char *>(out) + g * blockBytes,
                             inputs[g] + place * blockBytes, blockBytes);
             });
}

void kiln_rt_fetch(int64_t axes, int64_t source, const void *in, void *out,
                   int64_t bytes) {
  collective(axes, in, [&](const std::vector<const char *> &inputs, int64_t) {
    if (source < 0)
      std::memset(out, 0, bytes);
    else
      std::memcpy(out, inputs[source], bytes);
  });
}
}

//===----------------------------------------------------------------------===//
// Partitioned calls
//===----------------------------------------------------------------------===//

namespace {
/// One device's share of a partitioned call of `entry` on `tensors` (whole
/// arguments, then whole results): cuts its parts of the arguments, runs
/// its code, and writes the parts of the results it holds first. Why it
/// failed, or "".
std::string runDevice(Executable &executable, const Manifest &manifest,
                      size_t index, const std::vector<kiln_tensor_t> &tensors,
                      const DeviceGroup &group, int64_t device) {
  const EntrySignature &entry = manifest.entries[index];
  size_t numArgs = entry.args.size();
  std::vector<std::unique_ptr<kiln_tensor>> parts;
  std::vector<kiln_tensor_t> raw;
  std::vector<std::vector<int64_t>> offsets;
  std::vector<bool> firsts;
  for (size_t t = 0; t < tensors.size(); ++t) {
    const TensorSpec &whole =
        t < numArgs ? entry.args[t] : entry.results[t - numArgs];
    // An entry without parts takes every tensor whole.
    std::vector<std::vector<int64_t>> split =
        entry.parts.empty()
            ? std::vector<std::vector<int64_t>>(whole.shape.size())
            : entry.parts[t];
    TensorSpec spec = partSpec(whole, split, manifest.meshSizes);
    bool first;
    offsets.push_back(partOffsets(group, device, split, spec.shape, first));
    firsts.push_back(first);
    // A whole argument is shared (entries only read their arguments); the
    // first device writes a whole result in place.
    if (spec.shape == whole.shape && (t < numArgs || first)) {
      raw.push_back(tensors[t]);
      firsts.back() = false;
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
    parts.emplace_back(part);
    raw.push_back(part);
    if (t < numArgs)
      copyBlock(static_cast<char *>(tensors[t]->data.get()), whole.shape,
                static_cast<char *>(part->data.get()), spec.shape,
                offsets.back(), kiln_dtype_size(spec.dtype), /*toPart=*/true);
  }
  if (kiln_status_t status = executable.invoke(index, raw)) {
    std::string why = kiln_status_message(status);
    kiln_status_free(status);
    return why;
  }
  // Devices write disjoint parts of the results: each part once.
  for (size_t t = numArgs; t < tensors.size(); ++t)
    if (firsts[t])
      copyBlock(static_cast<char *>(tensors[t]->data.get()),
                entry.results[t - numArgs].shape,
                static_cast<char *>(raw[t]->data.get()), raw[t]->shape,
                offsets[t], kiln_dtype_size(raw[t]->dtype), /*toPart=*/false);
  return "";
}
} // namespace

kiln_status_t kiln::runtime::invokeOnDevices(
    Executable &executable, const Manifest &manifest, size_t index,
    const std::vector<kiln_tensor_t> &tensors) {
  DeviceGroup group(manifest.meshSizes);
  // One thread per device, sharing the process's threads for their loops.
  std::vector<std::string> failures(group.count);
  int64_t loopThreads = std::max<int64_t>(1, kiln_num_threads() / group.count);
  auto run = [&](int64_t device) {
    currentGroup = &group;
    currentDevice = device;
    setDeviceLoopThreads(loopThreads);
    failures[device] =
        runDevice(executable, manifest, index, tensors, group, device);
    if (!failures[device].empty())
      group.fail();
    setDeviceLoopThreads(0);
    currentGroup = nullptr;
  };
  deviceThreads().run(group.count, run);
  // The device whose own call failed, not those it released.
  int64_t failed = -1;
  for (int64_t device = group.count; device-- > 0;)
    if (!failures[device].empty() &&
        (failed < 0 || failures[device] != kReleased))
      failed = device;
  if (failed >= 0)
    return error("device " + std::to_string(failed) + ": " + failures[failed]);
  return nullptr;
}
