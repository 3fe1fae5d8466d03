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

#include <cstdint>

namespace kiln {

/// Input features from which a window position contracts enough steps
/// between loads and stores of its accumulators to be a matmul of its own;
/// with fewer, each register tile sums every window position and feature
/// before it is stored (kiln-tile-and-vectorize).
constexpr int64_t kWindowProductMinFeatures = 16;

/// Outputs of which a window product of fewer input features has a whole
/// number of (16 floats') vectors.
constexpr int64_t kWindowProductOutputMultiple = 16;

/// Whether a convolution of `features` input features into `outputs`
/// reads its padded input in place, by output lines, instead of building
/// its patches: of kWindowProductMinFeatures features or more, or of fewer
/// into a multiple of kWindowProductOutputMultiple outputs (fewer outputs
/// would leave a register tile of an odd width).
inline bool isWindowProductShape(int64_t features, int64_t outputs) {
  return features > 0 && outputs > 0 &&
         (features >= kWindowProductMinFeatures ||
          outputs % kWindowProductOutputMultiple == 0);
}

} // namespace kiln

#endif // KILN_LOWERING_LINALG_WINDOWPRODUCTS_H
