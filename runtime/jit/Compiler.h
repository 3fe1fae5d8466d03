//===- Compiler.h - kiln source to LLVM IR, for the JIT and AOT -*- C++ -*-===//
#ifndef KILN_RUNTIME_JIT_COMPILER_H
#define KILN_RUNTIME_JIT_COMPILER_H

#include "../Internal.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "lowering/Passes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <optional>

#include <string>

namespace kiln::runtime {

/// A kiln program lowered to the LLVM dialect, with its entries.
struct CompiledProgram {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  Manifest manifest;
};

/// Initializes LLVM's native target, once per process.
void initializeNativeTarget();

/// Registers what parsing, lowering and translating a kiln program needs.
void prepareContext(mlir::MLIRContext &context);

/// Parses and verifies the kiln source at `path`, then lowers it through
/// kiln-to-cpu-pipeline up to `stopAfter` (nullopt: not at all). On failure
/// returns an error carrying every diagnostic with its location. Runs on a
/// large stack.
kiln_status_t compileSource(mlir::MLIRContext &context, const char *path,
                            std::optional<CpuStage> stopAfter,
                            CompiledProgram &program);

/// A program in LLVM IR with the target machine it was optimized for.
struct NativeProgram {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
};

/// The LLVM IR of a program lowered to the LLVM dialect, optimized for the
/// host CPU (position-independent, small code model), with the manifest as
/// the global string `kiln_manifest`.
kiln_status_t translateToLLVMIR(const CompiledProgram &program,
                                NativeProgram &native);

/// Writes `module` as an object file or assembly for `machine` to `os`.
kiln_status_t emitMachineCode(llvm::Module &module,
                              llvm::TargetMachine &machine,
                              llvm::raw_pwrite_stream &os, bool assembly);

/// Writes the artifact of a program lowered to the LLVM dialect to `path`:
/// a shared object that kiln_module_load opens.
kiln_status_t writeArtifact(const CompiledProgram &program, const char *path);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_JIT_COMPILER_H
