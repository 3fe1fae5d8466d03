//===- ImportSort.cpp - chlo.top_k and stablehlo.sort ---------------------===//
//
// Kiln has no sort op; these are written with its data-parallel ops, so
// that they run, differentiate and batch on every target. top_k takes the
// largest remaining element k times in a kiln.while (O(k n) per row: k is
// small where models use it, as in top-k sampling). A sort runs a bitonic
// sorting network (O(n log^2 n) per row), unrolled into vectorizable steps.
//
//===----------------------------------------------------------------------===//
#include "frontend/stablehlo/ImportPatterns.h"
#include "frontend/stablehlo/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::stablehlo_import;

namespace {

/// Builds kiln ops on tensors.
struct Ops {
  OpBuilder &b;
  Location loc;

  Value splat(RankedTensorType type, Attribute value) {
    return stablehlo_import::splat(b, loc, type, value);
  }
  /// The lowest value of `type`'s elements (-inf for floats).
  Value lowest(RankedTensorType type) {
    Type element = type.getElementType();
    if (auto real = dyn_cast<FloatType>(element))
      return splat(type,
                   b.getFloatAttr(real, APFloat::getInf(
                                            real.getFloatSemantics(), true)));
    return splat(type,
                 b.getIntegerAttr(element, APInt::getSignedMinValue(
                                               element.getIntOrFloatBitWidth())));
  }
  Value compare(kiln::ComparisonDirection direction, Value x, Value y) {
    return kiln::CompareOp::create(b, loc, direction, x, y);
  }
  Value eq(Value x, Value y) {
    return compare(kiln::ComparisonDirection::EQ, x, y);
  }
  Value isNan(Value x) {
    return compare(kiln::ComparisonDirection::NE, x, x);
  }
  Value select(Value pred, Value x, Value y) {
    return kiln::SelectOp::create(b, loc, x.getType(), pred, x, y);
  }
  Value both(Value x, Value y) { return kiln::AndOp::create(b, loc, x, y); }
  Value either(Value x, Value y) { return kiln::OrOp::create(b, loc, x, y); }
  Value no(Value x) { return kiln::NotOp::create(b, loc, x); }
  /// `x` (over the leading dimensions) broadcast along a new last one of
  /// `size`.
  Value spread(Value x, int64_t size) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.push_back(size);
    return kiln::BroadcastInDimOp::create(
        b, loc, type.clone(shape), x,
        b.getDenseI64ArrayAttr(
            llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))),
        Value());
  }
};

/// Each row of every table ([rows, n]) at that row's `columns` ([rows, k],
/// i64): jnp.take_along_axis over the last dimension, as one take of each
/// table flattened at row * n + column (the positions computed once).
SmallVector<Value> takeAlongRows(OpBuilder &b, Location loc,
                                 ArrayRef<Value> tables, Value columns) {
  auto columnsType = cast<RankedTensorType>(columns.getType());
  auto tableType = cast<RankedTensorType>(tables.front().getType());
  int64_t rows = tableType.getDimSize(0), n = tableType.getDimSize(1);
  Value rowStart = kiln::MulOp::create(
      b, loc,
      kiln::IotaOp::create(b, loc, columnsType, b.getI64IntegerAttr(0)),
      splat(b, loc, columnsType, b.getI64IntegerAttr(n)));
  Value positions = kiln::AddOp::create(b, loc, rowStart, columns);
  SmallVector<Value> taken;
  for (Value table : tables) {
    auto type = cast<RankedTensorType>(table.getType());
    Value flat = kiln::ReshapeOp::create(b, loc, type.clone({rows * n}), table);
    taken.push_back(kiln::TakeOp::create(b, loc,
                                         type.clone(columnsType.getShape()),
                                         flat, positions,
                                         b.getI64IntegerAttr(0)));
  }
  return taken;
}

//===----------------------------------------------------------------------===//
// top_k
//===----------------------------------------------------------------------===//

