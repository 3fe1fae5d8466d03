//===- ImportSort.cpp - chlo.top_k and stablehlo.sort ---------------------===//
//
// Kiln has no sort op; these are written with its reductions. top_k takes
// the largest remaining element k times in a kiln.while (O(k n) per row:
// k is small where models use it, as in top-k sampling). A sort by one key
// counts, for every element, the elements that go before it (O(n^2) per
// row, which suits the short rows jnp.sort and jnp.argsort see in models;
// long rows need a sort op of Kiln's own), and every operand is gathered
// in that order.
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

/// k times: the largest available element (NaN the largest, the first of
/// ties), written into column j of the results and made unavailable.
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
    auto column = [&](RankedTensorType t) {
      SmallVector<int64_t> shape(t.getShape());
      shape.back() = 1;
      return t.clone(shape);
    };
    Value position = kiln::IotaOp::create(
        rewriter, loc, type.clone(indicesType.getElementType()),
        rewriter.getI64IntegerAttr(rank - 1));
    Value everywhere = o.splat(type.clone(rewriter.getI1Type()),
                               rewriter.getBoolAttr(true));
    auto lastDim = rewriter.getDenseI64ArrayAttr({rank - 1});
    SmallVector<Value> results = countedLoop(
        rewriter, loc, op.getK(),
        ValueRange{everywhere,
                   o.splat(valuesType,
                           rewriter.getZeroAttr(type.getElementType())),
                   o.splat(indicesType, rewriter.getZeroAttr(
                                            indicesType.getElementType()))},
        [&](Value j, ValueRange carried) -> SmallVector<Value> {
          Value available = carried[0];
          Value masked = o.select(available, x, o.lowest(type));
          Value best = o.spread(
              kiln::ReduceMaxOp::create(rewriter, loc, rows, masked, lastDim),
              n);
          Value hit = o.eq(x, best);
          if (isFloat)
            hit = o.either(hit, o.both(o.isNan(x), o.isNan(best)));
          hit = o.both(available, hit);
          Value index = kiln::ArgmaxOp::create(
              rewriter, loc, rows.clone(indicesType.getElementType()),
              kiln::ConvertOp::create(rewriter, loc,
                                      type.clone(rewriter.getI32Type()), hit),
              rewriter.getI64IntegerAttr(rank - 1));
          Value chosen = o.eq(position, o.spread(index, n));
          // The chosen element exactly (its NaN, its zero's sign).
          Value value = kiln::ReduceMaxOp::create(
              rewriter, loc, rows, o.select(chosen, x, o.lowest(type)),
              lastDim);
          SmallVector<Value> at(rank - 1, o.splat(RankedTensorType::get(
                                                      {}, rewriter.getI64Type()),
                                                  rewriter.getI64IntegerAttr(0)));
          at.push_back(j);
          auto write = [&](Value into, Value row) -> Value {
            auto intoType = cast<RankedTensorType>(into.getType());
            return kiln::DynamicUpdateSliceOp::create(
                rewriter, loc, into,
                kiln::ReshapeOp::create(rewriter, loc, column(intoType), row),
                at);
          };
          return {o.both(available, o.no(chosen)), write(carried[1], value),
                  write(carried[2], index)};
        });
    rewriter.replaceOp(op, {results[1], results[2]});
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

