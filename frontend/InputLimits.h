//===- InputLimits.h - guards for untrusted textual input ------*- C++ -*-===//
//
// MLIR's parser, verifier, printer and walks recurse once per level of
// nesting, so a deep enough input overflows any stack. Kiln's tools refuse
// such input with a located diagnostic, and run on a stack deep enough for
// everything they accept.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_INPUTLIMITS_H
#define KILN_FRONTEND_INPUTLIMITS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include <optional>
#include <string>

namespace kiln {

/// The deepest bracket nesting ({, [, ( and <) the tools accept; far beyond
/// any real program.
inline constexpr unsigned kMaxNestingDepth = 1000;

/// The first bracket in `text` nested deeper than `limit`, skipping string
/// literals and comments, or nullopt if there is none.
std::optional<llvm::SMLoc> findExcessiveNesting(llvm::StringRef text,
                                                unsigned limit = kMaxNestingDepth);

/// The error at the first bracket of the main file of `sourceMgr` nested
/// deeper than kMaxNestingDepth, or nullopt if there is none.
std::optional<llvm::SMDiagnostic>
findNestingError(const llvm::SourceMgr &sourceMgr);

/// Runs `body` on a thread whose stack holds kMaxNestingDepth levels of every
/// recursive MLIR walk with room to spare, and returns what it returns.
int runWithLargeStack(llvm::function_ref<int()> body);

} // namespace kiln

#endif // KILN_FRONTEND_INPUTLIMITS_H
