//===- LoweringUtils.h - helpers shared by the kiln lowerings --*- C++ -*-===//
#ifndef KILN_LOWERING_LOWERINGUTILS_H
#define KILN_LOWERING_LOWERINGUTILS_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace kiln {

/// Computes one scalar of a linalg.generic body from its block arguments.
using ScalarBody = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// Whether `type` is a float (the lowerings pick arith's float or integer
/// op by it).
inline bool isFloat(mlir::Type type) {
  return mlir::isa<mlir::FloatType>(type);
}

/// `x` widened (exactly) to `type`, a float or an integer (signed): a no-op
/// when it already has it.
mlir::Value widen(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  mlir::Type type);

/// A linalg.generic payload: args[2] + args[0] * args[1] in args[2]'s type
/// (floats or integers), the factors widened to it where narrower (bf16
/// products summed in f32 are exact: a bf16 x bf16 product fits f32's
/// mantissa).
void yieldAccumulatedProduct(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::ValueRange args);

/// An uninitialized tensor of `type`.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type);

/// All of a tensor of `rank` dimensions in one group (none for rank 0): the
/// reassociation that collapses it to 1-D.
llvm::SmallVector<mlir::ReassociationIndices> allInOne(int64_t rank);

/// `value` with the shape of `type` (as many elements, in the same order):
/// collapsed to 1-D, then expanded, each step a view once bufferized. A
/// rank-0 side goes to or from 1-D through an empty reassociation; a 1-D
/// side needs no step.
mlir::Value reshapeTensor(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value, mlir::RankedTensorType type);

/// A tensor of `type` filled with the scalar `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType type, mlir::Value value);

/// An all-parallel linalg.generic producing one tensor of `resultType`:
/// input `i` is read through `inputMaps[i]` and `body` computes each element
/// from the input elements.
mlir::Value buildParallelGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::RankedTensorType resultType,
                                 mlir::ValueRange inputs,
                                 llvm::ArrayRef<mlir::AffineMap> inputMaps,
                                 ScalarBody body);

/// The map from a `rank`-dimensional iteration space to a scalar (rank-0)
/// operand.
mlir::AffineMap scalarMap(mlir::MLIRContext *context, unsigned rank);

/// The scalar constant `value` of the integer or float type `type`.
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Type type, double value);

/// The element of a rank-0 tensor.
mlir::Value extractScalar(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value scalarTensor);

/// `index` (an integer of any width, read as signed) as an `index` clamped
/// into [0, upper].
mlir::Value clampedIndex(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value index, int64_t upper);

/// `value` with dimension `dim` (a multiple of `inner`) split into
/// [dim / inner, inner]: a view, even of a strided slice.
mlir::Value splitDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                     unsigned dim, int64_t inner);

/// Elements [offset, offset + size) of `value` along `dim`.
mlir::Value sliceAlong(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, unsigned dim, int64_t offset,
                       int64_t size);

/// The tensor `value` widened with zeros along `dim` to `size`.
mlir::Value zeroPadded(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, unsigned dim, int64_t size);

/// The loops' dimensions d0 ... d(count - 1).
llvm::SmallVector<mlir::AffineExpr> loopDims(mlir::MLIRContext *context,
                                             unsigned count);

/// The permutation of `rank` dimensions that swaps the last two.
llvm::SmallVector<int64_t> lastTwoSwapped(int64_t rank);

} // namespace kiln

#endif // KILN_LOWERING_LOWERINGUTILS_H
