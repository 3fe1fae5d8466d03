//===- Pipelines.cpp - the pipeline halves every target shares ------------===//
#include "Passes.h"
#include "lowering/linalg/Passes.h"
#include "passes/expand/Passes.h"

#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kiln::buildKilnToLinalgPipeline(OpPassManager &pm, bool fuseElementwise,
                                     bool laneReductions, bool windowProducts) {
  pm.addPass(createKilnExpandTransforms());
  pm.addPass(createKilnPrepareEntries());
  pm.addPass(createKilnInlineSingleCalls());
  // The functions transformations were applied to and inlined callees
  // are left unused: nothing compiles them.
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createKilnLowerCollectives());
  pm.addPass(createConvertKilnToLinalg({laneReductions, windowProducts}));
  // memref: the buffers of the runtime's collectives.
  pm.addPass(createKilnCheckContract(
      {{"arith", "bufferization", "func", "linalg", "math", "memref", "scf",
        "tensor"},
       "convert-kiln-to-linalg"}));
  pm.addPass(createCanonicalizerPass());
  if (fuseElementwise)
    pm.addPass(createKilnFuseElementwise());
}

void kiln::buildBufferizationPipeline(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // kiln.while carries values whose buffers may change every iteration.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(createKilnComputePartsInPlace());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Tiled loops bufferize to copies between identical subviews; CSE makes
  // them identical values, which canonicalization then erases.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createKilnCopyRepeatedResults());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createKilnWriteResultsInPlace());
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  pm.addPass(createKilnFreeAfterLastUse());
  pm.addPass(createKilnFreeInCallees());
  pm.addPass(createKilnCopiesToLinalg());
}
