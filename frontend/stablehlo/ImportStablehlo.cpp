//===- ImportStablehlo.cpp - StableHLO ops to kiln ops --------------------===//
//
// One conversion pattern per StableHLO op family. Kiln's ops take
// StableHLO's operands and attribute names, so most are renamed as they
// are; the rest say here how StableHLO's meaning is written in kiln.
//
//===----------------------------------------------------------------------===//
#include "frontend/stablehlo/Passes.h"
#include "frontend/stablehlo/ImportPatterns.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln {
#define GEN_PASS_DEF_KILNIMPORTSTABLEHLO
#include "frontend/stablehlo/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::stablehlo_import;

bool kiln::stablehlo_import::isBoolTensor(Type type) {
  return cast<TensorType>(type).getElementType().isInteger(1);
}

Value kiln::stablehlo_import::splat(OpBuilder &b, Location loc,
                                    RankedTensorType type, Attribute value) {
  return kiln::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, ArrayRef<Attribute>{value}));
}

Value kiln::stablehlo_import::splat(OpBuilder &b, Location loc,
                                    RankedTensorType type, int64_t value) {
  return splat(b, loc, type, b.getIntegerAttr(type.getElementType(), value));
}

SmallVector<Value> kiln::stablehlo_import::countedLoop(
    OpBuilder &b, Location loc, int64_t count, ValueRange carried,
    function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  auto counter = RankedTensorType::get({}, b.getI64Type());
  auto constant = [&](int64_t value) { return splat(b, loc, counter, value); };
  SmallVector<Value> operands = {constant(0)};
  llvm::append_range(operands, carried);
  SmallVector<Type> types = llvm::to_vector(ValueRange(operands).getTypes());
  SmallVector<Location> locs(types.size(), loc);
  auto loop = kiln::WhileOp::create(b, loc, types, operands);
  OpBuilder::InsertionGuard guard(b);
  Block *cond = b.createBlock(&loop.getCond(), {}, types, locs);
  kiln::YieldOp::create(
      b, loc,
      ValueRange{kiln::CompareOp::create(b, loc, kiln::ComparisonDirection::LT,
                                         cond->getArgument(0),
                                         constant(count))});
  Block *step = b.createBlock(&loop.getBody(), {}, types, locs);
  SmallVector<Value> next = {
      kiln::AddOp::create(b, loc, step->getArgument(0), constant(1))};
  llvm::append_range(next, body(step->getArgument(0),
                                step->getArguments().drop_front()));
  kiln::YieldOp::create(b, loc, next);
  return SmallVector<Value>(loop.getResults().drop_front());
}

SmallVector<Operation *> kiln::stablehlo_import::appliedOps(Region &body) {
  Block &block = body.front();
  ValueRange results = block.getTerminator()->getOperands();
  size_t n = results.size();
  if (n == 0 || block.getNumArguments() != 2 * n ||
      size_t(std::distance(block.without_terminator().begin(),
                           block.without_terminator().end())) != n)
    return {};
  SmallVector<Operation *> ops;
  for (auto [i, result] : llvm::enumerate(results)) {
    Operation *op = result.getDefiningOp();
    if (!op || op->getBlock() != &block || op->getNumResults() != 1 ||
        op->getOperands() !=
            ValueRange{block.getArgument(i), block.getArgument(n + i)})
      return {};
    ops.push_back(op);
  }
  return ops;
}

Value kiln::stablehlo_import::totalOrderKey(OpBuilder &b, Location loc,
                                            Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  auto bitsType = type.clone(b.getIntegerType(width));
  Value bits = kiln::BitcastConvertOp::create(b, loc, bitsType, x);
  Value negative = kiln::ShiftRightArithmeticOp::create(
      b, loc, bits, splat(b, loc, bitsType, int64_t(width - 1)));
  Value magnitude = kiln::AndOp::create(
      b, loc, negative,
      splat(b, loc, bitsType,
            b.getIntegerAttr(bitsType.getElementType(),
                             APInt::getSignedMaxValue(width))));
  return kiln::XorOp::create(b, loc, bits, magnitude);
}

Operation *kiln::stablehlo_import::appliedOp(Region &body) {
  SmallVector<Operation *> ops = appliedOps(body);
  return ops.size() == 1 ? ops.front() : nullptr;
}

