//===- Tensor.cpp - status, dtypes and host tensors -----------------------===//
#include "Internal.h"
#include "cuda/CudaDriver.h"

#include <cstdlib>
#include <cstring>

using namespace kiln::runtime;

kiln_status_t kiln::runtime::error(std::string message) {
  return new kiln_status{std::move(message)};
}

const char *kiln_status_message(kiln_status_t status) {
  return status ? status->message.c_str() : "ok";
}

void kiln_status_free(kiln_status_t status) { delete status; }

const char *kiln_dtype_name(kiln_dtype_t dtype) {
  switch (dtype) {
  case KILN_F32:
    return "f32";
  case KILN_F64:
    return "f64";
  case KILN_F16:
    return "f16";
  case KILN_BF16:
    return "bf16";
  case KILN_I1:
    return "i1";
  case KILN_I32:
    return "i32";
  case KILN_I64:
    return "i64";
  case KILN_I8:
    return "i8";
  case KILN_I16:
    return "i16";
  }
  return "invalid";
}

size_t kiln_dtype_size(kiln_dtype_t dtype) {
  switch (dtype) {
  case KILN_F32:
  case KILN_I32:
    return 4;
  case KILN_F64:
  case KILN_I64:
    return 8;
  case KILN_F16:
  case KILN_BF16:
  case KILN_I16:
    return 2;
  case KILN_I1:
  case KILN_I8:
    return 1;
  }
  return 0;
}

kiln_status_t kiln::runtime::tensorByteLength(kiln_dtype_t dtype,
                                              const std::vector<int64_t> &shape,
                                              const std::string &what,
                                              size_t &bytes) {
  bytes = kiln_dtype_size(dtype);
  if (bytes == 0)
    return error(what + ": invalid dtype " + std::to_string(dtype));
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      return error(what + " dimension " + std::to_string(i) + ": size " +
                   std::to_string(shape[i]) + " is negative");
    if (__builtin_mul_overflow(bytes, static_cast<size_t>(shape[i]), &bytes))
      return error(what + ": the shape's size in bytes overflows");
  }
  // Sizes and offsets are signed 64-bit in compiled code and memrefs.
  if (bytes > size_t(INT64_MAX))
    return error(what + ": the shape's size in bytes overflows");
  return nullptr;
}

namespace {
/// Host tensor buffers allocated since the process started, and their
/// bytes (kiln_allocation_stats).
std::atomic<uint64_t> hostAllocations{0}, hostAllocatedBytes{0};
} // namespace

kiln_tensor_t kiln::runtime::newTensor(kiln_dtype_t dtype,
                                       std::vector<int64_t> shape,
                                       size_t byteLength, bool zeroFill) {
  constexpr size_t kAlign = KILN_BUFFER_ALIGNMENT;
  size_t capacity = (byteLength + kAlign - 1) / kAlign * kAlign;
  void *data = std::aligned_alloc(kAlign, capacity ? capacity : kAlign);
  if (!data)
    return nullptr;
  adviseHugePages(data, capacity);
  if (zeroFill)
    std::memset(data, 0, byteLength);
  auto *tensor =
      new kiln_tensor{dtype, KILN_DEVICE_CPU, std::move(shape), byteLength};
  tensor->data = {data, std::free};
  hostAllocations.fetch_add(1, std::memory_order_relaxed);
  hostAllocatedBytes.fetch_add(byteLength, std::memory_order_relaxed);
  return tensor;
}

void kiln_allocation_stats(uint64_t *tensors, uint64_t *bytes) {
  if (tensors)
    *tensors = hostAllocations.load(std::memory_order_relaxed);
  if (bytes)
    *bytes = hostAllocatedBytes.load(std::memory_order_relaxed);
}

