//===- KilnBoolVectorsAsBytes.cpp - the kiln-bool-vectors-as-bytes pass ---===//
#include "Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNBOOLVECTORSASBYTES
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {

bool isBoolVector(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  return vector && vector.getElementType().isInteger(1);
}

/// `type` (a vector of i1) with bytes for elements.
VectorType asBytes(Type type) {
  return cast<VectorType>(type).clone(IntegerType::get(type.getContext(), 8));
}

/// Makes `op`, an access to memory, move vectors of i1 as vectors of bytes:
/// the values it stores (every vector of i1 operand but `mask`) widened to
/// bytes first, the values it loads narrowed back after.
void widenBoolAccess(Operation *op, OpOperand *mask) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  for (OpOperand &operand : op->getOpOperands())
    if (&operand != mask && isBoolVector(operand.get().getType()))
      operand.set(LLVM::ZExtOp::create(b, loc, asBytes(operand.get().getType()),
                                       operand.get()));
  b.setInsertionPointAfter(op);
  for (OpResult result : op->getResults()) {
    if (!isBoolVector(result.getType()))
      continue;
    Type bools = result.getType();
    result.setType(asBytes(bools));
    auto narrowed = LLVM::TruncOp::create(b, loc, bools, result);
    result.replaceAllUsesExcept(narrowed, narrowed);
  }
}

struct KilnBoolVectorsAsBytesPass
    : kiln::impl::KilnBoolVectorsAsBytesBase<KilnBoolVectorsAsBytesPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (isa<LLVM::LoadOp, LLVM::StoreOp>(op))
        widenBoolAccess(op, nullptr);
      else if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op))
        widenBoolAccess(op, &load.getMaskMutable());
      else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op))
        widenBoolAccess(op, &store.getMaskMutable());
      else if (auto gather = dyn_cast<LLVM::masked_gather>(op))
        widenBoolAccess(op, &gather.getMaskMutable());
      else if (auto scatter = dyn_cast<LLVM::masked_scatter>(op))
        widenBoolAccess(op, &scatter.getMaskMutable());
    });
  }
};

} // namespace