namespace {

/// A stablehlo op that is `To` with the same operands, results and
/// attributes.
template <typename From, typename To>
struct Rename : OpConversionPattern<From> {
  using OpConversionPattern<From>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<To>(op, op->getResultTypes(),
                                    adaptor.getOperands(), op->getAttrs());
    return success();
  }
};

/// An elementwise op of two tensors that is `OnBool` on `i1` (StableHLO's
/// add and maximum of booleans are `or`, its multiply and minimum `and`;
/// kiln refuses arithmetic on `i1`, as jax.lax does).
template <typename From, typename To, typename OnBool = To>
struct Binary : OpConversionPattern<From> {
  using OpConversionPattern<From>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isBoolTensor(op.getType()))
      rewriter.replaceOpWithNewOp<OnBool>(op, op.getType(),
                                          adaptor.getOperands());
    else
      rewriter.replaceOpWithNewOp<To>(op, op.getType(), adaptor.getOperands());
    return success();
  }
};

/// `is_finite(x)` is `|x| < inf`: false for infinities and NaNs.
struct IsFinite : OpConversionPattern<shlo::IsFiniteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::IsFiniteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
    auto element = dyn_cast<FloatType>(type.getElementType());
    if (!element)
      return rewriter.notifyMatchFailure(op, "is_finite of a non-float");
    Value magnitude = kiln::AbsOp::create(rewriter, loc, adaptor.getOperand());
    Value infinity = splat(
        rewriter, loc, type,
        rewriter.getFloatAttr(element,
                              APFloat::getInf(element.getFloatSemantics())));
    rewriter.replaceOpWithNewOp<kiln::CompareOp>(
        op, kiln::ComparisonDirection::LT, magnitude, infinity);
    return success();
  }
};

/// IEEE comparisons, and for floats compared in TOTALORDER (as JAX's sort
/// comparators are) integer comparisons of their `totalOrderKey`s.
struct Compare : OpConversionPattern<shlo::CompareOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<kiln::ComparisonDirection> direction =
        kiln::symbolizeComparisonDirection(
            shlo::stringifyEnum(op.getComparisonDirection()));
    if (!direction)
      return rewriter.notifyMatchFailure(op, "unknown direction");
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    bool total = op.getCompareType() == shlo::ComparisonType::TOTALORDER &&
                 isa<FloatType>(
                     cast<TensorType>(lhs.getType()).getElementType());
    if (total) {
      lhs = totalOrderKey(rewriter, op.getLoc(), lhs);
      rhs = totalOrderKey(rewriter, op.getLoc(), rhs);
    }
    rewriter.replaceOpWithNewOp<kiln::CompareOp>(op, *direction, lhs, rhs);
    return success();
  }
};

/// A scalar `value` broadcast to `like`'s shape (StableHLO lets select's
/// predicate and clamp's bounds be scalars; kiln's are full tensors).
Value broadcastScalar(OpBuilder &b, Location loc, Value value, Value like) {
  auto type = cast<RankedTensorType>(value.getType());
  auto shape = cast<RankedTensorType>(like.getType()).getShape();
  if (type.getRank() != 0 || shape.empty())
    return value;
  return kiln::BroadcastInDimOp::create(b, loc, type.clone(shape), value,
                                        b.getDenseI64ArrayAttr({}), Value());
}

/// StableHLO's predicate may be a scalar choosing whole tensors; kiln's
/// has the choices' shape.
struct Select : OpConversionPattern<shlo::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value pred = broadcastScalar(rewriter, op.getLoc(), adaptor.getPred(),
                                 adaptor.getOnTrue());
    rewriter.replaceOpWithNewOp<kiln::SelectOp>(
        op, op.getType(), pred, adaptor.getOnTrue(), adaptor.getOnFalse());
    return success();
  }
};

} // namespace

kiln::PrecisionAttr
kiln::stablehlo_import::precisionOf(MLIRContext *context,
                                    std::optional<ArrayAttr> precisions,
                                    int least) {
  int highest = least;
  if (precisions)
    for (Attribute precision : *precisions)
      highest = std::max(
          highest, int(cast<shlo::PrecisionAttr>(precision).getValue()));
  if (highest == int(shlo::Precision::DEFAULT))
    return {};
  return kiln::PrecisionAttr::get(
      context, *kiln::symbolizePrecision(
                   shlo::stringifyEnum(shlo::Precision(highest))));
}

