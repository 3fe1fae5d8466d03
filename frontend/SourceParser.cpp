//===- SourceParser.cpp - kiln programs from untrusted text ---------------===//
#include "SourceParser.h"
#include "InputLimits.h"
#include "frontend/stablehlo/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace kiln {

OwningOpRef<ModuleOp> parseKilnSource(llvm::SourceMgr &sourceMgr,
                                      MLIRContext &context) {
  if (std::optional<llvm::SMDiagnostic> deep = findNestingError(sourceMgr)) {
    // SMDiagnostic counts columns from 0, MLIR locations from 1.
    emitError(FileLineColLoc::get(&context, deep->getFilename(),
                                  deep->getLineNo(), deep->getColumnNo() + 1))
        << deep->getMessage();
    return nullptr;
  }
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return nullptr;
  // A module JAX exported (StableHLO and CHLO ops, Shardy's annotations)
  // becomes kiln IR first; the parser loads their dialects only when it meets them.
  bool exported = context.getLoadedDialect<shlo::StablehloDialect>() ||
                  context.getLoadedDialect<chlo::ChloDialect>() ||
                  context.getLoadedDialect<sdy::SdyDialect>();
  if (exported) {
    PassManager pm(&context);
    pm.addPass(createKilnImportStablehlo());
    if (failed(pm.run(*module)))
      return nullptr;
  }
  return module;
}

} // namespace kiln