/// Why a top_k cannot be imported, if it cannot.
std::optional<std::string> checkTopK(chlo::TopKOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getOperand().getType());
  auto values = dyn_cast<RankedTensorType>(op.getValues().getType());
  auto indices = dyn_cast<RankedTensorType>(op.getIndices().getType());
  if (!type || type.getRank() == 0 || !values || !indices ||
      isBoolTensor(type) || !isa<IntegerType>(indices.getElementType()) ||
      indices.getElementType().getIntOrFloatBitWidth() < 32)
    return std::string("Kiln imports top_k of numbers, with indices of 32 or "
                       "64 bits");
  int64_t k = op.getK();
  SmallVector<int64_t> shape(type.getShape());
  if (k < 0 || k > shape.back())
    return "k = " + std::to_string(k) + " of a dimension of " +
           std::to_string(shape.back());
  shape.back() = k;
  if (values != type.clone(shape) || indices.getShape() != ArrayRef<int64_t>(shape))
    return std::string("results that are not the operand's shape with k "
                       "last");
  return std::nullopt;
}

/// k times: the index of the largest available element (NaN the largest,
/// the first of ties), written into column j of the indices and made
/// unavailable; under stop_gradient, as the indices are piecewise constant
/// (and a kiln.while cannot be differentiated in reverse mode). The values
/// are then gathered at the indices, which differentiates (a mixture of
/// experts' router weights its top k).
struct TopK : OpConversionPattern<chlo::TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(chlo::TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (checkTopK(op))
      return rewriter.notifyMatchFailure(op, "unsupported top_k");
    Location loc = op.getLoc();
    Ops o{rewriter, loc};
    Value x = adaptor.getOperand();
    auto type = cast<RankedTensorType>(x.getType());
    auto valuesType = cast<RankedTensorType>(op.getValues().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    if (valuesType.getNumElements() == 0) {
      // Nothing to take (k = 0, or no rows): empty results.
      rewriter.replaceOp(
          op, {o.splat(valuesType, rewriter.getZeroAttr(type.getElementType())),
               o.splat(indicesType,
                       rewriter.getZeroAttr(indicesType.getElementType()))});
      return success();
    }
    int64_t rank = type.getRank(), n = type.getShape().back();
    bool isFloat = isa<FloatType>(type.getElementType());
    auto rows = RankedTensorType::get(type.getShape().drop_back(),
                                      type.getElementType());
    Value keys = kiln::StopGradientOp::create(rewriter, loc, x);
    Value position = kiln::IotaOp::create(
        rewriter, loc, type.clone(indicesType.getElementType()),
        rewriter.getI64IntegerAttr(rank - 1));
    Value everywhere = o.splat(type.clone(rewriter.getI1Type()),
                               rewriter.getBoolAttr(true));
    auto lastDim = rewriter.getDenseI64ArrayAttr({rank - 1});
    SmallVector<int64_t> columnShape(indicesType.getShape());
    columnShape.back() = 1;
    SmallVector<Value> results = countedLoop(
        rewriter, loc, op.getK(),
        ValueRange{everywhere,
                   o.splat(indicesType, rewriter.getZeroAttr(
                                            indicesType.getElementType()))},
        [&](Value j, ValueRange carried) -> SmallVector<Value> {
          Value available = carried[0];
          Value masked = o.select(available, keys, o.lowest(type));
          Value best = o.spread(
              kiln::ReduceMaxOp::create(rewriter, loc, rows, masked, lastDim),
              n);
          Value hit = o.eq(keys, best);
          if (isFloat)
            hit = o.either(hit, o.both(o.isNan(keys), o.isNan(best)));
          hit = o.both(available, hit);
          Value index = kiln::ArgmaxOp::create(
              rewriter, loc, rows.clone(indicesType.getElementType()),
              kiln::ConvertOp::create(rewriter, loc,
                                      type.clone(rewriter.getI32Type()), hit),
              rewriter.getI64IntegerAttr(rank - 1));
          Value chosen = o.eq(position, o.spread(index, n));
          SmallVector<Value> at(rank - 1, o.splat(RankedTensorType::get(
                                                      {}, rewriter.getI64Type()),
                                                  rewriter.getI64IntegerAttr(0)));
          at.push_back(j);
          Value written = kiln::DynamicUpdateSliceOp::create(
              rewriter, loc, carried[1],
              kiln::ReshapeOp::create(rewriter, loc,
                                      indicesType.clone(columnShape), index),
              at);
          return {o.both(available, o.no(chosen)), written};
        });
    Value indices = results[1];
    // The values: x's rows at their indices.
    int64_t count = rows.getNumElements(), k = op.getK();
    auto columnsType = RankedTensorType::get({count, k}, rewriter.getI64Type());
    Value columns = kiln::ReshapeOp::create(
        rewriter, loc, columnsType,
        kiln::ConvertOp::create(rewriter, loc,
                                indicesType.clone(rewriter.getI64Type()),
                                indices));
    Value table =
        kiln::ReshapeOp::create(rewriter, loc, type.clone({count, n}), x);
    Value values = kiln::ReshapeOp::create(
        rewriter, loc, valuesType,
        takeAlongRows(rewriter, loc, table, columns).front());
    rewriter.replaceOp(op, {values, indices});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sort
//===----------------------------------------------------------------------===//

/// Whether the comparator's ops are all elementwise functions of scalars
/// (compare, select, arithmetic, scalar constants), which can be applied
/// to whole tensors of pairs.
bool isElementwiseComparator(Block &block, TypeRange inputs) {
  if (block.getNumArguments() != 2 * inputs.size())
    return false;
  for (auto [k, arg] : llvm::enumerate(block.getArguments()))
    if (arg.getType() !=
        cast<RankedTensorType>(inputs[k / 2]).clone(ArrayRef<int64_t>{}))
      return false;
  for (Operation &nested : block.without_terminator()) {
    bool scalars = llvm::all_of(nested.getResultTypes(), [](Type t) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      return tensor && tensor.getRank() == 0;
    });
    if (!scalars || nested.getNumRegions() ||
        !(nested.hasTrait<OpTrait::Elementwise>() ||
          isa<shlo::SelectOp, shlo::ClampOp, shlo::ConstantOp>(nested)))
      return false;
  }
  Operation *terminator = block.getTerminator();
  return terminator->getNumOperands() == 1 &&
         terminator->getOperand(0).getType() ==
             RankedTensorType::get({}, IntegerType::get(block.getParent()
                                                            ->getContext(),
                                                        1));
}

/// Why a sort cannot be imported, if it cannot.
std::optional<std::string> checkSort(shlo::SortOp op) {
  if (op.getInputs().empty())
    return std::string("a sort of nothing");
  auto first = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  for (Value input : op.getInputs()) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || !first || type.getShape() != first.getShape())
      return std::string("inputs of different shapes");
  }
  if (op->getResultTypes() != op.getInputs().getTypes())
    return std::string("results of other types than the inputs");
  int64_t dimension = int64_t(op.getDimension());
  if (first.getRank() == 0 || dimension < -first.getRank() ||
      dimension >= first.getRank())
    return "dimension " + std::to_string(dimension) + " of rank " +
           std::to_string(first.getRank());
  if (!isElementwiseComparator(op.getComparator().front(),
                               op.getInputs().getTypes()))
    return std::string("Kiln imports comparators of scalar elementwise ops "
                       "(compare, select, arithmetic, constants)");
  return std::nullopt;
}