namespace {

/// The precision a dot algorithm asks for: HIGHEST when both operands are
/// multiplied in f32 or wider, HIGH when narrower types are split into
/// several products (bf16 x3 and x6), DEFAULT otherwise (tf32, bf16).
static int algorithmPrecision(shlo::DotGeneralOp op) {
  std::optional<DictionaryAttr> algorithm = op.getAlgorithm();
  if (!algorithm)
    return int(shlo::Precision::DEFAULT);
  auto wide = [&](StringRef key) {
    auto type = dyn_cast_or_null<TypeAttr>(algorithm->get(key));
    return type && (type.getValue().isF32() || type.getValue().isF64());
  };
  auto split = [&](StringRef key) {
    auto count = dyn_cast_or_null<IntegerAttr>(algorithm->get(key));
    return count && count.getInt() > 1;
  };
  if (wide("lhs_precision_type") && wide("rhs_precision_type"))
    return int(shlo::Precision::HIGHEST);
  if (split("lhs_component_count") || split("rhs_component_count"))
    return int(shlo::Precision::HIGH);
  return int(shlo::Precision::DEFAULT);
}

/// StableHLO's dimension numbers flattened into kiln's attributes; of the
/// precisions its operands and algorithm ask for, the highest.
struct DotGeneral : OpConversionPattern<shlo::DotGeneralOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::DotGeneralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    shlo::DotDimensionNumbersAttr dims = op.getDotDimensionNumbers();
    SmallVector<NamedAttribute> attrs = {
        rewriter.getNamedAttr("lhs_batching_dimensions",
                              rewriter.getDenseI64ArrayAttr(
                                  dims.getLhsBatchingDimensions())),
        rewriter.getNamedAttr("rhs_batching_dimensions",
                              rewriter.getDenseI64ArrayAttr(
                                  dims.getRhsBatchingDimensions())),
        rewriter.getNamedAttr("lhs_contracting_dimensions",
                              rewriter.getDenseI64ArrayAttr(
                                  dims.getLhsContractingDimensions())),
        rewriter.getNamedAttr("rhs_contracting_dimensions",
                              rewriter.getDenseI64ArrayAttr(
                                  dims.getRhsContractingDimensions()))};
    if (kiln::PrecisionAttr precision = precisionOf(
            getContext(), op.getPrecisionConfig(), algorithmPrecision(op)))
      attrs.push_back(rewriter.getNamedAttr("precision", precision));
    rewriter.replaceOpWithNewOp<kiln::DotGeneralOp>(
        op, op.getType(), adaptor.getOperands(), attrs);
    return success();
  }
};

/// `dot` contracts the last dimension of its first operand with the first
/// of its second (a vector's only one).
struct Dot : OpConversionPattern<shlo::DotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t lhsRank = cast<RankedTensorType>(op.getLhs().getType()).getRank();
    SmallVector<NamedAttribute> attrs = {
        rewriter.getNamedAttr("lhs_contracting_dimensions",
                              rewriter.getDenseI64ArrayAttr({lhsRank - 1})),
        rewriter.getNamedAttr("rhs_contracting_dimensions",
                              rewriter.getDenseI64ArrayAttr({0}))};
    rewriter.replaceOpWithNewOp<kiln::DotGeneralOp>(
        op, op.getType(), adaptor.getOperands(), attrs);
    return success();
  }
};

/// An optimization barrier (jax.checkpoint's) keeps values from moving
/// across it in XLA; Kiln's rematerialization has its own ops, so the
/// values pass through.
struct OptimizationBarrier : OpConversionPattern<shlo::OptimizationBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::OptimizationBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperand());
    return success();
  }
};

/// The decomposition function of a composite, if the module has one of
/// the composite's type.
func::FuncOp decompositionOf(shlo::CompositeOp op) {
  auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      op, op.getDecompositionAttr());
  if (!fn ||
      fn.getFunctionType() !=
          FunctionType::get(op.getContext(), op.getInputs().getTypes(),
                            op->getResultTypes()))
    return {};
  return fn;
}

/// A composite (jax.lax.composite) is a call of its decomposition: Kiln
/// has no backend-specific version of any composite.
struct Composite : OpConversionPattern<shlo::CompositeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::CompositeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    func::FuncOp fn = decompositionOf(op);
    if (!fn)
      return rewriter.notifyMatchFailure(op, "no decomposition");
    rewriter.replaceOpWithNewOp<func::CallOp>(op, fn, adaptor.getInputs());
    return success();
  }
};

