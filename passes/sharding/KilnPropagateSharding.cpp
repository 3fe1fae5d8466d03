//===- KilnPropagateSharding.cpp - the kiln-propagate-sharding pass -------===//
//
// Shardy's propagation (sdy/transforms/propagation): shardings flow from the
// user's annotations across every op through its factor rule
// (ShardingRuleOpInterface), into and out of regions and across calls, in
// both directions. A dimension, once known, keeps its axes, so the result
// depends only on the order of priorities: the annotations, then ops that
// only pass dimensions through (elementwise, reshape, transpose, ...), then
// dots and reductions. Where two shardings of a factor meet, the one of
// better priority wins, then the earlier operand (results last).
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

#include <deque>

using namespace mlir;
using namespace kiln;

namespace kiln {
#define GEN_PASS_DEF_KILNPROPAGATESHARDING
#include "passes/sharding/Passes.h.inc"
} // namespace kiln

namespace {

using Axes = SmallVector<StringAttr>;

/// The priorities, best first: a dimension known at a better one is never
/// overruled by one known later.
enum Priority { kAnnotation = 0, kPassThroughOps = 1, kAllOps = 2 };

/// Where a dimension's axes came from: an annotation and the ops crossed
/// since (for `explain`).
struct Origin {
  std::string annotation;
  SmallVector<Operation *> path;
  int priority;
};

/// What propagation knows of a value: per dimension, its axes (nullopt:
/// not yet known) and their origin; the axes it must not use.
struct Known {
  SmallVector<std::optional<Axes>> dims;
  SmallVector<const Origin *> origins;
  SmallVector<StringAttr> replicated;
};

/// `op`'s name and, where known, its line: "kiln.add at line 7".
std::string describe(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (auto file = op->getLoc()->findInstanceOf<FileLineColLoc>())
    text += " at line " + std::to_string(file.getLine());
  return text;
}

std::string print(const Axes &axes) {
  if (axes.empty())
    return "whole";
  std::string text = "{";
  for (auto [i, axis] : llvm::enumerate(axes))
    text += (i ? ", \"" : "\"") + axis.getValue().str() + "\"";
  return text + "}";
}

class Propagation {
public:
  Propagation(ModuleOp module, bool explain)
      : module(module), explain(explain) {}

  LogicalResult run() {
    if (failed(seedAll()))
      return failure();
    if (!meshName)
      return success(); // Nothing is sharded.
    // Propagation changes attributes only: the ops are collected once.
    SmallVector<Operation *> ops;
    for (auto fn : module.getOps<func::FuncOp>())
      fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (op != fn)
          ops.push_back(op);
      });
    for (Priority stage : {kPassThroughOps, kAllOps})
      while (sweep(ops, stage)) {
      }
    write();
    return success();
  }