/// The comparator applied elementwise: `args` are its arguments as
/// tensors of shape `grid` (null for those it does not use).
Value compareAll(OpBuilder &b, Location loc, Block &comparator,
                 ArrayRef<Value> args, ArrayRef<int64_t> grid) {
  IRMapping map;
  for (auto [arg, value] : llvm::zip(comparator.getArguments(), args))
    if (value)
      map.map(arg, value);
  for (Operation &nested : comparator.without_terminator()) {
    if (auto constant = dyn_cast<shlo::ConstantOp>(nested)) {
      auto value = cast<DenseElementsAttr>(constant.getValue());
      map.map(constant.getResult(),
              splat(b, loc, RankedTensorType::get(grid, value.getElementType()),
                    value.getSplatValue<Attribute>()));
      continue;
    }
    Operation *copy = b.clone(nested, map);
    for (OpResult result : copy->getResults())
      result.setType(RankedTensorType::get(
          grid, cast<RankedTensorType>(result.getType()).getElementType()));
  }
  return map.lookup(comparator.getTerminator()->getOperand(0));
}

/// A bitonic sorting network on the rows of a sort's keys, padded to
/// `width` (a power of two), each element carrying its original column:
/// step (block, half) pairs element i with i xor half, and the lower of the
/// two keeps the one that goes first where i's bit `block` is 0 and the
/// other where it is 1, so that blocks sort alternately up and down and
/// each merge into blocks of `block` sees bitonic sequences; the last
/// block (the row) sorts up. Each step is static slices of the pairs'
/// halves, one elementwise computation and a concatenation, which fuse
/// and vectorize along contiguous runs: steps of half >= T (T =
/// 2^floor(log2(width) / 2)) on the rows as they are ([count, width]),
/// where pairs lie runs of `half` apart; steps of half < T on the rows
/// transposed ([count, T, width / T], i = a T + t at (t, a)), where pairs
/// are whole rows of width / T. The steps of one half are calls of one
/// function, given the block.
struct BitonicNetwork {
  OpBuilder &b;
  Location loc;
  Block &comparator;
  /// Which of the sort's operands the comparator reads, in order.
  SmallVector<bool> read;
  int64_t count, n, width, across;
  /// The operands the comparator reads, then the columns.
  SmallVector<Value> carried;
  bool transposed = false;
  /// The function of each step's half, once made.
  llvm::DenseMap<int64_t, func::FuncOp> stepFunctions;

