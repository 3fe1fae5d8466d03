//===- BatchBuilders.h - moving and adding batch dimensions ----*- C++ -*-===//
//
// Small builders shared by the vmap engine and the per-op batching rules. A
// batch dimension of -1 means "not batched".
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_VMAP_BATCHBUILDERS_H
#define KILN_PASSES_VMAP_BATCHBUILDERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kiln {

/// `type` with a dimension of `size` inserted at `dim`.
mlir::RankedTensorType batchedType(mlir::Type type, int64_t dim, int64_t size);

/// `v`, batched at `from`, with its batch dimension moved to `to` (a
/// transpose, or `v` itself).
mlir::Value moveBatchDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         int64_t from, int64_t to);

/// `v` batched at `to`: moved there from `from`, or, if `from` is -1,
/// broadcast to `size` copies along a new dimension `to`.
mlir::Value batchAt(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    int64_t from, int64_t to, int64_t size);

} // namespace kiln

#endif // KILN_PASSES_VMAP_BATCHBUILDERS_H
