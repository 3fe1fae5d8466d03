//===- ElementwiseOps.cpp - folders of the elementwise ops ----------------===//
//
// Constant folding follows the ops' documented semantics exactly; an
// operation whose result the host could compute differently from the
// generated code (transcendental functions of narrow floats) is left
// unfolded.
//
//===----------------------------------------------------------------------===//
#include "TypeInference.h"
#include "kiln/KilnDialect.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APSInt.h"
#include <cmath>
#include <functional>

using namespace mlir;
using namespace kiln;

namespace {
using FloatFn = std::function<std::optional<APFloat>(const APFloat &)>;
using IntFn = std::function<std::optional<APInt>(const APInt &)>;
using FloatFn2 =
    std::function<std::optional<APFloat>(const APFloat &, const APFloat &)>;
using IntFn2 = std::function<std::optional<APInt>(const APInt &, const APInt &)>;
} // namespace

//===----------------------------------------------------------------------===//
// Folding helpers
//===----------------------------------------------------------------------===//

/// Folds a unary op whose operand is constant with `onFloat` or `onInt`
/// (either may be empty: that element kind does not fold).
static OpFoldResult foldUnary(Attribute operand, Type type,
                              const FloatFn &onFloat, const IntFn &onInt = {}) {
  Type element = getElementTypeOrSelf(type);
  if (isa<FloatType>(element) && onFloat)
    return constFoldUnaryOpConditional<FloatAttr, APFloat, void>(
        {operand}, type, onFloat);
  if (isa<IntegerType>(element) && onInt)
    return constFoldUnaryOpConditional<IntegerAttr, APInt, void>(
        {operand}, type, onInt);
  return {};
}

/// Folds a binary op whose operands are both constant.
static OpFoldResult foldBinary(ArrayRef<Attribute> operands, Type type,
                               const FloatFn2 &onFloat,
                               const IntFn2 &onInt = {}) {
  Type element = getElementTypeOrSelf(type);
  if (isa<FloatType>(element) && onFloat)
    return constFoldBinaryOpConditional<FloatAttr, APFloat, void>(
        operands, type, onFloat);
  if (isa<IntegerType>(element) && onInt)
    return constFoldBinaryOpConditional<IntegerAttr, APInt, void>(
        operands, type, onInt);
  return {};
}

/// Whether `sem` is f32 or f64, the types whose transcendental functions the
/// folder computes in double precision and rounds once.
static bool isF32OrF64(const llvm::fltSemantics &sem) {
  return &sem == &APFloat::IEEEsingle() || &sem == &APFloat::IEEEdouble();
}

static APFloat roundTo(double value, const llvm::fltSemantics &sem) {
  APFloat result(value);
  bool losesInfo;
  result.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

/// A unary float function evaluated in double precision (f32 and f64 only).
static FloatFn viaDouble(std::function<double(double)> fn) {
  return [fn](const APFloat &x) -> std::optional<APFloat> {
    if (!isF32OrF64(x.getSemantics()))
      return std::nullopt;
    return roundTo(fn(x.convertToDouble()), x.getSemantics());
  };
}

/// A binary float function evaluated in double precision (f32 and f64 only).
static FloatFn2 viaDouble2(double (*fn)(double, double)) {
  return [fn](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
    if (!isF32OrF64(x.getSemantics()))
      return std::nullopt;
    return roundTo(fn(x.convertToDouble(), y.convertToDouble()),
                   x.getSemantics());
  };
}

/// An exactly rounded APFloat arithmetic operation.
static FloatFn2 exactly(APFloat::opStatus (APFloat::*fn)(const APFloat &,
                                                          APFloat::roundingMode)) {
  return [fn](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
    APFloat result = x;
    (result.*fn)(y, APFloat::rmNearestTiesToEven);
    return result;
  };
}

static std::optional<APFloat> splatFloat(Attribute attr) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat || !isa<FloatType>(splat.getElementType()))
    return std::nullopt;
  return splat.getSplatValue<APFloat>();
}