/// The comparator applied to every pair of the grid: `args` are its
/// arguments as tensors of the grid's shape.
Value compareAll(OpBuilder &b, Location loc, Block &comparator,
                 ValueRange args, ArrayRef<int64_t> grid) {
  IRMapping map;
  map.map(comparator.getArguments(), args);
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

/// Per row of the sorted dimension (moved last), element i's place is the
/// number of elements the comparator puts before it, and of equal ones
/// before it in the row (a stable sort); the inverse permutation, counted
/// the same way, gathers every input.
struct Sort : OpConversionPattern<shlo::SortOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::SortOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (checkSort(op))
      return rewriter.notifyMatchFailure(op, "unsupported sort");
    Location loc = op.getLoc();
    Ops o{rewriter, loc};
    auto type = cast<RankedTensorType>(op.getInputs()[0].getType());
    if (type.getNumElements() == 0) {
      // An empty tensor is sorted already.
      rewriter.replaceOp(op, adaptor.getInputs());
      return success();
    }
    // A negative dimension counts from the last.
    int64_t rank = type.getRank(), dim = int64_t(op.getDimension());
    if (dim < 0)
      dim += rank;
    int64_t n = type.getDimSize(dim), rows = type.getNumElements() / n;
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
    SmallVector<Value> table;
    for (Value input : adaptor.getInputs()) {
      auto inputType = cast<RankedTensorType>(input.getType());
      Value moved = kiln::TransposeOp::create(
          rewriter, loc, inputType.clone(lastShape), input,
          rewriter.getDenseI64ArrayAttr(toLast));
      table.push_back(kiln::ReshapeOp::create(
          rewriter, loc, inputType.clone({rows, n}), moved));
    }
    // The grid [rows, i, j] of every pair, each input read at i and at j.
    SmallVector<int64_t> grid = {rows, n, n};
    auto at = [&](Value x, int64_t dimension) -> Value {
      auto t = cast<RankedTensorType>(x.getType());
      return kiln::BroadcastInDimOp::create(
          rewriter, loc, t.clone(grid), x,
          rewriter.getDenseI64ArrayAttr({0, dimension}), Value());
    };
    SmallVector<Value> jThenI, iThenJ;
    for (Value x : table) {
      Value atI = at(x, 1), atJ = at(x, 2);
      jThenI.append({atJ, atI});
      iThenJ.append({atI, atJ});
    }
    Block &comparator = op.getComparator().front();
    Value jBefore = compareAll(rewriter, loc, comparator, jThenI, grid);
    Value iBefore = compareAll(rewriter, loc, comparator, iThenJ, grid);
    auto gridIndex = RankedTensorType::get(grid, rewriter.getI64Type());
    Value i = kiln::IotaOp::create(rewriter, loc, gridIndex,
                                   rewriter.getI64IntegerAttr(1));
    Value j = kiln::IotaOp::create(rewriter, loc, gridIndex,
                                   rewriter.getI64IntegerAttr(2));
    Value before = o.either(
        jBefore,
        o.both(o.no(iBefore),
               o.compare(kiln::ComparisonDirection::LT, j, i)));
    auto rowIndex = RankedTensorType::get({rows, n}, rewriter.getI64Type());
    auto sumOverJ = [&](Value x) -> Value {
      return kiln::ReduceSumOp::create(rewriter, loc, rowIndex, x,
                                       rewriter.getDenseI64ArrayAttr({2}));
    };
    Value place = sumOverJ(kiln::ConvertOp::create(rewriter, loc, gridIndex,
                                                   before));
    // source[p] = the j whose place is p: over [rows, p, j].
    Value isPlace = o.eq(at(place, 2), i);
    Value source = sumOverJ(o.select(
        isPlace, j, o.splat(gridIndex, rewriter.getI64IntegerAttr(0))));
    Value rowStart = kiln::MulOp::create(
        rewriter, loc,
        kiln::IotaOp::create(rewriter, loc, rowIndex,
                             rewriter.getI64IntegerAttr(0)),
        o.splat(rowIndex, rewriter.getI64IntegerAttr(n)));
    Value positions = kiln::AddOp::create(rewriter, loc, rowStart, source);
    SmallVector<Value> results;
    for (Value x : table) {
      auto t = cast<RankedTensorType>(x.getType());
      Value flat = kiln::ReshapeOp::create(rewriter, loc,
                                           t.clone({rows * n}), x);
      Value sorted = kiln::TakeOp::create(rewriter, loc, t, flat, positions,
                                          rewriter.getI64IntegerAttr(0));
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
