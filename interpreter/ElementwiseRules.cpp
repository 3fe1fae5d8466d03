//===- ElementwiseRules.cpp - evaluating elementwise ops ------------------===//
//
// Each element computed in double (or int64_t) and rounded (or wrapped) to
// the result's element type, with the integer rules the ops' descriptions
// state where C leaves them undefined (XLA's: x / 0 = -1, x % 0 = x,
// INT_MIN / -1 = INT_MIN), and conversions as jax.lax's.
//
//===----------------------------------------------------------------------===//
#include "interpreter/Rules.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace kiln {
namespace {

using FloatUnary = double (*)(double);
using IntUnary = int64_t (*)(int64_t);
using FloatBinary = double (*)(double, double);
using IntBinary = int64_t (*)(int64_t, int64_t);

// Wrapping as wrapAdd (Rules.h).
int64_t wrapSub(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }
int64_t wrapNeg(int64_t a) { return int64_t(0 - uint64_t(a)); }

int64_t intAbs(int64_t a) { return a < 0 ? wrapNeg(a) : a; }
int64_t intSign(int64_t a) { return (a > 0) - (a < 0); }
int64_t intNot(int64_t a) { return ~a; }
int64_t intDiv(int64_t a, int64_t b) {
  if (b == 0)
    return -1;
  // INT_MIN / -1 overflows: it wraps to INT_MIN.
  return b == -1 ? wrapNeg(a) : a / b;
}
int64_t intRem(int64_t a, int64_t b) {
  if (b == 0)
    return a;
  return b == -1 ? 0 : a % b;
}
int64_t intPow(int64_t base, int64_t exponent) {
  if (exponent < 0)
    return base == 1;
  uint64_t result = 1, factor = uint64_t(base);
  for (uint64_t e = uint64_t(exponent); e; e >>= 1, factor *= factor)
    if (e & 1)
      result *= factor;
  return int64_t(result);
}
int64_t intAnd(int64_t a, int64_t b) { return a & b; }
int64_t intOr(int64_t a, int64_t b) { return a | b; }
int64_t intXor(int64_t a, int64_t b) { return a ^ b; }

double floatNeg(double x) { return -x; }
double floatAbs(double x) { return std::fabs(x); }
// -0.0 and NaN stay as they are, as jax.lax.sign's.
double floatSign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }
double floatExp(double x) { return std::exp(x); }
double floatExpm1(double x) { return std::expm1(x); }
double floatLog(double x) { return std::log(x); }
double floatLog1p(double x) { return std::log1p(x); }
double floatTanh(double x) { return std::tanh(x); }
double floatLogistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double floatSqrt(double x) { return std::sqrt(x); }
double floatRsqrt(double x) { return 1.0 / std::sqrt(x); }
double floatSin(double x) { return std::sin(x); }
double floatCos(double x) { return std::cos(x); }
double floatFloor(double x) { return std::floor(x); }
double floatCeil(double x) { return std::ceil(x); }

double floatSub(double a, double b) { return a - b; }
double floatDiv(double a, double b) { return a / b; }
double floatRem(double a, double b) { return std::fmod(a, b); }
double floatPow(double a, double b) { return std::pow(a, b); }
double floatAtan2(double a, double b) { return std::atan2(a, b); }

/// `floatFn` or `intFn` of each element of the operand; a null function
/// stands for the dtypes the op's verifier refuses.
template <FloatUnary floatFn, IntUnary intFn>
LogicalResult unary(Evaluation &evaluation) {
  const HostTensor &x = evaluation.operand(0);
  HostTensor &result = evaluation.result(0);
  for (int64_t i = 0; i < x.size(); ++i) {
    if constexpr (floatFn != nullptr)
      if (x.isFloat())
        result.setFloat(i, floatFn(x.getFloat(i)));
    if constexpr (intFn != nullptr)
      if (!x.isFloat())
        result.setInt(i, intFn(x.getInt(i)));
  }
  return success();
}

template <FloatBinary floatFn, IntBinary intFn>
LogicalResult binary(Evaluation &evaluation) {
  const HostTensor &x = evaluation.operand(0), &y = evaluation.operand(1);
  HostTensor &result = evaluation.result(0);
  for (int64_t i = 0; i < x.size(); ++i) {
    if constexpr (floatFn != nullptr)
      if (x.isFloat())
        result.setFloat(i, floatFn(x.getFloat(i), y.getFloat(i)));
    if constexpr (intFn != nullptr)
      if (!x.isFloat())
        result.setInt(i, intFn(x.getInt(i), y.getInt(i)));
  }
  return success();
}