/// `clamp(lo, x, hi)` is `min(max(x, lo), hi)`.
struct Clamp : OpConversionPattern<shlo::ClampOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::ClampOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    Value low = broadcastScalar(rewriter, loc, adaptor.getMin(), x);
    Value high = broadcastScalar(rewriter, loc, adaptor.getMax(), x);
    Value above = kiln::MaxOp::create(rewriter, loc, x, low);
    rewriter.replaceOpWithNewOp<kiln::MinOp>(op, above, high);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Control flow: the regions move into kiln's ops, whose terminators are
// kiln.yield.
//===----------------------------------------------------------------------===//

/// A stablehlo op with regions that is `To` with the same operands and
/// its regions moved (while, if).
template <typename From, typename To>
struct MoveRegions : OpConversionPattern<From> {
  using OpConversionPattern<From>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto to = To::create(rewriter, op.getLoc(), op->getResultTypes(),
                         adaptor.getOperands());
    for (auto [from, into] : llvm::zip(op->getRegions(), to->getRegions()))
      rewriter.inlineRegionBefore(from, into, into.end());
    rewriter.replaceOp(op, to->getResults());
    return success();
  }
};

/// `case(i) {b0}, {b1}, ..., {bn}` tests `i == 0`, `i == 1`, ... in nested
/// conds; an index out of range takes the last branch, as in StableHLO.
struct Case : OpConversionPattern<shlo::CaseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::CaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MutableArrayRef<Region> branches = op.getBranches();
    size_t n = branches.size();
    if (n < 2)
      return rewriter.notifyMatchFailure(op, "a case of one branch");
    Location loc = op.getLoc();
    Value index = adaptor.getIndex();
    auto indexType = cast<RankedTensorType>(index.getType());
    kiln::CondOp outer;
    for (size_t k = 0; k + 1 < n; ++k) {
      Value position = splat(rewriter, loc, indexType, int64_t(k));
      Value pred = kiln::CompareOp::create(
          rewriter, loc, kiln::ComparisonDirection::EQ, index, position);
      auto cond = kiln::CondOp::create(rewriter, loc, op.getResultTypes(), pred);
      if (outer)
        kiln::YieldOp::create(rewriter, loc, cond.getResults());
      else
        outer = cond;
      rewriter.inlineRegionBefore(branches[k], cond.getTrueBranch(),
                                  cond.getTrueBranch().end());
      if (k + 2 == n) {
        rewriter.inlineRegionBefore(branches[n - 1], cond.getFalseBranch(),
                                    cond.getFalseBranch().end());
        break;
      }
      // The next test goes in this else branch.
      rewriter.createBlock(&cond.getFalseBranch());
    }
    rewriter.replaceOp(op, outer.getResults());
    return success();
  }
};

/// A region's results, in a kiln op's region (reductions' bodies go with
/// their ops).
struct Return : OpConversionPattern<shlo::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<kiln::YieldOp>(op, adaptor.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename ReduceOp>
Value reduceWith(OpBuilder &b, Location loc, Type type, Value input,
                 DenseI64ArrayAttr dims) {
  return ReduceOp::create(b, loc, type, input, dims);
}

template <typename BinaryOp>
Value combineWith(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return BinaryOp::create(b, loc, lhs, rhs);
}

/// Whether every element of `value` is `expected` (floats or integers).
bool splatEquals(Attribute value, double expected) {
  auto splat = dyn_cast<SplatElementsAttr>(value);
  if (!splat)
    return false;
  if (auto element = dyn_cast<FloatAttr>(splat.getSplatValue<Attribute>()))
    return element.getValueAsDouble() == expected;
  if (auto element = dyn_cast<IntegerAttr>(splat.getSplatValue<Attribute>()))
    return double(element.getValue().getSExtValue()) == expected;
  return false;
}

/// Whether `value` is the lowest (`low`) or highest element of its type.
bool isExtreme(Attribute value, bool low) {
  auto splat = dyn_cast<SplatElementsAttr>(value);
  if (!splat)
    return false;
  if (auto element = dyn_cast<FloatAttr>(splat.getSplatValue<Attribute>()))
    return element.getValue().isInfinity() &&
           element.getValue().isNegative() == low;
  if (auto element = dyn_cast<IntegerAttr>(splat.getSplatValue<Attribute>()))
    return low ? element.getValue().isMinSignedValue()
               : element.getValue().isMaxSignedValue();
  return false;
}

/// A reduction of booleans as one of 0/1 integers (kiln reduces numbers).
template <typename ReduceOp>
Value reduceBoolsWith(OpBuilder &b, Location loc, Type type, Value input,
                      DenseI64ArrayAttr dims) {
  auto wide = [&](Type t) {
    return cast<RankedTensorType>(t).clone(b.getI32Type());
  };
  Value numbers = kiln::ConvertOp::create(b, loc, wide(input.getType()), input);
  Value reduced = ReduceOp::create(b, loc, wide(type), numbers, dims);
  return kiln::ConvertOp::create(b, loc, type, reduced);
}

/// Whether `value` is a splat of the boolean `expected`.
bool splatIs(Attribute value, bool expected) {
  auto splat = dyn_cast<SplatElementsAttr>(value);
  return splat && splat.getElementType().isInteger(1) &&
         splat.getSplatValue<bool>() == expected;
}

} // namespace

