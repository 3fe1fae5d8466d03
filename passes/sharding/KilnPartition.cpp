//===- KilnPartition.cpp - the kiln-partition pass ------------------------===//
//
// GSPMD's partitioner (XLA's spmd_partitioner, Shardy's export): once every
// value has a sharding (kiln-propagate-sharding), each function becomes the
// program one device runs on its parts. Each op computes on the parts its
// factor rule lays out, and collectives go where layouts change:
//
// - an op's factors take the axes of its reduction factors from its first
//   operand that splits them (so operands split along a contraction stay
//   where they are), then those of its results' shardings, then its
//   operands'; an axis goes to one factor only;
// - a result split along a reduction factor is a partial result: it is
//   reduce-scattered where the result's sharding splits a dimension along
//   those axes, all-reduced otherwise;
// - a value moves to another layout by one all_to_all per axis that moves
//   from the minor end of one dimension to another, an all_gather per
//   dimension that loses axes, and a slice by the device's place (no
//   communication) per dimension that gains axes.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace kiln;

namespace kiln {
#define GEN_PASS_DEF_KILNPARTITION
#include "passes/sharding/Passes.h.inc"
} // namespace kiln

namespace {

using Axes = SmallVector<StringAttr>;
/// A value's layout: each dimension's axes, major to minor.
using Layout = SmallVector<Axes>;

Layout layoutOf(ShardingAttr sharding) {
  Layout layout;
  for (Attribute dim : sharding.getDims()) {
    auto axes = cast<ArrayAttr>(dim).getAsRange<StringAttr>();
    layout.emplace_back(axes.begin(), axes.end());
  }
  return layout;
}

Layout wholeLayout(Type type) {
  return Layout(cast<RankedTensorType>(type).getRank());
}

ArrayAttr axesAttr(Builder &b, ArrayRef<StringAttr> axes) {
  return b.getArrayAttr(SmallVector<Attribute>(axes.begin(), axes.end()));
}

class Partitioner : public PartitionEmitter {
public:
  Partitioner(ModuleOp module, MeshOp mesh)
      : module(module), mesh(mesh),
        meshRef(FlatSymbolRefAttr::get(mesh.getSymNameAttr())) {}

  LogicalResult run() {
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (!fn.isExternal() && failed(partitionFunction(fn)))
        return failure();
    return success();
  }

  Value partOf(OpBuilder &b, Location loc, Value whole,
               Attribute sharding) override {
    return reshard(b, loc, whole, wholeLayout(whole.getType()),
                   layoutOf(cast<ShardingAttr>(sharding)));
  }

  Value partStart(OpBuilder &b, Location loc, Attribute sharding, int64_t dim,
                  int64_t partSize) override {
    return start(b, loc, layoutOf(cast<ShardingAttr>(sharding))[dim],
                 partSize);
  }

private:
  //===--------------------------------------------------------------------===//
  // Layouts and collectives
  //===--------------------------------------------------------------------===//

  int64_t devices(ArrayRef<StringAttr> axes) {
    int64_t n = 1;
    for (StringAttr axis : axes)
      n *= *mesh.getAxisSize(axis.getValue());
    return n;
  }

  /// The type of one device's part of a value of `type` laid out as
  /// `layout` says.
  RankedTensorType partType(Type type, const Layout &layout) {
    auto tensor = cast<RankedTensorType>(type);
    SmallVector<int64_t> shape(tensor.getShape());
    for (auto [d, axes] : llvm::enumerate(layout))
      shape[d] /= devices(axes);
    return tensor.clone(shape);
  }

  RankedTensorType resized(Value v, int64_t dim, int64_t size) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = size;
    return type.clone(shape);
  }

  /// Where this device's part of a dimension split over `axes` into parts
  /// of `partSize` starts: a tensor<i32>.
  Value start(OpBuilder &b, Location loc, ArrayRef<StringAttr> axes,
              int64_t partSize) {
    auto i32 = RankedTensorType::get({}, b.getI32Type());
    Value place = AxisIndexOp::create(b, loc, i32, meshRef, axesAttr(b, axes));
    Value size = ConstantOp::create(
        b, loc, i32, DenseElementsAttr::get(i32, int32_t(partSize)));
    return MulOp::create(b, loc, place, size);
  }

