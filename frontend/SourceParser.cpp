//===- SourceParser.cpp - kiln programs from untrusted text ---------------===//
#include "SourceParser.h"
#include "InputLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

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
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

} // namespace kiln
