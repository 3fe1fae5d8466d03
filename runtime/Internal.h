//===- Internal.h - the runtime core's shared definitions ------*- C++ -*-===//
//
// Plain C++17: the runtime core links neither MLIR nor LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_INTERNAL_H
#define KILN_RUNTIME_INTERNAL_H

#include "kiln/manifest.hpp"
#include "kiln/runtime.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct kiln_status {
  std::string message;
};

namespace kiln::runtime {
/// The end of an asynchronous call (kiln_jit_call_async): its results
/// become ready, or fail with the message the synchronous call gives.
class Completion {
public:
  /// Marks the call finished; `failure` is its error, or "".
  void finish(std::string failure) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      this->failure = std::move(failure);
      finished = true;
    }
    done.notify_all();
  }
  /// Waits until the call finished; its error, or "".
  const std::string &wait() {
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return finished; });
    return failure;
  }
  bool isFinished() {
    std::lock_guard<std::mutex> lock(mutex);
    return finished;
  }

private:
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
  std::string failure;
};
} // namespace kiln::runtime

struct kiln_tensor {
  kiln_tensor(kiln_dtype_t dtype, kiln_device_t device,
              std::vector<int64_t> shape, size_t byteLength)
      : dtype(dtype), device(device), shape(std::move(shape)),
        byteLength(byteLength) {}

  kiln_dtype_t dtype;
  /// Where `data` lives: host memory, or device memory (never read on the
  /// host).
  kiln_device_t device = KILN_DEVICE_CPU;
  std::vector<int64_t> shape;
  size_t byteLength;
  /// 64-byte aligned, at least one cache line even when empty.
  std::unique_ptr<void, void (*)(void *)> data{nullptr, nullptr};
  /// The asynchronous call that writes the elements (null: they are
  /// there); set when the tensor is made, never changed.
  std::shared_ptr<kiln::runtime::Completion> producer;
  /// The asynchronous calls that read the elements and may not have
  /// finished: overwriting the tensor waits for them.
  std::deque<std::shared_ptr<kiln::runtime::Completion>> readers;
  /// The entry of the call it was donated to (kiln.donate), which took
  /// its buffer for a result; "" while it is the caller's to use.
  std::string donatedTo;
  /// Its owner (until kiln_tensor_free) and the enqueued asynchronous
  /// calls that use it: the last to let go deletes it.
  std::atomic<int> references{1};
};

