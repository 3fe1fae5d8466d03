//===- Passes.h - sharding of kiln programs --------------------*- C++ -*-===//
#ifndef KILN_PASSES_SHARDING_PASSES_H
#define KILN_PASSES_SHARDING_PASSES_H

#include "kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL
#include "passes/sharding/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/sharding/Passes.h.inc"

/// Attaches the sharding rule of every kiln op (ShardingRuleOpInterface).
void registerShardingRules(mlir::DialectRegistry &registry);

} // namespace kiln

#endif // KILN_PASSES_SHARDING_PASSES_H