  BitonicNetwork(OpBuilder &b, Location loc, Block &comparator,
                 ArrayRef<Value> rows)
      : b(b), loc(loc), comparator(comparator) {
    auto rowsType = cast<RankedTensorType>(
        llvm::find_if(rows, [](Value x) { return bool(x); })->getType());
    count = rowsType.getDimSize(0);
    n = rowsType.getDimSize(1);
    width = int64_t(llvm::bit_ceil(uint64_t(n)));
    across = int64_t(1) << (llvm::Log2_64(uint64_t(width)) / 2);
    auto zeros = b.getDenseI64ArrayAttr({0, 0});
    for (Value x : rows) {
      read.push_back(bool(x));
      if (!x)
        continue;
      auto type = cast<RankedTensorType>(x.getType());
      if (width > n)
        x = kiln::PadOp::create(b, loc, x,
                                splat(b, loc, type.clone(ArrayRef<int64_t>{}),
                                      b.getZeroAttr(type.getElementType())),
                                zeros, b.getDenseI64ArrayAttr({0, width - n}),
                                zeros);
      carried.push_back(x);
    }
    carried.push_back(kiln::IotaOp::create(
        b, loc, RankedTensorType::get({count, width}, indexType()),
        b.getI64IntegerAttr(1)));
  }

