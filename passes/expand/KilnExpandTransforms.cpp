//===- KilnExpandTransforms.cpp - the kiln-expand-transforms pass ---------===//
#include "Passes.h"
#include "passes/grad/Vjp.h"
#include "passes/scan/CheckpointedScan.h"
#include "passes/scan/Scan.h"
#include "passes/vmap/Vmap.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <functional>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNEXPANDTRANSFORMS
#include "passes/expand/Passes.h.inc"
} // namespace kiln

namespace {

/// The functions `fn` calls or transforms (a transformation op may name
/// several: custom_vjp's fwd and bwd), in order of appearance.
SmallVector<func::FuncOp> referencedFunctions(func::FuncOp fn,
                                              SymbolTable &symbols) {
  SmallVector<func::FuncOp> referenced;
  fn.walk([&](Operation *op) {
    if (!isa<func::CallOp, kiln::TransformOpInterface>(op))
      return;
    for (NamedAttribute attr : op->getAttrs())
      if (auto name = dyn_cast<FlatSymbolRefAttr>(attr.getValue()))
        if (auto callee = symbols.lookup<func::FuncOp>(name.getValue()))
          referenced.push_back(callee);
  });
  return referenced;
}

/// The batch size of `vmap`: its axis_size, else the size of a batched
/// operand along its axis (the verifier checked they agree).
int64_t batchSize(kiln::VmapOp vmap) {
  if (std::optional<int64_t> size = vmap.getAxisSize())
    return *size;
  for (auto [operand, axis] : llvm::zip(vmap.getOperands(), vmap.getInAxes()))
    if (axis != -1)
      return cast<RankedTensorType>(operand.getType()).getDimSize(axis);
  return 0; // Unreachable: the verifier asks for axis_size.
}

/// Replaces `op` by a call of `fn` on the same operands.
void replaceByCall(Operation *op, func::FuncOp fn) {
  OpBuilder b(op);
  auto call = func::CallOp::create(b, op->getLoc(), fn, op->getOperands());
  op->replaceAllUsesWith(call.getResults());
  op->erase();
}

/// Checks that every transformation op has static types: the engines build
/// constants and broadcasts of their operands' sizes.
LogicalResult checkStaticShapes(ModuleOp module) {
  auto isDynamic = [](Type type) {
    return !cast<ShapedType>(type).hasStaticShape();
  };
  WalkResult result = module.walk([&](kiln::TransformOpInterface op) {
    if (llvm::none_of(op->getOperandTypes(), isDynamic) &&
        llvm::none_of(op->getResultTypes(), isDynamic))
      return WalkResult::advance();
    op->emitOpError("has dynamic dimensions: give them sizes first "
                    "(kiln-specialize-shapes, or call the entry through "
                    "the jit)");
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

struct KilnExpandTransformsPass
    : kiln::impl::KilnExpandTransformsBase<KilnExpandTransformsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkStaticShapes(module)))
      return signalPassFailure();
    SymbolTable symbols(module);
    // Scans with a checkpoint budget become nested scans of checkpointed
    // segments first, ordinary functions the walk below expands.
    if (failed(kiln::nestCheckpointedScans(module, symbols)))
      return signalPassFailure();
    OpPassManager simplify(func::FuncOp::getOperationName());
    simplify.addPass(createCanonicalizerPass());
    simplify.addPass(createCSEPass());
    // Generated functions are simplified as soon as they are built, so that
    // what builds on them (reverse mode splits a JVP) sees their final form.
    auto tidy = [&](func::FuncOp fn) { return runPipeline(simplify, fn); };
    kiln::JvpBuilder jvps(symbols, tidy);
    kiln::VjpBuilder vjps(symbols, tidy);
    kiln::VmapBuilder vmaps(symbols, tidy);
    kiln::ScanBuilder scans(symbols, tidy);
    auto buildExpansion = [&](Operation *op) -> FailureOr<func::FuncOp> {
      if (auto jvp = dyn_cast<kiln::JvpOp>(op))
        return jvps.getOrBuild(symbols.lookup<func::FuncOp>(jvp.getCallee()));
      if (auto scan = dyn_cast<kiln::ScanOp>(op))
        // I64Attr getters return uint64_t: read them as signed.
        return scans.getOrBuild(
            symbols.lookup<func::FuncOp>(scan.getCallee()),
            int64_t(scan.getNumCarry()), int64_t(scan.getLength()),
            scan.getReverse(), int64_t(scan.getUnroll()), scan.getLoc());
      if (auto vmap = dyn_cast<kiln::VmapOp>(op))
        return vmaps.getOrBuild(symbols.lookup<func::FuncOp>(vmap.getCallee()),
                                vmap.getInAxes(), vmap.getOutAxes(),
                                batchSize(vmap));
      return vjps.getOrBuild(op);
    };
    enum class State { Unvisited, OnPath, Done };
    DenseMap<Operation *, State> state;
    // Expands the functions `fn` references, then the ops in `fn`.
    std::function<LogicalResult(func::FuncOp)> expand =
        [&](func::FuncOp fn) -> LogicalResult {
      state[fn] = State::OnPath;
      for (func::FuncOp callee : referencedFunctions(fn, symbols)) {
        if (state[callee] == State::OnPath)
          return fn.emitError("function @")
                 << fn.getName() << " reaches @" << callee.getName()
                 << ", which reaches it back: recursive functions cannot be "
                    "transformed";
        if (state[callee] == State::Unvisited && failed(expand(callee)))
          return failure();
      }
      SmallVector<Operation *> ops;
      fn.walk([&](Operation *op) {
        if (isa<kiln::JvpOp, kiln::VjpOp, kiln::GradOp, kiln::ValueAndGradOp,
                kiln::VmapOp, kiln::ScanOp>(op))
          ops.push_back(op);
      });
      for (Operation *op : ops) {
        FailureOr<func::FuncOp> expansion = buildExpansion(op);
        if (failed(expansion)) // The failing op has said why.
          return failure();
        replaceByCall(op, *expansion);
      }
      state[fn] = State::Done;
      return success();
    };
    // Generated functions are added while walking; they need no expansion.
    auto given = llvm::to_vector(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : given)
      if (state[fn] == State::Unvisited && failed(expand(fn)))
        return signalPassFailure();
    // What is left of a custom_vjp or a checkpoint, once nothing
    // differentiates it any more, is a call of its function.
    module.walk([](Operation *op) {
      if (isa<kiln::CustomVjpOp, kiln::CheckpointOp>(op))
        replaceByCall(op, SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                              op, op->getAttrOfType<FlatSymbolRefAttr>(
                                      "callee")));
    });
    eraseUnusedGenerated(module, given, symbols);
  }

  /// Removes the generated functions nothing references any more (a JVP
  /// that reverse mode split).
  void eraseUnusedGenerated(ModuleOp module, ArrayRef<func::FuncOp> given,
                            SymbolTable &symbols) {
    // Counts the references to each function once; erasing one drops the
    // references it makes, which may leave another unused.
    DenseMap<Operation *, unsigned> references;
    auto forEachReferenced = [&](Region *region,
                                 function_ref<void(Operation *)> visit) {
      if (std::optional<SymbolTable::UseRange> uses =
              SymbolTable::getSymbolUses(region))
        for (const SymbolTable::SymbolUse &use : *uses)
          if (Operation *fn =
                  symbols.lookup(use.getSymbolRef().getRootReference()))
            visit(fn);
    };
    forEachReferenced(&module.getBodyRegion(),
                      [&](Operation *fn) { ++references[fn]; });
    llvm::DenseSet<Operation *> user(given.begin(), given.end());
    SmallVector<Operation *> unused;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!user.contains(fn) && !references.lookup(fn))
        unused.push_back(fn);
    while (!unused.empty()) {
      Operation *fn = unused.pop_back_val();
      forEachReferenced(&fn->getRegion(0), [&](Operation *callee) {
        if (--references[callee] == 0 && !user.contains(callee))
          unused.push_back(callee);
      });
      symbols.erase(fn);
    }
  }
};

} // namespace
