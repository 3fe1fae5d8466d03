//===- TypeInference.h - shape inference of the kiln ops -------*- C++ -*-===//
//
// Shape inference runs both in verifiers (with an op) and in builders (with
// only a location), so its diagnostics go through an `EmitError` callback.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TYPEINFERENCE_H
#define KILN_TYPEINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace kiln {

using EmitError = llvm::function_ref<mlir::InFlightDiagnostic()>;

/// An error emitter for `inferReturnTypes`, which gets an optional location;
/// its messages start with the op name, as an op's own errors do.
struct OptionalEmitter {
  std::optional<mlir::Location> loc;
  mlir::MLIRContext *context;
  llvm::StringRef opName;
  /// Emits at `loc`, or at an unknown location when there is none.
  mlir::InFlightDiagnostic operator()() const;
};

/// Checks that each of `dims` (attribute `what`) is in [0, rank) and that no
/// dimension repeats.
mlir::LogicalResult verifyDimensionList(EmitError emitError,
                                        llvm::StringRef what,
                                        llvm::ArrayRef<int64_t> dims,
                                        int64_t rank);

/// Checks that one dimension (attribute `what`) is in [0, rank).
mlir::LogicalResult verifyDimension(EmitError emitError, llvm::StringRef what,
                                    int64_t dim, int64_t rank);

/// Checks that `list` (attribute `what`) has one entry per dimension.
mlir::LogicalResult verifyRankMatches(EmitError emitError, llvm::StringRef what,
                                      llvm::ArrayRef<int64_t> list,
                                      int64_t rank);

/// The shape without the given dimensions, which are in range.
llvm::SmallVector<int64_t> dropDimensions(llvm::ArrayRef<int64_t> shape,
                                          llvm::ArrayRef<int64_t> dims);

/// The shape of `kiln.dot_general`'s result: the batching dimensions (in
/// lhs order), then lhs's free dimensions, then rhs's, each in order.
llvm::SmallVector<int64_t> dotGeneralShape(
    llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
    llvm::ArrayRef<int64_t> lhsBatch, llvm::ArrayRef<int64_t> rhsBatch,
    llvm::ArrayRef<int64_t> lhsContract, llvm::ArrayRef<int64_t> rhsContract);

/// The number of elements of `shape`'s static dimensions, or nullopt if it
/// overflows int64.
std::optional<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape);

/// The bytes one element of `type` takes in memory: whole bytes (an i1
/// takes one), 8 for an index, twice its part for a complex number, and 1
/// for an element type that has no width (a dialect's own).
int64_t elementBytes(mlir::Type type);

/// The bytes the static dimensions of `type` (a ranked tensor, memref or
/// vector of any element type) take, or nullopt if 2^63 or more.
std::optional<int64_t> staticBytes(mlir::ShapedType type);

/// Whether the static dimensions of `type` (a ranked tensor) take fewer
/// than 2^63 bytes.
bool hasAddressableSize(mlir::Type type);

/// Whether two dimension sizes are both known and differ: a dynamic size
/// agrees with any other until specialization.
inline bool sizesConflict(int64_t a, int64_t b) {
  return !mlir::ShapedType::isDynamic(a) && !mlir::ShapedType::isDynamic(b) &&
         a != b;
}

/// The shape `kiln.take` gives: `operand` with dimension `dim` replaced by
/// the whole of `indices`.
llvm::SmallVector<int64_t> takeShape(llvm::ArrayRef<int64_t> operand,
                                     llvm::ArrayRef<int64_t> indices,
                                     int64_t dim);

} // namespace kiln

#endif // KILN_TYPEINFERENCE_H
