//===- Jit.cpp - kiln_module_compile: compile in process ------------------===//
#include "../Internal.h"
#include "compiler/Compiler.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"

#include <cstdlib>

using namespace mlir;
using namespace kiln::runtime;

namespace {
/// Code JIT-compiled by MLIR's ExecutionEngine. It owns the context the
/// program was compiled in, which must outlive the engine.
class JitExecutable : public HostExecutable {
public:
  JitExecutable(std::unique_ptr<MLIRContext> context,
                std::unique_ptr<ExecutionEngine> engine)
      : context(std::move(context)), engine(std::move(engine)) {}

protected:
  void *lookup(const std::string &name, std::string &why) override {
    llvm::Expected<void *> address = engine->lookup(name);
    if (!address) {
      why = llvm::toString(address.takeError());
      return nullptr;
    }
    return *address;
  }

private:
  std::unique_ptr<MLIRContext> context;
  std::unique_ptr<ExecutionEngine> engine;
};

} // namespace

namespace {
/// Compiles `path` for the GPU into a temporary artifact and loads it: the
/// kernels are a CUDA binary that the artifact's constructor loads.
kiln_status_t compileForCuda(const char *path, kiln_module_t *out) {
  if (kiln_status_t status = kiln_device_check(KILN_DEVICE_CUDA))
    return status;
  MLIRContext context;
  kiln::prepareContext(context);
  kiln::CompileOptions options;
  options.target = kiln::Target::Nvptx;
  if (const char *chip = std::getenv("KILN_CUDA_CHIP"))
    options.chip = chip;
  kiln::CompiledProgram program;
  if (llvm::Error failure = kiln::compileSource(context, path, options, program))
    return error(llvm::toString(std::move(failure)));
  llvm::SmallString<128> artifact;
  if (std::error_code code = llvm::sys::fs::createTemporaryFile(
          "kiln-cuda", "so", artifact))
    return error("cannot create a temporary artifact: " + code.message());
  llvm::FileRemover remover(artifact);
  if (llvm::Error failure = kiln::writeArtifact(program, artifact))
    return error(llvm::toString(std::move(failure)));
  return kiln_module_load(artifact.c_str(), out);
}
} // namespace

kiln_status_t kiln_module_compile_for(const char *path, kiln_device_t device,
                                      kiln_module_t *out) {
  if (!out)
    return error("out: must not be null");
  *out = nullptr;
  if (!path)
    return error("path: must not be null");
  if (device == KILN_DEVICE_CUDA)
    return compileForCuda(path, out);
  if (device != KILN_DEVICE_CPU)
    return error("device: invalid device " + std::to_string(int(device)));
  kiln::initializeNativeTarget();
  exportRuntimeSymbols();
  auto context = std::make_unique<MLIRContext>();
  kiln::prepareContext(*context);
  kiln::CompiledProgram program;
  if (llvm::Error failure =
          kiln::compileSource(*context, path, kiln::CompileOptions(), program))
    return error(llvm::toString(std::move(failure)));
  // Optimized for the host as kiln-compile's artifacts are: without a
  // target machine, LLVM's passes know nothing of the CPU and the code
  // runs up to twice as slow. The options refer to the transformer and it
  // to the machine; both must outlive create().
  auto host = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!host)
    return error("cannot describe the host CPU: " +
                 llvm::toString(host.takeError()));
  host->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto machine = host->createTargetMachine();
  if (!machine)
    return error("cannot create a target machine: " +
                 llvm::toString(machine.takeError()));
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0,
                                machine->get());
  ExecutionEngineOptions options;
  options.transformer = optimize;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(*program.module, options);
  // The module lives in `context`, which the executable below owns and may
  // free on failure: it must go first.
  program.module = nullptr;
  if (!engine)
    return error(std::string(path) + ": code generation failed: " +
                 llvm::toString(engine.takeError()));
  auto executable =
      std::make_unique<JitExecutable>(std::move(context), std::move(*engine));
  return newModule(std::move(executable), std::move(program.manifest), out);
}

kiln_status_t kiln_module_compile(const char *path, kiln_module_t *out) {
  return kiln_module_compile_for(path, KILN_DEVICE_CPU, out);
}