std::optional<Combiner> kiln::stablehlo_import::combinerOf(Operation *body,
                                                          bool isBool) {
  if (isBool && isa<shlo::OrOp, shlo::AddOp, shlo::MaximumOp>(body))
    return Combiner{reduceBoolsWith<kiln::ReduceMaxOp>, combineWith<kiln::OrOp>,
                    [](Attribute v) { return splatIs(v, false); }};
  if (isBool && isa<shlo::AndOp, shlo::MultiplyOp, shlo::MinimumOp>(body))
    return Combiner{reduceBoolsWith<kiln::ReduceMinOp>,
                    combineWith<kiln::AndOp>,
                    [](Attribute v) { return splatIs(v, true); }};
  if (isBool)
    return std::nullopt;
  if (isa<shlo::AddOp>(body))
    return Combiner{reduceWith<kiln::ReduceSumOp>, combineWith<kiln::AddOp>,
                    [](Attribute v) { return splatEquals(v, 0); }};
  if (isa<shlo::MultiplyOp>(body))
    return Combiner{reduceWith<kiln::ReduceProdOp>, combineWith<kiln::MulOp>,
                    [](Attribute v) { return splatEquals(v, 1); }};
  if (isa<shlo::MaximumOp>(body))
    return Combiner{reduceWith<kiln::ReduceMaxOp>, combineWith<kiln::MaxOp>,
                    [](Attribute v) { return isExtreme(v, true); }};
  if (isa<shlo::MinimumOp>(body))
    return Combiner{reduceWith<kiln::ReduceMinOp>, combineWith<kiln::MinOp>,
                    [](Attribute v) { return isExtreme(v, false); }};
  return std::nullopt;
}

