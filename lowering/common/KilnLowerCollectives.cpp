//===- KilnLowerCollectives.cpp - the kiln-lower-collectives pass ---------===//
//
// The collectives of a partitioned program become calls of the runtime's
// in-process devices (kiln/abi.h) on contiguous buffers. Each collective
// first brings the blocks the devices exchange to the front (a reshape and
// a transpose, lowered as any other), so that the runtime moves whole
// contiguous blocks: an all_gather stacks the group's values and moves the
// stack beside its dimension; a reduce_scatter splits its dimension and
// brings the parts to the front; an all_to_all does both.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "kiln/KilnDialect.h"
#include "kiln/TypeInference.h"
#include "kiln/abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNLOWERCOLLECTIVES
#include "lowering/common/Passes.h.inc"
} // namespace kiln

namespace {

/// Builds the runtime calls of one module's collectives.
class CollectiveLowering {
public:
  explicit CollectiveLowering(ModuleOp module)
      : module(module), symbols(module), i64(IntegerType::get(
                                              module.getContext(), 64)) {}

  LogicalResult lower(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    FailureOr<int64_t> axes = packedAxes(op);
    if (failed(axes))
      return failure();
    Value packed = constant(b, loc, *axes);
    Value result;
    if (auto index = dyn_cast<kiln::AxisIndexOp>(op))
      result = axisIndex(b, loc, packed);
    else if (auto reduce = dyn_cast<kiln::AllReduceOp>(op))
      result = call(b, loc, "kiln_rt_all_reduce",
                    {packed, kind(b, loc, reduce.getReduction()),
                     dtype(b, loc, reduce.getType())},
                    reduce.getOperand(), reduce.getType(),
                    {constant(b, loc, reduce.getType().getNumElements())});
    else if (auto gather = dyn_cast<kiln::AllGatherOp>(op))
      result = allGather(b, loc, packed, gather);
    else if (auto scatter = dyn_cast<kiln::ReduceScatterOp>(op))
      result = reduceScatter(b, loc, packed, scatter);
    else if (auto exchange = dyn_cast<kiln::AllToAllOp>(op))
      result = allToAll(b, loc, packed, exchange);
    else
      result = permute(b, loc, packed, cast<kiln::CollectivePermuteOp>(op));
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    return success();
  }

private:
  /// The mesh axes of `op` as kiln_rt_* take them (kiln/abi.h).
  FailureOr<int64_t> packedAxes(Operation *op) {
    auto meshName = op->getAttrOfType<FlatSymbolRefAttr>("mesh");
    auto mesh = symbols.lookup<kiln::MeshOp>(meshName.getValue());
    auto axes = op->getAttrOfType<ArrayAttr>("axes");
    if (mesh.getAxisNames().size() > 15 || axes.size() > 15)
      return op->emitOpError("runs on in-process devices over at most 15 "
                             "mesh axes");
    int64_t packed = int64_t(axes.size());
    for (auto [k, axis] : llvm::enumerate(axes)) {
      auto names = mesh.getAxisNames().getAsValueRange<StringAttr>();
      int64_t index = llvm::find(names, cast<StringAttr>(axis).getValue()) -
                      names.begin();
      packed |= index << (4 * (k + 1));
    }
    return packed;
  }

  Value constant(OpBuilder &b, Location loc, int64_t value) {
    return arith::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(value));
  }

  Value kind(OpBuilder &b, Location loc, kiln::ReductionKind reduction) {
    static_assert(int(kiln::ReductionKind::sum) == KILN_REDUCE_SUM &&
                  int(kiln::ReductionKind::prod) == KILN_REDUCE_PROD &&
                  int(kiln::ReductionKind::max) == KILN_REDUCE_MAX &&
                  int(kiln::ReductionKind::min) == KILN_REDUCE_MIN);
    return constant(b, loc, int64_t(reduction));
  }

