//===- Passes.h - every pass and rule on kiln IR ----------------*- C++ -*-===//
//
// The transformations on `kiln` IR: kiln-expand-transforms,
// kiln-specialize-shapes, kiln-resolve-logical-axes and the per-op
// rules its engines attach to the kiln ops as external models.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_PASSES_H
#define KILN_PASSES_PASSES_H

#include "passes/expand/Passes.h"
#include "passes/grad/Jvp.h"
#include "passes/jit/Passes.h"
#include "passes/sharding/Passes.h"
#include "passes/grad/Vjp.h"
#include "passes/vmap/Vmap.h"

namespace kiln {

/// Registers every pass on kiln IR.
inline void registerAllKilnPasses() {
  registerKilnExpandPasses();
  registerKilnJitPasses();
  registerKilnShardingPasses();
}

/// Attaches every engine's per-op rules to the kiln ops.
inline void registerAllKilnRules(mlir::DialectRegistry &registry) {
  registerJvpRules(registry);
  registerTransposeRules(registry);
  registerBatchingRules(registry);
  registerShardingRules(registry);
}

} // namespace kiln

#endif // KILN_PASSES_PASSES_H