namespace {

/// Whether a reduction of (values, indices) is jnp.argmax (`max`) or
/// jnp.argmin of its values: over one dimension, its indices an iota along
/// it starting from 0, its body choosing by comparing the two values
/// greater than (argmax) or less than (argmin), as jax.lax's argmax and
/// argmin write it (ties and NaNs are then kiln.argmax's: the first index,
/// NaN as the extreme).
std::optional<bool> isArgReduction(shlo::ReduceOp op) {
  if (op.getInputs().size() != 2 || op.getDimensions().size() != 1)
    return std::nullopt;
  int64_t dim = op.getDimensions()[0];
  auto iota = op.getInputs()[1].getDefiningOp<shlo::IotaOp>();
  Attribute start, extreme;
  if (!iota || int64_t(iota.getIotaDimension()) != dim ||
      !matchPattern(op.getInitValues()[1], m_Constant(&start)) ||
      !splatEquals(start, 0) ||
      !matchPattern(op.getInitValues()[0], m_Constant(&extreme)))
    return std::nullopt;
  // The body's arguments: (value, index) of the accumulator and element;
  // the comparison that picks a value says which extreme it keeps.
  Block &body = op.getBody().front();
  if (body.getNumArguments() != 4)
    return std::nullopt;
  Value a = body.getArgument(0), b = body.getArgument(2);
  std::optional<bool> max;
  body.walk([&](shlo::CompareOp compare) {
    ValueRange operands = compare->getOperands();
    shlo::ComparisonDirection direction = compare.getComparisonDirection();
    bool swapped = operands == ValueRange{b, a};
    if ((operands == ValueRange{a, b} || swapped) &&
        (direction == shlo::ComparisonDirection::GT ||
         direction == shlo::ComparisonDirection::LT))
      max = (direction == shlo::ComparisonDirection::GT) != swapped;
  });
  // The values start from the extreme that never wins.
  if (!max || !isExtreme(extreme, *max))
    return std::nullopt;
  return max;
}

/// jnp.argmax / jnp.argmin: the extreme values and kiln.argmax of the
/// values (for argmin, negated floats, or the bitwise not of integers:
/// order-reversing without negation's overflow at the lowest integer).
void rewriteArgReduction(shlo::ReduceOp op, ValueRange inputs, bool max,
                         ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value values = inputs[0];
  Type valueType = op.getResult(0).getType();
  Value extremes =
      max ? Value(kiln::ReduceMaxOp::create(rewriter, loc, valueType, values,
                                            op.getDimensionsAttr()))
          : Value(kiln::ReduceMinOp::create(rewriter, loc, valueType, values,
                                            op.getDimensionsAttr()));
  bool isFloat = isa<FloatType>(
      cast<RankedTensorType>(values.getType()).getElementType());
  Value ranked = max       ? values
                 : isFloat ? Value(kiln::NegOp::create(rewriter, loc, values))
                           : Value(kiln::NotOp::create(rewriter, loc, values));
  Value indices = kiln::ArgmaxOp::create(
      rewriter, loc, op.getResult(1).getType(), ranked,
      rewriter.getI64IntegerAttr(op.getDimensions()[0]));
  rewriter.replaceOp(op, {extremes, indices});
}

/// The kiln reduction of each tensor of `op`, whose body reduces each on
/// its own (appliedOps: a sum and a maximum in one reduce), or nothing.
std::optional<SmallVector<Combiner>> combinersOf(shlo::ReduceOp op) {
  SmallVector<Operation *> body = appliedOps(op.getBody());
  if (body.size() != op.getInputs().size())
    return std::nullopt;
  SmallVector<Combiner> combiners;
  for (auto [applied, type] : llvm::zip_equal(body, op.getResultTypes())) {
    std::optional<Combiner> combiner = combinerOf(applied, isBoolTensor(type));
    if (!combiner)
      return std::nullopt;
    combiners.push_back(*combiner);
  }
  return combiners;
}

struct Reduce : OpConversionPattern<shlo::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<bool> max = isArgReduction(op)) {
      rewriteArgReduction(op, adaptor.getInputs(), *max, rewriter);
      return success();
    }
    std::optional<SmallVector<Combiner>> combiners = combinersOf(op);
    if (!combiners)
      return rewriter.notifyMatchFailure(op, "no kiln reduction for its body");
    // Each tensor on its own.
    SmallVector<Value> results;
    for (auto [combiner, input, init, result] :
         llvm::zip_equal(*combiners, adaptor.getInputs(),
                         adaptor.getInitValues(), op.getResults()))
      results.push_back(reduceOne(rewriter, op.getLoc(), combiner, input, init,
                                  result.getType(), op.getDimensionsAttr()));
    rewriter.replaceOp(op, results);
    return success();
  }

  /// `input` reduced over `dimensions` by `combiner` into `type`, from
  /// `init`: one other than the identity is folded in once, as StableHLO's
  /// semantics fold it.
  static Value reduceOne(ConversionPatternRewriter &rewriter, Location loc,
                         const Combiner &combiner, Value input, Value init,
                         Type type, DenseI64ArrayAttr dimensions) {
    Value result = combiner.reduce(rewriter, loc, type, input, dimensions);
    Attribute constant;
    if (matchPattern(init, m_Constant(&constant)) &&
        combiner.isIdentity(constant))
      return result;
    auto shaped = cast<RankedTensorType>(type);
    if (shaped.getRank())
      init = kiln::BroadcastInDimOp::create(rewriter, loc, shaped, init,
                                            rewriter.getDenseI64ArrayAttr({}),
                                            Value());
    return combiner.combine(rewriter, loc, result, init);
  }
};

/// Whether `call` is GSPMD's sharding annotation of a value
/// (`jax.lax.with_sharding_constraint` in an export without Shardy):
/// `custom_call @Sharding` of one value, giving it back.
bool isGspmdSharding(shlo::CustomCallOp call) {
  return call.getCallTargetName() == "Sharding" &&
         call.getInputs().size() == 1 && call->getNumResults() == 1 &&
         call.getInputs()[0].getType() == call->getResult(0).getType();
}

