//===- Compiler.cpp - kiln source to the LLVM dialect ---------------------===//
#include "Compiler.h"

#include "frontend/InputLimits.h"
#include "frontend/SourceParser.h"
#include "kiln/KilnDialect.h"
#include "lowering/common/Passes.h"
#include "lowering/cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

using kiln::runtime::EntrySignature;
using kiln::runtime::Manifest;
using kiln::runtime::TensorSpec;

void kiln::prepareContext(MLIRContext &context) {
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
}

namespace {
/// The runtime dtype of a tensor element type, if it has one.
std::optional<kiln_dtype_t> dtypeOf(Type type) {
  int64_t code = kiln::runtimeDtypeCode(type);
  if (code < 0)
    return std::nullopt;
  return static_cast<kiln_dtype_t>(code);
}

/// Appends the spec of each of `types` to `specs`, or reports at `fn` why
/// it cannot be an entry.
LogicalResult collectSpecs(func::FuncOp fn, TypeRange types, StringRef kind,
                           std::vector<TensorSpec> &specs) {
  for (auto [i, type] : llvm::enumerate(types)) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    std::optional<kiln_dtype_t> dtype =
        tensor ? dtypeOf(tensor.getElementType()) : std::nullopt;
    if (!tensor || !tensor.hasStaticShape() || !dtype)
      return fn.emitError("public function @")
             << fn.getName() << " cannot be an entry point: its " << kind
             << " #" << i << " has type " << type
             << "; entries take and return statically shaped tensors (make "
                "helpers private)";
    specs.push_back({*dtype, std::vector<int64_t>(tensor.getShape())});
  }
  return success();
}

/// The entries of `module`: its public functions with bodies.
LogicalResult collectManifest(ModuleOp module, Manifest &manifest) {
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    EntrySignature entry;
    entry.name = fn.getName().str();
    if (entry.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
        std::string::npos)
      return fn.emitError("public function @")
             << fn.getName()
             << " cannot be an entry point: entry names are identifiers";
    if (failed(collectSpecs(fn, fn.getArgumentTypes(), "argument", entry.args)) ||
        failed(collectSpecs(fn, fn.getResultTypes(), "result", entry.results)))
      return failure();
    entry.text = kiln::runtime::signatureText(entry);
    manifest.entries.push_back(std::move(entry));
  }
  return success();
}

/// The CPU pipeline's last stage for `stage` (not Stage::Kiln).
kiln::CpuStage cpuStage(kiln::Stage stage) {
  switch (stage) {
  case kiln::Stage::Linalg:
    return kiln::CpuStage::Linalg;
  case kiln::Stage::Loops:
    return kiln::CpuStage::Loops;
  default:
    return kiln::CpuStage::LLVM;
  }
}

/// The GPU pipeline's last stage for `stage` (not Stage::Kiln).
kiln::GpuStage gpuStage(kiln::Stage stage) {
  switch (stage) {
  case kiln::Stage::Linalg:
    return kiln::GpuStage::Linalg;
  case kiln::Stage::Loops:
    return kiln::GpuStage::Gpu;
  default:
    return kiln::GpuStage::LLVM;
  }
}

/// Sets kiln-to-nvvm-pipeline's options `gpu` from `options`.
void setNvvmOptions(const kiln::CompileOptions &options,
                    kiln::KilnToNvvmPipelineOptions &gpu) {
  gpu.stopAfter = gpuStage(options.stopAfter);
  gpu.chip = options.chip;
  gpu.features = options.features;
  gpu.format = options.gpuBinary;
}

/// Lowers `module` as far as `options` says.
LogicalResult lower(ModuleOp module, const kiln::CompileOptions &options) {
  if (options.stopAfter == kiln::Stage::Kiln)
    return success();
  PassManager pm(module.getContext());
  kiln::addPassFailureReport(pm);
  if (options.target == kiln::Target::Nvptx) {
    kiln::KilnToNvvmPipelineOptions gpu;
    setNvvmOptions(options, gpu);
    kiln::buildKilnToNvvmPipeline(pm, gpu);
  } else {
    kiln::KilnToCpuPipelineOptions cpu;
    cpu.stopAfter = cpuStage(options.stopAfter);
    // The code is compiled for the host (compiler/Artifact.cpp), and its
    // manifest names the features it needs.
    cpu.avx512Bf16 = llvm::sys::getHostCPUFeatures().lookup("avx512bf16");
    kiln::buildKilnToCpuPipeline(pm, cpu);
  }
  return pm.run(module);
}
} // namespace

llvm::Error kiln::compileSource(MLIRContext &context, llvm::StringRef path,
                                const CompileOptions &options,
                                CompiledProgram &program) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(path, &errorMessage);
  if (!input)
    return llvm::createStringError(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  bool ok = runWithLargeStack([&] {
              program.module = parseKilnSource(sourceMgr, context);
              return program.module &&
                             succeeded(collectManifest(*program.module,
                                                       program.manifest)) &&
                             succeeded(lower(*program.module, options))
                         ? 0
                         : 1;
            }) == 0;
  if (ok) {
    if (options.target == Target::Nvptx) {
      program.manifest.device = "cuda";
      program.manifest.chip = options.chip;
    }
    return llvm::Error::success();
  }
  if (diagnostics.empty())
    diagnostics = path.str() + ": cannot be compiled";
  while (!diagnostics.empty() && diagnostics.back() == '\n')
    diagnostics.pop_back();
  return llvm::createStringError(diagnostics);
}

std::vector<std::pair<std::string, std::string>>
kiln::gpuObjects(const CompiledProgram &program) {
  std::vector<std::pair<std::string, std::string>> objects;
  Operation *module = program.module.get();
  module->walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      objects.emplace_back(binary.getName().str(),
                           cast<gpu::ObjectAttr>(object).getObject().str());
  });
  return objects;
}
