//===- FuzzParse.cpp - kiln source: parse and verify ----------------------===//
//
// Any text is parsed as a kiln source (JAX's StableHLO included, which is
// imported) and verified: the result is a module or diagnostics, never a
// crash, a hang or unbounded memory.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "compiler/Compiler.h"
#include "frontend/InputLimits.h"
#include "frontend/SourceParser.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *registry = new DialectRegistry;
    kiln::registerAllDialects(*registry);
    return registry;
  }();
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) {});
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "input.mlir"),
      llvm::SMLoc());
  kiln::runWithLargeStack([&] {
    OwningOpRef<ModuleOp> module = kiln::parseKilnSource(sourceMgr, context);
    if (module)
      (void)verify(*module);
    return 0;
  });
  return 0;
}
