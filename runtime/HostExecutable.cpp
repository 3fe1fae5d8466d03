//===- HostExecutable.cpp - calling compiled CPU code ---------------------===//
//
// Entries of host code are found by the symbols kiln/abi.h names, checked
// against the signature compiled beside them, and called with one memref
// descriptor per tensor.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <algorithm>

using namespace kiln::runtime;

std::string kiln::runtime::entrySymbol(const std::string &name) {
  return KILN_ENTRY_PREFIX + name;
}

std::string kiln::runtime::signatureSymbol(const std::string &name) {
  return KILN_SIGNATURE_PREFIX + name;
}

namespace {
/// A memref descriptor of a tensor: allocated and aligned pointers, offset,
/// sizes, strides (row-major), as the compiled code's C interface reads it.
std::vector<int64_t> descriptor(kiln_tensor_t tensor) {
  size_t rank = tensor->shape.size();
  std::vector<int64_t> desc(3 + 2 * rank);
  auto address = reinterpret_cast<int64_t>(tensor->data.get());
  desc[0] = desc[1] = address;
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    desc[3 + i] = tensor->shape[i];
    desc[3 + rank + i] = stride;
    stride *= tensor->shape[i];
  }
  return desc;
}
} // namespace

kiln_status_t HostExecutable::bind(const Manifest &manifest) {
  for (const EntrySignature &entry : manifest.entries) {
    std::string why;
    auto function = reinterpret_cast<EntryFunction>(
        lookup(entrySymbol(entry.name), why));
    if (!function)
      return error("entry " + entry.name + ": its code is missing" +
                   (why.empty() ? "" : ": " + why));
    // A manifest that lies about shapes or dtypes would make calls write
    // past the buffers they allocate: the code's own signature must agree.
    const auto *compiled = static_cast<const int64_t *>(
        lookup(signatureSymbol(entry.name), why));
    if (!compiled)
      return error("entry " + entry.name + ": the code carries no signature" +
                   (why.empty() ? "" : ": " + why));
    std::vector<int64_t> expected = encodeSignature(entry, manifest.meshSizes);
    // The length comes first: nothing past the compiled array is read.
    if (compiled[0] != int64_t(expected.size()) ||
        !std::equal(expected.begin(), expected.end(), compiled))
      return error("entry " + entry.name + ": the manifest says " +
                   entry.text +
                   " but the code was compiled for another signature");
    names.push_back(entry.name);
    functions.push_back(function);
  }
  return nullptr;
}

kiln_status_t HostExecutable::invoke(size_t index,
                                     const std::vector<kiln_tensor_t> &tensors) {
  if (index >= functions.size())
    return error("entry #" + std::to_string(index) + " does not exist");
  std::vector<std::vector<int64_t>> descriptors;
  for (kiln_tensor_t tensor : tensors)
    descriptors.push_back(descriptor(tensor));
  std::vector<void *> packed;
  for (auto &desc : descriptors)
    packed.push_back(desc.data());
  std::string why;
  if (!runEntry(functions[index], packed.data(), why))
    return error(names[index] + ": " + why);
  return nullptr;
}