private:
  //===--------------------------------------------------------------------===//
  // Annotations
  //===--------------------------------------------------------------------===//

  LogicalResult seedAll() {
    StringRef name = KilnDialect::kShardingAttrName;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      if (hasDynamicSignature(fn))
        return fn.emitError("sharding propagation needs static shapes; run "
                            "kiln-specialize-shapes first");
      std::string of = " of @" + fn.getName().str();
      for (auto [i, arg] : llvm::enumerate(fn.getArguments()))
        if (failed(seed(arg, fn.getArgAttr(i, name), fn,
                        "the sharding of argument " + std::to_string(i) + of)))
          return failure();
      auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
      for (unsigned i = 0; i < fn.getNumResults(); ++i)
        if (failed(seed(ret.getOperand(i), fn.getResultAttr(i, name), fn,
                        "the sharding of result " + std::to_string(i) + of)))
          return failure();
      WalkResult walk = fn.walk([&](Operation *op) {
        if (op == fn)
          return WalkResult::advance();
        if (auto constraint = dyn_cast<ShardingConstraintOp>(op))
          if (failed(seed(constraint.getResult(), constraint.getSharding(),
                          op, "the " + describe(op))))
            return WalkResult::interrupt();
        if (!isa<ShardingRuleOpInterface, func::CallOp, func::ReturnOp,
                 YieldOp>(op)) {
          op->emitOpError("has no sharding rule; sharding propagation runs "
                          "after kiln-expand-transforms");
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
    }
    return success();
  }

  /// Seeds `v` with `layout` (if any), which `user` gives it.
  LogicalResult seed(Value v, Attribute layout, Operation *user,
                     std::string annotation) {
    if (!layout)
      return success();
    auto sharding = dyn_cast<ShardingAttr>(layout);
    if (!sharding)
      return user->emitError() << annotation
                               << " is a logical naming; run "
                                  "kiln-resolve-logical-axes first";
    if (failed(useMesh(user, sharding.getMesh())))
      return failure();
    origins.push_back({std::move(annotation), {}, kAnnotation});
    Known &k = entry(v);
    for (Attribute axis : sharding.getReplicated())
      k.replicated.push_back(cast<StringAttr>(axis));
    for (auto [d, axes] : llvm::enumerate(sharding.getDims())) {
      auto list = cast<ArrayAttr>(axes).getAsRange<StringAttr>();
      if (k.dims[d] || (sharding.getOpen()[d] && list.empty()))
        continue;
      k.dims[d] = Axes(list.begin(), list.end());
      k.origins[d] = &origins.back();
    }
    return success();
  }

  LogicalResult useMesh(Operation *user, FlatSymbolRefAttr mesh) {
    if (!meshName)
      meshName = mesh;
    if (mesh == meshName)
      return success();
    return user->emitError() << "shards over " << mesh
                             << ", but the program is sharded over "
                             << meshName << "; one program uses one mesh";
  }

  Known &entry(Value v) {
    auto [it, inserted] = known.try_emplace(v);
    if (inserted) {
      int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
      it->second.dims.resize(rank);
      it->second.origins.resize(rank, nullptr);
    }
    return it->second;
  }

  //===--------------------------------------------------------------------===//
  // Moving shardings
  //===--------------------------------------------------------------------===//

  /// One pass over `ops`, forward then backward; whether any dimension
  /// became known.
  bool sweep(ArrayRef<Operation *> ops, Priority stage) {
    bool changed = false;
    for (Operation *op : ops)
      changed |= visit(op, stage);
    for (Operation *op : llvm::reverse(ops))
      changed |= visit(op, stage);
    return changed;
  }

  bool visit(Operation *op, Priority stage) {
    if (auto call = dyn_cast<func::CallOp>(op))
      return crossCall(call);
    auto withRule = dyn_cast<ShardingRuleOpInterface>(op);
    if (!withRule)
      return false;
    ShardingRule rule = withRule.getShardingRule();
    if (stage == kPassThroughOps &&
        llvm::is_contained(rule.factorKinds, FactorKind::Reduction))
      return false;
    bool changed = crossOp(op, rule, stage);
    for (auto [inside, operand] : rule.tiedArguments)
      changed |= tie(inside, op->getOperand(operand), op);
    for (auto [inside, outside] : rule.tiedYields)
      changed |= tie(inside->get(), outside, op);
    return changed;
  }

  /// The axes a factor takes and where they come from.
  struct Choice {
    std::optional<Axes> axes;
    const Origin *origin = nullptr;
  };

  /// Moves shardings across `op` by its factors.
  bool crossOp(Operation *op, const ShardingRule &rule, Priority stage) {
    SmallVector<std::pair<Value, ArrayRef<int64_t>>> sides;
    for (auto [operand, factors] :
         llvm::zip_equal(op->getOperands(), rule.operandFactors))
      sides.emplace_back(operand, factors);
    for (auto [result, factors] :
         llvm::zip_equal(op->getResults(), rule.resultFactors))
      sides.emplace_back(result, factors);
    SmallVector<Choice> choices(rule.factorSizes.size());
    for (auto [v, factors] : sides) {
      auto it = known.find(v);
      if (it == known.end())
        continue;
      for (auto [d, f] : llvm::enumerate(factors)) {
        const std::optional<Axes> &axes = it->second.dims[d];
        if (f < 0 || !axes || rule.factorKinds[f] == FactorKind::NeedReplication)
          continue;
        const Origin *origin = it->second.origins[d];
        Choice &choice = choices[f];
        if (choice.origin && *choice.axes != *axes)
          reportConflict(op, f, choice, *axes, origin);
        if (!choice.origin || origin->priority < choice.origin->priority)
          choice = {*axes, origin};
      }
    }
    bool changed = false;
    for (auto [v, factors] : sides)
      for (auto [d, f] : llvm::enumerate(factors))
        if (f >= 0 && choices[f].origin)
          changed |= assign(v, d, *choices[f].axes, rule.factorSizes[f],
                            through(choices[f].origin, op, stage));
    return changed;
  }

  /// Gives dimension `d` of `v`, if unknown, `axes` that it can take: axes
  /// it does not use elsewhere or exclude, splitting `factorSize` and the
  /// dimension evenly.
  bool assign(Value v, int64_t d, const Axes &axes, int64_t factorSize,
              const Origin *origin) {
    Known &k = entry(v);
    if (k.dims[d])
      return false;
    int64_t devices = 1;
    for (StringAttr axis : axes) {
      for (const std::optional<Axes> &other : k.dims)
        if (other && llvm::is_contained(*other, axis))
          return false;
      if (llvm::is_contained(k.replicated, axis))
        return false;
      devices *= *mesh().getAxisSize(axis.getValue());
    }
    int64_t size = cast<RankedTensorType>(v.getType()).getDimSize(d);
    if (size % devices || factorSize % devices)
      return false;
    k.dims[d] = axes;
    k.origins[d] = origin;
    return true;
  }

  /// Makes `a` and `b` (of one type) alike where one is known; `via` is
  /// the op or call that ties them.
  bool tie(Value a, Value b, Operation *via) {
    bool changed = false;
    for (auto [from, to] : {std::pair(a, b), std::pair(b, a)}) {
      auto it = known.find(from);
      if (it == known.end())
        continue;
      Known source = it->second;
      for (auto [d, axes] : llvm::enumerate(source.dims))
        if (axes)
          changed |= assign(to, d, *axes, cast<RankedTensorType>(
                                              to.getType()).getDimSize(d),
                            through(source.origins[d], via,
                                    source.origins[d]->priority));
    }
    return changed;
  }

  /// A call's operands are its callee's arguments; its results are what
  /// the callee returns.
  bool crossCall(func::CallOp call) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
    if (!callee || callee.isExternal())
      return false;
    bool changed = false;
    for (auto [operand, arg] :
         llvm::zip_equal(call.getOperands(), callee.getArguments()))
      changed |= tie(operand, arg, call);
    auto ret = cast<func::ReturnOp>(callee.getBody().back().getTerminator());
    for (auto [result, returned] :
         llvm::zip_equal(call.getResults(), ret.getOperands()))
      changed |= tie(result, returned, call);
    return changed;
  }

  /// `from` continued through `op`, at no better priority than `stage`.
  const Origin *through(const Origin *from, Operation *op, int stage) {
    const Origin *&cached = extended[{from, op}];
    if (!cached) {
      Origin next = *from;
      next.path.push_back(op);
      next.priority = std::max(from->priority, stage);
      origins.push_back(std::move(next));
      cached = &origins.back();
    }
    return cached;
  }

  void reportConflict(Operation *op, int64_t factor, const Choice &choice,
                      const Axes &other, const Origin *otherOrigin) {
    if (!explain || !conflicts.insert({op, factor}).second)
      return;
    bool keep = choice.origin->priority <= otherOrigin->priority;
    const Origin *winner = keep ? choice.origin : otherOrigin;
    const Origin *loser = keep ? otherOrigin : choice.origin;
    op->emitRemark() << "shardings meet here: takes "
                     << print(keep ? *choice.axes : other) << " from "
                     << explainOrigin(winner) << " over "
                     << print(keep ? other : *choice.axes) << " from "
                     << explainOrigin(loser);
  }

  //===--------------------------------------------------------------------===//
  // Results
  //===--------------------------------------------------------------------===//

  MeshOp mesh() {
    if (!meshOp)
      meshOp = SymbolTable::lookupNearestSymbolFrom<MeshOp>(module, meshName);
    return meshOp;
  }

  /// The sharding `v` ends with: its known axes, other dimensions whole.
  ShardingAttr shardingOf(Value v) {
    SmallVector<Axes> dims;
    for (const std::optional<Axes> &axes : entry(v).dims)
      dims.push_back(axes.value_or(Axes()));
    return ShardingAttr::getClosed(meshName, dims);
  }

  /// Writes every value's sharding: function arguments and results (a
  /// result the user annotated keeps its annotation: the partitioner
  /// reshards to it), and `kiln.shardings` on ops with results.
  void write() {
    StringRef name = KilnDialect::kShardingAttrName;
    Builder b(module.getContext());
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      for (auto [i, arg] : llvm::enumerate(fn.getArguments())) {
        fn.setArgAttr(i, name, shardingOf(arg));
        explainValue(arg, fn.getLoc(),
                     "argument " + std::to_string(i) + " of @" +
                         fn.getName().str());
      }
      auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
      for (unsigned i = 0; i < fn.getNumResults(); ++i)
        if (!fn.getResultAttr(i, name))
          fn.setResultAttr(i, name, shardingOf(ret.getOperand(i)));
      fn.walk([&](Operation *op) {
        if (op->getNumResults() == 0 || isa<func::FuncOp>(op))
          return;
        SmallVector<Attribute> shardings;
        for (Value result : op->getResults()) {
          shardings.push_back(shardingOf(result));
          explainValue(result, op->getLoc(),
                       "result " + std::to_string(
                                       cast<OpResult>(result).getResultNumber()) +
                           " of " + describe(op));
        }
        op->setAttr(KilnDialect::kShardingsAttrName,
                    b.getArrayAttr(shardings));
      });
    }
  }

  std::string explainOrigin(const Origin *origin) {
    std::string text = origin->annotation;
    for (auto [i, op] : llvm::enumerate(origin->path))
      text += (i ? ", " : " through ") + describe(op);
    return text;
  }

  /// With `explain`, says at `loc` why `v` (`what`) has its sharding.
  void explainValue(Value v, Location loc, const std::string &what) {
    if (!explain)
      return;
    Known &k = entry(v);
    InFlightDiagnostic remark = emitRemark(loc) << what << " is "
                                                << shardingOf(v) << ": ";
    for (auto [d, axes] : llvm::enumerate(k.dims)) {
      remark << (d ? "; " : "") << "dimension " << d;
      if (axes)
        remark << " " << print(*axes) << ", from "
               << explainOrigin(k.origins[d]);
      else
        remark << " whole (no sharding reaches it)";
    }
  }

  ModuleOp module;
  bool explain;
  FlatSymbolRefAttr meshName;
  MeshOp meshOp;
  DenseMap<Value, Known> known;
  std::deque<Origin> origins;
  DenseMap<std::pair<const Origin *, Operation *>, const Origin *> extended;
  DenseSet<std::pair<Operation *, int64_t>> conflicts;
};

struct KilnPropagateShardingPass
    : kiln::impl::KilnPropagateShardingBase<KilnPropagateShardingPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(Propagation(getOperation(), explain).run()))
      signalPassFailure();
  }
};

} // namespace
