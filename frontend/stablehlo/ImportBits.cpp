//===- ImportBits.cpp - bit counting, next_after and square ---------------===//
//
// Elementwise ops JAX emits that Kiln has no op for, written with kiln's
// integer and bit ops: stablehlo.popcnt and count_leading_zeros
// (lax.population_count, lax.clz) on 8- to 64-bit integers by the SWAR
// reduction of bit counts (pairs, nibbles, bytes, then a multiply summing
// the bytes); chlo.next_after (jnp.nextafter) of floats by stepping
// the float's bits; chlo.square (jnp.square and x ** 2 of floats in newer
// JAX) as a product.
//
//===----------------------------------------------------------------------===//
#include "frontend/stablehlo/ImportPatterns.h"
#include "frontend/stablehlo/Passes.h"

#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::stablehlo_import;

namespace {

/// Builds kiln ops on tensors of one integer type.
struct Bits {
  OpBuilder &b;
  Location loc;
  RankedTensorType type;

  unsigned width() const { return type.getElementTypeBitWidth(); }
  /// `byte` repeated over the width (0x55 -> 0x5555...).
  Value repeated(uint8_t byte) {
    return splat(b, loc, type,
                 b.getIntegerAttr(type.getElementType(),
                                  APInt::getSplat(width(), APInt(8, byte))));
  }
  Value c(int64_t value) { return splat(b, loc, type, value); }
  Value add(Value x, Value y) { return kiln::AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return kiln::SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return kiln::MulOp::create(b, loc, x, y); }
  Value both(Value x, Value y) { return kiln::AndOp::create(b, loc, x, y); }
  Value either(Value x, Value y) { return kiln::OrOp::create(b, loc, x, y); }
  Value right(Value x, int64_t by) {
    return kiln::ShiftRightLogicalOp::create(b, loc, x, c(by));
  }

  /// The set bits of each element.
  Value popcount(Value x) {
    x = sub(x, both(right(x, 1), repeated(0x55)));
    x = add(both(x, repeated(0x33)), both(right(x, 2), repeated(0x33)));
    x = both(add(x, right(x, 4)), repeated(0x0f));
    return right(mul(x, repeated(0x01)), width() - 8);
  }
  /// The zero bits above each element's highest set bit: every bit below
  /// the highest set one is set, then counted.
  Value leadingZeros(Value x) {
    for (unsigned by = 1; by < width(); by *= 2)
      x = either(x, right(x, by));
    return sub(c(width()), popcount(x));
  }
};

/// Whether `type` is a tensor of integers of whole bytes.
bool isByteInteger(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto element = tensor ? dyn_cast<IntegerType>(tensor.getElementType())
                        : IntegerType();
  return element && element.getWidth() % 8 == 0;
}

/// Whether `type` is a tensor of floats.
bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// popcnt and count_leading_zeros.
template <typename From>
struct CountBits : OpConversionPattern<From> {
  using OpConversionPattern<From>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getOperand();
    if (!isByteInteger(x.getType()))
      return rewriter.notifyMatchFailure(op, "not integers of whole bytes");
    Bits bits{rewriter, op.getLoc(), cast<RankedTensorType>(x.getType())};
    rewriter.replaceOp(op, std::is_same_v<From, shlo::PopcntOp>
                               ? bits.popcount(x)
                               : bits.leadingZeros(x));
    return success();
  }
};