static std::optional<APInt> splatInt(Attribute attr) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat || !isa<IntegerType>(splat.getElementType()))
    return std::nullopt;
  return splat.getSplatValue<APInt>();
}

/// Whether `attr` is a splat integer constant with `pred` true.
static bool isSplatInt(Attribute attr, function_ref<bool(const APInt &)> pred) {
  std::optional<APInt> value = splatInt(attr);
  return value && pred(*value);
}

/// Whether `attr` is a splat float constant with `pred` true.
static bool isSplatFloat(Attribute attr,
                         function_ref<bool(const APFloat &)> pred) {
  std::optional<APFloat> value = splatFloat(attr);
  return value && pred(*value);
}

/// x op c -> x where `c` is a right identity of op for integers (`intId`) or
/// floats (`floatId`).
static Value foldRightIdentity(Value lhs, Attribute rhs,
                               function_ref<bool(const APInt &)> intId,
                               function_ref<bool(const APFloat &)> floatId) {
  if ((intId && isSplatInt(rhs, intId)) ||
      (floatId && isSplatFloat(rhs, floatId)))
    return lhs;
  return {};
}

/// f(f(x)) -> x for an involution `f`.
template <typename OpTy>
static Value foldInvolution(OpTy op) {
  if (auto inner = op.getOperand().template getDefiningOp<OpTy>())
    return inner.getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldInvolution(*this))
    return x;
  return foldUnary(
      adaptor.getOperand(), getType(),
      [](const APFloat &x) -> std::optional<APFloat> { return neg(x); },
      [](const APInt &x) -> std::optional<APInt> { return -x; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperand(), getType(),
      [](const APFloat &x) -> std::optional<APFloat> { return abs(x); },
      [](const APInt &x) -> std::optional<APInt> { return x.abs(); });
}

OpFoldResult SignOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperand(), getType(),
      [](const APFloat &x) -> std::optional<APFloat> {
        if (x.isNaN() || x.isZero())
          return x;
        return APFloat::getOne(x.getSemantics(), x.isNegative());
      },
      [](const APInt &x) -> std::optional<APInt> {
        return APInt(x.getBitWidth(), x.isNegative() ? -1 : !x.isZero(),
                     /*isSigned=*/true);
      });
}

OpFoldResult ExpOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   viaDouble([](double x) { return std::exp(x); }));
}

OpFoldResult Expm1Op::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   viaDouble([](double x) { return std::expm1(x); }));
}

OpFoldResult LogOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   viaDouble([](double x) { return std::log(x); }));
}

OpFoldResult Log1pOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   viaDouble([](double x) { return std::log1p(x); }));
}

OpFoldResult TanhOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   viaDouble([](double x) { return std::tanh(x); }));
}

OpFoldResult LogisticOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperand(), getType(),
      viaDouble([](double x) { return 1.0 / (1.0 + std::exp(-x)); }));
}

OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   viaDouble([](double x) { return std::sqrt(x); }));
}

OpFoldResult RsqrtOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   viaDouble([](double x) { return 1.0 / std::sqrt(x); }));
}

OpFoldResult SinOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   viaDouble([](double x) { return std::sin(x); }));
}

OpFoldResult CosOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   viaDouble([](double x) { return std::cos(x); }));
}

/// Rounds to an integral value in `mode`, exactly, for every float type.
static FloatFn roundIntegral(APFloat::roundingMode mode) {
  return [mode](const APFloat &x) -> std::optional<APFloat> {
    APFloat result = x;
    result.roundToIntegral(mode);
    return result;
  };
}

OpFoldResult FloorOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   roundIntegral(APFloat::rmTowardNegative));
}

