//===- Rules.h - how the op families attach their evaluation rules -*- C++ -*-===//
#ifndef KILN_INTERPRETER_RULES_H
#define KILN_INTERPRETER_RULES_H

#include "interpreter/Evaluation.h"
#include "kiln/KilnDialect.h"

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

/// Each op family's rules (ElementwiseRules.cpp, ...).
void attachElementwiseRules(mlir::MLIRContext *context);
void attachDataMovementRules(mlir::MLIRContext *context);
void attachComputeRules(mlir::MLIRContext *context);
void attachControlFlowRules(mlir::MLIRContext *context);

} // namespace kiln

#endif // KILN_INTERPRETER_RULES_H
