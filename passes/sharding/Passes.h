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

/// kiln-sharding-pipeline: kiln-expand-transforms,
/// kiln-resolve-logical-axes, kiln-propagate-sharding, kiln-partition, cse.
void buildKilnShardingPipeline(mlir::OpPassManager &pm);
void registerKilnShardingPipeline();

/// Whether `module` lays values out over a mesh (a kiln.mesh and a
/// sharding of a function's argument or result or a sharding_constraint):
/// it then runs partitioned on its mesh's devices.
bool isSharded(mlir::ModuleOp module);

/// Attaches the sharding rule of every kiln op (ShardingRuleOpInterface).
void registerShardingRules(mlir::DialectRegistry &registry);

} // namespace kiln

#endif // KILN_PASSES_SHARDING_PASSES_H
