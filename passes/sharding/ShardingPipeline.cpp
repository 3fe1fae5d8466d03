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
  WalkResult found = module.walk([&](Operation *op) {
    auto fn = dyn_cast<func::FuncOp>(op);
    return isa<ShardingConstraintOp>(op) ||
                   (fn && signatureHasAttr(fn, KilnDialect::kShardingAttrName))
               ? WalkResult::interrupt()
               : WalkResult::advance();
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
