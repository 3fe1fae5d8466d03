//===- KilnCheckTensorSizes.cpp - the kiln-check-tensor-sizes pass --------===//
#include "Passes.h"
#include "kiln/TypeInference.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/Format.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNCHECKTENSORSIZES
#include "lowering/common/Passes.h.inc"
} // namespace kiln

namespace {
struct KilnCheckTensorSizesPass
    : kiln::impl::KilnCheckTensorSizesBase<KilnCheckTensorSizesPass> {
  using KilnCheckTensorSizesBase::KilnCheckTensorSizesBase;

  /// Reports `type` at `op` as `what` ("result #0") if it is too large;
  /// whether it is.
  bool tooLarge(Operation *op, Type type, const Twine &what) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return false;
    std::optional<int64_t> bytes = kiln::staticBytes(tensor);
    if (bytes && uint64_t(*bytes) <= maxBytes)
      return false;
    InFlightDiagnostic diag = op->emitError()
                              << what << " has type " << type << ", of ";
    if (bytes) {
      std::string gib;
      llvm::raw_string_ostream(gib)
          << llvm::format("%.1f", double(maxBytes) / (1 << 30));
      diag << *bytes << " bytes: more than " << limitReason << " (" << gib
           << " GiB)";
    }
    else
      diag << "2^63 bytes or more: no machine can hold it";
    return true;
  }

  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](Operation *op) {
      if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
        for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes()))
          failed |= tooLarge(op, type,
                             "argument #" + Twine(i) + " of @" + fn.getName());
        for (auto [i, type] : llvm::enumerate(fn.getResultTypes()))
          failed |= tooLarge(op, type,
                             "result #" + Twine(i) + " of @" + fn.getName());
      }
      for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
        failed |= tooLarge(op, type, "result #" + Twine(i));
      // A function's entry block arguments are its signature's.
      for (Region &region : op->getRegions())
        for (Block &block : region)
          if (!isa<FunctionOpInterface>(op) || !block.isEntryBlock())
            for (BlockArgument arg : block.getArguments())
              failed |= tooLarge(op, arg.getType(),
                                 "region argument #" + Twine(arg.getArgNumber()));
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