/// GSPMD's sharding annotation passes its value through: it places the
/// value, never changes it, and Kiln reads Shardy's shardings only.
struct GspmdSharding : OpConversionPattern<shlo::CustomCallOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::CustomCallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isGspmdSharding(op))
      return rewriter.notifyMatchFailure(op, "a backend's own function");
    rewriter.replaceOp(op, adaptor.getInputs()[0]);
    return success();
  }
};

/// Why `op` cannot be imported, if Kiln knows before trying.
std::optional<std::string> unsupported(Operation *op) {
  if (auto call = dyn_cast<shlo::CustomCallOp>(op); call &&
                                                   !isGspmdSharding(call))
    return "stablehlo.custom_call @" + call.getCallTargetName().str() +
           ": a backend's own function, which Kiln cannot import";
  if (auto composite = dyn_cast<shlo::CompositeOp>(op);
      composite && !decompositionOf(composite))
    return "stablehlo.composite \"" + composite.getName().str() +
           "\": no function @" + composite.getDecomposition().str() +
           " of its type to decompose it";
  if (auto reduce = dyn_cast<shlo::ReduceOp>(op);
      reduce && !isArgReduction(reduce) && !combinersOf(reduce))
    return std::string("stablehlo.reduce: Kiln imports reductions whose body "
                       "applies, to each tensor on its own, add, multiply, "
                       "maximum or minimum (or, and of booleans), and "
                       "jnp.argmax and jnp.argmin");
  if (std::optional<std::string> why = unsupportedMath(op))
    return why;
  if (std::optional<std::string> why = unsupportedBits(op))
    return why;
  if (std::optional<std::string> why = unsupportedWindows(op))
    return why;
  if (std::optional<std::string> why = unsupportedSort(op))
    return why;
  return unsupportedGatherScatter(op);
}

//===----------------------------------------------------------------------===//
// Shardy's annotations
//===----------------------------------------------------------------------===//

struct Mesh : OpConversionPattern<sdy::MeshOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sdy::MeshOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    sdy::MeshAttr mesh = op.getMesh();
    rewriter.replaceOpWithNewOp<kiln::MeshOp>(
        op, TypeRange(), ValueRange(),
        ArrayRef<NamedAttribute>{
            rewriter.getNamedAttr("sym_name", op.getSymNameAttr()),
            rewriter.getNamedAttr("axis_names", mesh.getAxisNames()),
            rewriter.getNamedAttr("axis_sizes", mesh.getAxisSizes())});
    return success();
  }
};

struct ShardingConstraint : OpConversionPattern<sdy::ShardingConstraintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(sdy::ShardingConstraintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<kiln::ShardingConstraintOp>(
        op, op.getType(), adaptor.getInput(), op.getSharding().getSharding());
    return success();
  }
};

/// Translates an export's attributes: Shardy's shardings of arguments and
/// results (`sdy.sharding`) become kiln's (`kiln.sharding`); JAX's and
/// XLA's bookkeeping (`jax.result_info`, `mhlo.layout_mode`,
/// `mhlo.num_partitions`, ...), which kiln does not read, goes.
void translateExportAttributes(Operation *op) {
  auto isExport = [](NamedAttribute attr) {
    StringRef name = attr.getName().getValue();
    return name.starts_with("jax.") || name.starts_with("mhlo.");
  };
  auto filter = [&](DictionaryAttr dict) {
    SmallVector<NamedAttribute> kept;
    for (NamedAttribute attr : dict) {
      if (auto sharding = dyn_cast<sdy::ShardingAttr>(attr.getValue()))
        kept.emplace_back(KilnDialect::kShardingAttrName,
                          sharding.getSharding());
      else if (!isExport(attr))
        kept.push_back(attr);
    }
    return DictionaryAttr::get(op->getContext(), kept);
  };
  SmallVector<StringAttr> names;
  for (NamedAttribute attr : op->getDiscardableAttrs())
    if (isExport(attr))
      names.push_back(attr.getName());
  for (StringAttr name : names)
    op->removeDiscardableAttr(name);
  auto fn = dyn_cast<func::FuncOp>(op);
  if (!fn)
    return;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    fn.setArgAttrs(i, filter(fn.getArgAttrDict(i)
                                 ? fn.getArgAttrDict(i)
                                 : DictionaryAttr::get(op->getContext())));
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    fn.setResultAttrs(i, filter(fn.getResultAttrDict(i)
                                    ? fn.getResultAttrDict(i)
                                    : DictionaryAttr::get(op->getContext())));
}