OpFoldResult CeilOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   roundIntegral(APFloat::rmTowardPositive));
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldInvolution(*this))
    return x;
  return foldUnary(adaptor.getOperand(), getType(), {},
                   [](const APInt &x) -> std::optional<APInt> { return ~x; });
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // x + -0.0 is x for every float x; x + +0.0 is not (-0.0 + +0.0 = +0.0).
  if (Value x = foldRightIdentity(
          getLhs(), adaptor.getRhs(), [](const APInt &c) { return c.isZero(); },
          [](const APFloat &c) { return c.isNegZero(); }))
    return x;
  return foldBinary(adaptor.getOperands(), getType(), exactly(&APFloat::add),
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> {
                      return a + b;
                    });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldRightIdentity(
          getLhs(), adaptor.getRhs(), [](const APInt &c) { return c.isZero(); },
          [](const APFloat &c) { return c.isPosZero(); }))
    return x;
  return foldBinary(adaptor.getOperands(), getType(),
                    exactly(&APFloat::subtract),
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> {
                      return a - b;
                    });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldRightIdentity(
          getLhs(), adaptor.getRhs(), [](const APInt &c) { return c.isOne(); },
          [](const APFloat &c) { return c.isExactlyValue(1.0); }))
    return x;
  return foldBinary(adaptor.getOperands(), getType(),
                    exactly(&APFloat::multiply),
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> {
                      return a * b;
                    });
}

/// Signed integer division and remainder with XLA's results where the
/// hardware's are undefined: x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN
/// and INT_MIN % -1 = 0 (as the lowering computes them).
static APInt safeDivide(const APInt &a, const APInt &b) {
  if (b.isZero())
    return APInt::getAllOnes(a.getBitWidth());
  if (a.isMinSignedValue() && b.isAllOnes())
    return a;
  return a.sdiv(b);
}

static APInt safeRemainder(const APInt &a, const APInt &b) {
  if (b.isZero())
    return a;
  if (a.isMinSignedValue() && b.isAllOnes())
    return APInt(a.getBitWidth(), 0);
  return a.srem(b);
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldRightIdentity(
          getLhs(), adaptor.getRhs(), [](const APInt &c) { return c.isOne(); },
          [](const APFloat &c) { return c.isExactlyValue(1.0); }))
    return x;
  return foldBinary(adaptor.getOperands(), getType(), exactly(&APFloat::divide),
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> {
                      return safeDivide(a, b);
                    });
}

OpFoldResult RemOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        APFloat result = a;
        result.mod(b);
        return result;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return safeRemainder(a, b);
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::maximum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        // i1 is unsigned: true is the larger.
        return a.getBitWidth() == 1 ? llvm::APIntOps::umax(a, b)
                                    : llvm::APIntOps::smax(a, b);
      });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::minimum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a.getBitWidth() == 1 ? llvm::APIntOps::umin(a, b)
                                    : llvm::APIntOps::smin(a, b);
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldRightIdentity(
          getLhs(), adaptor.getRhs(), [](const APInt &c) { return c.isOne(); },
          [](const APFloat &c) { return c.isExactlyValue(1.0); }))
    return x;
  return foldBinary(adaptor.getOperands(), getType(),
                    viaDouble2([](double a, double b) { return std::pow(a, b); }));
}

OpFoldResult Atan2Op::fold(FoldAdaptor adaptor) {
  return foldBinary(adaptor.getOperands(), getType(),
                    viaDouble2([](double a, double b) {
                      return std::atan2(a, b);
                    }));
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  if (Value x = foldRightIdentity(getLhs(), adaptor.getRhs(),
                                  [](const APInt &c) { return c.isAllOnes(); },
                                  {}))
    return x;
  return foldBinary(adaptor.getOperands(), getType(), {},
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> {
                      return a & b;
                    });
}

OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  if (Value x = foldRightIdentity(getLhs(), adaptor.getRhs(),
                                  [](const APInt &c) { return c.isZero(); },
                                  {}))
    return x;
  return foldBinary(adaptor.getOperands(), getType(), {},
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> {
                      return a | b;
                    });
}

OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldRightIdentity(getLhs(), adaptor.getRhs(),
                                  [](const APInt &c) { return c.isZero(); },
                                  {}))
    return x;
  return foldBinary(adaptor.getOperands(), getType(), {},
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> {
                      return a ^ b;
                    });
}

//===----------------------------------------------------------------------===//
// compare
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location>,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto lhsType = cast<RankedTensorType>(adaptor.getLhs().getType());
  types.push_back(lhsType.clone(IntegerType::get(context, 1)));
  return success();
}

/// Whether `order` (-1, 0 or 1 for less, equal, greater) satisfies
/// `direction`.
static bool satisfies(ComparisonDirection direction, int order) {
  switch (direction) {
  case ComparisonDirection::EQ:
    return order == 0;
  case ComparisonDirection::NE:
    return order != 0;
  case ComparisonDirection::LT:
    return order < 0;
  case ComparisonDirection::LE:
    return order <= 0;
  case ComparisonDirection::GT:
    return order > 0;
  case ComparisonDirection::GE:
    return order >= 0;
  }
  return false;
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  ComparisonDirection direction = getComparisonDirection();
  auto boolean = [](bool b) { return APInt(1, b); };
  Type element = getElementTypeOrSelf(getLhs().getType());
  ArrayRef<Attribute> operands = adaptor.getOperands();
  if (isa<FloatType>(element))
    return constFoldBinaryOpConditional<FloatAttr, APFloat, void, IntegerAttr>(
        operands, getType(),
        [&](const APFloat &a, const APFloat &b) -> std::optional<APInt> {
          APFloat::cmpResult cmp = a.compare(b);
          if (cmp == APFloat::cmpUnordered)
            return boolean(direction == ComparisonDirection::NE);
          int order = cmp == APFloat::cmpLessThan      ? -1
                      : cmp == APFloat::cmpGreaterThan ? 1
                                                       : 0;
          return boolean(satisfies(direction, order));
        });
  if (getLhs() == getRhs() && getType().hasStaticShape())
    return DenseElementsAttr::get(getType(),
                                  ArrayRef<bool>(satisfies(direction, 0)));
  // Integers compare as signed, booleans as false < true.
  bool isBool = element.isInteger(1);
  return constFoldBinaryOpConditional<IntegerAttr, APInt, void, IntegerAttr>(
      operands, getType(),
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        bool less = isBool ? a.ult(b) : a.slt(b);
        bool greater = isBool ? a.ugt(b) : a.sgt(b);
        int order = less ? -1 : greater ? 1 : 0;
        return boolean(satisfies(direction, order));
      });
}

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::verify() {
  auto predType = getPred().getType();
  if (predType.getRank() != 0 &&
      predType.getShape() != getOnTrue().getType().getShape())
    return emitOpError("pred has shape ")
           << predType << " but the operands have type "
           << getOnTrue().getType() << "; it must match them or be a scalar";
  return success();
}

LogicalResult SelectOp::specializeResultTypes(SmallVectorImpl<Type> &types) {
  types.push_back(getOnTrue().getType());
  return success();
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  if (std::optional<APInt> pred = splatInt(adaptor.getPred()))
    return pred->isZero() ? getOnFalse() : getOnTrue();
  return {};
}

//===----------------------------------------------------------------------===//
// convert
//===----------------------------------------------------------------------===//

/// Converts one float to an integer type: toward zero, saturating, NaN to 0.
static APInt floatToInt(const APFloat &x, unsigned width) {
  if (x.isNaN())
    return APInt(width, 0);
  llvm::APSInt result(width, /*isUnsigned=*/false);
  bool isExact;
  APFloat::opStatus status =
      x.convertToInteger(result, APFloat::rmTowardZero, &isExact);
  if (status & APFloat::opInvalidOp)
    return x.isNegative() ? APInt::getSignedMinValue(width)
                          : APInt::getSignedMaxValue(width);
  return result;
}

