//===- Passes.h - the gpu mapping and kiln-to-nvvm-pipeline -----*- C++ -*-===//
//
// Mapping bufferized loops to the gpu dialect (kernels, device buffers,
// one stream per call) and the pipeline from kiln to the LLVM dialect with
// NVVM kernels compiled to a CUDA binary.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_GPU_PASSES_H
#define KILN_LOWERING_GPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace kiln {

#define GEN_PASS_DECL
#include "lowering/gpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/gpu/Passes.h.inc"

/// The stages of kiln-to-nvvm-pipeline, each ending in IR one can print.
enum class GpuStage {
  /// linalg, tensor, arith, math and scf on tensors, elementwise ops fused.
  Linalg,
  /// Kernels outlined into gpu.module, host code launching them on one
  /// stream per call, buffers on the device.
  Gpu,
  /// The LLVM dialect: host code with the runtime's entry wrappers and the
  /// kernels as a gpu.binary.
  LLVM,
};

/// What gpu-module-to-binary makes of the kernels.
enum class GpuBinaryFormat {
  /// A fatbin: the cubin for `chip` and the PTX, which newer chips JIT.
  Fatbin,
  /// The cubin for `chip` alone.
  Cubin,
  /// PTX text (the driver compiles it when the module is loaded).
  Ptx,
};

/// Options of kiln-to-nvvm-pipeline.
struct KilnToNvvmPipelineOptions
    : public mlir::PassPipelineOptions<KilnToNvvmPipelineOptions> {
  Option<GpuStage> stopAfter{
      *this, "stop-after", llvm::cl::desc("The last stage to run"),
      llvm::cl::init(GpuStage::LLVM),
      llvm::cl::values(
          clEnumValN(GpuStage::Linalg, "linalg", "linalg on tensors"),
          clEnumValN(GpuStage::Gpu, "gpu", "kernels and host code"),
          clEnumValN(GpuStage::LLVM, "llvm", "the LLVM dialect"))};
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse chains of elementwise ops into one kernel"),
      llvm::cl::init(true)};
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("The GPU to compile for"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (the PTX ISA version)"),
      llvm::cl::init("+ptx80")};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("LLVM optimization level"),
                            llvm::cl::init(3)};
  Option<GpuBinaryFormat> format{
      *this, "format", llvm::cl::desc("What the kernels are compiled to"),
      llvm::cl::init(GpuBinaryFormat::Fatbin),
      llvm::cl::values(
          clEnumValN(GpuBinaryFormat::Fatbin, "fatbin", "cubin and PTX"),
          clEnumValN(GpuBinaryFormat::Cubin, "cubin", "cubin only"),
          clEnumValN(GpuBinaryFormat::Ptx, "ptx", "PTX only"))};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("The CUDA toolkit (ptxas, fatbinary, libdevice); "
                     "empty: $CUDA_HOME, else /usr/local/cuda"),
      llvm::cl::init("")};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};
};

/// The CUDA toolkit `options` name, or $CUDA_HOME, or /usr/local/cuda.
std::string cudaToolkitPath(const KilnToNvvmPipelineOptions &options);

/// The compute capability of `chip` ("sm_90a" -> 90), or 0 if unknown.
int64_t chipNumber(llvm::StringRef chip);

/// Lowers a module of kiln functions to the LLVM dialect for NVIDIA GPUs.
/// Entries have the CPU's ABI (kiln_entry_NAME over memref descriptors)
/// with device pointers in the descriptors; the host code launches the
/// kernels through the mgpu* functions the runtime defines.
void buildKilnToNvvmPipeline(mlir::OpPassManager &pm,
                             const KilnToNvvmPipelineOptions &options);

/// Registers kiln-to-nvvm-pipeline.
void registerKilnToNvvmPipeline();

} // namespace kiln

#endif // KILN_LOWERING_GPU_PASSES_H
