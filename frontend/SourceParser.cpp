//===- SourceParser.cpp - kiln programs from untrusted text ---------------===//
#include "SourceParser.h"
#include "InputLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

namespace kiln {

OwningOpRef<ModuleOp> parseKilnSource(llvm::SourceMgr &sourceMgr,
                                      MLIRContext &context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (std::optional<llvm::SMLoc> deep =
          findExcessiveNesting(buffer->getBuffer())) {
    auto [line, column] = sourceMgr.getLineAndColumn(*deep);
    emitError(FileLineColLoc::get(&context, buffer->getBufferIdentifier(), line,
                                  column))
        << excessiveNestingMessage();
    return nullptr;
  }
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

} // namespace kiln
