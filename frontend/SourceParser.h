//===- SourceParser.h - kiln programs from untrusted text ------*- C++ -*-===//
#ifndef KILN_FRONTEND_SOURCEPARSER_H
#define KILN_FRONTEND_SOURCEPARSER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

namespace kiln {

/// Parses and verifies the textual kiln program in `sourceMgr`'s main
/// buffer, refusing nesting past kMaxNestingDepth first; a module of
/// StableHLO ops (a JAX export) is imported into kiln ops
/// (kiln-import-stablehlo). Diagnostics go to
/// the context's handler. Call it on a stack from runWithLargeStack.
mlir::OwningOpRef<mlir::ModuleOp> parseKilnSource(llvm::SourceMgr &sourceMgr,
                                                  mlir::MLIRContext &context);

} // namespace kiln

#endif // KILN_FRONTEND_SOURCEPARSER_H