  /// `v`'s part along `dim` split further over `axes`, by this device's
  /// place among them: no communication.
  Value slicePart(OpBuilder &b, Location loc, Value v, int64_t dim,
                  ArrayRef<StringAttr> axes) {
    auto type = cast<RankedTensorType>(v.getType());
    int64_t partSize = type.getDimSize(dim) / devices(axes);
    auto i32 = RankedTensorType::get({}, b.getI32Type());
    Value zero = ConstantOp::create(b, loc, i32,
                                    DenseElementsAttr::get(i32, int32_t(0)));
    SmallVector<Value> starts(type.getRank(), zero);
    starts[dim] = start(b, loc, axes, partSize);
    RankedTensorType part = resized(v, dim, partSize);
    return DynamicSliceOp::create(b, loc, part, v, starts,
                                  b.getDenseI64ArrayAttr(part.getShape()));
  }

  /// `v`, laid out as `from`, laid out as `to`.
  Value reshard(OpBuilder &b, Location loc, Value v, Layout from,
                const Layout &to) {
    // An axis at the minor end of one dimension that another dimension
    // wants next moves there in one all_to_all.
    for (size_t a = 0; a < from.size(); ++a) {
      if (from[a].empty() || isPrefix(from[a], to[a]))
        continue;
      StringAttr axis = from[a].back();
      for (size_t d = 0; d < from.size(); ++d) {
        if (d == a || to[d].size() != from[d].size() + 1 ||
            !isPrefix(from[d], to[d]) || to[d].back() != axis ||
            cast<RankedTensorType>(v.getType()).getDimSize(d) %
                devices(axis))
          continue;
        int64_t n = devices(axis);
        auto type = cast<RankedTensorType>(v.getType());
        SmallVector<int64_t> shape(type.getShape());
        shape[d] /= n;
        shape[a] *= n;
        v = AllToAllOp::create(b, loc, type.clone(shape), v, meshRef,
                               axesAttr(b, axis), b.getI64IntegerAttr(d),
                               b.getI64IntegerAttr(a));
        from[a].pop_back();
        from[d].push_back(axis);
        break;
      }
    }
    // Axes a dimension loses are gathered.
    for (size_t d = 0; d < from.size(); ++d) {
      size_t keep = commonPrefix(from[d], to[d]);
      if (keep == from[d].size())
        continue;
      ArrayRef<StringAttr> lost = ArrayRef(from[d]).drop_front(keep);
      int64_t size = cast<RankedTensorType>(v.getType()).getDimSize(d);
      v = AllGatherOp::create(b, loc, resized(v, d, size * devices(lost)), v,
                              meshRef, axesAttr(b, lost),
                              b.getI64IntegerAttr(d));
      from[d].resize(keep);
    }
    // Axes a dimension gains are sliced.
    for (size_t d = 0; d < from.size(); ++d)
      if (from[d].size() < to[d].size()) {
        v = slicePart(b, loc, v, d, ArrayRef(to[d]).drop_front(from[d].size()));
        from[d] = to[d];
      }
    return v;
  }

