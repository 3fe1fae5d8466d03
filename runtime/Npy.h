//===- Npy.h - numpy's .npy format in memory -------------------*- C++ -*-===//
#ifndef KILN_RUNTIME_NPY_H
#define KILN_RUNTIME_NPY_H

#include "Internal.h"

#include <string>

namespace kiln::runtime {

/// Largest .npy header accepted; numpy's own are a few hundred bytes.
constexpr size_t kMaxNpyHeader = 64 * 1024;

/// The dtype, shape and data offset of a .npy image whose first bytes are
/// `prefix` (at least the whole header). `size` is the image's full size,
/// checked against the shape before anything is allocated; `what` names the
/// file in messages.
struct NpyLayout {
  kiln_dtype_t dtype;
  std::vector<int64_t> shape;
  size_t dataOffset;
  size_t dataBytes;
};
kiln_status_t parseNpyHeader(const std::string &prefix, size_t size,
                             const std::string &what, NpyLayout &layout);

/// A tensor from a complete .npy image.
kiln_status_t readNpy(const std::string &image, const std::string &what,
                      kiln_tensor_t *out);

/// The .npy image of a tensor.
std::string writeNpy(kiln_tensor_t tensor);

/// The contents of the file at `path`, or an error.
kiln_status_t readFile(const char *path, std::string &contents);
/// Writes `contents` to `path`, or returns an error.
kiln_status_t writeFile(const char *path, const std::string &contents);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_NPY_H
