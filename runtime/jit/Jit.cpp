//===- Jit.cpp - kiln_module_compile: compile in process ------------------===//
#include "../Internal.h"
#include "compiler/Compiler.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"

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

kiln_status_t kiln_module_compile(const char *path, kiln_module_t *out) {
  if (!out)
    return error("out: must not be null");
  *out = nullptr;
  if (!path)
    return error("path: must not be null");
  kiln::initializeNativeTarget();
  exportAllocationFunctions();
  auto context = std::make_unique<MLIRContext>();
  kiln::prepareContext(*context);
  kiln::CompiledProgram program;
  if (llvm::Error failure =
          kiln::compileSource(*context, path, kiln::CompileOptions(), program))
    return error(llvm::toString(std::move(failure)));
  // The options refer to the transformer; it must outlive create().
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0,
                                /*targetMachine=*/nullptr);
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
