//===- ImportUnsigned.cpp - StableHLO's unsigned integers -----------------===//
//
// Kiln's integers are signless, as LLVM's: an unsigned tensor of 32 or 64
// bits (jax.random's uint32 keys and bits) is imported as the signless
// tensor of the same bits. Addition, multiplication, bitwise ops, shifts
// and data movement do not depend on the sign; the ops that do are marked
// before the types change and written with signed ops here: comparisons and
// max/min flip the sign bit first, 32-bit division and remainder work in
// 64 bits on zero-extended values (64-bit ones on the halved dividend), and
// conversions zero-extend or saturate. The same holds for 8- and 16-bit
// unsigned integers (uint8 images); other widths are refused.
//
//===----------------------------------------------------------------------===//
#include "frontend/stablehlo/ImportPatterns.h"
#include "frontend/stablehlo/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace kiln;
using namespace kiln::stablehlo_import;

namespace {

// The marks, which the patterns below remove: operands (or the result)
// were unsigned before their types became signless.
constexpr StringLiteral kUnsignedOperands = "kiln.unsigned_operands";
constexpr StringLiteral kUnsignedResult = "kiln.unsigned_result";

IntegerType unsignedElement(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  auto element = dyn_cast<IntegerType>(tensor ? tensor.getElementType() : type);
  return element && element.isUnsigned() ? element : IntegerType();
}

bool isUnsigned(Type type) { return bool(unsignedElement(type)); }

/// `type` with an unsigned element type made signless.
Type signless(Type type) {
  IntegerType element = unsignedElement(type);
  if (!element)
    return type;
  auto bits = IntegerType::get(type.getContext(), element.getWidth());
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(bits);
  if (auto tensor = dyn_cast<UnrankedTensorType>(type))
    return UnrankedTensorType::get(bits);
  return bits;
}

/// An integer type Kiln has no ops for, among `types`.
std::optional<Type> narrowInteger(TypeRange types) {
  for (Type type : types) {
    auto tensor = dyn_cast<TensorType>(type);
    auto element = dyn_cast<IntegerType>(tensor ? tensor.getElementType() : type);
    if (element && !llvm::is_contained({1u, 8u, 16u, 32u, 64u},
                                       element.getWidth()))
      return type;
  }
  return std::nullopt;
}

/// Marks an op whose meaning depends on its operands (or result) being
/// unsigned; sets a comparison's type to UNSIGNED where it was implied.
void markUnsigned(Operation *op) {
  bool operands = llvm::any_of(op->getOperandTypes(), isUnsigned);
  bool results = llvm::any_of(op->getResultTypes(), isUnsigned);
  if (auto compare = dyn_cast<shlo::CompareOp>(op)) {
    if (operands && (!compare.getCompareType() ||
                     *compare.getCompareType() == shlo::ComparisonType::NOTYPE))
      compare.setCompareType(shlo::ComparisonType::UNSIGNED);
    return;
  }
  if (!isa<shlo::DivideOp, shlo::RemainderOp, shlo::MaximumOp,
           shlo::MinimumOp, shlo::ConvertOp>(op))
    return;
  if (operands)
    op->setAttr(kUnsignedOperands, UnitAttr::get(op->getContext()));
  if (results)
    op->setAttr(kUnsignedResult, UnitAttr::get(op->getContext()));
}

/// Why an op on unsigned values cannot be imported, if it cannot.
std::optional<std::string> unsupportedUnsigned(Operation *op) {
  if (!llvm::any_of(op->getOperandTypes(), isUnsigned) &&
      !llvm::any_of(op->getResultTypes(), isUnsigned))
    return std::nullopt;
  // Reductions whose body does not depend on the sign are as signed ones.
  bool signedOnly = isa<shlo::AbsOp, shlo::SignOp, shlo::PowerOp,
                        shlo::ClampOp, chlo::TopKOp>(op);
  if (isa<shlo::ReduceOp, shlo::ReduceWindowOp>(op))
    signedOnly = !llvm::all_of(
        op->getRegion(0).front().without_terminator(), [](Operation &nested) {
          return isa<shlo::AddOp, shlo::MultiplyOp, shlo::AndOp, shlo::OrOp,
                     shlo::XorOp>(nested);
        });
  if (signedOnly)
    return std::string("Kiln imports it on signed integers (or on unsigned "
                       "ones with a body that adds, multiplies or combines "
                       "bits)");
  return std::nullopt;
}

/// Gives every unsigned value of `module` the signless type of its bits.
void makeSignless(ModuleOp module) {
  module.walk([](Operation *op) {
    for (Value result : op->getResults())
      result.setType(signless(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(signless(arg.getType()));
    if (auto constant = dyn_cast<shlo::ConstantOp>(op))
      if (auto value = dyn_cast<DenseIntElementsAttr>(constant.getValue());
          value && isUnsigned(value.getType()))
        constant.setValueAttr(value.bitcast(
            cast<TensorType>(signless(value.getType())).getElementType()));
    if (auto fn = dyn_cast<func::FuncOp>(op)) {
      FunctionType type = fn.getFunctionType();
      auto map = [](TypeRange types) {
        return llvm::map_to_vector(types, signless);
      };
      fn.setFunctionType(FunctionType::get(
          op->getContext(), map(type.getInputs()), map(type.getResults())));
    }
  });
}

/// Values of an integer type whose sign bit flips: x ^ INT_MIN, which
/// orders unsigned values as signed ones.
Value flipSign(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  unsigned width = type.getElementTypeBitWidth();
  Value sign = splat(b, loc, type,
                     b.getIntegerAttr(type.getElementType(),
                                      APInt::getSignedMinValue(width)));
  return kiln::XorOp::create(b, loc, x, sign);
}

/// Values narrower than 64 bits zero-extended to 64 bits.
Value zeroExtend(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  auto wide = type.clone(b.getI64Type());
  Value extended = kiln::ConvertOp::create(b, loc, wide, x);
  Value mask = splat(
      b, loc, wide,
      int64_t(APInt::getMaxValue(type.getElementTypeBitWidth()).getZExtValue()));
  return kiln::AndOp::create(b, loc, extended, mask);
}

bool markedUnsigned(Operation *op) {
  return op->hasAttr(kUnsignedOperands) || op->hasAttr(kUnsignedResult);
}

/// Unsigned comparisons: both operands' sign bits flipped, then signed.
struct UnsignedCompare : OpConversionPattern<shlo::CompareOp> {
  UnsignedCompare(MLIRContext *context)
      : OpConversionPattern(context, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(shlo::CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto element = cast<TensorType>(adaptor.getLhs().getType()).getElementType();
    if (op.getCompareType() != shlo::ComparisonType::UNSIGNED ||
        !isa<IntegerType>(element) || element.isInteger(1))
      return rewriter.notifyMatchFailure(op, "not an unsigned comparison");
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<kiln::CompareOp>(
        op,
        *kiln::symbolizeComparisonDirection(
            shlo::stringifyEnum(op.getComparisonDirection())),
        flipSign(rewriter, loc, adaptor.getLhs()),
        flipSign(rewriter, loc, adaptor.getRhs()));
    return success();
  }
};

Value flipBack(OpBuilder &b, Location loc, Value x, Type) {
  return flipSign(b, loc, x);
}

Value narrowTo(OpBuilder &b, Location loc, Value x, Type type) {
  return kiln::ConvertOp::create(b, loc, type, x);
}

/// A binary op on unsigned values as the signed `To` of its operands
/// through `in`, its result through `out`: max and min of sign-flipped
/// values flipped back; narrower division and remainder in 64 bits on
/// zero-extended values, narrowed back (XLA's rules for a zero divisor,
/// all ones and the dividend, are what kiln's signed ones give there).
template <typename From, typename To,
          Value (*in)(OpBuilder &, Location, Value),
          Value (*out)(OpBuilder &, Location, Value, Type)>
struct UnsignedBinary : OpConversionPattern<From> {
  UnsignedBinary(MLIRContext *context)
      : OpConversionPattern<From>(context, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!markedUnsigned(op))
      return rewriter.notifyMatchFailure(op, "signed");
    Location loc = op.getLoc();
    Value result = To::create(rewriter, loc, in(rewriter, loc, adaptor.getLhs()),
                              in(rewriter, loc, adaptor.getRhs()));
    rewriter.replaceOp(op, out(rewriter, loc, result, op.getType()));
    return success();
  }
};

/// Unsigned 64-bit quotient and remainder with signed ops: the halved
/// dividend divides exactly as a signed value, the doubled quotient is
/// corrected once; divisors from 2^63 on go at most once, and a zero
/// divisor gives XLA's all ones (and the dividend back).
std::pair<Value, Value> divideWide(OpBuilder &b, Location loc, Value x,
                                   Value y) {
  auto type = cast<RankedTensorType>(x.getType());
  auto c = [&](int64_t value) { return splat(b, loc, type, value); };
  auto compare = [&](kiln::ComparisonDirection direction, Value p, Value q) {
    return kiln::CompareOp::create(b, loc, direction, p, q);
  };
  auto unsignedLess = [&](Value p, Value q) {
    return compare(kiln::ComparisonDirection::LT, flipSign(b, loc, p),
                   flipSign(b, loc, q));
  };
  auto select = [&](Value pred, Value p, Value q) -> Value {
    return kiln::SelectOp::create(b, loc, type, pred, p, q);
  };
  Value one = c(1), zero = c(0);
  Value high = compare(kiln::ComparisonDirection::LT, y, zero);
  Value byZero = compare(kiln::ComparisonDirection::EQ, y, zero);
  Value divisor = select(kiln::OrOp::create(b, loc, high, byZero), one, y);
  Value halved = kiln::ShiftRightLogicalOp::create(b, loc, x, one);
  Value quotient = kiln::ShiftLeftOp::create(
      b, loc, kiln::DivOp::create(b, loc, halved, divisor), one);
  Value rest = kiln::SubOp::create(
      b, loc, x, kiln::MulOp::create(b, loc, quotient, divisor));
  quotient = select(unsignedLess(rest, divisor), quotient,
                    kiln::AddOp::create(b, loc, quotient, one));
  quotient = select(high, select(unsignedLess(x, y), zero, one), quotient);
  quotient = select(byZero, c(-1), quotient);
  Value remainder =
      kiln::SubOp::create(b, loc, x, kiln::MulOp::create(b, loc, quotient, y));
  return {quotient, remainder};
}

/// Unsigned 64-bit division and remainder (narrower ones go through 64
/// bits in UnsignedBinary).
template <typename From, bool isRemainder>
struct UnsignedWideDivision : OpConversionPattern<From> {
  UnsignedWideDivision(MLIRContext *context)
      : OpConversionPattern<From>(context, /*benefit=*/3) {}
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!markedUnsigned(op) ||
        cast<RankedTensorType>(op.getType()).getElementTypeBitWidth() != 64)
      return rewriter.notifyMatchFailure(op, "not 64-bit unsigned");
    auto [quotient, remainder] = divideWide(rewriter, op.getLoc(),
                                            adaptor.getLhs(), adaptor.getRhs());
    rewriter.replaceOp(op, isRemainder ? remainder : quotient);
    return success();
  }
};

/// Conversions from unsigned values to floats or wider integers
/// zero-extend them (a 64-bit one above INT64_MAX converts through its
/// halved value, its low bit kept for the rounding); floats to unsigned
/// values saturate to [0, 2^n - 1].
struct UnsignedConvert : OpConversionPattern<shlo::ConvertOp> {
  UnsignedConvert(MLIRContext *context)
      : OpConversionPattern(context, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(shlo::ConvertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!markedUnsigned(op))
      return rewriter.notifyMatchFailure(op, "signed");
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    auto from = cast<RankedTensorType>(x.getType());
    auto to = cast<RankedTensorType>(op.getType());
    bool fromUnsigned = op->hasAttr(kUnsignedOperands);
    auto i64 = from.clone(rewriter.getI64Type());
    auto constant = [&](RankedTensorType type, Attribute value) {
      return splat(rewriter, loc, type, value);
    };
    unsigned fromWidth = from.getElementTypeBitWidth();
    unsigned toWidth = to.getElementTypeBitWidth();
    if (fromUnsigned && fromWidth < 64 &&
        (isa<FloatType>(to.getElementType()) || toWidth > fromWidth)) {
      rewriter.replaceOpWithNewOp<kiln::ConvertOp>(
          op, to, zeroExtend(rewriter, loc, x));
      return success();
    }
    if (fromUnsigned && fromWidth == 64 &&
        isa<FloatType>(to.getElementType())) {
      Value one = constant(from, rewriter.getI64IntegerAttr(1));
      Value halved = kiln::OrOp::create(
          rewriter, loc, kiln::ShiftRightLogicalOp::create(rewriter, loc, x, one),
          kiln::AndOp::create(rewriter, loc, x, one));
      Value twice = kiln::MulOp::create(
          rewriter, loc, kiln::ConvertOp::create(rewriter, loc, to, halved),
          constant(to, rewriter.getFloatAttr(to.getElementType(), 2)));
      Value high = kiln::CompareOp::create(
          rewriter, loc, kiln::ComparisonDirection::LT, x,
          constant(from, rewriter.getI64IntegerAttr(0)));
      rewriter.replaceOpWithNewOp<kiln::SelectOp>(
          op, to, high, twice, kiln::ConvertOp::create(rewriter, loc, to, x));
      return success();
    }
    if (op->hasAttr(kUnsignedResult) && isa<FloatType>(from.getElementType()) &&
        toWidth == 64) {
      // Below 2^63 as a signed value (negatives and NaN to 0); from there,
      // x - 2^63 with the top bit set again (saturating at all ones).
      Value zero = constant(from, rewriter.getFloatAttr(from.getElementType(), 0));
      Value half = constant(
          from, rewriter.getFloatAttr(from.getElementType(), 0x1p63));
      Value low = kiln::ConvertOp::create(
          rewriter, loc, to, kiln::MaxOp::create(rewriter, loc, x, zero));
      Value high = kiln::AddOp::create(
          rewriter, loc,
          kiln::ConvertOp::create(rewriter, loc, to,
                                  kiln::SubOp::create(rewriter, loc, x, half)),
          constant(to, rewriter.getI64IntegerAttr(
                           std::numeric_limits<int64_t>::min())));
      Value big = kiln::CompareOp::create(
          rewriter, loc, kiln::ComparisonDirection::GE, x, half);
      rewriter.replaceOpWithNewOp<kiln::SelectOp>(op, to, big, high, low);
      return success();
    }
    if (op->hasAttr(kUnsignedResult) && isa<FloatType>(from.getElementType())) {
      // Toward zero, saturating, in 64 bits (NaN converts to 0), then
      // clamped to the result's unsigned range.
      Value wide = kiln::ConvertOp::create(rewriter, loc, i64, x);
      Value low = kiln::MaxOp::create(
          rewriter, loc, wide, constant(i64, rewriter.getI64IntegerAttr(0)));
      Value clamped = kiln::MinOp::create(
          rewriter, loc, low,
          constant(i64, rewriter.getI64IntegerAttr(
                            APInt::getMaxValue(toWidth).getZExtValue())));
      rewriter.replaceOpWithNewOp<kiln::ConvertOp>(op, to, clamped);
      return success();
    }
    // The bits carry over: same width, truncation, or a signed source.
    rewriter.replaceOpWithNewOp<kiln::ConvertOp>(op, to, x);
    return success();
  }
};

} // namespace

