//===- FuzzCall.cpp - calls through the runtime's C API -------------------===//
//
// The bytes describe a call of a compiled module's entry: which entry (or
// a name it does not have), how many arguments and results, and each
// argument's dtype, rank and shape (small sizes, or the values that break
// naive arithmetic: negative, 2^62, 2^63-1), made with kiln_tensor_create
// (zero-filled, or from a buffer of a given length)
// and passed to kiln_module_call or kiln_module_call_into. Each call
// returns results or an error with a message; none crashes, whatever
// is null, repeated, donated or aliased.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "kiln/runtime.h"

#include <algorithm>
#include <vector>

namespace {
constexpr const char *kSource = R"(
func.func @scale(%x: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %b = kiln.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %r = kiln.mul %x, %b : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func @update(%w: tensor<4xf32> {kiln.donate}, %g: tensor<4xf32>,
                  %on: tensor<i1>, %n: tensor<3xi32>) -> (tensor<4xf32>, tensor<3xi64>) {
  %d = kiln.sub %w, %g : tensor<4xf32>
  %r = kiln.select %on, %d, %w : tensor<i1>, tensor<4xf32>
  %m = kiln.convert %n : (tensor<3xi32>) -> tensor<3xi64>
  return %r, %m : tensor<4xf32>, tensor<3xi64>
}
)";

/// The input's bytes, read one at a time (zeros past the end).
struct Reader {
  const uint8_t *data;
  size_t size;
  uint8_t next() { return size ? (--size, *data++) : 0; }
};

kiln_module_t module() {
  static kiln_module_t compiled = [] {
    std::string path = kiln::fuzz::writeInput(
        "call", reinterpret_cast<const uint8_t *>(kSource),
        std::char_traits<char>::length(kSource));
    std::string source = path + ".mlir";
    if (std::rename(path.c_str(), source.c_str()) != 0)
      kiln::fuzz::broken("cannot name the source .mlir");
    kiln_module_t module = nullptr;
    kiln_status_t status = kiln_module_compile(source.c_str(), &module);
    std::remove(source.c_str());
    if (status)
      kiln::fuzz::broken(kiln_status_message(status));
    return module;
  }();
  return compiled;
}

/// A dimension: mostly small, sometimes one that overflows sizes.
int64_t dimension(Reader &in) {
  static constexpr int64_t kEdges[] = {-1, INT64_MIN, int64_t(1) << 62,
                                       INT64_MAX};
  uint8_t byte = in.next();
  return byte >= 0xf0 ? kEdges[byte % 4] : byte % 6;
}

/// Whether `shape` is valid but takes more than 1 MiB: making it would
/// test the system's allocator, not Kiln (a negative dimension, or 2^63
/// bytes or more, must be refused, and is tried).
bool legitButHuge(kiln_dtype_t dtype, const std::vector<int64_t> &shape) {
  unsigned __int128 bytes = std::max<size_t>(kiln_dtype_size(dtype), 1);
  for (int64_t size : shape) {
    if (size < 0)
      return false;
    bytes = std::min<unsigned __int128>(bytes * uint64_t(size),
                                        (unsigned __int128)1 << 64);
  }
  return bytes > (1 << 20) && bytes <= uint64_t(INT64_MAX);
}

/// An argument described by the input: null when it asks for one or
/// when kiln_tensor_create refuses its shape, `previous` again when it
/// asks for that (an argument passed twice), else a new tensor.
kiln_tensor_t tensor(Reader &in, kiln_tensor_t previous) {
  uint8_t kind = in.next();
  if (kind == 0xff)
    return nullptr;
  if (kind == 0xfe)
    return previous;
  auto dtype = kiln_dtype_t(kind % 10); // 9: an invalid dtype
  int64_t rank = in.next() % 4;
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(dimension(in));
  if (legitButHuge(dtype, shape))
    return nullptr;
  // Zero-filled, or copied from a buffer whose length may be wrong.
  uint8_t data = in.next();
  std::vector<char> bytes(data >> 1);
  kiln_tensor_t tensor = nullptr;
  if (kiln_status_t status = kiln_tensor_create(
          dtype, rank, shape.data(), data & 1 ? bytes.data() : nullptr,
          bytes.size(), &tensor)) {
    kiln_status_free(status);
    return nullptr;
  }
  return tensor;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Reader in{data, size};
  uint8_t which = in.next();
  const char *entry = which % 3 == 0   ? "scale"
                      : which % 3 == 1 ? "update"
                                       : "absent";
  size_t numArgs = in.next() % 6, numResults = in.next() % 4;
  std::vector<kiln_tensor_t> args, results(numResults, nullptr);
  // Every tensor made, once each.
  std::vector<kiln_tensor_t> made;
  auto next = [&](kiln_tensor_t previous) {
    kiln_tensor_t t = tensor(in, previous);
    if (t && t != previous)
      made.push_back(t);
    return t;
  };
  for (size_t i = 0; i < numArgs; ++i)
    args.push_back(next(args.empty() ? nullptr : args.back()));
  bool into = in.next() & 1;
  if (into)
    for (kiln_tensor_t &result : results)
      result = next(args.empty() ? nullptr : args.back());
  kiln_status_t status =
      into ? kiln_module_call_into(module(), entry, args.size(), args.data(),
                                   results.size(), results.data())
           : kiln_module_call(module(), entry, args.size(), args.data(),
                              results.size(), results.data());
  if (status && !*kiln_status_message(status))
    kiln::fuzz::broken("a failed call without a message");
  bool succeeded = !status;
  kiln_status_free(status);
  for (kiln_tensor_t tensor : made)
    kiln_tensor_free(tensor);
  if (!into && succeeded)
    for (kiln_tensor_t tensor : results)
      kiln_tensor_free(tensor);
  return 0;
}