  /// Columns and positions: i32 where they fit.
  Type indexType() {
    return width <= std::numeric_limits<int32_t>::max() ? b.getI32Type()
                                                        : b.getI64Type();
  }
  RankedTensorType indices(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, indexType());
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    return kiln::ReshapeOp::create(
        b, loc, cast<RankedTensorType>(x.getType()).clone(shape), x);
  }
  /// `x`'s last two dimensions swapped.
  Value swapLast(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    return kiln::TransposeOp::create(
        b, loc,
        type.clone({count, type.getDimSize(2), type.getDimSize(1)}), x,
        b.getDenseI64ArrayAttr({0, 2, 1}));
  }
  /// Every carried tensor in the transposed layout, or not.
  void layOut(bool wantTransposed) {
    if (transposed == wantTransposed)
      return;
    for (Value &x : carried)
      x = wantTransposed
              ? swapLast(reshape(x, {count, width / across, across}))
              : reshape(swapLast(x), {count, width});
    transposed = wantTransposed;
  }
  /// Index `at` of dimension `dim` of `x`, kept as a dimension of 1.
  Value halfOf(Value x, int64_t dim, int64_t at) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape());
    start[dim] = at;
    limit[dim] = at + 1;
    SmallVector<int64_t> shape(limit);
    shape[dim] = 1;
    return kiln::SliceOp::create(
        b, loc, type.clone(shape), x, b.getDenseI64ArrayAttr(start),
        b.getDenseI64ArrayAttr(limit),
        b.getDenseI64ArrayAttr(SmallVector<int64_t>(type.getRank(), 1)));
  }
  Value lt(Value x, Value y) {
    return kiln::CompareOp::create(b, loc, kiln::ComparisonDirection::LT, x,
                                   y);
  }
  Value no(Value x) { return kiln::NotOp::create(b, loc, x); }

  /// Whether each of `lower`'s elements goes before its partner in
  /// `upper` (carried tensors' halves of `shape`): by the comparator, then
  /// by original column; padding (columns from n) last.
  Value precedes(ArrayRef<Value> lower, ArrayRef<Value> upper,
                 ArrayRef<int64_t> shape) {
    SmallVector<Value> lowerFirst, upperFirst;
    for (unsigned k = 0, used = 0; k < read.size(); ++k) {
      Value x = read[k] ? lower[used] : Value();
      Value y = read[k] ? upper[used++] : Value();
      lowerFirst.append({x, y});
      upperFirst.append({y, x});
    }
    Value xy = compareAll(b, loc, comparator, lowerFirst, shape);
    Value yx = compareAll(b, loc, comparator, upperFirst, shape);
    Value x = lower.back(), y = upper.back();
    Value byColumn = lt(x, y);
    Value key = kiln::OrOp::create(
        b, loc, xy, kiln::AndOp::create(b, loc, no(yx), byColumn));
    if (width == n)
      return key;
    Value columns = splat(b, loc, indices(shape), n);
    Value yPadding = no(lt(y, columns));
    return kiln::SelectOp::create(
        b, loc, key.getType(), lt(x, columns),
        kiln::OrOp::create(b, loc, yPadding, key),
        kiln::AndOp::create(b, loc, yPadding, byColumn));
  }

  /// Whether the lower elements of a step, halves of `shape`, lie in
  /// blocks sorted down: bit `block` (a tensor<index type>) of their index.
  /// `base` gives that index but its bits below 2 half (which do not
  /// reach `block`, at least 2 half) as the index of each of the view's
  /// dimensions times their `strides`.
  Value descending(Value block, ArrayRef<int64_t> shape,
                   ArrayRef<int64_t> strides) {
    RankedTensorType type = indices(shape);
    Value base;
    for (auto [dim, stride] : llvm::enumerate(strides)) {
      if (!stride)
        continue;
      Value part = kiln::MulOp::create(
          b, loc, kiln::IotaOp::create(b, loc, type, b.getI64IntegerAttr(dim)),
          splat(b, loc, type, stride));
      base = base ? Value(kiln::AddOp::create(b, loc, base, part)) : part;
    }
    Value bit = kiln::BroadcastInDimOp::create(
        b, loc, type, block, b.getDenseI64ArrayAttr({}), Value());
    return kiln::CompareOp::create(b, loc, kiln::ComparisonDirection::NE,
                                   kiln::AndOp::create(b, loc, base, bit),
                                   splat(b, loc, type, 0));
  }

  /// The view of the carried tensors in which step `half` pairs their
  /// elements along dimension 2 (0: the lower, 1: the upper), and the
  /// strides, in that view, of the bits of the index above 2 half.
  std::pair<SmallVector<int64_t>, SmallVector<int64_t>> pairView(int64_t half) {
    if (half < across)
      return {{count, across / (2 * half), 2, half, width / across},
              {0, 2 * half, 0, 0, across}};
    return {{count, width / (2 * half), 2, half}, {0, 2 * half, 0, 0}};
  }

  /// The step of `half` on `pairs` (the carried tensors in its pairView)
  /// for the block given as `block`.
  SmallVector<Value> emitStep(int64_t half, ValueRange pairs, Value block) {
    SmallVector<int64_t> strides = pairView(half).second;
    SmallVector<Value> lower, upper;
    for (Value x : pairs) {
      lower.push_back(halfOf(x, 2, 0));
      upper.push_back(halfOf(x, 2, 1));
    }
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(lower.front().getType()).getShape();
    Value keep = kiln::XorOp::create(b, loc, precedes(lower, upper, shape),
                                     descending(block, shape, strides));
    SmallVector<Value> next;
    for (auto [l, u] : llvm::zip(lower, upper)) {
      Value first = kiln::SelectOp::create(b, loc, l.getType(), keep, l, u);
      Value second = kiln::SelectOp::create(b, loc, l.getType(), keep, u, l);
      next.push_back(
          kiln::ConcatenateOp::create(b, loc, ValueRange{first, second}, 2));
    }
    return next;
  }

  /// A private function of the carried tensors (in step `half`'s
  /// pairView) and the block computing that step, made on first use: the
  /// network's steps of one half differ only in their block, and a call
  /// per step keeps the code O(log n) steps long instead of O(log^2 n).
  func::FuncOp stepFunction(int64_t half, TypeRange types) {
    func::FuncOp &function = stepFunctions[half];
    if (function)
      return function;
    OpBuilder::InsertionGuard guard(b);
    Operation *caller = b.getInsertionBlock()->getParentOp();
    while (!isa<func::FuncOp>(caller))
      caller = caller->getParentOp();
    auto module = caller->getParentOfType<ModuleOp>();
    SmallVector<Type> argTypes(types);
    argTypes.push_back(indices({}));
    std::string base =
        (cast<func::FuncOp>(caller).getSymName() + "_sort_step").str();
    std::string name = base;
    for (int k = 1; module.lookupSymbol(name); ++k)
      name = base + "_" + std::to_string(k);
    b.setInsertionPointAfter(caller);
    function = func::FuncOp::create(b, loc, name,
                                    b.getFunctionType(argTypes, types));
    function.setPrivate();
    Block *body = function.addEntryBlock();
    b.setInsertionPointToStart(body);
    func::ReturnOp::create(b, loc,
                           emitStep(half, body->getArguments().drop_back(),
                                    body->getArguments().back()));
    return function;
  }

  void step(int64_t block, int64_t half) {
    layOut(half < across);
    SmallVector<int64_t> view = pairView(half).first;
    SmallVector<Value> arguments;
    for (Value x : carried)
      arguments.push_back(reshape(x, view));
    func::FuncOp function =
        stepFunction(half, ValueRange(arguments).getTypes());
    arguments.push_back(splat(b, loc, indices({}), block));
    auto call = func::CallOp::create(b, loc, function, arguments);
    for (auto [x, sorted] : llvm::zip(carried, call.getResults()))
      x = reshape(sorted, cast<RankedTensorType>(x.getType()).getShape());
  }

  /// The original column of each place once sorted ([count, n], i64).
  Value sortedColumns() {
    for (int64_t block = 2; block <= width; block *= 2)
      for (int64_t half = block / 2; half >= 1; half /= 2)
        step(block, half);
    layOut(false);
    Value order = carried.back();
    if (width > n)
      order = kiln::SliceOp::create(b, loc, indices({count, n}), order,
                                    b.getDenseI64ArrayAttr({0, 0}),
                                    b.getDenseI64ArrayAttr({count, n}),
                                    b.getDenseI64ArrayAttr({1, 1}));
    return kiln::ConvertOp::create(
        b, loc, RankedTensorType::get({count, n}, b.getI64Type()), order);
  }
};