/// Converts one constant element as `kiln.convert` documents.
static Attribute convertElement(Attribute element, Type to) {
  bool losesInfo;
  if (auto fromFloat = dyn_cast<FloatAttr>(element)) {
    APFloat x = fromFloat.getValue();
    if (to.isInteger(1))
      return IntegerAttr::get(to, APInt(1, !x.isZero()));
    if (auto toFloat = dyn_cast<FloatType>(to)) {
      x.convert(toFloat.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
      return FloatAttr::get(to, x);
    }
    return IntegerAttr::get(to, floatToInt(x, to.getIntOrFloatBitWidth()));
  }
  APInt x = cast<IntegerAttr>(element).getValue();
  // i1 is a boolean: true converts to 1, not to the signed value -1.
  bool isSigned = x.getBitWidth() != 1;
  if (to.isInteger(1))
    return IntegerAttr::get(to, APInt(1, !x.isZero()));
  if (auto toFloat = dyn_cast<FloatType>(to)) {
    APFloat result(toFloat.getFloatSemantics());
    result.convertFromAPInt(x, isSigned, APFloat::rmNearestTiesToEven);
    return FloatAttr::get(to, result);
  }
  unsigned width = to.getIntOrFloatBitWidth();
  return IntegerAttr::get(to, isSigned ? x.sextOrTrunc(width)
                                       : x.zextOrTrunc(width));
}

/// Folds a shift of constants by `shift`; from the bit width on (the
/// amount unsigned) the result is 0, or the sign's fill (`signFill`).
template <typename Shift>
static OpFoldResult foldShift(ArrayRef<Attribute> operands, Type type,
                              Shift shift, bool signFill) {
  return foldBinary(
      operands, type, {},
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        if (b.ult(a.getBitWidth()))
          return shift(a, b);
        return signFill && a.isNegative() ? APInt::getAllOnes(a.getBitWidth())
                                          : APInt::getZero(a.getBitWidth());
      });
}

OpFoldResult ShiftLeftOp::fold(FoldAdaptor adaptor) {
  return foldShift(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) { return a.shl(b); }, false);
}

OpFoldResult ShiftRightLogicalOp::fold(FoldAdaptor adaptor) {
  return foldShift(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) { return a.lshr(b); }, false);
}

OpFoldResult ShiftRightArithmeticOp::fold(FoldAdaptor adaptor) {
  return foldShift(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) { return a.ashr(b); }, true);
}

LogicalResult BitcastConvertOp::verify() {
  Type from = getOperand().getType().getElementType();
  Type to = getType().getElementType();
  if (from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth() ||
      from.isInteger(1))
    return emitOpError("expects element types of one bit width (not i1), got ")
           << from << " and " << to;
  return success();
}

LogicalResult
BitcastConvertOp::specializeResultTypes(SmallVectorImpl<Type> &types) {
  types.push_back(getType().clone(getOperand().getType().getShape()));
  return success();
}

OpFoldResult BitcastConvertOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  auto constant =
      dyn_cast_or_null<DenseIntOrFPElementsAttr>(adaptor.getOperand());
  if (!constant || !getType().hasStaticShape())
    return {};
  return constant.bitcast(getType().getElementType());
}

LogicalResult ConvertOp::specializeResultTypes(SmallVectorImpl<Type> &types) {
  types.push_back(getType().clone(getOperand().getType().getShape()));
  return success();
}

OpFoldResult ConvertOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  auto constant = dyn_cast_or_null<DenseElementsAttr>(adaptor.getOperand());
  if (!constant || !getType().hasStaticShape())
    return {};
  Type to = getType().getElementType();
  if (constant.isSplat())
    return DenseElementsAttr::get(
        getType(), convertElement(constant.getSplatValue<Attribute>(), to));
  SmallVector<Attribute> converted;
  converted.reserve(constant.getNumElements());
  for (Attribute element : constant.getValues<Attribute>())
    converted.push_back(convertElement(element, to));
  return DenseElementsAttr::get(getType(), converted);
}