  static size_t commonPrefix(ArrayRef<StringAttr> a, ArrayRef<StringAttr> b) {
    size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n])
      ++n;
    return n;
  }

  static bool isPrefix(ArrayRef<StringAttr> a, ArrayRef<StringAttr> b) {
    return commonPrefix(a, b) == a.size();
  }

  /// `v`, a partial result (summed, ... over `partial` axes) laid out as
  /// `produced`, combined and laid out as `target`: reduce-scattered along
  /// a dimension that `target` splits further over partial axes, then
  /// all-reduced over the rest.
  Value combine(OpBuilder &b, Location loc, Value v, Layout produced,
                Axes partial, ReductionKind kind, const Layout &target) {
    auto kindAttr = ReductionKindAttr::get(b.getContext(), kind);
    for (size_t d = 0; d < produced.size() && !partial.empty(); ++d) {
      if (!isPrefix(produced[d], target[d]) ||
          produced[d].size() == target[d].size())
        continue;
      ArrayRef<StringAttr> gained =
          ArrayRef(target[d]).drop_front(produced[d].size());
      int64_t size = cast<RankedTensorType>(v.getType()).getDimSize(d);
      if (!llvm::all_of(gained, [&](StringAttr axis) {
            return llvm::is_contained(partial, axis);
          }) ||
          size % devices(gained))
        continue;
      v = ReduceScatterOp::create(b, loc, resized(v, d, size / devices(gained)),
                                  kindAttr, v, meshRef, axesAttr(b, gained),
                                  b.getI64IntegerAttr(d));
      produced[d] = target[d];
      llvm::erase_if(partial, [&](StringAttr axis) {
        return llvm::is_contained(gained, axis);
      });
    }
    if (!partial.empty())
      v = AllReduceOp::create(b, loc, v.getType(), kindAttr, v, meshRef,
                              axesAttr(b, partial));
    return reshard(b, loc, v, produced, target);
  }

  //===--------------------------------------------------------------------===//
  // Functions and ops
  //===--------------------------------------------------------------------===//

  /// The layout of `fn`'s argument or result `i`: its sharding, or the
  /// layout it is a part of once `fn` is partitioned (whole if none).
  Layout signatureLayout(func::FuncOp fn, unsigned i, bool result) {
    for (StringRef name :
         {KilnDialect::kShardingAttrName, KilnDialect::kPartAttrName}) {
      Attribute attr =
          result ? fn.getResultAttr(i, name) : fn.getArgAttr(i, name);
      if (auto sharding = dyn_cast_or_null<ShardingAttr>(attr))
        return layoutOf(sharding);
    }
    return wholeLayout(result ? fn.getResultTypes()[i]
                              : fn.getArgumentTypes()[i]);
  }

  LogicalResult partitionFunction(func::FuncOp fn) {
    // Rules read sizes: each op's comes from the whole program.
    SmallVector<Operation *> ops;
    fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == fn)
        return;
      ops.push_back(op);
      if (auto withRule = dyn_cast<ShardingRuleOpInterface>(op))
        rules[op] = withRule.getShardingRule();
    });
    SmallVector<Type> argTypes, resultTypes;
    for (auto [i, arg] : llvm::enumerate(fn.getArguments())) {
      Layout layout = signatureLayout(fn, i, false);
      arg.setType(partType(arg.getType(), layout));
      layouts[arg] = layout;
      argTypes.push_back(arg.getType());
    }
    for (unsigned i = 0; i < fn.getNumResults(); ++i) {
      Layout layout = signatureLayout(fn, i, true);
      resultLayouts[{fn, i}] = layout;
      resultTypes.push_back(partType(fn.getResultTypes()[i], layout));
    }
    for (Operation *op : ops)
      if (failed(partitionOp(op, fn)))
        return failure();
    fn.setFunctionType(
        FunctionType::get(fn.getContext(), argTypes, resultTypes));
    markParts(fn);
    return success();
  }

  /// Says of each argument and result of `fn` which layout it is this
  /// device's part of (`kiln.part`), in place of its sharding.
  void markParts(func::FuncOp fn) {
    StringRef sharding = KilnDialect::kShardingAttrName;
    StringRef part = KilnDialect::kPartAttrName;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      fn.setArgAttr(i, part, ShardingAttr::getClosed(
                                 meshRef, signatureLayout(fn, i, false)));
      fn.removeArgAttr(i, sharding);
    }
    for (unsigned i = 0; i < fn.getNumResults(); ++i) {
      fn.setResultAttr(i, part, ShardingAttr::getClosed(
                                    meshRef, resultLayouts[{fn, i}]));
      fn.removeResultAttr(i, StringAttr::get(fn.getContext(), sharding));
    }
  }

  /// The layout of `v`, a value already partitioned.
  const Layout &layout(Value v) {
    auto it = layouts.find(v);
    if (it == layouts.end())
      it = layouts.try_emplace(v, wholeLayout(v.getType())).first;
    return it->second;
  }

  /// Lays operand `i` of `op` out as `to`.
  void reshardOperand(Operation *op, unsigned i, const Layout &to) {
    OpBuilder b(op);
    Value v = op->getOperand(i);
    Value moved = reshard(b, op->getLoc(), v, layout(v), to);
    layouts[moved] = to;
    op->setOperand(i, moved);
  }

  /// Replaces the uses of `v` (a result laid out as `produced`, partial
  /// over `partial`) by it laid out as `target`.
  void finishResult(Value v, const Layout &produced, const Axes &partial,
                    ReductionKind kind, const Layout &target) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : v.getUses())
      uses.push_back(&use);
    OpBuilder b(v.getContext());
    b.setInsertionPointAfterValue(v);
    Value laidOut =
        combine(b, v.getLoc(), v, produced, partial, kind, target);
    for (OpOperand *use : uses)
      use->set(laidOut);
    layouts[laidOut] = target;
  }

  /// The layouts `kiln.shardings` gives `op`'s results.
  FailureOr<SmallVector<Layout>> targetsOf(Operation *op) {
    auto shardings =
        op->getAttrOfType<ArrayAttr>(KilnDialect::kShardingsAttrName);
    if (!shardings)
      return op->emitOpError("has no result shardings; kiln-partition runs "
                             "after kiln-propagate-sharding");
    SmallVector<Layout> targets;
    for (Attribute sharding : shardings)
      targets.push_back(layoutOf(cast<ShardingAttr>(sharding)));
    op->removeAttr(KilnDialect::kShardingsAttrName);
    return targets;
  }

  LogicalResult partitionOp(Operation *op, func::FuncOp fn) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (unsigned i = 0; i < ret.getNumOperands(); ++i)
        reshardOperand(op, i, resultLayouts[{fn, i}]);
      return success();
    }
    if (isa<YieldOp>(op)) {
      for (OpOperand &operand : op->getOpOperands())
        if (auto it = yieldTargets.find(&operand); it != yieldTargets.end())
          reshardOperand(op, operand.getOperandNumber(), it->second);
      return success();
    }
    FailureOr<SmallVector<Layout>> targets = targetsOf(op);
    if (failed(targets))
      return failure();
    if (auto call = dyn_cast<func::CallOp>(op))
      return partitionCall(call, *targets);
    auto withRule = dyn_cast<ShardingRuleOpInterface>(op);
    if (!withRule)
      return op->emitOpError("has no sharding rule to partition it by");
    return partitionByRule(withRule, *targets);
  }

  LogicalResult partitionCall(func::CallOp call,
                              ArrayRef<Layout> targets) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
    if (!callee || callee.isExternal())
      return call.emitOpError("calls ")
             << call.getCallee() << ", which has no body to partition";
    for (unsigned i = 0; i < call.getNumOperands(); ++i)
      reshardOperand(call, i, signatureLayout(callee, i, false));
    for (OpResult result : call->getResults()) {
      Layout produced =
          signatureLayout(callee, result.getResultNumber(), true);
      result.setType(partType(result.getType(), produced));
      finishResult(result, produced, {}, ReductionKind::sum,
                   targets[result.getResultNumber()]);
    }
    return success();
  }

  /// The axes each factor of `rule` takes at `op` (see the file comment).
  SmallVector<Axes> factorAxes(Operation *op, const ShardingRule &rule,
                               ArrayRef<Layout> targets) {
    size_t n = rule.factorSizes.size();
    SmallVector<std::optional<Axes>> chosen(n);
    SmallVector<StringAttr> used;
    auto take = [&](int64_t f, ArrayRef<StringAttr> candidate) {
      Axes axes;
      for (StringAttr axis : candidate) {
        if (llvm::is_contained(used, axis) ||
            rule.factorSizes[f] % (devices(axes) * devices(axis)))
          break;
        axes.push_back(axis);
      }
      used.append(axes.begin(), axes.end());
      chosen[f] = axes;
    };
    auto fromSides = [&](ArrayRef<SmallVector<int64_t>> sides,
                         auto layoutOfSide, FactorKind kind) {
      for (auto [i, factors] : llvm::enumerate(sides))
        for (auto [d, f] : llvm::enumerate(factors)) {
          const Layout &side = layoutOfSide(i);
          if (f >= 0 && !chosen[f] && rule.factorKinds[f] == kind &&
              (kind != FactorKind::Reduction || !side[d].empty()))
            take(f, side[d]);
        }
    };
    auto operandLayout = [&](size_t i) -> const Layout & {
      return layout(op->getOperand(i));
    };
    auto targetLayout = [&](size_t i) -> const Layout & { return targets[i]; };
    fromSides(rule.operandFactors, operandLayout, FactorKind::Reduction);
    fromSides(rule.resultFactors, targetLayout, FactorKind::PassThrough);
    fromSides(rule.operandFactors, operandLayout, FactorKind::PassThrough);
    SmallVector<Axes> axes;
    for (std::optional<Axes> &factor : chosen)
      axes.push_back(factor ? *factor : Axes());
    return axes;
  }

  /// The layout that `factors` (one per dimension) give a value.
  static Layout layoutFor(ArrayRef<int64_t> factors,
                          ArrayRef<Axes> factorAxes) {
    Layout layout;
    for (int64_t f : factors)
      layout.push_back(f < 0 ? Axes() : factorAxes[f]);
    return layout;
  }

  LogicalResult partitionByRule(ShardingRuleOpInterface op,
                                ArrayRef<Layout> targets) {
    const ShardingRule &rule = rules[op];
    SmallVector<Axes> axes = factorAxes(op, rule, targets);
    // Operands, and the region arguments laid out alike.
    SmallVector<Layout> operandLayouts;
    for (auto [i, factors] : llvm::enumerate(rule.operandFactors)) {
      operandLayouts.push_back(layoutFor(factors, axes));
      reshardOperand(op, i, operandLayouts.back());
    }
    for (auto [arg, operand] : rule.tiedArguments) {
      const Layout &argLayout = operandLayouts[operand];
      arg.setType(partType(arg.getType(), argLayout));
      layouts[arg] = argLayout;
    }
    // Results: their parts, partial over the reduction factors' axes.
    Axes partial;
    for (auto [f, kind] : llvm::enumerate(rule.factorKinds))
      if (kind == FactorKind::Reduction)
        partial.append(axes[f].begin(), axes[f].end());
    SmallVector<Layout> produced;
    SmallVector<Attribute> producedShardings;
    for (auto [result, factors] :
         llvm::zip_equal(op->getResults(), rule.resultFactors)) {
      produced.push_back(layoutFor(factors, axes));
      producedShardings.push_back(
          ShardingAttr::getClosed(meshRef, produced.back()));
      result.setType(partType(result.getType(), produced.back()));
    }
    for (auto [yielded, result] : rule.tiedYields)
      yieldTargets[yielded] = produced[result.getResultNumber()];
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    SmallVector<Value> results = op.localize(b, producedShardings, *this);
    for (auto [i, result] : llvm::enumerate(results))
      finishResult(result, produced[i], partial, rule.reduction, targets[i]);
    return success();
  }

  ModuleOp module;
  MeshOp mesh;
  FlatSymbolRefAttr meshRef;
  DenseMap<Value, Layout> layouts;
  DenseMap<std::pair<Operation *, unsigned>, Layout> resultLayouts;
  DenseMap<OpOperand *, Layout> yieldTargets;
  DenseMap<Operation *, ShardingRule> rules;
};

