//===- KernelBuilder.h - building kernels from linalg ops -------*- C++ -*-===//
//
// What the passes that turn linalg ops into gpu.launch bodies share: index
// arithmetic and the op's payload evaluated at one point of its loops.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_GPU_KERNELBUILDER_H
#define KILN_LOWERING_GPU_KERNELBUILDER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace kiln {

/// A gpu.launch of `grid` (x, y, z) blocks of `threads` threads (x) with
/// `workgroup` buffers, its terminator in place; `b` is left at the start
/// of its body (the caller keeps an InsertionGuard).
mlir::gpu::LaunchOp launchKernel(mlir::ImplicitLocOpBuilder &b,
                                 std::array<int64_t, 3> grid, int64_t threads,
                                 mlir::TypeRange workgroup = {});

/// An index constant.
mlir::Value index(mlir::ImplicitLocOpBuilder &b, int64_t value);

/// `flat` as coordinates in a row-major space of `sizes`.
llvm::SmallVector<mlir::Value> delinearize(mlir::ImplicitLocOpBuilder &b,
                                           mlir::Value flat,
                                           llvm::ArrayRef<int64_t> sizes);

/// The indices `map` gives at loop coordinates `ivs`.
llvm::SmallVector<mlir::Value> indicesAt(mlir::ImplicitLocOpBuilder &b,
                                         mlir::AffineMap map,
                                         mlir::ValueRange ivs);

/// The op's payload at loop coordinates `ivs`, with `inputs` as the values
/// of its input block arguments (null where unused) and `accumulators` as
/// its outputs' current values; returns the values it yields. Arithmetic
/// may contract (a multiply and an add become an fma), as in XLA.
llvm::SmallVector<mlir::Value> clonePayload(mlir::ImplicitLocOpBuilder &b,
                                            mlir::linalg::LinalgOp op,
                                            mlir::ValueRange ivs,
                                            mlir::ValueRange inputs,
                                            mlir::ValueRange accumulators);

/// The payload at `ivs` with its inputs loaded from their buffers.
llvm::SmallVector<mlir::Value> emitPayload(mlir::ImplicitLocOpBuilder &b,
                                           mlir::linalg::LinalgOp op,
                                           mlir::ValueRange ivs,
                                           mlir::ValueRange accumulators);

} // namespace kiln

#endif // KILN_LOWERING_GPU_KERNELBUILDER_H