template <typename T> bool compareAs(ComparisonDirection direction, T a, T b) {
  switch (direction) {
  case ComparisonDirection::EQ:
    return a == b;
  case ComparisonDirection::NE:
    return a != b;
  case ComparisonDirection::LT:
    return a < b;
  case ComparisonDirection::LE:
    return a <= b;
  case ComparisonDirection::GT:
    return a > b;
  case ComparisonDirection::GE:
    return a >= b;
  }
  return false;
}

LogicalResult compare(Evaluation &evaluation) {
  auto op = cast<CompareOp>(evaluation.getOp());
  ComparisonDirection direction = op.getComparisonDirection();
  const HostTensor &x = evaluation.operand(0), &y = evaluation.operand(1);
  HostTensor &result = evaluation.result(0);
  for (int64_t i = 0; i < x.size(); ++i)
    result.setInt(i, x.isFloat()
                         ? compareAs(direction, x.getFloat(i), y.getFloat(i))
                         : compareAs(direction, x.getInt(i), y.getInt(i)));
  return success();
}

LogicalResult select(Evaluation &evaluation) {
  const HostTensor &pred = evaluation.operand(0);
  HostTensor &result = evaluation.result(0);
  bool scalar = pred.getType().getRank() == 0;
  for (int64_t i = 0; i < result.size(); ++i) {
    bool take = pred.getInt(scalar ? 0 : i);
    result.copyElement(i, evaluation.operand(take ? 1 : 2), i);
  }
  return success();
}

