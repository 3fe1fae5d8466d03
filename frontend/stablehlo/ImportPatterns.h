//===- ImportPatterns.h - kiln-import-stablehlo's pattern families -*- C++ -*-===//
//
// The pattern families of kiln-import-stablehlo that live in their own
// files, and the helpers they share with the pass.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_STABLEHLO_IMPORTPATTERNS_H
#define KILN_FRONTEND_STABLEHLO_IMPORTPATTERNS_H

#include "kiln/KilnDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace kiln::stablehlo_import {

/// What a reduction's body does to its accumulator and element, as kiln
/// writes it.
struct Combiner {
  /// The reduction over dimensions, and the elementwise op that folds in
  /// an init value.
  mlir::Value (*reduce)(mlir::OpBuilder &, mlir::Location, mlir::Type,
                        mlir::Value, mlir::DenseI64ArrayAttr);
  mlir::Value (*combine)(mlir::OpBuilder &, mlir::Location, mlir::Value,
                         mlir::Value);
  /// Whether a constant init value leaves the result alone.
  bool (*isIdentity)(mlir::Attribute);
};

/// The kiln form of a reduction whose body applies `body` (an op of the
/// stablehlo dialect) to its accumulator and element, if Kiln has one;
/// on booleans (`isBool`) `or` and `and` (which add and maximum, multiply
/// and minimum are there).
std::optional<Combiner> combinerOf(mlir::Operation *body, bool isBool);

/// Kiln's precision for the highest of StableHLO's `precisions` and
/// `least`; null for DEFAULT (kiln's default too).
kiln::PrecisionAttr precisionOf(mlir::MLIRContext *context,
                                std::optional<mlir::ArrayAttr> precisions,
                                int least);

/// A kiln.constant of `type` holding `value` (an attribute of its element
/// type) in every element.
mlir::Value splat(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::RankedTensorType type, mlir::Attribute value);

/// A kiln.constant of `type` (of integers) holding `value` everywhere.
mlir::Value splat(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::RankedTensorType type, int64_t value);

/// Floats as signed integers of their width in TOTALORDER's order (-NaN <
/// -inf < ... < -0 < +0 < ... < inf < NaN): their bits, those of negative
/// floats but the sign flipped, as IEEE 754's totalOrder and XLA read them.
mlir::Value totalOrderKey(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value x);

/// A kiln.while running `body` for i = 0, ..., count - 1 on `carried`
/// (given i as a tensor<i64> and the carried values, it builds and returns
/// their next values); the final carried values.
mlir::SmallVector<mlir::Value> countedLoop(
    mlir::OpBuilder &b, mlir::Location loc, int64_t count,
    mlir::ValueRange carried,
    llvm::function_ref<mlir::SmallVector<mlir::Value>(mlir::Value,
                                                      mlir::ValueRange)>
        body);

/// Whether `type` is a tensor of booleans.
bool isBoolTensor(mlir::Type type);

/// The ops a body of a reduction of n tensors (2n arguments: the
/// accumulators, then the elements) applies to each tensor on its own: op i
/// of (accumulator i, element i), in order, giving result i; empty where
/// the body is not that.
llvm::SmallVector<mlir::Operation *> appliedOps(mlir::Region &body);

/// The op a body (of a reduction or scatter of one tensor) applies to its
/// arguments in order, returning its result, or null.
mlir::Operation *appliedOp(mlir::Region &body);

/// Bit counting, next_after and square (ImportBits.cpp).
void populateBitPatterns(mlir::RewritePatternSet &patterns);

/// Why such an `op` cannot be imported, if it cannot.
std::optional<std::string> unsupportedBits(mlir::Operation *op);

/// stablehlo.gather and stablehlo.scatter (ImportGatherScatter.cpp).
void populateGatherScatterPatterns(mlir::RewritePatternSet &patterns);

/// Why a gather or scatter `op` cannot be imported, if it cannot.
std::optional<std::string> unsupportedGatherScatter(mlir::Operation *op);

/// Elementwise functions kiln has no op for (ImportMath.cpp).
void populateMathPatterns(mlir::RewritePatternSet &patterns);

/// Why such a function `op` cannot be imported, if it cannot.
std::optional<std::string> unsupportedMath(mlir::Operation *op);

/// Unsigned integers (ImportUnsigned.cpp): marks the ops whose meaning
/// depends on signedness, refuses what Kiln cannot import (integers of 8 or
/// 16 bits) at its location, and makes every unsigned type signless.
mlir::LogicalResult importUnsigned(mlir::ModuleOp module);

/// The patterns of the ops marked unsigned.
void populateUnsignedPatterns(mlir::RewritePatternSet &patterns);

/// chlo.top_k and stablehlo.sort (ImportSort.cpp).
void populateSortPatterns(mlir::RewritePatternSet &patterns);

/// Why such an `op` cannot be imported, if it cannot.
std::optional<std::string> unsupportedSort(mlir::Operation *op);

/// stablehlo.convolution, reduce_window and select_and_scatter
/// (ImportWindows.cpp).
void populateWindowPatterns(mlir::RewritePatternSet &patterns);

/// Why such an `op` cannot be imported, if it cannot.
std::optional<std::string> unsupportedWindows(mlir::Operation *op);

} // namespace kiln::stablehlo_import

#endif // KILN_FRONTEND_STABLEHLO_IMPORTPATTERNS_H
