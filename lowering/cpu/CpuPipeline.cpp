//===- CpuPipeline.cpp - kiln-to-cpu-pipeline -----------------------------===//
//
// kiln -> linalg on tensors -> fused -> bufferized, results as out-params
// -> loops -> LLVM dialect, with a contract check after the kiln lowering
// and at the end.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "lowering/common/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kiln::buildKilnToCpuPipeline(OpPassManager &pm,
                                  const KilnToCpuPipelineOptions &options) {
  buildKilnToLinalgPipeline(pm, options.fuseElementwise,
                            /*laneReductions=*/true,
                            /*windowProducts=*/true);
  if (options.stopAfter == CpuStage::Linalg)
    return;

  pm.addPass(createKilnTileAndVectorize(
      {options.vectorWidth, options.registerTileM, options.registerTileN,
       options.cacheTileM, options.cacheTileN, options.cacheTileK,
       options.parallelWork, options.packPanels, options.avx512Bf16,
       options.avx512Vnni || options.avx2, options.avx512Vnni,
       options.avx512Bf16 && options.amxBf16, options.vectorBytes}));
  pm.addPass(createCanonicalizerPass());

  buildBufferizationPipeline(pm);
  if (options.avx512Bf16 && options.amxBf16)
    pm.addPass(createKilnLowerAmxTiles());
  pm.addPass(
      createKilnVectorizeCopies({options.vectorWidth, options.parallelWork}));
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createKilnLowerVectors({options.streamingBytes, options.avx512Bf16,
                                     options.avx512Vnni, options.avx2}));
  pm.addPass(createKilnLowerForalls());
  pm.addPass(createKilnHoistLoopBuffers());
  pm.addPass(createKilnCarryExtremaAsKeys(
      {options.vectorBytes, options.vectorRegisters}));
  pm.addPass(createCSEPass());
  if (options.stopAfter == CpuStage::Loops)
    return;
  if (options.approximateMath)
    pm.addPass(createKilnApproximateMath());
  // bf16 and f16 arithmetic computes in f32 and rounds each result, which
  // is exact for single ops, and bf16 <-> f32 conversions become integer
  // arithmetic: LLVM cannot legalize odd-sized vectors of bf16.
  pm.addPass(createKilnWidenNarrowMath());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16", "f16"};
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(createKilnExpandArith());
  // math.ipowi and math.fpowi become functions written in IR.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Buffers come from MLIR's generic allocation functions, which the
  // runtime defines (runtime/Allocation.cpp) to report an allocation
  // failure to the caller of the entry instead of returning null.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useAlignedAlloc = true;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createKilnBoolVectorsAsBytes());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createKilnEmitEntryWrappers());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createKilnStoreNarrowFloatBits());
  // OpenMP regions stay as omp ops: LLVM IR translation outlines them.
  pm.addPass(createKilnCheckContract({{"llvm", "omp"}, "kiln-to-cpu-pipeline"}));
}

void kiln::registerKilnToCpuPipeline() {
  PassPipelineRegistration<KilnToCpuPipelineOptions>(
      "kiln-to-cpu-pipeline",
      "Lower kiln functions to the LLVM dialect for the CPU",
      buildKilnToCpuPipeline);
}
