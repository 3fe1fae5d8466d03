//===- ImportSort.cpp - chlo.top_k and stablehlo.sort ---------------------===//
//
// Kiln has no sort op; these are written with its data-parallel ops, so
// that they run, differentiate and batch on every target. top_k takes the
// largest remaining element k times in a kiln.while (O(k n) per row: k is
// small where models use it, as in top-k sampling). A sort runs a bitonic
// sorting network (O(n log^2 n) per row) in a kiln.while.
//
//===----------------------------------------------------------------------===//
#include "frontend/stablehlo/ImportPatterns.h"
#include "frontend/stablehlo/Passes.h"

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

/// The partner masks of a bitonic sorting network over rows of `width` (a
/// power of two), one per step: each merge of sorted blocks of k / 2 into
/// blocks of k first pairs element i with its mirror in the block (i xor
/// (k - 1)), then with i xor k / 4, ..., i xor 1.
SmallVector<int64_t> bitonicMasks(int64_t width) {
  SmallVector<int64_t> masks;
  for (int64_t block = 2; block <= width; block *= 2) {
    masks.push_back(block - 1);
    for (int64_t half = block / 4; half >= 1; half /= 2)
      masks.push_back(half);
  }
  return masks;
}

/// The order a stable sort by `comparator` puts each row of `rows` in (the
/// sort's operands as [rows, n] tensors, null where the comparator does not
/// read them), as the original column of each place ([rows, n], i64), by a
/// bitonic sorting network over rows padded to a power of two: O(n log^2 n)
/// comparisons, log2(n) (log2(n) + 1) / 2 steps of one kiln.while, each
/// comparing every element with its partner (gathered by kiln.take) and
/// keeping the one that belongs at its place. Each element carries its
/// original column: ties go by it, and padding (columns from n) goes last.
Value sortedColumns(OpBuilder &b, Location loc, Block &comparator,
                    ArrayRef<Value> rows) {
  Ops o{b, loc};
  auto rowsType = cast<RankedTensorType>(
      llvm::find_if(rows, [](Value x) { return bool(x); })->getType());
  int64_t count = rowsType.getDimSize(0), n = rowsType.getDimSize(1);
  int64_t width = int64_t(llvm::bit_ceil(uint64_t(n)));
  // The loop works on the rows flattened, [count * width]: a reshape of a
  // carried value would be copied every step.
  auto gridType = RankedTensorType::get({count, width}, b.getI64Type());
  auto flatType = RankedTensorType::get({count * width}, b.getI64Type());
  auto flat = [&](Value x) -> Value {
    auto type = cast<RankedTensorType>(x.getType());
    return kiln::ReshapeOp::create(b, loc, type.clone({count * width}), x);
  };
  auto iota = [&](int64_t dimension) {
    return flat(kiln::IotaOp::create(b, loc, gridType,
                                     b.getI64IntegerAttr(dimension)));
  };
  auto index = [&](int64_t value) {
    return o.splat(flatType, b.getI64IntegerAttr(value));
  };
  auto lt = [&](Value x, Value y) {
    return o.compare(kiln::ComparisonDirection::LT, x, y);
  };
  Value column = iota(1);
  Value columns = width > n ? index(n) : Value();
  Value rowStart = kiln::MulOp::create(b, loc, iota(0), index(width));
  SmallVector<int64_t> masks = bitonicMasks(width);
  auto maskType =
      RankedTensorType::get({int64_t(masks.size())}, b.getI64Type());
  Value maskTable = kiln::ConstantOp::create(
      b, loc, DenseElementsAttr::get(maskType, ArrayRef(masks)));
  // Whether the element with comparator results `xy` (x before y) and `yx`
  // and original columns `x` and `y` goes before the other.
  auto precedes = [&](Value xy, Value yx, Value x, Value y) {
    Value byColumn = lt(x, y);
    Value key = o.either(xy, o.both(o.no(yx), byColumn));
    if (width == n)
      return key;
    Value yPadding = o.no(lt(y, columns));
    return o.select(lt(x, columns), o.either(yPadding, key),
                    o.both(yPadding, byColumn));
  };
  auto zeros = b.getDenseI64ArrayAttr({0, 0});
  SmallVector<Value> carried;
  for (Value x : rows) {
    if (!x)
      continue;
    auto type = cast<RankedTensorType>(x.getType());
    if (width > n)
      x = kiln::PadOp::create(b, loc, x,
                              o.splat(type.clone(ArrayRef<int64_t>{}),
                                      b.getZeroAttr(type.getElementType())),
                              zeros, b.getDenseI64ArrayAttr({0, width - n}),
                              zeros);
    carried.push_back(flat(x));
  }
  carried.push_back(column);
  SmallVector<Value> sorted = countedLoop(
      b, loc, masks.size(), carried,
      [&](Value step, ValueRange mine) -> SmallVector<Value> {
        Value mask = kiln::ReshapeOp::create(
            b, loc, RankedTensorType::get({}, b.getI64Type()),
            kiln::DynamicSliceOp::create(b, loc, maskTable, ValueRange{step},
                                         b.getDenseI64ArrayAttr(1)));
        Value partner = kiln::XorOp::create(
            b, loc, column,
            kiln::BroadcastInDimOp::create(b, loc, flatType, mask,
                                           b.getDenseI64ArrayAttr({}),
                                           Value()));
        Value positions = kiln::AddOp::create(b, loc, rowStart, partner);
        SmallVector<Value> theirs;
        for (Value x : mine)
          theirs.push_back(kiln::TakeOp::create(b, loc, x.getType(), x,
                                                positions,
                                                b.getI64IntegerAttr(0)));
        // The comparator's arguments: pairs of each operand's elements
        // (null for an operand it does not read).
        SmallVector<Value> mineFirst, theirsFirst;
        for (unsigned k = 0, used = 0; k < rows.size(); ++k) {
          Value x = rows[k] ? mine[used] : Value();
          Value y = rows[k] ? theirs[used++] : Value();
          mineFirst.append({x, y});
          theirsFirst.append({y, x});
        }
        SmallVector<int64_t> grid = {count * width};
        Value mineBefore = compareAll(b, loc, comparator, mineFirst, grid);
        Value theirsBefore = compareAll(b, loc, comparator, theirsFirst, grid);
        // The lower of a pair keeps the one that goes first.
        Value taken = o.select(
            lt(column, partner),
            precedes(theirsBefore, mineBefore, theirs.back(), mine.back()),
            precedes(mineBefore, theirsBefore, mine.back(), theirs.back()));
        // Kept as i32, each select comparing it anew: the comparisons then
        // fuse into vector loops (a tensor of i1 would be stored and read
        // back element by element).
        auto maskI32 = flatType.clone(b.getI32Type());
        Value takenMask = kiln::ConvertOp::create(b, loc, maskI32, taken);
        Value no = o.splat(maskI32, b.getI32IntegerAttr(0));
        SmallVector<Value> next;
        for (auto [x, y] : llvm::zip(mine, theirs))
          next.push_back(o.select(
              o.compare(kiln::ComparisonDirection::NE, takenMask, no), y, x));
        return next;
      });
  Value order = kiln::ReshapeOp::create(b, loc, gridType, sorted.back());
  return width == n ? order
                    : Value(kiln::SliceOp::create(
                          b, loc, gridType.clone({count, n}), order, zeros,
                          b.getDenseI64ArrayAttr({count, n}),
                          b.getDenseI64ArrayAttr({1, 1})));
}

/// Per row of the sorted dimension (moved last), the order sortedColumns
/// finds from the operands the comparator reads (under stop_gradient: the
/// order is piecewise constant, and a kiln.while cannot be differentiated
/// in reverse mode), then every operand gathered in that order, which
/// differentiates as a gather.
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
