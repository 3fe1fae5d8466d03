//===- KilnPrepareEntries.cpp - the kiln-prepare-entries pass -------------===//
#include "Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "kiln/KilnDialect.h"
#include "kiln/abi.h"
#include "kiln/runtime.h"

#include <functional>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNPREPAREENTRIES
#include "lowering/common/Passes.h.inc"
} // namespace kiln

namespace {
/// The functions of `module` that `fn` names (calls, transformation ops).
SmallVector<func::FuncOp> callees(func::FuncOp fn, SymbolTable &symbols) {
  SmallVector<func::FuncOp> result;
  fn.walk([&](Operation *op) {
    for (NamedAttribute attr : op->getAttrs())
      if (auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue()))
        if (auto callee = symbols.lookup<func::FuncOp>(ref.getValue()))
          result.push_back(callee);
  });
  return result;
}

/// Reports the first cycle of calls among the functions of `module`: the
/// code has static shapes and no stack to grow, so recursion cannot be
/// compiled (a loop is written with kiln.while or kiln.scan).
LogicalResult checkNoRecursion(ModuleOp module) {
  SymbolTable symbols(module);
  enum class State { Unvisited, OnPath, Done };
  llvm::DenseMap<Operation *, State> state;
  SmallVector<func::FuncOp> path;
  std::function<LogicalResult(func::FuncOp)> visit =
      [&](func::FuncOp fn) -> LogicalResult {
    state[fn] = State::OnPath;
    path.push_back(fn);
    for (func::FuncOp callee : callees(fn, symbols)) {
      if (state[callee] == State::Done)
        continue;
      if (state[callee] == State::OnPath) {
        InFlightDiagnostic diag = callee.emitError("function @")
                                  << callee.getName()
                                  << " is recursive, which Kiln cannot "
                                     "compile (write loops with kiln.while "
                                     "or kiln.scan): ";
        auto cycle = llvm::find(path, callee);
        for (auto it = cycle; it != path.end(); ++it)
          diag << "@" << it->getName() << " -> ";
        diag << "@" << callee.getName();
        return failure();
      }
      if (failed(visit(callee)))
        return failure();
    }
    path.pop_back();
    state[fn] = State::Done;
    return success();
  };
  for (auto fn : module.getOps<func::FuncOp>())
    if (state[fn] == State::Unvisited && failed(visit(fn)))
      return failure();
  return success();
}
} // namespace

int64_t kiln::runtimeDtypeCode(Type type) {
  if (type.isF32())
    return KILN_F32;
  if (type.isF64())
    return KILN_F64;
  if (type.isF16())
    return KILN_F16;
  if (type.isBF16())
    return KILN_BF16;
  if (type.isInteger(1))
    return KILN_I1;
  if (type.isInteger(8))
    return KILN_I8;
  if (type.isInteger(16))
    return KILN_I16;
  if (type.isInteger(32))
    return KILN_I32;
  if (type.isInteger(64))
    return KILN_I64;
  return -1;
}

namespace {
/// The entry signature the runtime checks an artifact's manifest against:
/// {length, #args, #results, then per tensor: dtype, rank, dims...}; none
/// if a type is not a statically shaped tensor of a runtime dtype.
std::optional<SmallVector<int64_t>> entrySignature(FunctionType type) {
  SmallVector<int64_t> signature = {0, int64_t(type.getNumInputs()),
                                    int64_t(type.getNumResults())};
  for (TypeRange types : {TypeRange(type.getInputs()),
                          TypeRange(type.getResults())})
    for (Type t : types) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape() ||
          kiln::runtimeDtypeCode(tensor.getElementType()) < 0)
        return std::nullopt;
      signature.push_back(kiln::runtimeDtypeCode(tensor.getElementType()));
      signature.push_back(tensor.getRank());
      llvm::append_range(signature, tensor.getShape());
    }
  signature[0] = signature.size();
  return signature;
}

/// Makes each result of `fn` that reuses a donated argument's buffer
/// (donatedBuffers) be computed into that argument, which becomes
/// writable: in place where bufferization can, else copied there after the
/// argument's last read.
void donateBuffers(func::FuncOp fn) {
  SmallVector<int64_t> donated = kiln::donatedBuffers(fn);
  if (llvm::all_of(donated, [](int64_t argument) { return argument < 0; }))
    return;
  fn->setAttr(kiln::kDonatedBuffersAttrName,
              DenseI64ArrayAttr::get(fn.getContext(), donated));
  Operation *terminator = fn.getBody().front().getTerminator();
  OpBuilder builder(terminator);
  for (auto [result, argument] : llvm::enumerate(donated)) {
    if (argument < 0)
      continue;
    fn.setArgAttr(argument,
                  bufferization::BufferizationDialect::kWritableAttrName,
                  BoolAttr::get(fn.getContext(), true));
    Value value = terminator->getOperand(result);
    auto into = bufferization::MaterializeInDestinationOp::create(
        builder, value.getLoc(), value, fn.getArgument(argument));
    terminator->setOperand(result, into.getResult());
  }
}

struct KilnPrepareEntriesPass
    : kiln::impl::KilnPrepareEntriesBase<KilnPrepareEntriesPass> {
  void runOnOperation() override {
    if (failed(checkNoRecursion(getOperation())))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    auto readOnly = BoolAttr::get(context, false);
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn.isPublic() || fn.isExternal())
        continue;
      for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
        fn.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                      readOnly);
        // Only the runtime's jit reads it (a static argument's value is
        // baked in before this pass; here it is an ordinary argument).
        fn.removeArgAttr(i, kiln::KilnDialect::kStaticAttrName);
      }
      donateBuffers(fn);
      for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
        fn.removeArgAttr(i, kiln::KilnDialect::kDonateAttrName);
      fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(context));
      fn->setAttr(kiln::kEntryAlignmentAttrName,
                  IntegerAttr::get(IntegerType::get(context, 64),
                                   KILN_BUFFER_ALIGNMENT));
      if (std::optional<SmallVector<int64_t>> signature =
              entrySignature(fn.getFunctionType()))
        fn->setAttr(kiln::kEntrySignatureAttrName,
                    DenseI64ArrayAttr::get(context, *signature));
    }
  }
};
} // namespace

SmallVector<int64_t> kiln::donatedBuffers(func::FuncOp fn) {
  SmallVector<int64_t> donated(fn.getNumResults(), -1);
  for (unsigned argument = 0; argument < fn.getNumArguments(); ++argument) {
    if (!fn.getArgAttr(argument, KilnDialect::kDonateAttrName))
      continue;
    for (auto [result, type] : llvm::enumerate(fn.getResultTypes()))
      if (donated[result] < 0 &&
          type == fn.getArgumentTypes()[argument]) {
        donated[result] = argument;
        break;
      }
  }
  return donated;
}

std::vector<std::string> kiln::donationReport(func::FuncOp fn) {
  SmallVector<int64_t> donated = donatedBuffers(fn);
  std::vector<std::string> lines;
  for (unsigned argument = 0; argument < fn.getNumArguments(); ++argument) {
    if (!fn.getArgAttr(argument, KilnDialect::kDonateAttrName))
      continue;
    std::string line;
    llvm::raw_string_ostream os(line);
    os << "@" << fn.getName() << ": argument " << argument << " ("
       << fn.getArgumentTypes()[argument] << ", kiln.donate) ";
    auto result = llvm::find(donated, int64_t(argument));
    if (result != donated.end())
      os << "donated: result " << (result - donated.begin())
         << " reuses its buffer";
    else
      os << "not donated: no result of its type is left for it";
    lines.push_back(line);
  }
  return lines;
}
