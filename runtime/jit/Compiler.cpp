//===- Compiler.cpp - kiln source to the LLVM dialect ---------------------===//
#include "Compiler.h"

#include "frontend/InputLimits.h"
#include "frontend/SourceParser.h"
#include "kiln/KilnDialect.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace kiln::runtime {

void prepareContext(MLIRContext &context) {
  DialectRegistry registry;
  registerKilnCompilerDialects(registry);
  context.appendDialectRegistry(registry);
}

namespace {
/// The runtime dtype of a tensor element type, if it has one.
std::optional<kiln_dtype_t> dtypeOf(Type type) {
  int64_t code = runtimeDtypeCode(type);
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
    entry.text = signatureText(entry);
    manifest.entries.push_back(std::move(entry));
  }
  return success();
}
} // namespace

kiln_status_t compileSource(MLIRContext &context, const char *path,
                            std::optional<CpuStage> stopAfter,
                            CompiledProgram &program) {
  if (!path)
    return error("path: must not be null");
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(path, &errorMessage);
  if (!input)
    return error(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  bool ok = runWithLargeStack([&] {
              program.module = parseKilnSource(sourceMgr, context);
              if (!program.module ||
                  failed(collectManifest(*program.module, program.manifest)))
                return 1;
              if (!stopAfter)
                return 0;
              PassManager pm(&context);
              addPassFailureReport(pm);
              KilnToCpuPipelineOptions options;
              options.stopAfter = *stopAfter;
              buildKilnToCpuPipeline(pm, options);
              return failed(pm.run(*program.module)) ? 1 : 0;
            }) == 0;
  if (ok)
    return nullptr;
  if (diagnostics.empty())
    diagnostics = std::string(path) + ": cannot be compiled";
  while (!diagnostics.empty() && diagnostics.back() == '\n')
    diagnostics.pop_back();
  return error(diagnostics);
}

} // namespace kiln::runtime
