//===- WindowProducts.h - convolutions read in place -----------*- C++ -*-===//
//
// convert-kiln-to-linalg's window products contract a convolution's padded
// input itself instead of its patches (im2col). Which convolutions take
// them is decided here, header only, next to the features from which
// kiln-tile-and-vectorize schedules them as matmuls.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_LINALG_WINDOWPRODUCTS_H
#define KILN_LOWERING_LINALG_WINDOWPRODUCTS_H

#include "mlir/IR/Types.h"

#include <cstdint>

namespace kiln {

/// Input features from which a window position contracts enough steps
/// between loads and stores of its accumulators to be a matmul of its own;
/// with fewer, each register tile sums every window position and feature
/// before it is stored (kiln-tile-and-vectorize).
constexpr int64_t kWindowProductMinFeatures = 16;

/// Whether a convolution of `features` input features whose input, kernel
/// and product have the element types given reads its padded input in
/// place, by output lines, however few its features and outputs: where the
/// three are one type; of bf16 or f16 (summed in f32), only with fewer than
/// kWindowProductMinFeatures features, widened to f32 first (with more, the
/// patches' matmul multiplies bf16 pairs: a 3 x 3 layer of 64 bf16
/// features ran 5% slower widened; of 3 into 16 or 32, 2x faster). Against
/// the patches (outputs that were no multiple of 16 kept them until
/// 2026-11-29), alternated on one thread: a 5 x 5 convolution of 12
/// features into 20 on 8 x 32 x 32, 1.53 -> 0.78 ms (PyTorch 1.0); 7 x 7
/// stride 2 of 3 into 12 2.0-2.5x faster; of 1 feature into 3 (its taps
/// feature-major before) 1.2x slower.
inline bool isWindowProduct(mlir::Type input, mlir::Type kernel,
                            mlir::Type product, int64_t features) {
  bool narrow = product.isBF16() || product.isF16();
  return input == kernel && kernel == product &&
         (!narrow || features < kWindowProductMinFeatures);
}

} // namespace kiln

#endif // KILN_LOWERING_LINALG_WINDOWPRODUCTS_H
