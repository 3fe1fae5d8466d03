//===- NvvmPipeline.cpp - kiln-to-nvvm-pipeline ---------------------------===//
//
// kiln -> linalg on tensors -> fused -> bufferized (the CPU's front half and
// runtime ABI) -> parallel loops mapped to blocks and threads -> kernels
// outlined, buffers on the device, one stream per call -> NVVM and the
// LLVM dialect, kernels compiled by gpu-module-to-binary. The stages after
// mapping follow gpu-lower-to-nvvm-pipeline, spelled out as
// ../shared/NVPTX-FACTS.md measured them.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "lowering/common/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;

std::string kiln::cudaToolkitPath(const KilnToNvvmPipelineOptions &options) {
  if (!options.toolkit.empty())
    return options.toolkit;
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    return home;
  return "/usr/local/cuda";
}

int64_t kiln::chipNumber(llvm::StringRef chip) {
  int64_t number = 0;
  if (!chip.consume_front("sm_") ||
      chip.take_while(llvm::isDigit).getAsInteger(10, number))
    return 0;
  return number;
}

namespace {
/// Bufferized loops -> kernels in gpu.launch, host code on device buffers.
void buildMappingStage(OpPassManager &pm,
                       const kiln::KilnToNvvmPipelineOptions &options) {
  OpPassManager &function = pm.nest<func::FuncOp>();
  function.addPass(kiln::createKilnGpuTileMatmuls(
      {/*threadRows=*/4, /*threadColumns=*/4,
       /*tensorCores=*/kiln::chipNumber(options.chip) >= 80}));
  function.addPass(kiln::createKilnGpuMapReductions());
  function.addPass(createConvertLinalgToParallelLoopsPass());
  function.addPass(kiln::createKilnGpuMapParallelLoops({options.blockSize}));
  function.addPass(createConvertParallelLoopToGpuPass());
  function.addPass(createCanonicalizerPass());
  pm.addPass(kiln::createKilnGpuLaunchHostCode());
  pm.addPass(kiln::createKilnGpuDeviceBuffers());
  // math.ipowi becomes a function written in IR, which outlining copies
  // into the kernels' modules.
  pm.addPass(createConvertMathToFuncs());
  // Bounds become constants in the kernels (and known block sizes).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  // Launches, copies and allocations of a call are ordered on one stream.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Kernels to NVVM and a binary, host code to the LLVM dialect.
void buildNvvmStage(OpPassManager &pm,
                    const kiln::KilnToNvvmPipelineOptions &options) {
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  // Kernels first: convert-gpu-to-nvvm turns what NVPTX lacks (arith.remf)
  // into libdevice calls, which host code's arith-to-llvm would not.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = kiln::cudaToolkitPath(options);
  switch (options.format) {
  case kiln::GpuBinaryFormat::Fatbin:
    binary.compilationTarget = "fatbin";
    break;
  case kiln::GpuBinaryFormat::Cubin:
    binary.compilationTarget = "bin";
    break;
  case kiln::GpuBinaryFormat::Ptx:
    binary.compilationTarget = "isa";
    break;
  }
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(kiln::createKilnEmitEntryWrappers());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(kiln::createKilnCheckContract({{"llvm", "gpu"}, "kiln-to-nvvm-pipeline"}));
}
} // namespace

void kiln::buildKilnToNvvmPipeline(OpPassManager &pm,
                                   const KilnToNvvmPipelineOptions &options) {
  // Warps reduce rows as trees (kiln-gpu-map-reductions).
  buildKilnToLinalgPipeline(pm, options.fuseElementwise,
                            /*laneReductions=*/false,
                            /*windowProducts=*/false);
  if (options.stopAfter == GpuStage::Linalg)
    return;
  buildBufferizationPipeline(pm);
  buildMappingStage(pm, options);
  if (options.stopAfter == GpuStage::Gpu)
    return;
  buildNvvmStage(pm, options);
}

void kiln::registerKilnToNvvmPipeline() {
  PassPipelineRegistration<KilnToNvvmPipelineOptions>(
      "kiln-to-nvvm-pipeline",
      "Lower kiln functions to the LLVM dialect with NVVM kernels compiled "
      "for NVIDIA GPUs",
      buildKilnToNvvmPipeline);
}
