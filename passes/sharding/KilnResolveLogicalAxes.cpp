//===- KilnResolveLogicalAxes.cpp - the kiln-resolve-logical-axes pass ----===//
#include "Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNRESOLVELOGICALAXES
#include "passes/sharding/Passes.h.inc"
} // namespace kiln

namespace {

/// The module attribute holding the rules.
constexpr llvm::StringLiteral kRulesAttrName = "kiln.axis_rules";

/// The sharding `rules` give `logical`: each named dimension takes the axis
/// of the first rule for its role whose axis is still unused.
kiln::ShardingAttr resolve(kiln::LogicalAttr logical,
                           kiln::AxisRulesAttr rules) {
  llvm::StringSet<> used;
  SmallVector<SmallVector<StringAttr>> dims;
  for (Attribute name : logical.getNames()) {
    SmallVector<StringAttr> axes;
    StringRef role = cast<StringAttr>(name).getValue();
    for (auto [ruleRole, axis] : llvm::zip(rules.getRoles(), rules.getAxes())) {
      StringRef meshAxis = cast<StringAttr>(axis).getValue();
      if (role.empty() || cast<StringAttr>(ruleRole).getValue() != role ||
          meshAxis.empty() || used.contains(meshAxis))
        continue;
      used.insert(meshAxis);
      axes.push_back(cast<StringAttr>(axis));
      break;
    }
    dims.push_back(axes);
  }
  return kiln::ShardingAttr::getClosed(rules.getMesh(), dims);
}

struct KilnResolveLogicalAxesPass
    : kiln::impl::KilnResolveLogicalAxesBase<KilnResolveLogicalAxesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto rules = module->getAttrOfType<kiln::AxisRulesAttr>(kRulesAttrName);
    // Resolves `layout` (given to a value of `type` by `user`) if it is a
    // logical naming, calling `set` with the sharding.
    auto visit = [&](Operation *user, Attribute layout, Type type,
                     function_ref<void(Attribute)> set,
                     function_ref<InFlightDiagnostic()> emit) -> LogicalResult {
      auto logical = dyn_cast_or_null<kiln::LogicalAttr>(layout);
      if (!logical)
        return success();
      if (!rules) {
        emit() << "a #kiln.logical naming needs the module's "
               << kRulesAttrName;
        return failure();
      }
      kiln::ShardingAttr sharding = resolve(logical, rules);
      set(sharding);
      return kiln::verifyLayout(user, sharding, type, emit);
    };
    StringRef name = kiln::KilnDialect::kShardingAttrName;
    WalkResult result = module.walk([&](Operation *op) {
      LogicalResult status = success();
      if (auto fn = dyn_cast<func::FuncOp>(op)) {
        for (unsigned i = 0; i < fn.getNumArguments() && succeeded(status); ++i)
          status = visit(
              fn, fn.getArgAttr(i, name), fn.getArgumentTypes()[i],
              [&](Attribute a) { fn.setArgAttr(i, name, a); },
              [&] { return fn.emitError() << "argument #" << i << ": "; });
        for (unsigned i = 0; i < fn.getNumResults() && succeeded(status); ++i)
          status = visit(
              fn, fn.getResultAttr(i, name), fn.getResultTypes()[i],
              [&](Attribute a) { fn.setResultAttr(i, name, a); },
              [&] { return fn.emitError() << "result #" << i << ": "; });
      } else if (auto constraint = dyn_cast<kiln::ShardingConstraintOp>(op)) {
        status = visit(
            op, constraint.getSharding(), constraint.getType(),
            [&](Attribute a) { constraint.setShardingAttr(a); },
            [&] { return constraint.emitOpError(); });
      }
      return failed(status) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
