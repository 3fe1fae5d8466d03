//===- ShardingPipeline.cpp - the kiln-sharding-pipeline ------------------===//
#include "Passes.h"
#include "passes/expand/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kiln::buildKilnShardingPipeline(OpPassManager &pm) {
  // Propagation and partitioning see no transformation op.
  pm.addPass(createKilnExpandTransforms());
  pm.addPass(createKilnResolveLogicalAxes());
  pm.addPass(createKilnPropagateSharding());
  pm.addPass(createKilnPartition());
  // Resharding the same value twice gives the same collectives.
  pm.addPass(createCSEPass());
}

bool kiln::isSharded(ModuleOp module) {
  if (module.getOps<MeshOp>().empty())
    return false;
  StringRef name = KilnDialect::kShardingAttrName;
  WalkResult found = module.walk([&](Operation *op) {
    if (isa<ShardingConstraintOp>(op))
      return WalkResult::interrupt();
    auto fn = dyn_cast<func::FuncOp>(op);
    if (!fn)
      return WalkResult::advance();
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (fn.getArgAttr(i, name))
        return WalkResult::interrupt();
    for (unsigned i = 0; i < fn.getNumResults(); ++i)
      if (fn.getResultAttr(i, name))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

void kiln::registerKilnShardingPipeline() {
  PassPipelineRegistration<>(
      "kiln-sharding-pipeline",
      "Partition a sharded program for its mesh's devices: expand the "
      "transformations, resolve logical axes, propagate shardings, "
      "partition, merge repeated collectives",
      [](OpPassManager &pm) { buildKilnShardingPipeline(pm); });
}
