//===- KilnSpecializeShapes.cpp - the kiln-specialize-shapes pass ---------===//
//
// Types flow forward once: a function's arguments get their sizes, then each
// op in order takes the result types its operands imply (its region first
// when it has one), then the function's results take what it returns. Calls
// of functions with dynamic dimensions go to copies specialized the same way.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

#include <map>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNSPECIALIZESHAPES
#include "passes/jit/Passes.h.inc"
} // namespace kiln

namespace {

/// Checks that `given` may stand for `declared`: tensors of one rank and
/// element type whose static sizes agree. `what` names the value.
LogicalResult checkAgrees(function_ref<InFlightDiagnostic()> emit,
                          const Twine &what, Type declared, Type given) {
  auto from = dyn_cast<RankedTensorType>(declared);
  auto to = dyn_cast<RankedTensorType>(given);
  bool agrees = from && to && from.getElementType() == to.getElementType() &&
                from.getRank() == to.getRank();
  for (int64_t d = 0; agrees && d < from.getRank(); ++d)
    agrees = from.isDynamicDim(d) || from.getDimSize(d) == to.getDimSize(d);
  if (!agrees)
    return emit() << what << " has type " << declared << " but is given "
                  << given;
  return success();
}

/// Checks that `fn` may take arguments of `types`; `emit` reports where.
LogicalResult checkArgumentsAgree(func::FuncOp fn, TypeRange types,
                                  function_ref<InFlightDiagnostic()> emit) {
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip_equal(fn.getArgumentTypes(), types))) {
    auto [declared, given] = pair;
    if (failed(checkAgrees(emit,
                           "argument #" + Twine(i) + " of @" + fn.getSymName(),
                           declared, given)))
      return failure();
  }
  return success();
}

/// Gives `op`'s results `types`.
void setResultTypes(Operation *op, TypeRange types) {
  for (auto [result, type] : llvm::zip_equal(op->getResults(), types))
    result.setType(type);
}

/// `types` as MLIR prints them, comma-separated.
std::string textOf(TypeRange types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(types, os);
  return text;
}

class Specializer {
public:
  explicit Specializer(ModuleOp module) : symbols(module) {}

  /// Gives `fn`'s arguments `types` (checked by checkArgumentsAgree) and
  /// everything in it the sizes they imply, then verifies it.
  LogicalResult specialize(func::FuncOp fn, TypeRange types) {
    if (fn.isExternal())
      return fn.emitError("@") << fn.getSymName()
                               << " has no body to specialize";
    Block &body = fn.getBody().front();
    for (auto [argument, type] : llvm::zip_equal(body.getArguments(), types))
      argument.setType(type);
    if (failed(specializeBlock(body)))
      return failure();
    // The return's operands had the declared result types before: they
    // agree with them now.
    fn.setType(FunctionType::get(fn.getContext(), types,
                                 body.getTerminator()->getOperandTypes()));
    // Sizes that disagree (adding 8 rows to 9) fail the ops' verifiers.
    return verify(fn);
  }

private:
  LogicalResult specializeBlock(Block &block) {
    for (Operation &op : block)
      if (failed(specializeOp(&op)))
        return failure();
    return success();
  }

  LogicalResult specializeOp(Operation *op) {
    if (auto call = dyn_cast<func::CallOp>(op))
      return specializeCall(call);
    if (auto transform = dyn_cast<kiln::TransformOpInterface>(op))
      return transform.specializeCallees(
          [&](FlatSymbolRefAttr name, TypeRange types) {
            return calleeFor(symbols.lookup<func::FuncOp>(name.getValue()), op,
                             types);
          });
    auto rule = dyn_cast<kiln::ShapeSpecializationOpInterface>(op);
    if (rule)
      rule.specializeRegionArguments();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (failed(specializeBlock(block)))
          return failure();
    SmallVector<Type> types;
    if (rule) {
      if (failed(rule.specializeResultTypes(types)))
        return failure();
    } else if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      if (failed(infer.inferReturnTypes(
              op->getContext(), op->getLoc(), op->getOperands(),
              op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
              op->getRegions(), types)))
        return failure();
    } else {
      // Constants, iota and terminators: their result types are their own.
      return success();
    }
    setResultTypes(op, types);
    return success();
  }

  /// Points `call` at its callee specialized for its operands.
  LogicalResult specializeCall(func::CallOp call) {
    FailureOr<func::FuncOp> callee =
        calleeFor(symbols.lookup<func::FuncOp>(call.getCallee()), call,
                  call.getOperandTypes());
    if (failed(callee))
      return failure();
    call.setCallee(callee->getSymName());
    setResultTypes(call, callee->getResultTypes());
    return success();
  }

  /// `fn` if it takes `types`, else its copy specialized for them (made
  /// once) for `user`, which calls or transforms it.
  FailureOr<func::FuncOp> calleeFor(func::FuncOp fn, Operation *user,
                                    TypeRange types) {
    if (TypeRange(fn.getArgumentTypes()) == types)
      return fn;
    std::string key = fn.getSymName().str() + "(" + textOf(types) + ")";
    if (auto known = copies.find(key); known != copies.end())
      return known->second;
    if (failed(checkArgumentsAgree(fn, types,
                                   [&] { return user->emitOpError(); })))
      return failure();
    auto copy = fn.clone();
    copy.setPrivate();
    copy.setSymName((fn.getSymName() + "_specialized").str());
    symbols.insert(copy, std::next(fn->getIterator()));
    copies.emplace(key, copy);
    if (failed(specialize(copy, types))) {
      user->emitRemark("while specializing @")
          << fn.getSymName() << " for " << key.substr(fn.getSymName().size())
          << " here";
      return failure();
    }
    return copy;
  }

  SymbolTable symbols;
  std::map<std::string, func::FuncOp> copies;
};

struct KilnSpecializeShapesPass
    : kiln::impl::KilnSpecializeShapesBase<KilnSpecializeShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    Specializer specializer(module);
    if (failed(specializeEntry(specializer))) {
      signalPassFailure();
      return;
    }
    for (func::FuncOp fn : functions)
      if (fn.isPrivate() && kiln::hasDynamicSignature(fn) &&
          SymbolTable::symbolKnownUseEmpty(fn, module))
        fn.erase();
  }

  LogicalResult specializeEntry(Specializer &specializer) {
    ModuleOp module = getOperation();
    auto fn = module.lookupSymbol<func::FuncOp>(entry);
    if (!fn || !fn.isPublic())
      return module.emitError("kiln-specialize-shapes: entry '")
             << entry << "' names no public function";
    if (argTypes.size() != fn.getNumArguments())
      return fn.emitError("@")
             << entry << " takes " << fn.getNumArguments()
             << " arguments but arg-types gives " << argTypes.size();
    SmallVector<Type> types;
    for (const std::string &text : argTypes) {
      Type type = parseType(text, module.getContext());
      if (!type)
        return fn.emitError("arg-types entry '") << text << "' is no type";
      types.push_back(type);
    }
    if (failed(checkArgumentsAgree(fn, types, [&] { return fn.emitError(); })))
      return failure();
    return specializer.specialize(fn, types);
  }
};
} // namespace