/// The bytes of the chunk of rows the network sorts at a time: its
/// O(log^2 n) passes then read and write a cache (1 to 2 MiB of L2 a core
/// on the CPUs Kiln targets) instead of memory, and a row of a vocabulary
/// (65536 padded columns and theirs: 512 KiB) is one chunk.
constexpr int64_t kChunkBytes = 512 * 1024;

/// The original column of each place in each row of `keys` ([rows, n],
/// null where the comparator does not read the operand) once sorted by
/// `comparator` ([rows, n], i64): one network over every row if they fit
/// in a chunk, else one per chunk of rows in a kiln.while (the rows padded
/// to a whole number of chunks).
Value sortedColumns(OpBuilder &b, Location loc, Block &comparator,
                    ArrayRef<Value> keys) {
  auto type = cast<RankedTensorType>(
      llvm::find_if(keys, [](Value x) { return bool(x); })->getType());
  int64_t rows = type.getDimSize(0), n = type.getDimSize(1);
  // A padded row's bytes: its columns' (i32) and those of its keys.
  int64_t elementBytes = 4;
  for (Value x : keys)
    if (x)
      elementBytes += llvm::divideCeil(
          cast<RankedTensorType>(x.getType()).getElementTypeBitWidth(), 8);
  int64_t rowBytes = int64_t(llvm::bit_ceil(uint64_t(n))) * elementBytes;
  int64_t chunk = std::max<int64_t>(1, kChunkBytes / rowBytes);
  if (chunk >= rows)
    return BitonicNetwork(b, loc, comparator, keys).sortedColumns();
  int64_t chunks = llvm::divideCeil(rows, chunk);
  auto zeros = b.getDenseI64ArrayAttr({0, 0});
  SmallVector<Value> padded;
  for (Value x : keys) {
    if (x) {
      auto xType = cast<RankedTensorType>(x.getType());
      x = kiln::PadOp::create(
          b, loc, x,
          splat(b, loc, xType.clone(ArrayRef<int64_t>{}),
                b.getZeroAttr(xType.getElementType())),
          zeros, b.getDenseI64ArrayAttr({chunks * chunk - rows, 0}), zeros);
    }
    padded.push_back(x);
  }
  auto orderType = RankedTensorType::get({chunks * chunk, n}, b.getI64Type());
  auto scalar = RankedTensorType::get({}, b.getI64Type());
  Value order = countedLoop(
      b, loc, chunks, ValueRange{splat(b, loc, orderType, 0)},
      [&](Value j, ValueRange carried) -> SmallVector<Value> {
        SmallVector<Value> at = {
            kiln::MulOp::create(b, loc, j, splat(b, loc, scalar, chunk)),
            splat(b, loc, scalar, 0)};
        SmallVector<Value> slices;
        for (Value x : padded)
          slices.push_back(
              x ? Value(kiln::DynamicSliceOp::create(
                      b, loc, x, at, b.getDenseI64ArrayAttr({chunk, n})))
                : Value());
        Value sorted =
            BitonicNetwork(b, loc, comparator, slices).sortedColumns();
        return {kiln::DynamicUpdateSliceOp::create(b, loc, carried[0], sorted,
                                                   at)};
      })[0];
  return kiln::SliceOp::create(b, loc, orderType.clone({rows, n}), order,
                               zeros, b.getDenseI64ArrayAttr({rows, n}),
                               b.getDenseI64ArrayAttr({1, 1}));
}

