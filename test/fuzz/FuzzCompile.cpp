//===- FuzzCompile.cpp - kiln source: compile to the LLVM dialect ---------===//
//
// Any text goes through the whole compiler as kiln-compile runs it, to the
// LLVM dialect (transformations expanded, sharding partitioned, the CPU
// pipeline): a program that verifies yields verifying output or an error
// with a diagnostic, never a crash, a hang, or a failure nothing explains.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "compiler/Compiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = kiln::fuzz::writeInput("compile", data, size);
  MLIRContext context(MLIRContext::Threading::DISABLED);
  kiln::prepareContext(context);
  kiln::CompileOptions options;
  options.stopAfter = kiln::Stage::LLVM;
  kiln::CompiledProgram program;
  if (llvm::Error failure =
          kiln::compileSource(context, path, options, program)) {
    // Said when no diagnostic was emitted.
    if (llvm::toString(std::move(failure)) == path + ": cannot be compiled")
      kiln::fuzz::broken("compiling failed without a diagnostic");
    return 0;
  }
  if (failed(verify(*program.module)))
    kiln::fuzz::broken("compiling produced IR that does not verify");
  return 0;
}
