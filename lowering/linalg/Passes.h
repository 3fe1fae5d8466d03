//===- Passes.h - kiln to linalg, tensor and scf ----------------*- C++ -*-===//
//
// The target-neutral first layer of every lowering: kiln ops become linalg,
// tensor, arith, math and scf ops on tensors, then elementwise chains fuse.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_LINALG_PASSES_H
#define KILN_LOWERING_LINALG_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace kiln {

#define GEN_PASS_DECL
#include "lowering/linalg/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/linalg/Passes.h.inc"

/// Patterns lowering the kiln op families; together they lower every
/// primitive op.
void populateElementwiseToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateDataMovementToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// `laneReductions`, `windowProducts`: see convert-kiln-to-linalg's
/// options.
void populateComputeToLinalgPatterns(mlir::RewritePatternSet &patterns,
                                     bool laneReductions, bool windowProducts);
void populateControlFlowToScfPatterns(mlir::RewritePatternSet &patterns);
/// All of the above.
void populateKilnToLinalgPatterns(mlir::RewritePatternSet &patterns,
                                  bool laneReductions = true,
                                  bool windowProducts = true);

} // namespace kiln

#endif // KILN_LOWERING_LINALG_PASSES_H
