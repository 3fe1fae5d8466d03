//===- ImportSort.cpp - chlo.top_k and stablehlo.sort ---------------------===//
//
// Kiln has no sort op; these are written with its data-parallel ops, so
// that they run, differentiate and batch on every target: a bitonic
// network, unrolled into vectorizable steps, sorts rows (O(n log^2 n)) or
// finds their top k (O(n log^2 k), or O(n) and networks over a few k
// elements where blocks of the row are ranked by their maxima first,
// recursively).
//
//===----------------------------------------------------------------------===//
#include "frontend/stablehlo/ImportPatterns.h"
#include "frontend/stablehlo/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <functional>
#include <map>

using namespace mlir;
using namespace kiln;
using namespace kiln::stablehlo_import;

namespace {

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

/// `result`, a value of the comparator, computed elementwise: `args` are
/// its arguments as tensors of shape `grid` (null for those `result` does
/// not use). Only the ops `result` depends on are copied.
Value applyElementwise(OpBuilder &b, Location loc, Block &comparator,
                       Value result, ArrayRef<Value> args,
                       ArrayRef<int64_t> grid) {
  IRMapping map;
  for (auto [arg, value] : llvm::zip(comparator.getArguments(), args))
    if (value)
      map.map(arg, value);
  llvm::SmallPtrSet<Operation *, 16> needed;
  SmallVector<Value> pending = {result};
  while (!pending.empty()) {
    Operation *def = pending.pop_back_val().getDefiningOp();
    if (def && needed.insert(def).second)
      llvm::append_range(pending, def->getOperands());
  }
  for (Operation &nested : comparator.without_terminator()) {
    if (!needed.contains(&nested))
      continue;
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
  return map.lookup(result);
}

/// The comparator applied elementwise (see applyElementwise).
Value compareAll(OpBuilder &b, Location loc, Block &comparator,
                 ArrayRef<Value> args, ArrayRef<int64_t> grid) {
  return applyElementwise(b, loc, comparator,
                          comparator.getTerminator()->getOperand(0), args,
                          grid);
}

/// The largest or the smallest value of a signed `integer` type: the key
/// that goes last in an order of integer keys.
Attribute signedLimit(OpBuilder &b, IntegerType integer, bool largest) {
  unsigned width = integer.getWidth();
  return b.getIntegerAttr(integer, largest ? APInt::getSignedMaxValue(width)
                                           : APInt::getSignedMinValue(width));
}

/// Whether `a`, computed from the comparator's even arguments (the left
/// elements of a pair), is `b` computed the same way from the odd ones.
bool mirrors(Value a, Value b) {
  auto argA = dyn_cast<BlockArgument>(a), argB = dyn_cast<BlockArgument>(b);
  if (argA || argB)
    return argA && argB && argA.getArgNumber() % 2 == 0 &&
           argB.getArgNumber() == argA.getArgNumber() + 1;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (x->getName() != y->getName() ||
      x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getResultTypes() != y->getResultTypes() ||
      x->getNumOperands() != y->getNumOperands() ||
      cast<OpResult>(a).getResultNumber() !=
          cast<OpResult>(b).getResultNumber())
    return false;
  return llvm::all_of(
      llvm::zip(x->getOperands(), y->getOperands()),
      [](auto pair) { return mirrors(std::get<0>(pair), std::get<1>(pair)); });
}

/// A comparator that compares one function of each element of a pair,
/// compare(LT or GT, key(p), key(q)), as jnp.sort's (the float
/// canonicalized, in TOTALORDER) and a descending sort's do: its
/// comparison, whose left operand is the key. The network then compares
/// keys computed once per element instead of the comparator at every step.
shlo::CompareOp keyComparison(Block &comparator) {
  auto compare = comparator.getTerminator()
                     ->getOperand(0)
                     .getDefiningOp<shlo::CompareOp>();
  if (!compare)
    return {};
  auto direction = compare.getComparisonDirection();
  std::optional<shlo::ComparisonType> type = compare.getCompareType();
  bool unsignedCompare = type && *type == shlo::ComparisonType::UNSIGNED;
  bool booleans = isBoolTensor(compare.getLhs().getType());
  if ((direction != shlo::ComparisonDirection::LT &&
       direction != shlo::ComparisonDirection::GT) ||
      unsignedCompare || booleans ||
      !mirrors(compare.getLhs(), compare.getRhs()))
    return {};
  return compare;
}

/// Whether each element of the keys `x` goes strictly before its partner
/// in `y` (the keys an order reads, tensors of `shape`) by that order
/// alone; the network breaks ties by original column.
using Before = std::function<Value(OpBuilder &, Location, ValueRange x,
                                   ValueRange y, ArrayRef<int64_t> shape)>;

/// The order of a sort's comparator, given which of its operands it reads
/// (`read`; the keys are those operands).
Before comparatorOrder(Block &comparator, SmallVector<bool> read) {
  return [&comparator, read](OpBuilder &b, Location loc, ValueRange x,
                             ValueRange y, ArrayRef<int64_t> shape) {
    SmallVector<Value> args;
    for (unsigned k = 0, used = 0; k < read.size(); ++k) {
      args.append({read[k] ? x[used] : Value(), read[k] ? y[used] : Value()});
      used += read[k];
    }
    return compareAll(b, loc, comparator, args, shape);
  };
}

//===----------------------------------------------------------------------===//
// The bitonic network
//===----------------------------------------------------------------------===//

/// Step functions by their type, half and (where padding is told apart by
/// column) row length, made by networks of one order: a top_k's networks
/// of equal widths call the same ones (k = 50 of 50,257: 84 -> 48).
using StepFunctions =
    std::map<std::tuple<uintptr_t, int64_t, int64_t>, func::FuncOp>;

/// A bitonic network on rows of keys padded to `width` (a power of two),
/// each element carrying its original column, ordered by `before`, then
/// by column (padding, columns from n, last). Step (block, half) pairs
/// element i with i xor half, and the lower of the two keeps the one that
/// goes first where i's bit `block` is 0 and the other where it is 1, so
/// that blocks sort alternately up and down and each merge into blocks of
/// `block` sees bitonic sequences; a block of the whole row sorts up. Each
/// step is static slices of the pairs' halves, one elementwise computation
/// and a concatenation, which fuse and vectorize along contiguous runs:
/// steps of half >= T (T = 2^floor(log2(width) / 2)) on the rows as they
/// are ([count, width]), where pairs lie runs of `half` apart; steps of
/// half < T on the rows transposed ([count, T, width / T], i = a T + t at
/// (t, a)), where pairs are whole rows of width / T. The steps of one half
/// are calls of one function, given the block.
struct BitonicNetwork {
  OpBuilder &b;
  Location loc;
  const Before &before;
  /// What the steps' functions are named after ("sort", "top_k").
  StringRef name;
  int64_t count, n, width;
  bool padded;
  Type indexType;
  /// The keys, then the columns.
  SmallVector<Value> carried;
  bool transposed = false;
  /// A key that goes after every other (ties by column), given for a
  /// single key of a total order: padding holds it, and the steps need not
  /// tell padding apart.
  Attribute lastKey;
  /// The functions of the steps, once made: this network's own, or those
  /// of networks of the same order.
  StepFunctions ownSteps;
  StepFunctions *steps = &ownSteps;

  /// A network on the rows of `keys`, whose elements carry their
  /// `columns` ([count, n], i64) where given, else their places. Given
  /// columns need a `lastKey`: padding is not told apart by its column.
  /// Its steps go in `shared` where given.
  BitonicNetwork(OpBuilder &b, Location loc, const Before &before,
                 StringRef name, ArrayRef<Value> keys, Attribute lastKey = {},
                 Value columns = {}, StepFunctions *shared = nullptr)
      : b(b), loc(loc), before(before), name(name), lastKey(lastKey),
        steps(shared ? shared : &ownSteps) {
    auto type = cast<RankedTensorType>(keys.front().getType());
    count = type.getDimSize(0);
    n = type.getDimSize(1);
    width = int64_t(llvm::bit_ceil(uint64_t(n)));
    padded = width > n && !lastKey;
    indexType = width <= std::numeric_limits<int32_t>::max()
                    ? b.getI32Type()
                    : b.getI64Type();
    for (Value x : keys)
      carried.push_back(
          toWidth(x, paddingKey(cast<RankedTensorType>(x.getType()))));
    if (!columns) {
      carried.push_back(kiln::IotaOp::create(b, loc, indices({count, width}),
                                             b.getI64IntegerAttr(1)));
      return;
    }
    // Padding goes after every element on ties, by the largest column.
    carried.push_back(
        toWidth(kiln::ConvertOp::create(b, loc, indices({count, n}), columns),
                signedLimit(b, cast<IntegerType>(indexType), true)));
  }

  /// Rows of `x` ([count, n]) padded with `value` to the width.
  Value toWidth(Value x, Attribute value) {
    if (width == n)
      return x;
    auto type = cast<RankedTensorType>(x.getType());
    auto zeros = b.getDenseI64ArrayAttr({0, 0});
    return kiln::PadOp::create(
        b, loc, x, splat(b, loc, type.clone(ArrayRef<int64_t>{}), value), zeros,
        b.getDenseI64ArrayAttr({0, width - n}), zeros);
  }

  /// A network of rows already laid out (untransposed): `carried`, the
  /// keys then the columns, [count, width] each.
  BitonicNetwork(OpBuilder &b, Location loc, const Before &before,
                 StringRef name, int64_t n, bool padded, Type indexType,
                 ArrayRef<Value> carried)
      : b(b), loc(loc), before(before), name(name), n(n), padded(padded),
        indexType(indexType), carried(carried) {
    auto type = cast<RankedTensorType>(carried.front().getType());
    count = type.getDimSize(0);
    width = type.getDimSize(1);
  }

  /// What padding of `type`'s keys holds: the last key, else 0 (told
  /// apart by its column).
  Attribute paddingKey(RankedTensorType type) {
    return lastKey ? lastKey : b.getZeroAttr(type.getElementType());
  }

  /// T: steps of smaller halves run on the rows transposed.
  int64_t across() const {
    return int64_t(1) << (llvm::Log2_64(uint64_t(width)) / 2);
  }
  /// Columns and positions: i32 where they fit.
  RankedTensorType indices(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, indexType);
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
              ? swapLast(reshape(x, {count, width / across(), across()}))
              : reshape(swapLast(x), {count, width});
    transposed = wantTransposed;
  }
  /// Indices [from, from + size) of dimension `dim` of `x`.
  Value sliceAlong(Value x, int64_t dim, int64_t from, int64_t size) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape());
    start[dim] = from;
    limit[dim] = from + size;
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = size;
    return kiln::SliceOp::create(
        b, loc, type.clone(shape), x, b.getDenseI64ArrayAttr(start),
        b.getDenseI64ArrayAttr(limit),
        b.getDenseI64ArrayAttr(SmallVector<int64_t>(type.getRank(), 1)));
  }
  /// Index `at` of dimension `dim` of `x`, kept as a dimension of 1.
  Value halfOf(Value x, int64_t dim, int64_t at) {
    return sliceAlong(x, dim, at, 1);
  }
  Value lt(Value x, Value y) {
    return kiln::CompareOp::create(b, loc, kiln::ComparisonDirection::LT, x,
                                   y);
  }
  Value no(Value x) { return kiln::NotOp::create(b, loc, x); }

  /// Whether each of `lower`'s elements goes before its partner in
  /// `upper` (carried tensors' halves of `shape`): by `before`, then by
  /// original column; padding (columns from n) last.
  Value precedes(ArrayRef<Value> lower, ArrayRef<Value> upper,
                 ArrayRef<int64_t> shape) {
    ValueRange lowerKeys = ValueRange(lower).drop_back();
    ValueRange upperKeys = ValueRange(upper).drop_back();
    Value xy = before(b, loc, lowerKeys, upperKeys, shape);
    Value yx = before(b, loc, upperKeys, lowerKeys, shape);
    Value x = lower.back(), y = upper.back();
    Value byColumn = lt(x, y);
    Value key = kiln::OrOp::create(
        b, loc, xy, kiln::AndOp::create(b, loc, no(yx), byColumn));
    if (!padded)
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
    int64_t t = across();
    if (half < t)
      return {{count, t / (2 * half), 2, half, width / t},
              {0, 2 * half, 0, 0, t}};
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
    func::FuncOp &function =
        (*steps)[{reinterpret_cast<uintptr_t>(
                      b.getFunctionType(types, types).getAsOpaquePointer()),
                  half, padded ? n : -1}];
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
        (cast<func::FuncOp>(caller).getSymName() + "_" + name + "_step").str();
    std::string unique = base;
    for (int k = 1; module.lookupSymbol(unique); ++k)
      unique = base + "_" + std::to_string(k);
    b.setInsertionPointAfter(caller);
    function = func::FuncOp::create(b, loc, unique,
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
    layOut(half < across());
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

  /// Blocks of `size` sorted, alternately up and down (up if `size` is
  /// the width).
  void sortBlocks(int64_t size) {
    for (int64_t block = 2; block <= size; block *= 2)
      for (int64_t half = block / 2; half >= 1; half /= 2)
        step(block, half);
  }

  /// Rows of blocks of `size` sorted alternately up and down halved: of
  /// each pair of blocks (a bitonic sequence), the first `size` in order
  /// (the lower half of its merge's first step, itself bitonic), then
  /// sorted as blocks of `size` again.
  void halve(int64_t size) {
    layOut(false);
    SmallVector<Value> lower, upper;
    for (Value x : carried) {
      Value pairs = reshape(x, {count, width / (2 * size), 2, size});
      lower.push_back(halfOf(pairs, 2, 0));
      upper.push_back(halfOf(pairs, 2, 1));
    }
    Value keep = precedes(
        lower, upper,
        cast<RankedTensorType>(lower.front().getType()).getShape());
    width /= 2;
    for (auto [x, l, u] : llvm::zip(carried, lower, upper))
      x = reshape(kiln::SelectOp::create(b, loc, l.getType(), keep, l, u),
                  {count, width});
    for (int64_t half = size / 2; half >= 1; half /= 2)
      step(size, half);
  }

  /// The original columns of the first `columns` places of each row
  /// ([count, columns], i64).
  Value firstColumns(int64_t columns) {
    layOut(false);
    Value order = carried.back();
    if (columns < width)
      order = sliceAlong(order, 1, 0, columns);
    return kiln::ConvertOp::create(
        b, loc, RankedTensorType::get({count, columns}, b.getI64Type()), order);
  }

  /// Each row's order: the original column of each place ([count, n]).
  Value sortedColumns() {
    int64_t half = width / 2;
    int64_t rest = int64_t(llvm::bit_ceil(uint64_t(n - half)));
    if (width < 8 || 2 * rest > half) {
      sortBlocks(width);
      return firstColumns(n);
    }
    // Rows little longer than a power of two: the first half and the rest
    // (padded to `rest` only) sort apart, then merge as one bitonic row,
    // the first half up, padding, the rest down (log2(width) steps),
    // instead of sorting the padding with the row.
    BitonicNetwork first(b, loc, before, name, n, /*padded=*/false,
                         indexType, columnsOf(0, half));
    BitonicNetwork last(b, loc, before, name, n, padded, indexType,
                        columnsOf(half, rest));
    first.sortBlocks(half);
    first.layOut(false);
    last.sortBlocks(rest);
    last.layOut(false);
    // The padding between them goes after every element of the rest (its
    // own padding included): columns from n + rest.
    auto gapType = indices({count, half - rest});
    Value gapColumns = kiln::AddOp::create(
        b, loc, kiln::IotaOp::create(b, loc, gapType, b.getI64IntegerAttr(1)),
        splat(b, loc, gapType, n + rest));
    for (auto [k, x] : llvm::enumerate(carried)) {
      auto type = cast<RankedTensorType>(x.getType());
      Value gap = k + 1 == carried.size()
                      ? gapColumns
                      : splat(b, loc, type.clone({count, half - rest}),
                              paddingKey(type));
      Value down = kiln::ReverseOp::create(b, loc, last.carried[k],
                                           b.getDenseI64ArrayAttr({1}));
      x = kiln::ConcatenateOp::create(
          b, loc, ValueRange{first.carried[k], gap, down}, 1);
    }
    transposed = false;
    for (int64_t distance = half; distance >= 1; distance /= 2)
      step(width, distance);
    return firstColumns(n);
  }

  /// Columns [from, from + size) of every carried tensor (untransposed).
  SmallVector<Value> columnsOf(int64_t from, int64_t size) {
    layOut(false);
    SmallVector<Value> parts;
    for (Value x : carried)
      parts.push_back(sliceAlong(x, 1, from, size));
    return parts;
  }

  /// The columns of each row's first k elements in order ([count, k]):
  /// blocks of K (k rounded up to a power of two) sorted, then halved
  /// until one is left, O(n log^2 K) comparisons (Shanbhag et al.'s
  /// bitonic top-k).
  Value topColumns(int64_t k) {
    int64_t size = int64_t(llvm::bit_ceil(uint64_t(k)));
    sortBlocks(size);
    while (width > size)
      halve(size);
    return firstColumns(k);
  }
};

/// The bytes of the chunk of rows a network orders at a time: its
/// O(log^2 n) passes then read and write a cache instead of memory (the
/// chunk and a step's outputs fit in 512 KiB of L2 a core, Zen 3's; 1 to
/// 2 MiB on Zen 4 and Intel). Half that took 40% longer on rows of 37 (a
/// chunk's fixed cost), twice that up to 14% longer on larger rows.
constexpr int64_t kChunkBytes = 256 * 1024;

/// `order`'s result ([rows, columns], i64) for the rows of `keys` ([rows,
/// n] each), their elements carrying `carriedColumns` where given (see
/// BitonicNetwork): `order` of one network over every row if they fit in
/// a chunk, else of one per chunk of rows in a kiln.while (the rows padded
/// to a whole number of chunks). The networks' steps go in `steps` where
/// given.
Value orderRows(OpBuilder &b, Location loc, const Before &before,
                StringRef name, ArrayRef<Value> keys, int64_t columns,
                function_ref<Value(BitonicNetwork &)> order,
                Attribute lastKey = {}, Value carriedColumns = {},
                StepFunctions *steps = nullptr) {
  auto type = cast<RankedTensorType>(keys.front().getType());
  int64_t rows = type.getDimSize(0), n = type.getDimSize(1);
  // A padded row's bytes: its columns' (i32) and those of its keys.
  int64_t elementBytes = 4;
  for (Value x : keys)
    elementBytes += llvm::divideCeil(
        cast<RankedTensorType>(x.getType()).getElementTypeBitWidth(), 8);
  int64_t rowBytes = int64_t(llvm::bit_ceil(uint64_t(n))) * elementBytes;
  int64_t most = std::max<int64_t>(1, kChunkBytes / rowBytes);
  if (most >= rows) {
    BitonicNetwork network(b, loc, before, name, keys, lastKey, carriedColumns,
                           steps);
    return order(network);
  }
  // As many rows in each chunk as evenly as they go: padding rows are
  // sorted like the others.
  int64_t chunks = llvm::divideCeil(rows, most);
  int64_t chunk = llvm::divideCeil(rows, chunks);
  auto zeros = b.getDenseI64ArrayAttr({0, 0});
  SmallVector<Value> padded, tables(keys);
  if (carriedColumns)
    tables.push_back(carriedColumns);
  for (Value x : tables) {
    auto xType = cast<RankedTensorType>(x.getType());
    padded.push_back(kiln::PadOp::create(
        b, loc, x,
        splat(b, loc, xType.clone(ArrayRef<int64_t>{}),
              b.getZeroAttr(xType.getElementType())),
        zeros, b.getDenseI64ArrayAttr({chunks * chunk - rows, 0}), zeros));
  }
  auto orderType =
      RankedTensorType::get({chunks * chunk, columns}, b.getI64Type());
  auto scalar = RankedTensorType::get({}, b.getI64Type());
  Value ordered = countedLoop(
      b, loc, chunks, ValueRange{splat(b, loc, orderType, 0)},
      [&](Value j, ValueRange carried) -> SmallVector<Value> {
        SmallVector<Value> at = {
            kiln::MulOp::create(b, loc, j, splat(b, loc, scalar, chunk)),
            splat(b, loc, scalar, 0)};
        SmallVector<Value> slices;
        for (Value x : padded)
          slices.push_back(kiln::DynamicSliceOp::create(
              b, loc, x, at, b.getDenseI64ArrayAttr({chunk, n})));
        Value sliceColumns = carriedColumns ? slices.pop_back_val() : Value();
        BitonicNetwork network(b, loc, before, name, slices, lastKey,
                               sliceColumns, steps);
        return {kiln::DynamicUpdateSliceOp::create(b, loc, carried[0],
                                                   order(network), at)};
      })[0];
  return kiln::SliceOp::create(b, loc, orderType.clone({rows, columns}),
                               ordered, zeros,
                               b.getDenseI64ArrayAttr({rows, columns}),
                               b.getDenseI64ArrayAttr({1, 1}));
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// top_k's order on its integer keys (floats' `largerFirstKey`s): the
/// larger first.
Value largerFirst(OpBuilder &b, Location loc, ValueRange x, ValueRange y,
                  ArrayRef<int64_t>) {
  return kiln::CompareOp::create(b, loc, kiln::ComparisonDirection::GT, x[0],
                                 y[0]);
}

/// Floats as integers of their width in top_k's order, computed once per
/// element instead of comparing floats (and testing NaN) at every step of
/// the network: NaN (all alike) the largest, -0 and +0 alike, the others
/// by value (their `totalOrderKey`).
Value largerFirstKey(OpBuilder &b, Location loc, Value x) {
  using D = kiln::ComparisonDirection;
  auto type = cast<RankedTensorType>(x.getType());
  Value zero = splat(b, loc, type, b.getZeroAttr(type.getElementType()));
  Value unsignedZero = kiln::SelectOp::create(
      b, loc, type, kiln::CompareOp::create(b, loc, D::EQ, x, zero), zero, x);
  Value key = totalOrderKey(b, loc, unsignedZero);
  auto keyType = cast<RankedTensorType>(key.getType());
  Value largest =
      splat(b, loc, keyType,
            signedLimit(b, cast<IntegerType>(keyType.getElementType()),
                        /*largest=*/true));
  return kiln::SelectOp::create(b, loc, keyType,
                                kiln::CompareOp::create(b, loc, D::NE, x, x),
                                largest, key);
}

/// Element-steps of the bitonic top k of rows of n (topColumns of
/// BitonicNetwork): blocks of K (k to a power of two) sorted, log2 K
/// (log2 K + 1) / 2 steps over the padded width W, then halved to K, a
/// step of selection and log2 K steps over each half, (W - K)(log2 K + 1).
double networkSteps(int64_t n, int64_t k) {
  double width = double(llvm::bit_ceil(uint64_t(n)));
  double size = std::min(width, double(llvm::bit_ceil(uint64_t(k))));
  double steps = std::log2(size);
  return width * steps * (steps + 1) / 2 + (width - size) * (steps + 1);
}

/// What ranking a row's blocks costs beyond the networks, in
/// element-steps: their maxima, a pass over the row (a fraction of a
/// network step, which selects and writes two tensors) and a horizontal
/// reduction of each block (blocks of 4 took 4 times as long as an
/// elementwise maximum of the row's slices), and the chosen blocks'
/// elements gathered (their places computed, then their keys taken).
constexpr double kMaximumSteps = 0.25;
constexpr double kBlockMaximumSteps = 3;
constexpr double kCandidateSteps = 2;

/// How a top k of rows of n ranks blocks of the row by their maxima
/// first: the block size (0: none, one network over the row) of least
/// estimated element-steps, the maxima's own top k (planned alike,
/// recursively) and the network over the k chosen blocks' elements,
/// against one network over the row. k = 50 of 64 x 50,257 in one level
/// of blocks of about sqrt(n / k) (32: 1,571 maxima and 1,600 candidates,
/// each padded to 2,048) took 4.8 ms on an AMD Zen 4; planned (blocks of
/// 16, 4 and 4 over 3 levels, then 800 candidates), 2.9.
class TopKPlan {
public:
  explicit TopKPlan(int64_t k) : k(k) {}

  int64_t blockSize(int64_t n) { return best(n).first; }

private:
  int64_t k;
  /// Rows' lengths planned, with the block size and its element-steps.
  llvm::DenseMap<int64_t, std::pair<int64_t, double>> plans;

  /// The block size for rows of n and its element-steps.
  std::pair<int64_t, double> best(int64_t n) {
    if (auto known = plans.find(n); known != plans.end())
      return known->second;
    std::pair<int64_t, double> plan = {0, networkSteps(n, k)};
    // Blocks of at least 4, more than 2 k of them (fewer leave little to
    // skip), of rows whose places (padding's below 1.5 n) the networks
    // carry as i32.
    for (int64_t size = 4; 2 * n <= std::numeric_limits<int32_t>::max() &&
                           int64_t(llvm::divideCeil(n, size)) > 2 * k;
         size *= 2) {
      double steps =
          (kMaximumSteps + kBlockMaximumSteps / double(size)) * double(n) +
          best(llvm::divideCeil(n, size)).second +
          kCandidateSteps * double(k * size) + networkSteps(k * size, k);
      if (steps < plan.second)
        plan = {size, steps};
    }
    plans[n] = plan;
    return plan;
  }
};

/// The places of the k largest integer `keys` of each row ([rows, n]), in
/// order, the first of ties first ([rows, k], i64). Where `plan` says so,
/// the row is cut into blocks (padded with the lowest key, which goes
/// after every element on ties), the blocks ranked by their maxima
/// (recursively: ties by block go by place) and only the k first
/// searched: an element of the top k lies in one of them, as each block
/// ranked before its own holds an element that goes before it. The
/// bitonic top-k then orders the chosen blocks' elements, each carrying
/// its place for ties. Padding holds the lowest key too, so that the
/// networks need not tell it apart.
Value topPlaces(OpBuilder &b, Location loc, Value keys, int64_t k,
                TopKPlan &plan, StepFunctions &steps) {
  auto type = cast<RankedTensorType>(keys.getType());
  int64_t rows = type.getDimSize(0), n = type.getDimSize(1);
  Attribute lowest = signedLimit(b, cast<IntegerType>(type.getElementType()),
                                 /*largest=*/false);
  auto top = [&](Value elements, Value places) {
    return orderRows(
        b, loc, largerFirst, "top_k", elements, k,
        [&](BitonicNetwork &network) { return network.topColumns(k); }, lowest,
        places, &steps);
  };
  int64_t size = plan.blockSize(n);
  if (!size)
    return top(keys, Value());
  int64_t blocks = llvm::divideCeil(n, size);
  auto zeros = b.getDenseI64ArrayAttr({0, 0});
  Value padded = kiln::PadOp::create(
      b, loc, keys, splat(b, loc, type.clone(ArrayRef<int64_t>{}), lowest),
      zeros, b.getDenseI64ArrayAttr({0, blocks * size - n}), zeros);
  Value maxima = kiln::ReduceMaxOp::create(
      b, loc, type.clone({rows, blocks}),
      kiln::ReshapeOp::create(b, loc, type.clone({rows, blocks, size}), padded),
      b.getDenseI64ArrayAttr({2}));
  Value chosen = topPlaces(b, loc, maxima, k, plan, steps);
  // The chosen blocks' places, [rows, k * size].
  auto grid = RankedTensorType::get({rows, k, size}, b.getI64Type());
  Value starts = kiln::MulOp::create(
      b, loc, chosen,
      splat(b, loc, RankedTensorType::get({rows, k}, b.getI64Type()), size));
  Value places = kiln::ReshapeOp::create(
      b, loc, grid.clone({rows, k * size}),
      kiln::AddOp::create(
          b, loc,
          kiln::BroadcastInDimOp::create(
              b, loc, grid, starts, b.getDenseI64ArrayAttr({0, 1}), Value()),
          kiln::IotaOp::create(b, loc, grid, b.getI64IntegerAttr(2))));
  return top(takeAlongRows(b, loc, padded, places).front(), places);
}

/// The columns of the k largest elements of each row of `keys` ([rows, n]),
/// in order ([rows, k], i64): topPlaces of the keys, floats' as integers
/// (largerFirstKey).
Value topColumns(OpBuilder &b, Location loc, Value keys, int64_t k) {
  if (isa<FloatType>(cast<RankedTensorType>(keys.getType()).getElementType()))
    keys = largerFirstKey(b, loc, keys);
  TopKPlan plan(k);
  StepFunctions steps;
  return topPlaces(b, loc, keys, k, plan, steps);
}

/// Each row's k largest (NaN the largest, the first of ties) by
/// topColumns under stop_gradient, as the indices are piecewise constant; the
/// values are then gathered at the indices, which differentiates (a
/// mixture of experts' router weights its top k).
struct TopK : OpConversionPattern<chlo::TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(chlo::TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (checkTopK(op))
      return rewriter.notifyMatchFailure(op, "unsupported top_k");
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    auto type = cast<RankedTensorType>(x.getType());
    auto valuesType = cast<RankedTensorType>(op.getValues().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    if (valuesType.getNumElements() == 0) {
      // Nothing to take (k = 0, or no rows): empty results.
      rewriter.replaceOp(
          op, {splat(rewriter, loc, valuesType,
                     rewriter.getZeroAttr(type.getElementType())),
               splat(rewriter, loc, indicesType, 0)});
      return success();
    }
    int64_t n = type.getShape().back(), k = op.getK();
    int64_t rows = type.getNumElements() / n;
    Value table =
        kiln::ReshapeOp::create(rewriter, loc, type.clone({rows, n}), x);
    Value keys = kiln::StopGradientOp::create(rewriter, loc, table);
    Value columns = topColumns(rewriter, loc, keys, k);
    Value values = takeAlongRows(rewriter, loc, table, columns).front();
    rewriter.replaceOp(
        op, {kiln::ReshapeOp::create(rewriter, loc, valuesType, values),
             kiln::ReshapeOp::create(
                 rewriter, loc, indicesType,
                 kiln::ConvertOp::create(
                     rewriter, loc,
                     RankedTensorType::get({rows, k},
                                           indicesType.getElementType()),
                     columns))});
    return success();
  }
};

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
      if (reads(k))
        keys.push_back(
            kiln::StopGradientOp::create(rewriter, loc, table.back()));
    }
    Before before = comparatorOrder(
        comparator, llvm::map_to_vector(llvm::seq(0u, unsigned(table.size())),
                                        reads));
    Attribute lastKey;
    if (shlo::CompareOp compare = keyComparison(comparator)) {
      SmallVector<Value> args;
      for (unsigned k = 0, used = 0; k < table.size(); ++k) {
        args.append({reads(k) ? keys[used] : Value(), Value()});
        used += reads(k);
      }
      Value key = applyElementwise(rewriter, loc, comparator, compare.getLhs(),
                                   args, {rows, n});
      auto element = cast<RankedTensorType>(key.getType()).getElementType();
      if (compare.getCompareType() == shlo::ComparisonType::TOTALORDER &&
          isa<FloatType>(element))
        key = totalOrderKey(rewriter, loc, key);
      keys = {key};
      auto direction =
          compare.getComparisonDirection() == shlo::ComparisonDirection::LT
              ? kiln::ComparisonDirection::LT
              : kiln::ComparisonDirection::GT;
      before = [direction](OpBuilder &b, Location loc, ValueRange x,
                           ValueRange y, ArrayRef<int64_t>) -> Value {
        return kiln::CompareOp::create(b, loc, direction, x[0], y[0]);
      };
      // Integer keys are totally ordered: padding takes the key that goes
      // last instead of a test of its column at every step.
      if (auto integer = dyn_cast<IntegerType>(
              cast<RankedTensorType>(key.getType()).getElementType()))
        lastKey = signedLimit(rewriter, integer,
                              direction == kiln::ComparisonDirection::LT);
    }
    Value order = orderRows(
        rewriter, loc, before, "sort", keys, n,
        [](BitonicNetwork &network) { return network.sortedColumns(); },
        lastKey);
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
