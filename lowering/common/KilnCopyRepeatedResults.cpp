//===- KilnCopyRepeatedResults.cpp - the kiln-copy-repeated-results pass --===//
#include "Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNCOPYREPEATEDRESULTS
#include "lowering/common/Passes.h.inc"
} // namespace kiln

namespace {
struct KilnCopyRepeatedResultsPass
    : kiln::impl::KilnCopyRepeatedResultsBase<KilnCopyRepeatedResultsPass> {
  void runOnOperation() override {
    getOperation()->walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      llvm::SmallPtrSet<Value, 8> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<MemRefType>(value.getType());
        if (!type || seen.insert(value).second)
          continue;
        // Each result becomes its own out-parameter: give it its own buffer.
        Value copy = memref::AllocOp::create(b, ret.getLoc(), type,
                                             b.getI64IntegerAttr(64));
        memref::CopyOp::create(b, ret.getLoc(), value, copy);
        operand.set(copy);
      }
    });
  }
};
} // namespace