namespace kiln::runtime {

/// More dimensions than any real program has; bounds what a corrupt
/// manifest or a caller's rank makes the runtime allocate.
constexpr size_t kMaxRank = 64;

/// A failed status with `message`.
kiln_status_t error(std::string message);

/// The number of bytes of a tensor of `dtype` and `shape`, or an error if a
/// dimension is negative or the size overflows. `what` names the tensor in
/// the message.
kiln_status_t tensorByteLength(kiln_dtype_t dtype,
                               const std::vector<int64_t> &shape,
                               const std::string &what, size_t &bytes);

/// A tensor whose size was checked by tensorByteLength, zero-filled unless
/// the caller overwrites every byte (`zeroFill` false), or null when out of
/// memory.
kiln_tensor_t newTensor(kiln_dtype_t dtype, std::vector<int64_t> shape,
                        size_t byteLength, bool zeroFill = true);

/// Asks the kernel to back a new buffer of `bytes` at `data`, before
/// anything touches it, with transparent huge pages where it is 4 MiB or
/// more (numpy's rule): a matrix read row by row then takes no TLB miss per
/// 4 KiB row, and the prefetchers, which stop at page boundaries, keep
/// streaming (a C loop reading a 4096 x 1000 f32 matrix row by row: 0.33
/// -> 0.23 ms; numpy's arrays get the same advice).
/// A no-op where the kernel has them off.
void adviseHugePages(void *data, size_t bytes);

/// An uninitialized tensor on `device` in `out`, or why it cannot be had.
kiln_status_t newTensorOn(kiln_device_t device, kiln_dtype_t dtype,
                          std::vector<int64_t> shape, size_t byteLength,
                          kiln_tensor_t &out);

/// The error naming `what` ("arg0") for a tensor donated to an earlier
/// call, or null.
kiln_status_t checkNotDonated(kiln_tensor_t tensor, const std::string &what);
/// Waits for the asynchronous call that writes `tensor`, if any; an error
/// naming `what` ("arg0") with that call's message if it failed, or if the
/// tensor was donated.
kiln_status_t waitForProducer(kiln_tensor_t tensor, const std::string &what);
/// Waits for the asynchronous calls that read `tensor`.
void waitForReaders(kiln_tensor_t tensor);
/// Records that the asynchronous call `reader` reads `tensor`.
void addReader(kiln_tensor_t tensor, std::shared_ptr<Completion> reader);
/// Records that an enqueued asynchronous call uses `tensor` (an argument
/// or a result): it lives until the call lets go of it with
/// kiln_tensor_free, even if its owner frees it first.
void addAsyncUse(kiln_tensor_t tensor);
/// Checks that `image`, the bytes of the file at `path`, is a whole 64-bit
/// ELF shared object (headers and segments within it) before the system
/// loader maps it: a truncated file would fault (SIGBUS) inside the loader.
kiln_status_t checkSharedObject(const std::string &image, const char *path);
/// Checks one argument against its spec and the entry's `device`; `what`
/// is "arg1" etc. `read`: the call reads its elements (not a result's
/// buffer, which it overwrites), so booleans must be 0 or 1.
kiln_status_t checkArgument(kiln_tensor_t tensor, const TensorSpec &spec,
                            kiln_device_t device, const std::string &what,
                            bool read = true);
/// Checks the entry, the counts and every argument of a call, as
/// kiln_module_call does, without waiting for any of them.
kiln_status_t checkArguments(kiln_module_t module, const char *entry,
                             size_t numArgs, const kiln_tensor_t *args,
                             size_t numResults);
/// kiln_module_call_into, waiting first for the calls that write the
/// arguments and (if `waitForResults`) for those that use the results.
kiln_status_t callInto(kiln_module_t module, const char *entry,
                       size_t numArgs, const kiln_tensor_t *args,
                       size_t numResults, const kiln_tensor_t *results,
                       bool waitForResults);
/// New uninitialized tensors for the results of `entry` of `module`.
kiln_status_t newResults(kiln_module_t module, const char *entry,
                         std::vector<kiln_tensor_t> &results);
/// Calls `run(wholeAt, blockAt, bytes)` for each contiguous run, in
/// order, of the block of shape `blockShape` at `offsets` in a row-major
/// tensor of `wholeShape` (elements of `elementBytes`); `wholeAt` and
/// `blockAt` are the run's byte offsets in the tensor and in the block.
void forEachRun(const std::vector<int64_t> &wholeShape,
                const std::vector<int64_t> &blockShape,
                const std::vector<int64_t> &offsets, size_t elementBytes,
                const std::function<void(size_t, size_t, size_t)> &run);
/// Makes every byte of an i1 tensor 0 or 1 (numpy reads any nonzero byte of
/// a bool array as True); other dtypes are left alone.
void normalizeBooleans(kiln_tensor_t tensor);

/// The packed form of an entry: each element of `args` points to the
/// memref descriptor of one argument, then of one result (out-parameter).
using EntryFunction = void (*)(void **args);

/// Runs `function` on `args`; false, saying `why`, if the call was
/// abandoned (a buffer it allocates cannot be had, a device error).
bool runEntry(EntryFunction function, void **args, std::string &why);

/// Records `why` as the running call's failure (the first one counts), or
/// outside a call (a constructor while an artifact loads) for takeFailure.
void recordFailure(const std::string &why);

/// Abandons the running call with the failure recorded, jumping back to
/// runEntry; returns outside a call. longjmp runs no destructors, so the
/// frames it leaves must own nothing: record the message in a statement of
/// its own first.
void abandonCall();

/// The first failure recorded outside a call since the last take, or "".
std::string takeFailure();

/// Makes the allocation functions and the OpenMP runtime compiled code
/// calls visible to the code that dlopen and the JIT load.
void exportRuntimeSymbols();

/// A function of the OpenMP runtime compiled code's parallel loops call.
void *openMPSymbol();

/// For its lifetime (a call), the calling thread's parallel loops use as
/// many threads as kiln_num_threads says, which sleep (not spin) when
/// idle; the caller's own OpenMP settings come back afterwards.
class CallThreads {
public:
  CallThreads();
  ~CallThreads();
  CallThreads(const CallThreads &) = delete;
  CallThreads &operator=(const CallThreads &) = delete;

private:
  int callerThreads, callerBlocktime;
};

/// Compiled code with its entries, from a shared object, the JIT or (later)
/// a device. The module calls entries by their index in the manifest.
class Executable {
public:
  virtual ~Executable() = default;
  /// Binds the entries of `manifest`, in order, to their code; fails if an
  /// entry's code is missing or was compiled for another signature.
  virtual kiln_status_t bind(const Manifest &manifest) = 0;
  /// Runs entry `index` on `tensors`: its arguments, then the results it
  /// writes, all checked by the caller against the entry's signature.
  virtual kiln_status_t invoke(size_t index,
                               const std::vector<kiln_tensor_t> &tensors) = 0;
};

/// Code for the host CPU whose symbols can be looked up: each entry is
/// called through its packed wrapper with memref descriptors (kiln/abi.h).
class HostExecutable : public Executable {
public:
  kiln_status_t bind(const Manifest &manifest) final;
  kiln_status_t invoke(size_t index,
                       const std::vector<kiln_tensor_t> &tensors) final;

protected:
  /// The address of the function or global `name`, or null with the
  /// reason in `why`.
  virtual void *lookup(const std::string &name, std::string &why) = 0;

private:
  std::vector<std::string> names;
  std::vector<EntryFunction> functions;
};

/// Runs the partitioned entry `index` of `manifest` on `tensors` (whole
/// arguments, then whole results it writes, checked by the caller) with
/// each device on its parts (Devices.cpp): without `transport`, once per
/// device of the manifest's mesh, each on a thread; with it, as the
/// transport's device only, the others being other processes.
kiln_status_t invokeOnDevices(Executable &executable, const Manifest &manifest,
                              size_t index,
                              const std::vector<kiln_tensor_t> &tensors,
                              const kiln_transport_t *transport);

/// The part of tensor `t` (arguments, then results) of `entry` that
/// device `device` of the manifest's mesh holds, and where it starts in
/// the whole (`offsets`).
TensorSpec devicePart(const Manifest &manifest, const EntrySignature &entry,
                      size_t t, int64_t device, std::vector<int64_t> &offsets);
/// Makes the calls this thread runs use `count` threads for their parallel
/// loops (0: kiln_num_threads's count), as each in-process device does.
void setDeviceLoopThreads(int64_t count);

/// A module over `executable` with the entries of `manifest`; fails if an
/// entry's code is missing.
kiln_status_t newModule(std::unique_ptr<Executable> executable,
                        Manifest manifest, kiln_module_t *out);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_INTERNAL_H