  Value dtype(OpBuilder &b, Location loc, RankedTensorType type) {
    return constant(b, loc, kiln::runtimeDtypeCode(type.getElementType()));
  }

  int64_t bytes(RankedTensorType type) { return *kiln::staticBytes(type); }

  /// The runtime function `name` taking `arity` i64s (returning one if
  /// `returns`), declared once.
  func::FuncOp declare(StringRef name, unsigned arity, bool returns) {
    if (auto fn = symbols.lookup<func::FuncOp>(name))
      return fn;
    OpBuilder b(module.getBodyRegion());
    auto type = b.getFunctionType(SmallVector<Type>(arity, i64),
                                  returns ? TypeRange{i64} : TypeRange{});
    auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
    fn.setPrivate();
    symbols.insert(fn);
    return fn;
  }

  /// The address of `buffer`'s first element as an i64.
  Value address(OpBuilder &b, Location loc, Value buffer) {
    Value index =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    return arith::IndexCastOp::create(b, loc, i64, index);
  }

  /// Calls the runtime's `name` with `prefix`, the address of `input`'s
  /// buffer, that of a new buffer of `resultType`, and `suffix`; returns
  /// the new buffer as a tensor.
  Value call(OpBuilder &b, Location loc, StringRef name,
             ArrayRef<Value> prefix, Value input, RankedTensorType resultType,
             ArrayRef<Value> suffix) {
    auto inType = cast<RankedTensorType>(input.getType());
    Value in = bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(inType.getShape(), inType.getElementType()),
        input, /*read_only=*/true);
    Value out = memref::AllocOp::create(
        b, loc,
        MemRefType::get(resultType.getShape(), resultType.getElementType()),
        b.getI64IntegerAttr(KILN_BUFFER_ALIGNMENT));
    SmallVector<Value> args(prefix);
    args.push_back(address(b, loc, in));
    args.push_back(address(b, loc, out));
    llvm::append_range(args, suffix);
    func::CallOp::create(b, loc, declare(name, args.size(), false), args);
    return bufferization::ToTensorOp::create(b, loc, resultType, out,
                                             /*restrict=*/true,
                                             /*writable=*/true);
  }

  /// The device's place in its group over the axes `packed`, an i64.
  Value place(OpBuilder &b, Location loc, Value packed) {
    return func::CallOp::create(b, loc, declare("kiln_rt_axis_index", 1, true),
                                ValueRange{packed})
        .getResult(0);
  }

  Value axisIndex(OpBuilder &b, Location loc, Value packed) {
    Value narrow =
        arith::TruncIOp::create(b, loc, b.getI32Type(), place(b, loc, packed));
    return tensor::FromElementsOp::create(
        b, loc, RankedTensorType::get({}, b.getI32Type()), narrow);
  }

  /// `v` with its dimension `from` moved to `to`.
  Value move(OpBuilder &b, Location loc, Value v, int64_t from, int64_t to) {
    auto type = cast<RankedTensorType>(v.getType());
    if (from == to)
      return v;
    SmallVector<int64_t> permutation;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != from)
        permutation.push_back(d);
    permutation.insert(permutation.begin() + to, from);
    return kiln::TransposeOp::create(b, loc, v, permutation);
  }

  Value reshape(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(v.getType());
    return kiln::ReshapeOp::create(b, loc, type.clone(shape), v);
  }

  /// `v` with dimension `dim` split into [n, size / n] and the n parts
  /// first: [n, ..., size / n, ...].
  Value partsFirst(OpBuilder &b, Location loc, Value v, int64_t dim,
                   int64_t n) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] /= n;
    shape.insert(shape.begin() + dim, n);
    return move(b, loc, reshape(b, loc, v, shape), dim, 0);
  }

  /// `stacked` ([n, ...]) with the stack merged into dimension `dim` of
  /// the rest, before its elements.
  Value mergeStack(OpBuilder &b, Location loc, Value stacked, int64_t dim,
                   RankedTensorType resultType) {
    return reshape(b, loc, move(b, loc, stacked, 0, dim),
                   resultType.getShape());
  }

  RankedTensorType stackedType(RankedTensorType part, int64_t n) {
    SmallVector<int64_t> shape(part.getShape());
    shape.insert(shape.begin(), n);
    return part.clone(shape);
  }

  Value allGather(OpBuilder &b, Location loc, Value packed,
                  kiln::AllGatherOp gather) {
    auto part = cast<RankedTensorType>(gather.getOperand().getType());
    int64_t n = gather.getGroupSize();
    Value stacked =
        call(b, loc, "kiln_rt_all_gather", {packed}, gather.getOperand(),
             stackedType(part, n), {constant(b, loc, bytes(part))});
    return mergeStack(b, loc, stacked, gather.getDim(), gather.getType());
  }

  Value reduceScatter(OpBuilder &b, Location loc, Value packed,
                      kiln::ReduceScatterOp scatter) {
    int64_t n = scatter.getGroupSize();
    Value parts =
        partsFirst(b, loc, scatter.getOperand(), scatter.getDim(), n);
    // The parts' layout ([..., size / n, ...]) is the result's.
    return call(b, loc, "kiln_rt_reduce_scatter",
                {packed, kind(b, loc, scatter.getReduction()),
                 dtype(b, loc, scatter.getType())},
                parts, scatter.getType(),
                {constant(b, loc, scatter.getType().getNumElements())});
  }

  Value allToAll(OpBuilder &b, Location loc, Value packed,
                 kiln::AllToAllOp exchange) {
    int64_t n = exchange.getGroupSize();
    Value parts = partsFirst(b, loc, exchange.getOperand(),
                             exchange.getSplitDim(), n);
    auto partsType = cast<RankedTensorType>(parts.getType());
    Value received = call(b, loc, "kiln_rt_all_to_all", {packed}, parts,
                          partsType,
                          {constant(b, loc, bytes(partsType) / n)});
    return mergeStack(b, loc, received, exchange.getConcatDim(),
                      exchange.getType());
  }

  /// collective_permute: each device fetches its source's value (zeros
  /// where it is no target), its source looked up by its place.
  Value permute(OpBuilder &b, Location loc, Value packed,
                kiln::CollectivePermuteOp permute) {
    int64_t n = permute.getGroupSize();
    SmallVector<int64_t> sources(n, -1);
    ArrayRef<int64_t> pairs = permute.getPairs();
    for (size_t i = 0; i < pairs.size(); i += 2)
      sources[pairs[i + 1]] = pairs[i];
    auto tableType = RankedTensorType::get({n}, i64);
    Value table = arith::ConstantOp::create(
        b, loc, DenseIntElementsAttr::get(tableType, ArrayRef(sources)));
    Value source = tensor::ExtractOp::create(
        b, loc, table,
        ValueRange{arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                              place(b, loc, packed))});
    return call(b, loc, "kiln_rt_fetch", {packed, source},
                permute.getOperand(), permute.getType(),
                {constant(b, loc, bytes(permute.getType()))});
  }

  ModuleOp module;
  SymbolTable symbols;
  IntegerType i64;
};

struct KilnLowerCollectivesPass
    : kiln::impl::KilnLowerCollectivesBase<KilnLowerCollectivesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> collectives;
    getOperation().walk([&](Operation *op) {
      if (isa<kiln::AllReduceOp, kiln::AllGatherOp, kiln::ReduceScatterOp,
              kiln::AllToAllOp, kiln::CollectivePermuteOp, kiln::AxisIndexOp>(
              op))
        collectives.push_back(op);
    });
    if (collectives.empty())
      return;
    CollectiveLowering lowering(getOperation());
    for (Operation *op : collectives)
      if (failed(lowering.lower(op)))
        return signalPassFailure();
  }
};

} // namespace