struct KilnImportStablehlo
    : kiln::impl::KilnImportStablehloBase<KilnImportStablehlo> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(importUnsigned(module)))
      return signalPassFailure();
    bool failedEarly = false;
    module.walk([&](Operation *op) {
      if (std::optional<std::string> why = unsupported(op)) {
        op->emitError(*why);
        failedEarly = true;
      }
      translateExportAttributes(op);
    });
    if (failedEarly)
      return signalPassFailure();

    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<
        Rename<shlo::ConstantOp, kiln::ConstantOp>,
        Rename<shlo::IotaOp, kiln::IotaOp>,
        Rename<shlo::AbsOp, kiln::AbsOp>, Rename<shlo::NegateOp, kiln::NegOp>,
        Rename<shlo::ExponentialOp, kiln::ExpOp>,
        Rename<shlo::ExponentialMinusOneOp, kiln::Expm1Op>,
        Rename<shlo::LogOp, kiln::LogOp>,
        Rename<shlo::LogPlusOneOp, kiln::Log1pOp>,
        Rename<shlo::TanhOp, kiln::TanhOp>,
        Rename<shlo::LogisticOp, kiln::LogisticOp>,
        Rename<shlo::SqrtOp, kiln::SqrtOp>, Rename<shlo::RsqrtOp, kiln::RsqrtOp>,
        Rename<shlo::SineOp, kiln::SinOp>, Rename<shlo::CosineOp, kiln::CosOp>,
        Rename<shlo::FloorOp, kiln::FloorOp>, Rename<shlo::CeilOp, kiln::CeilOp>,
        Rename<shlo::NotOp, kiln::NotOp>, Rename<shlo::SignOp, kiln::SignOp>,
        Rename<shlo::ConvertOp, kiln::ConvertOp>,
        Rename<shlo::BroadcastInDimOp, kiln::BroadcastInDimOp>,
        Rename<shlo::ReshapeOp, kiln::ReshapeOp>,
        Rename<shlo::TransposeOp, kiln::TransposeOp>,
        Rename<shlo::SliceOp, kiln::SliceOp>,
        Rename<shlo::ConcatenateOp, kiln::ConcatenateOp>,
        Rename<shlo::PadOp, kiln::PadOp>, Rename<shlo::ReverseOp, kiln::ReverseOp>,
        Rename<shlo::DynamicSliceOp, kiln::DynamicSliceOp>,
        Rename<shlo::DynamicUpdateSliceOp, kiln::DynamicUpdateSliceOp>, Clamp,
        MoveRegions<shlo::WhileOp, kiln::WhileOp>,
        MoveRegions<shlo::IfOp, kiln::CondOp>, Case, Return, Mesh, ShardingConstraint,
        Binary<shlo::AddOp, kiln::AddOp, kiln::OrOp>,
        Binary<shlo::SubtractOp, kiln::SubOp>,
        Binary<shlo::MultiplyOp, kiln::MulOp, kiln::AndOp>,
        Binary<shlo::DivideOp, kiln::DivOp>,
        Binary<shlo::RemainderOp, kiln::RemOp>,
        Binary<shlo::MaximumOp, kiln::MaxOp, kiln::OrOp>,
        Binary<shlo::MinimumOp, kiln::MinOp, kiln::AndOp>,
        Binary<shlo::PowerOp, kiln::PowOp>, Binary<shlo::Atan2Op, kiln::Atan2Op>,
        Binary<shlo::AndOp, kiln::AndOp>, Binary<shlo::OrOp, kiln::OrOp>,
        Binary<shlo::XorOp, kiln::XorOp>,
        Rename<shlo::ShiftLeftOp, kiln::ShiftLeftOp>,
        Rename<shlo::ShiftRightLogicalOp, kiln::ShiftRightLogicalOp>,
        Rename<shlo::ShiftRightArithmeticOp, kiln::ShiftRightArithmeticOp>,
        Rename<shlo::BitcastConvertOp, kiln::BitcastConvertOp>, IsFinite,
        Compare, Select,
        DotGeneral, Dot, OptimizationBarrier, Composite, Reduce,
        GspmdSharding>(context);
    populateGatherScatterPatterns(patterns);
    populateMathPatterns(patterns);
    populateBitPatterns(patterns);
    populateWindowPatterns(patterns);
    populateSortPatterns(patterns);
    populateUnsignedPatterns(patterns);
    ConversionTarget target(*context);
    target.addIllegalDialect<shlo::StablehloDialect, chlo::ChloDialect,
                             sdy::SdyDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