/// The mesh of the module's shardings (kiln-propagate-sharding allows one),
/// or null if nothing is sharded.
MeshOp meshOf(ModuleOp module) {
  FlatSymbolRefAttr mesh;
  auto use = [&](Attribute sharding) {
    if (auto attr = dyn_cast_or_null<ShardingAttr>(sharding))
      mesh = attr.getMesh();
  };
  StringRef name = KilnDialect::kShardingAttrName;
  module.walk([&](Operation *op) {
    if (auto fn = dyn_cast<func::FuncOp>(op)) {
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        use(fn.getArgAttr(i, name));
      for (unsigned i = 0; i < fn.getNumResults(); ++i)
        use(fn.getResultAttr(i, name));
    }
    if (auto shardings =
            op->getAttrOfType<ArrayAttr>(KilnDialect::kShardingsAttrName))
      for (Attribute sharding : shardings)
        use(sharding);
    return mesh ? WalkResult::interrupt() : WalkResult::advance();
  });
  return mesh ? SymbolTable::lookupNearestSymbolFrom<MeshOp>(module, mesh)
              : MeshOp();
}

struct KilnPartitionPass
    : kiln::impl::KilnPartitionBase<KilnPartitionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MeshOp mesh = meshOf(module);
    if (!mesh)
      return; // Nothing is sharded: one device runs the program as it is.
    if (failed(Partitioner(module, mesh).run()))
      signalPassFailure();
  }
};

} // namespace
