//===- WindowProducts.h - convolutions read in place -----------*- C++ -*-===//
//
// convert-kiln-to-linalg's window products contract a convolution's padded
// input itself instead of its patches (im2col). Which convolutions take
// them is decided here, header only: the StableHLO importer, which stacks
// the taps of convolutions of few features feature-major otherwise, asks
// the same question before choosing their layout.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_LINALG_WINDOWPRODUCTS_H
#define KILN_LOWERING_LINALG_WINDOWPRODUCTS_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace kiln {

/// Input features from which a window position contracts enough steps
/// between loads and stores of its accumulators to be a matmul of its own:
/// such convolutions, at any stride, take a window product by output lines
/// (convert-kiln-to-linalg's lineWindowProduct), which computes nothing
/// but the outputs; fewer features take one over the padded grid's rows
/// (isWindowProductShape), whose register tiles sum every window position.
constexpr int64_t kWindowProductMinFeatures = 16;

/// Outputs of which a window product of fewer input features has a whole
/// number of (16 floats') vectors: its register tiles then sum every
/// window position and feature before storing (kiln-tile-and-vectorize).
constexpr int64_t kWindowProductOutputMultiple = 16;

/// The most rows of the padded grid a window product of fewer than
/// kWindowProductMinFeatures features computes per output pixel: rows past
/// an image's outputs (the padding's) are computed and dropped, against
/// patches (feature-major or not) that cost much next to the product (one
/// thread, against the patches: 28 x 28 images under a 5 x 5 window, 1.36
/// rows per output, 1 feature into 16, 1.40x faster; 10 x 10 under 3 x 3
/// SAME, 1.44, 1.35x; 20 x 20 under 5 x 5, 3 features into 32, 1.56, 1.02x;
/// 16 x 16 under 5 x 5, 1.78, 16% slower; LeNet's second layer, 1.94, 18%
/// slower).
constexpr double kWindowProductMaxRowsPerOutput = 1.5;

/// The rows of the padded grid `padded` [batch, padded spatial...] that a
/// window product computes, from the first output pixel's to the last's,
/// for outputs [batch, output spatial...].
inline int64_t windowProductRows(llvm::ArrayRef<int64_t> padded,
                                 llvm::ArrayRef<int64_t> outputs) {
  int64_t rows = 1, pitch = 1;
  for (size_t d = padded.size(); d-- > 0;) {
    rows += (outputs[d] - 1) * pitch;
    pitch *= padded[d];
  }
  return rows;
}

/// Whether a unit-stride convolution of `features` input features into
/// `outputs`, from the padded grid `padded` [batch, padded spatial...] to
/// `pixels` [batch, output spatial...], reads its input in place: by output
/// lines (of kWindowProductMinFeatures features or more) or by the padded
/// grid's rows.
inline bool isWindowProductShape(int64_t features, int64_t outputs,
                                 llvm::ArrayRef<int64_t> padded,
                                 llvm::ArrayRef<int64_t> pixels) {
  int64_t count = 1;
  for (int64_t size : pixels)
    count *= size;
  if (count == 0 || features == 0 || outputs == 0)
    return false;
  if (features >= kWindowProductMinFeatures)
    return true;
  return outputs % kWindowProductOutputMultiple == 0 &&
         double(windowProductRows(padded, pixels)) <=
             kWindowProductMaxRowsPerOutput * double(count);
}

} // namespace kiln

#endif // KILN_LOWERING_LINALG_WINDOWPRODUCTS_H
