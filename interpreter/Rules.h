//===- Rules.h - how the op families attach their evaluation rules -*- C++ -*-===//
#ifndef KILN_INTERPRETER_RULES_H
#define KILN_INTERPRETER_RULES_H

#include "interpreter/Evaluation.h"
#include "kiln/KilnDialect.h"

#include <algorithm>
#include <cmath>

namespace kiln {

/// An op family's evaluation: computes the results of `evaluation`.
using EvaluationRule = mlir::LogicalResult (*)(Evaluation &evaluation);

/// EvaluateOpInterface for `OpT` through `rule`.
template <typename OpT, EvaluationRule rule>
struct EvaluationModel
    : EvaluateOpInterface::ExternalModel<EvaluationModel<OpT, rule>, OpT> {
  mlir::LogicalResult evaluate(mlir::Operation *, Evaluation &evaluation) const {
    return rule(evaluation);
  }
};

/// Attaches `rule` to each of `Ops`.
template <EvaluationRule rule, typename... Ops>
void attachRule(mlir::MLIRContext *context) {
  (Ops::template attachInterface<EvaluationModel<Ops, rule>>(*context), ...);
}

// Scalar operations more than one family computes with (elementwise ops
// and reductions). Integer arithmetic goes through uint64_t, which wraps;
// HostTensor::setInt then wraps to the element's width, which commutes
// with + and *.
inline int64_t wrapAdd(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) + uint64_t(b));
}
inline int64_t wrapMul(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) * uint64_t(b));
}
inline int64_t intMax(int64_t a, int64_t b) { return std::max(a, b); }
inline int64_t intMin(int64_t a, int64_t b) { return std::min(a, b); }
inline double floatAdd(double a, double b) { return a + b; }
inline double floatMul(double a, double b) { return a * b; }
/// IEEE 754-2019's maximum and minimum (arith.maximumf's): NaN if either
/// is, and -0 below +0, so that the commutative kiln.max and kiln.min do
/// not depend on their operands' order.
inline double floatMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  return a == b ? (std::signbit(a) ? b : a) : std::max(a, b);
}
inline double floatMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  return a == b ? (std::signbit(a) ? a : b) : std::min(a, b);
}

/// Each op family's rules (ElementwiseRules.cpp, ...).
void attachElementwiseRules(mlir::MLIRContext *context);
void attachDataMovementRules(mlir::MLIRContext *context);
void attachComputeRules(mlir::MLIRContext *context);
void attachControlFlowRules(mlir::MLIRContext *context);

} // namespace kiln

#endif // KILN_INTERPRETER_RULES_H