void kiln::runtime::forEachRun(
    const std::vector<int64_t> &wholeShape,
    const std::vector<int64_t> &blockShape,
    const std::vector<int64_t> &offsets, size_t elementBytes,
    const std::function<void(size_t, size_t, size_t)> &run) {
  size_t rank = wholeShape.size();
  for (int64_t size : blockShape)
    if (size == 0)
      return;
  std::vector<size_t> wholeStride(rank + 1, elementBytes),
      blockStride(rank + 1, elementBytes);
  for (size_t d = rank; d-- > 0;) {
    wholeStride[d] = wholeStride[d + 1] * wholeShape[d];
    blockStride[d] = blockStride[d + 1] * blockShape[d];
  }
  // The innermost dimensions the block holds whole, and the one before
  // them, make one run.
  size_t inner = rank;
  while (inner > 0 && blockShape[inner - 1] == wholeShape[inner - 1])
    --inner;
  if (inner == 0) {
    run(0, 0, wholeStride[0]);
    return;
  }
  size_t runBytes = blockStride[inner - 1];
  size_t runStart = offsets[inner - 1] * wholeStride[inner];
  // An odometer over the block's outer dimensions.
  std::vector<int64_t> index(inner - 1, 0);
  for (;;) {
    size_t wholeAt = runStart, blockAt = 0;
    for (size_t d = 0; d + 1 < inner; ++d) {
      wholeAt += (offsets[d] + index[d]) * wholeStride[d + 1];
      blockAt += index[d] * blockStride[d + 1];
    }
    run(wholeAt, blockAt, runBytes);
    size_t d = inner - 1;
    while (d > 0 && ++index[d - 1] == blockShape[d - 1])
      index[--d] = 0;
    if (d == 0)
      return;
  }
}

void kiln::runtime::normalizeBooleans(kiln_tensor_t tensor) {
  if (tensor->dtype != KILN_I1)
    return;
  auto *bytes = static_cast<unsigned char *>(tensor->data.get());
  for (size_t i = 0; i < tensor->byteLength; ++i)
    bytes[i] = bytes[i] != 0;
}

kiln_status_t kiln_tensor_create(kiln_dtype_t dtype, int64_t rank,
                                 const int64_t *shape, const void *data,
                                 size_t byteLength, kiln_tensor_t *out) {
  if (!out)
    return error("out: must not be null");
  *out = nullptr;
  if (rank < 0)
    return error("rank: " + std::to_string(rank) + " is negative");
  if (uint64_t(rank) > kMaxRank)
    return error("rank: " + std::to_string(rank) + " is more than the " +
                 std::to_string(kMaxRank) + " supported");
  if (rank > 0 && !shape)
    return error("shape: must not be null for rank " + std::to_string(rank));
  std::vector<int64_t> dims(shape, shape + rank);
  size_t bytes;
  if (kiln_status_t status = tensorByteLength(dtype, dims, "shape", bytes))
    return status;
  if (data && byteLength != bytes)
    return error("byte_length: expected " + std::to_string(bytes) +
                 " for this dtype and shape, got " +
                 std::to_string(byteLength));
  kiln_tensor_t tensor = newTensor(dtype, std::move(dims), bytes);
  if (!tensor)
    return error("out of memory allocating " + std::to_string(bytes) +
                 " bytes");
  if (data && bytes)
    std::memcpy(tensor->data.get(), data, bytes);
  normalizeBooleans(tensor);
  *out = tensor;
  return nullptr;
}

namespace {
/// Guards every tensor's `readers`: calls reading one tensor may be
/// enqueued from several threads.
std::mutex &asyncMutex() {
  static std::mutex *mutex = new std::mutex;
  return *mutex;
}
} // namespace

kiln_status_t kiln::runtime::checkNotDonated(kiln_tensor_t tensor,
                                             const std::string &what) {
  if (!tensor || tensor->donatedTo.empty())
    return nullptr;
  return error(what + ": was donated to a call of " + tensor->donatedTo +
               " (kiln.donate), which reused its buffer for a result: use "
               "that result instead");
}

kiln_status_t kiln::runtime::waitForProducer(kiln_tensor_t tensor,
                                             const std::string &what) {
  if (kiln_status_t status = checkNotDonated(tensor, what))
    return status;
  if (!tensor || !tensor->producer)
    return nullptr;
  const std::string &failure = tensor->producer->wait();
  if (failure.empty())
    return nullptr;
  return error(what + ": comes from an asynchronous call that failed: " +
               failure);
}

void kiln::runtime::waitForReaders(kiln_tensor_t tensor) {
  if (!tensor)
    return;
  std::deque<std::shared_ptr<Completion>> readers;
  {
    std::lock_guard<std::mutex> lock(asyncMutex());
    readers.swap(tensor->readers);
  }
  for (const std::shared_ptr<Completion> &reader : readers)
    reader->wait();
}

void kiln::runtime::addReader(kiln_tensor_t tensor,
                              std::shared_ptr<Completion> reader) {
  std::lock_guard<std::mutex> lock(asyncMutex());
  auto &readers = tensor->readers;
  // Calls of one jit finish in order: the finished ones lead the list.
  while (!readers.empty() && readers.front()->isFinished())
    readers.pop_front();
  readers.push_back(std::move(reader));
}