namespace kiln::stablehlo_import {

LogicalResult importUnsigned(ModuleOp module) {
  // The first op refused (the innermost, in the walk's order) is reported.
  WalkResult walk = module.walk([&](Operation *op) -> WalkResult {
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    if (auto fn = dyn_cast<func::FuncOp>(op)) {
      llvm::append_range(types, fn.getFunctionType().getInputs());
      llvm::append_range(types, fn.getFunctionType().getResults());
    }
    if (std::optional<Type> narrow = narrowInteger(types)) {
      op->emitError() << "Kiln has integers of 8, 16, 32 and 64 bits (and "
                         "i1), not "
                      << *narrow;
      return WalkResult::interrupt();
    }
    markUnsigned(op);
    if (std::optional<std::string> why = unsupportedUnsigned(op)) {
      op->emitError() << op->getName() << " of unsigned integers: " << *why;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  makeSignless(module);
  return success();
}

void populateUnsignedPatterns(RewritePatternSet &patterns) {
  patterns.add<UnsignedCompare, UnsignedConvert,
               UnsignedBinary<shlo::MaximumOp, kiln::MaxOp, flipSign, flipBack>,
               UnsignedBinary<shlo::MinimumOp, kiln::MinOp, flipSign, flipBack>,
               UnsignedBinary<shlo::DivideOp, kiln::DivOp, zeroExtend, narrowTo>,
               UnsignedBinary<shlo::RemainderOp, kiln::RemOp, zeroExtend,
                              narrowTo>,
               UnsignedWideDivision<shlo::DivideOp, false>,
               UnsignedWideDivision<shlo::RemainderOp, true>>(
      patterns.getContext());
}

} // namespace kiln::stablehlo_import
