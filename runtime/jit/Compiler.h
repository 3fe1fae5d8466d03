//===- Compiler.h - kiln source to LLVM IR, for the JIT and AOT -*- C++ -*-===//
#ifndef KILN_RUNTIME_JIT_COMPILER_H
#define KILN_RUNTIME_JIT_COMPILER_H

#include "../Internal.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace kiln::runtime {

/// A kiln program lowered to the LLVM dialect, with its entries.
struct CompiledProgram {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  Manifest manifest;
};

/// Registers what parsing, lowering and translating a kiln program needs.
void prepareContext(mlir::MLIRContext &context);

/// Parses, verifies and lowers the kiln source at `path` through
/// kiln-to-cpu-pipeline. On failure returns an error carrying every
/// diagnostic with its location. Runs on a large stack.
kiln_status_t compileSource(mlir::MLIRContext &context, const char *path,
                            CompiledProgram &program);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_JIT_COMPILER_H
