//===- KilnEmitEntryWrappers.cpp - the kiln-emit-entry-wrappers pass ------===//
#include "Passes.h"
#include "kiln/abi.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNEMITENTRYWRAPPERS
#include "lowering/common/Passes.h.inc"
} // namespace kiln

namespace {
constexpr StringLiteral kCInterfacePrefix = "_mlir_ciface_";

struct KilnEmitEntryWrappersPass
    : kiln::impl::KilnEmitEntryWrappersBase<KilnEmitEntryWrappersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> interfaces;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn.getName().starts_with(kCInterfacePrefix) && !fn.isExternal())
        interfaces.push_back(fn);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    for (LLVM::LLVMFuncOp fn : interfaces) {
      emitWrapper(b, ptr, fn);
      emitSignature(b, module, fn);
    }
  }

  /// kiln_signature_NAME: the entry's signature from kiln-prepare-entries,
  /// which the runtime checks an artifact's manifest against.
  static void emitSignature(OpBuilder &b, ModuleOp module,
                            LLVM::LLVMFuncOp interface) {
    StringRef name = interface.getName().drop_front(kCInterfacePrefix.size());
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
    auto signature =
        fn ? fn->getAttrOfType<DenseI64ArrayAttr>(kiln::kEntrySignatureAttrName)
           : DenseI64ArrayAttr();
    if (!signature)
      return;
    ArrayRef<int64_t> values = signature.asArrayRef();
    auto i64 = b.getI64Type();
    auto type = LLVM::LLVMArrayType::get(i64, values.size());
    auto value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(values.size())}, i64), values);
    LLVM::GlobalOp::create(b, interface.getLoc(), type, /*isConstant=*/true,
                           LLVM::Linkage::External,
                           (KILN_SIGNATURE_PREFIX + name).str(), value);
  }

  /// kiln_entry_NAME(ptr %args): calls _mlir_ciface_NAME(args[0], ...),
  /// then fences.
  static void emitWrapper(OpBuilder &b, Type ptr, LLVM::LLVMFuncOp fn) {
    Location loc = fn.getLoc();
    std::string name =
        (KILN_ENTRY_PREFIX + fn.getName().drop_front(kCInterfacePrefix.size()))
            .str();
    auto type =
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(b.getContext()),
                                    {ptr});
    auto wrapper = LLVM::LLVMFuncOp::create(b, loc, name, type);
    OpBuilder::InsertionGuard guard(b);
    Block *body = wrapper.addEntryBlock(b);
    b.setInsertionPointToStart(body);
    SmallVector<Value> args;
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, body->getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
    }
    LLVM::CallOp::create(b, loc, fn, args);
    // Streaming (non-temporal) stores are weakly ordered; a full fence
    // makes the results visible before any later store, such as a flag
    // that hands them to another thread.
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::seq_cst);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
  }
};
} // namespace