/// next_after(x, y): y where they are equal, NaN where either is, the
/// smallest subnormal of y's sign from zero, else x's bits one step away
/// from zero where y is further from zero in x's direction, else one
/// step towards it.
struct NextAfter : OpConversionPattern<chlo::NextAfterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(chlo::NextAfterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX(), y = adaptor.getY();
    if (!isFloatTensor(x.getType()) || x.getType() != y.getType())
      return rewriter.notifyMatchFailure(op, "not floats of one type");
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(x.getType());
    unsigned width = type.getElementTypeBitWidth();
    auto bitsType = type.clone(rewriter.getIntegerType(width));
    Bits bits{rewriter, loc, bitsType};
    auto compare = [&](kiln::ComparisonDirection direction, Value p,
                       Value q) -> Value {
      return kiln::CompareOp::create(rewriter, loc, direction, p, q);
    };
    auto select = [&](Value pred, Value p, Value q) -> Value {
      return kiln::SelectOp::create(rewriter, loc, p.getType(), pred, p, q);
    };
    auto toBits = [&](Value v) -> Value {
      return kiln::BitcastConvertOp::create(rewriter, loc, bitsType, v);
    };
    Value zero = splat(rewriter, loc, type, rewriter.getFloatAttr(
                                                type.getElementType(), 0.0));
    Value xBits = toBits(x);
    // Away from zero: y beyond x, and x positive, or y below x, and x
    // negative.
    Value away = kiln::NotOp::create(
        rewriter, loc,
        kiln::XorOp::create(rewriter, loc,
                            compare(kiln::ComparisonDirection::LT, x, y),
                            compare(kiln::ComparisonDirection::GT, x, zero)));
    Value stepped = select(away, bits.add(xBits, bits.c(1)),
                           bits.sub(xBits, bits.c(1)));
    APInt sign = APInt::getSignMask(width);
    Value fromZero = bits.either(
        bits.both(toBits(y), splat(rewriter, loc, bitsType,
                                   rewriter.getIntegerAttr(
                                       bitsType.getElementType(), sign))),
        bits.c(1));
    Value next = kiln::BitcastConvertOp::create(
        rewriter, loc, type,
        select(compare(kiln::ComparisonDirection::EQ, x, zero), fromZero,
               stepped));
    Value result =
        select(compare(kiln::ComparisonDirection::EQ, x, y), y, next);
    // x + y is NaN where either is.
    Value unordered = kiln::OrOp::create(
        rewriter, loc, compare(kiln::ComparisonDirection::NE, x, x),
        compare(kiln::ComparisonDirection::NE, y, y));
    rewriter.replaceOp(
        op, select(unordered, kiln::AddOp::create(rewriter, loc, x, y),
                   result));
    return success();
  }
};

/// square(x) = x * x.
struct Square : OpConversionPattern<chlo::SquareOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(chlo::SquareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getOperand();
    if (isBoolTensor(x.getType()))
      return rewriter.notifyMatchFailure(op, "a square of booleans");
    rewriter.replaceOpWithNewOp<kiln::MulOp>(op, x, x);
    return success();
  }
};

} // namespace

namespace kiln::stablehlo_import {

void populateBitPatterns(RewritePatternSet &patterns) {
  patterns.add<CountBits<shlo::PopcntOp>, CountBits<shlo::CountLeadingZerosOp>,
               NextAfter, Square>(patterns.getContext());
}

std::optional<std::string> unsupportedBits(Operation *op) {
  std::optional<std::string> why;
  if (isa<shlo::PopcntOp, shlo::CountLeadingZerosOp>(op) &&
      (!isByteInteger(op->getOperand(0).getType()) ||
       op->getResult(0).getType() != op->getOperand(0).getType()))
    why = "Kiln imports it on integers of 8 to 64 bits, its result of the "
          "operand's type";
  else if (isa<chlo::NextAfterOp>(op) &&
           (!isFloatTensor(op->getOperand(0).getType()) ||
            op->getOperand(1).getType() != op->getOperand(0).getType() ||
            op->getResult(0).getType() != op->getOperand(0).getType()))
    why = "Kiln imports it on float tensors of one type";
  else if (isa<chlo::SquareOp>(op) &&
           (!isa<RankedTensorType>(op->getOperand(0).getType()) ||
            isBoolTensor(op->getOperand(0).getType()) ||
            op->getResult(0).getType() != op->getOperand(0).getType()))
    why = "Kiln imports it on ranked tensors of numbers, its result of the "
          "operand's type";
  if (!why)
    return std::nullopt;
  return op->getName().getStringRef().str() + ": " + *why;
}

} // namespace kiln::stablehlo_import
