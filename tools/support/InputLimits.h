//===- InputLimits.h - guards for untrusted textual input ------*- C++ -*-===//
//
// MLIR's parser, verifier, printer and walks recurse once per level of
// nesting, so a deep enough input overflows any stack. Kiln's tools refuse
// such input with a located diagnostic, and run on a stack deep enough for
// everything they accept.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_SUPPORT_INPUTLIMITS_H
#define KILN_TOOLS_SUPPORT_INPUTLIMITS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/SourceMgr.h"

namespace kiln {

/// The deepest bracket nesting ({, [, ( and <) the tools accept; far beyond
/// any real program.
inline constexpr unsigned kMaxNestingDepth = 1000;

/// Checks that no bracket in buffer `bufferId` of `sourceMgr` nests deeper
/// than `limit`, skipping string literals and comments. Reports the first
/// bracket past the limit as an error at its location.
mlir::LogicalResult checkNestingDepth(const llvm::SourceMgr &sourceMgr,
                                      unsigned bufferId,
                                      unsigned limit = kMaxNestingDepth);

/// Runs `body` on a thread whose stack holds kMaxNestingDepth levels of every
/// recursive MLIR walk with room to spare, and returns what it returns.
int runWithLargeStack(llvm::function_ref<int()> body);

} // namespace kiln

#endif // KILN_TOOLS_SUPPORT_INPUTLIMITS_H