void kiln::runtime::addAsyncUse(kiln_tensor_t tensor) {
  tensor->references.fetch_add(1, std::memory_order_relaxed);
}

void kiln_tensor_free(kiln_tensor_t tensor) {
  // The owner's reference or a finished call's: the last one deletes it.
  if (tensor &&
      tensor->references.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete tensor;
}

kiln_status_t kiln_tensor_wait(kiln_tensor_t tensor) {
  return waitForProducer(tensor, "tensor");
}

// A null handle gets the neutral values runtime.h documents.
kiln_dtype_t kiln_tensor_dtype(kiln_tensor_t tensor) {
  return tensor ? tensor->dtype : static_cast<kiln_dtype_t>(-1);
}

int64_t kiln_tensor_rank(kiln_tensor_t tensor) {
  return tensor ? static_cast<int64_t>(tensor->shape.size()) : -1;
}

const int64_t *kiln_tensor_shape(kiln_tensor_t tensor) {
  return tensor ? tensor->shape.data() : nullptr;
}

void *kiln_tensor_data(kiln_tensor_t tensor) {
  if (!tensor || tensor->device != KILN_DEVICE_CPU)
    return nullptr;
  // The caller may read or write the elements: the calls writing and
  // reading them finish first.
  if (kiln_status_t failed = waitForProducer(tensor, "tensor")) {
    kiln_status_free(failed);
    return nullptr;
  }
  waitForReaders(tensor);
  return tensor->data.get();
}

kiln_device_t kiln_tensor_device(kiln_tensor_t tensor) {
  return tensor ? tensor->device : KILN_DEVICE_CPU;
}

const char *kiln_device_name(kiln_device_t device) {
  switch (device) {
  case KILN_DEVICE_CPU:
    return "cpu";
  case KILN_DEVICE_CUDA:
    return "cuda";
  }
  return "invalid";
}

kiln_status_t kiln_device_check(kiln_device_t device) {
  switch (device) {
  case KILN_DEVICE_CPU:
    return nullptr;
  case KILN_DEVICE_CUDA:
    return cuda::ready();
  }
  return error("device: invalid device " + std::to_string(int(device)));
}

kiln_status_t kiln::runtime::newTensorOn(kiln_device_t device,
                                         kiln_dtype_t dtype,
                                         std::vector<int64_t> shape,
                                         size_t byteLength,
                                         kiln_tensor_t &out) {
  if (device == KILN_DEVICE_CPU) {
    out = newTensor(dtype, std::move(shape), byteLength, /*zeroFill=*/false);
    return out ? nullptr
               : error("out of memory allocating " +
                       std::to_string(byteLength) + " bytes");
  }
  if (kiln_status_t status = kiln_device_check(device))
    return status;
  void *data = nullptr;
  if (kiln_status_t status = cuda::allocate(byteLength, &data))
    return status;
  out = new kiln_tensor{dtype, KILN_DEVICE_CUDA, std::move(shape), byteLength};
  out->data = {data, cuda::release};
  return nullptr;
}

kiln_status_t kiln_tensor_copy_to(kiln_tensor_t tensor, kiln_device_t device,
                                  kiln_tensor_t *out) {
  if (!out)
    return error("out: must not be null");
  *out = nullptr;
  if (!tensor)
    return error("tensor: must not be null");
  if (kiln_status_t status = waitForProducer(tensor, "tensor"))
    return status;
  kiln_tensor_t copy = nullptr;
  if (kiln_status_t status = newTensorOn(device, tensor->dtype, tensor->shape,
                                         tensor->byteLength, copy))
    return status;
  std::unique_ptr<kiln_tensor> owner(copy);
  void *to = copy->data.get();
  const void *from = tensor->data.get();
  size_t bytes = tensor->byteLength;
  kiln_status_t status = nullptr;
  if (tensor->device == KILN_DEVICE_CPU && device == KILN_DEVICE_CPU)
    std::memcpy(to, from, bytes);
  else if (tensor->device == KILN_DEVICE_CPU)
    status = cuda::copyToDevice(to, from, bytes);
  else if (device == KILN_DEVICE_CPU)
    status = cuda::copyToHost(to, from, bytes);
  else
    status = error("tensor: copies between two GPUs are not supported");
  if (status)
    return status;
  *out = owner.release();
  return nullptr;
}

size_t kiln_tensor_byte_length(kiln_tensor_t tensor) {
  return tensor ? tensor->byteLength : 0;
}
