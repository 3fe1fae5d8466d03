//===- Registration.cpp - everything a kiln compiler context needs --------===//
//
// The one file that includes the umbrella registration headers: every
// dialect, the external interface models bufferization and convert-to-llvm
// rely on, and the LLVM IR translations.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "kiln/KilnDialect.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void kiln::registerKilnCompilerDialects(mlir::DialectRegistry &registry) {
  registry.insert<KilnDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}