/// Per row of the sorted dimension (moved last), the order the bitonic
/// network finds from the operands the comparator reads (under
/// stop_gradient: the order is piecewise constant), then every operand
/// gathered in that order, which differentiates as a gather.
struct Sort : OpConversionPattern<shlo::SortOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::SortOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (checkSort(op))
      return rewriter.notifyMatchFailure(op, "unsupported sort");
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInputs()[0].getType());
    // A negative dimension counts from the last.
    int64_t rank = type.getRank(), dim = int64_t(op.getDimension());
    if (dim < 0)
      dim += rank;
    int64_t n = type.getDimSize(dim);
    Block &comparator = op.getComparator().front();
    auto reads = [&](unsigned k) {
      return !comparator.getArgument(2 * k).use_empty() ||
             !comparator.getArgument(2 * k + 1).use_empty();
    };
    bool readsAny = llvm::any_of(llvm::seq(0u, unsigned(op.getInputs().size())),
                                 reads);
    if (type.getNumElements() == 0 || n == 1 || !readsAny) {
      // Empty tensors and rows of one are sorted already; a comparator
      // that reads nothing finds every element equal (a stable sort keeps
      // them in place).
      rewriter.replaceOp(op, adaptor.getInputs());
      return success();
    }
    int64_t rows = type.getNumElements() / n;
    // The sorted dimension last, the others flattened: [rows, n].
    SmallVector<int64_t> toLast, fromLast(rank);
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim)
        toLast.push_back(d);
    toLast.push_back(dim);
    for (auto [at, d] : llvm::enumerate(toLast))
      fromLast[d] = at;
    SmallVector<int64_t> lastShape;
    for (int64_t d : toLast)
      lastShape.push_back(type.getDimSize(d));
    SmallVector<Value> table, keys;
    for (auto [k, input] : llvm::enumerate(adaptor.getInputs())) {
      auto inputType = cast<RankedTensorType>(input.getType());
      Value moved = kiln::TransposeOp::create(
          rewriter, loc, inputType.clone(lastShape), input,
          rewriter.getDenseI64ArrayAttr(toLast));
      table.push_back(kiln::ReshapeOp::create(
          rewriter, loc, inputType.clone({rows, n}), moved));
      keys.push_back(reads(k) ? Value(kiln::StopGradientOp::create(
                                    rewriter, loc, table.back()))
                              : Value());
    }
    Value order = sortedColumns(rewriter, loc, comparator, keys);
    SmallVector<Value> results;
    for (Value sorted : takeAlongRows(rewriter, loc, table, order)) {
      auto t = cast<RankedTensorType>(sorted.getType());
      Value shaped = kiln::ReshapeOp::create(rewriter, loc,
                                             t.clone(lastShape), sorted);
      results.push_back(kiln::TransposeOp::create(
          rewriter, loc, t.clone(type.getShape()), shaped,
          rewriter.getDenseI64ArrayAttr(fromLast)));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

namespace kiln::stablehlo_import {

void populateSortPatterns(RewritePatternSet &patterns) {
  patterns.add<TopK, Sort>(patterns.getContext());
}

std::optional<std::string> unsupportedSort(Operation *op) {
  std::optional<std::string> why;
  if (auto topK = dyn_cast<chlo::TopKOp>(op))
    why = checkTopK(topK);
  else if (auto sort = dyn_cast<shlo::SortOp>(op))
    why = checkSort(sort);
  if (!why)
    return std::nullopt;
  return op->getName().getStringRef().str() + ": " + *why;
}

} // namespace kiln::stablehlo_import
