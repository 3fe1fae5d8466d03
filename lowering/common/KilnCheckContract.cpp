//===- KilnCheckContract.cpp - the kiln-check-contract pass ---------------===//
#include "Passes.h"
#include "kiln/KilnDialect.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNCHECKCONTRACT
#include "lowering/common/Passes.h.inc"
} // namespace kiln

namespace {
/// Why `op` can be left behind, for the diagnostic.
StringRef reasonFor(Operation *op) {
  if (isa<kiln::TransformOpInterface>(op))
    return "kiln-expand-transforms does not expand this transformation yet "
           "(it expands kiln.jvp)";
  return "no pattern of this stage lowers it";
}

struct KilnCheckContractPass
    : kiln::impl::KilnCheckContractBase<KilnCheckContractPass> {
  using KilnCheckContractBase::KilnCheckContractBase;
  void runOnOperation() override {
    llvm::StringSet<> allowed;
    allowed.insert("builtin");
    for (const std::string &dialect : allowedDialects)
      allowed.insert(dialect);
    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (allowed.contains(op->getName().getDialectNamespace()))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName() << "' was left unlowered by "
                      << stage << ": " << reasonFor(op);
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