/// `value` converted to the float type `type` (nearest even, also from
/// integers wider than a double's mantissa).
double intToFloat(Type type, int64_t value, bool isSigned) {
  llvm::APFloat converted(cast<FloatType>(type).getFloatSemantics());
  converted.convertFromAPInt(llvm::APInt(64, uint64_t(value), isSigned),
                             isSigned, llvm::APFloat::rmNearestTiesToEven);
  bool lost;
  converted.convert(llvm::APFloat::IEEEdouble(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
  return converted.convertToDouble();
}

/// `value` rounded toward zero to the integer type `type`, saturating;
/// NaN is 0.
int64_t floatToInt(Type type, double value) {
  if (std::isnan(value))
    return 0;
  unsigned width = type.getIntOrFloatBitWidth();
  double low = -std::ldexp(1.0, width - 1), high = std::ldexp(1.0, width - 1);
  if (value <= low)
    return width == 64 ? std::numeric_limits<int64_t>::min()
                       : int64_t(low);
  if (value >= high)
    return width == 64 ? std::numeric_limits<int64_t>::max()
                       : int64_t(high) - 1;
  return int64_t(std::trunc(value));
}

LogicalResult convert(Evaluation &evaluation) {
  const HostTensor &x = evaluation.operand(0);
  HostTensor &result = evaluation.result(0);
  Type to = result.elementType();
  bool fromBool = x.elementType().isInteger(1);
  for (int64_t i = 0; i < x.size(); ++i) {
    if (to.isInteger(1))
      result.setInt(i, x.asDouble(i) != 0.0);
    else if (result.isFloat())
      result.setFloat(i, x.isFloat() ? x.getFloat(i)
                                     : intToFloat(to, x.getInt(i), !fromBool));
    else
      result.setInt(i, x.isFloat() ? floatToInt(to, x.getFloat(i))
                                   : x.getInt(i));
  }
  return success();
}

/// The low `width` bits of `value`.
uint64_t lowBits(int64_t value, unsigned width) {
  return width >= 64 ? uint64_t(value)
                     : uint64_t(value) & ((uint64_t(1) << width) - 1);
}

enum class Shift { Left, RightLogical, RightArithmetic };

/// Shifts at the element type's width, the amount read as unsigned; from
/// the width on, 0 (or the sign's fill), as the ops state.
template <Shift kind> LogicalResult shift(Evaluation &evaluation) {
  const HostTensor &x = evaluation.operand(0), &y = evaluation.operand(1);
  HostTensor &result = evaluation.result(0);
  unsigned width = result.elementType().getIntOrFloatBitWidth();
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t value = x.getInt(i);
    uint64_t amount = lowBits(y.getInt(i), width);
    bool negative = value < 0;
    if (amount >= width)
      result.setInt(i, kind == Shift::RightArithmetic && negative ? -1 : 0);
    else if (kind == Shift::Left)
      result.setInt(i, int64_t(uint64_t(value) << amount));
    else if (kind == Shift::RightLogical)
      result.setInt(i, int64_t(lowBits(value, width) >> amount));
    else
      result.setInt(i, value >> amount);
  }
  return success();
}

/// The bits of an element, float (in its own format) or integer.
uint64_t bitsOf(const HostTensor &x, int64_t i) {
  if (!x.isFloat())
    return lowBits(x.getInt(i), x.elementType().getIntOrFloatBitWidth());
  llvm::APFloat value(x.getFloat(i));
  bool lost;
  // Exact: the element holds a value of its own format.
  value.convert(cast<FloatType>(x.elementType()).getFloatSemantics(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
  return value.bitcastToAPInt().getZExtValue();
}

LogicalResult bitcastConvert(Evaluation &evaluation) {
  const HostTensor &x = evaluation.operand(0);
  HostTensor &result = evaluation.result(0);
  Type element = result.elementType();
  for (int64_t i = 0; i < x.size(); ++i) {
    uint64_t bits = bitsOf(x, i);
    if (!result.isFloat()) {
      // setInt wraps to the width, sign-extending.
      result.setInt(i, int64_t(bits));
      continue;
    }
    unsigned width = element.getIntOrFloatBitWidth();
    llvm::APFloat value(cast<FloatType>(element).getFloatSemantics(),
                        llvm::APInt(width, bits));
    bool lost;
    value.convert(llvm::APFloat::IEEEdouble(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
    result.setFloat(i, value.convertToDouble());
  }
  return success();
}

} // namespace

void attachElementwiseRules(MLIRContext *context) {
  attachRule<unary<floatNeg, wrapNeg>, NegOp>(context);
  attachRule<unary<floatAbs, intAbs>, AbsOp>(context);
  attachRule<unary<floatSign, intSign>, SignOp>(context);
  attachRule<unary<floatExp, nullptr>, ExpOp>(context);
  attachRule<unary<floatExpm1, nullptr>, Expm1Op>(context);
  attachRule<unary<floatLog, nullptr>, LogOp>(context);
  attachRule<unary<floatLog1p, nullptr>, Log1pOp>(context);
  attachRule<unary<floatTanh, nullptr>, TanhOp>(context);
  attachRule<unary<floatLogistic, nullptr>, LogisticOp>(context);
  attachRule<unary<floatSqrt, nullptr>, SqrtOp>(context);
  attachRule<unary<floatRsqrt, nullptr>, RsqrtOp>(context);
  attachRule<unary<floatSin, nullptr>, SinOp>(context);
  attachRule<unary<floatCos, nullptr>, CosOp>(context);
  attachRule<unary<floatFloor, nullptr>, FloorOp>(context);
  attachRule<unary<floatCeil, nullptr>, CeilOp>(context);
  attachRule<unary<nullptr, intNot>, NotOp>(context);
  attachRule<binary<floatAdd, wrapAdd>, AddOp>(context);
  attachRule<binary<floatSub, wrapSub>, SubOp>(context);
  attachRule<binary<floatMul, wrapMul>, MulOp>(context);
  attachRule<binary<floatDiv, intDiv>, DivOp>(context);
  attachRule<binary<floatRem, intRem>, RemOp>(context);
  attachRule<binary<floatMax, intMax>, MaxOp>(context);
  attachRule<binary<floatMin, intMin>, MinOp>(context);
  attachRule<binary<floatPow, intPow>, PowOp>(context);
  attachRule<binary<floatAtan2, nullptr>, Atan2Op>(context);
  attachRule<binary<nullptr, intAnd>, AndOp>(context);
  attachRule<binary<nullptr, intOr>, OrOp>(context);
  attachRule<binary<nullptr, intXor>, XorOp>(context);
  attachRule<shift<Shift::Left>, ShiftLeftOp>(context);
  attachRule<shift<Shift::RightLogical>, ShiftRightLogicalOp>(context);
  attachRule<shift<Shift::RightArithmetic>, ShiftRightArithmeticOp>(context);
  attachRule<bitcastConvert, BitcastConvertOp>(context);
  attachRule<compare, CompareOp>(context);
  attachRule<select, SelectOp>(context);
  attachRule<convert, ConvertOp>(context);
}

} // namespace kiln
