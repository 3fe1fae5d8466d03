//===- ElementwiseToLinalg.cpp - elementwise kiln ops to linalg.generic ---===//
//
// Every elementwise op becomes one all-parallel linalg.generic whose body is
// the scalar semantics documented on the op; linalg's elementwise fusion
// later merges chains of them into one loop nest.
//
//===----------------------------------------------------------------------===//
#include "LoweringUtils.h"
#include "Passes.h"
#include "kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace kiln;

namespace {

/// `FloatOp` on floats, `IntOp` on integers.
template <typename FloatOp, typename IntOp>
Value floatOrInt(OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args[0].getType()))
    return FloatOp::create(b, loc, args);
  return IntOp::create(b, loc, args);
}

/// The scalar of an elementwise op, one overload per op.
Value scalar(NegOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args[0].getType()))
    return arith::NegFOp::create(b, loc, args[0]);
  Value zero = scalarConstant(b, loc, args[0].getType(), 0);
  return arith::SubIOp::create(b, loc, zero, args[0]);
}

Value scalar(AbsOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args[0].getType()))
    return math::AbsFOp::create(b, loc, args[0]);
  // max(x, -x) (INT_MIN stays INT_MIN, as in XLA): plain arith, which
  // lowers on vectors of any rank, unlike math.absi.
  Value zero = scalarConstant(b, loc, args[0].getType(), 0);
  Value negated = arith::SubIOp::create(b, loc, zero, args[0]);
  return arith::MaxSIOp::create(b, loc, args[0], negated);
}

Value scalar(SignOp, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Type type = x.getType();
  Value zero = scalarConstant(b, loc, type, 0);
  if (isFloat(x.getType())) {
    // Zeros (of either sign) and NaN are their own sign.
    Value keep = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UEQ, x,
                                       zero);
    Value one = scalarConstant(b, loc, type, 1);
    Value signed1 = math::CopySignOp::create(b, loc, one, x);
    return arith::SelectOp::create(b, loc, keep, x, signed1);
  }
  Value positive =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, zero);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  return arith::SubIOp::create(b, loc,
                               arith::ExtUIOp::create(b, loc, type, positive),
                               arith::ExtUIOp::create(b, loc, type, negative));
}

template <typename MathOp>
Value mathScalar(OpBuilder &b, Location loc, ValueRange args) {
  return MathOp::create(b, loc, args);
}

Value scalar(ExpOp, OpBuilder &b, Location loc, ValueRange args) {
  return mathScalar<math::ExpOp>(b, loc, args);
}
/// expm1 of f64 by Kahan's formula (u - 1) * x / log(u) with u = exp(x),
/// accurate near 0 where exp(x) - 1 cancels: LLVM lowers math.expm1 to
/// exp(x) - 1, and the polynomial approximations cover f32 only.
Value scalar(Expm1Op, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  if (!x.getType().isF64())
    return mathScalar<math::ExpM1Op>(b, loc, args);
  auto eq = [&](Value lhs, double rhs) -> Value {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, lhs,
                                 scalarConstant(b, loc, lhs.getType(), rhs));
  };
  Value u = math::ExpOp::create(b, loc, x);
  Value uMinusOne =
      arith::SubFOp::create(b, loc, u, scalarConstant(b, loc, u.getType(), 1));
  Value result = arith::DivFOp::create(
      b, loc, arith::MulFOp::create(b, loc, uMinusOne, x),
      math::LogOp::create(b, loc, u));
  // exp(x) rounds to 1 (x tiny: expm1(x) = x), to 0 (x very negative: -1)
  // or overflows (inf).
  result = arith::SelectOp::create(b, loc, eq(u, INFINITY), u, result);
  result = arith::SelectOp::create(b, loc, eq(uMinusOne, -1), uMinusOne,
                                   result);
  return arith::SelectOp::create(b, loc, eq(u, 1), x, result);
}
Value scalar(LogOp, OpBuilder &b, Location loc, ValueRange args) {
  return mathScalar<math::LogOp>(b, loc, args);
}
/// log1p of f64 by Goldberg's formula log(u) * (x / (u - 1)) with
/// u = 1 + x, which cancels the rounding of u (LLVM lowers math.log1p to
/// log(1 + x), and the polynomial approximations cover f32 only).
Value scalar(Log1pOp, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  if (!x.getType().isF64())
    return mathScalar<math::Log1pOp>(b, loc, args);
  Type type = x.getType();
  Value one = scalarConstant(b, loc, type, 1);
  Value u = arith::AddFOp::create(b, loc, one, x);
  Value uMinusOne = arith::SubFOp::create(b, loc, u, one);
  Value logU = math::LogOp::create(b, loc, u);
  Value result = arith::MulFOp::create(
      b, loc, logU, arith::DivFOp::create(b, loc, x, uMinusOne));
  // 1 + x rounds to 1 (x tiny: log1p(x) = x) or overflows (log(u) = inf).
  Value roundsToOne = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            uMinusOne,
                                            scalarConstant(b, loc, type, 0));
  Value infinite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, u,
      scalarConstant(b, loc, type, INFINITY));
  result = arith::SelectOp::create(b, loc, infinite, u, result);
  return arith::SelectOp::create(b, loc, roundsToOne, x, result);
}
Value scalar(TanhOp, OpBuilder &b, Location loc, ValueRange args) {
  return mathScalar<math::TanhOp>(b, loc, args);
}
Value scalar(SqrtOp, OpBuilder &b, Location loc, ValueRange args) {
  return mathScalar<math::SqrtOp>(b, loc, args);
}
Value scalar(RsqrtOp, OpBuilder &b, Location loc, ValueRange args) {
  return mathScalar<math::RsqrtOp>(b, loc, args);
}
Value scalar(SinOp, OpBuilder &b, Location loc, ValueRange args) {
  return mathScalar<math::SinOp>(b, loc, args);
}
Value scalar(CosOp, OpBuilder &b, Location loc, ValueRange args) {
  return mathScalar<math::CosOp>(b, loc, args);
}
Value scalar(FloorOp, OpBuilder &b, Location loc, ValueRange args) {
  return mathScalar<math::FloorOp>(b, loc, args);
}
Value scalar(CeilOp, OpBuilder &b, Location loc, ValueRange args) {
  return mathScalar<math::CeilOp>(b, loc, args);
}
/// Whether the sign bit of the float `x` is set (true for -0.0).
Value signBit(OpBuilder &b, Location loc, Value x) {
  auto intType = b.getIntegerType(x.getType().getIntOrFloatBitWidth());
  Value bits = arith::BitcastOp::create(b, loc, intType, x);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, bits,
                               scalarConstant(b, loc, intType, 0));
}

/// atan2 through math.atan (which vectorizes as a polynomial) and the
/// quadrant, signed-zero, infinity and NaN cases of IEEE atan2, each a
/// select that overrides the general formula.
Value scalar(Atan2Op, OpBuilder &b, Location loc, ValueRange args) {
  Value y = args[0], x = args[1];
  Type type = y.getType();
  auto constant = [&](double v) { return scalarConstant(b, loc, type, v); };
  auto compare = [&](arith::CmpFPredicate predicate, Value lhs, Value rhs) {
    return arith::CmpFOp::create(b, loc, predicate, lhs, rhs).getResult();
  };
  auto select = [&](Value cond, Value onTrue, Value onFalse) {
    return arith::SelectOp::create(b, loc, cond, onTrue, onFalse).getResult();
  };
  auto towardY = [&](double magnitude) {
    return math::CopySignOp::create(b, loc, constant(magnitude), y).getResult();
  };
  auto orI = [&](Value lhs, Value rhs) {
    return arith::OrIOp::create(b, loc, lhs, rhs).getResult();
  };
  Value inf = constant(INFINITY), zero = constant(0);
  Value xIsInf = compare(arith::CmpFPredicate::OEQ,
                         math::AbsFOp::create(b, loc, x), inf);
  Value yIsInf = compare(arith::CmpFPredicate::OEQ,
                         math::AbsFOp::create(b, loc, y), inf);
  Value xNegative = signBit(b, loc, x);
  // atan(y / x), moved by pi toward y's side when x is negative.
  Value result = math::AtanOp::create(b, loc,
                                      arith::DivFOp::create(b, loc, y, x));
  result = arith::AddFOp::create(b, loc, result,
                                 select(xNegative, towardY(M_PI), zero));
  // x = 0 or y infinite (x finite): straight up or down.
  result = select(orI(compare(arith::CmpFPredicate::OEQ, x, zero), yIsInf),
                  towardY(M_PI_2), result);
  // Both infinite: the diagonals.
  result = select(arith::AndIOp::create(b, loc, xIsInf, yIsInf),
                  select(xNegative, towardY(3 * M_PI_4), towardY(M_PI_4)),
                  result);
  // y = 0: 0 or pi by the sign of x, with y's sign.
  result = select(compare(arith::CmpFPredicate::OEQ, y, zero),
                  select(xNegative, towardY(M_PI), towardY(0)), result);
  Value eitherNaN = compare(arith::CmpFPredicate::UNO, x, y);
  return select(eitherNaN, arith::AddFOp::create(b, loc, x, y), result);
}

Value scalar(LogisticOp, OpBuilder &b, Location loc, ValueRange args) {
  // 1 / (1 + exp(-x)): exp overflows to inf for very negative x, giving 0.
  Type type = args[0].getType();
  Value one = scalarConstant(b, loc, type, 1);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, args[0]));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

Value scalar(NotOp, OpBuilder &b, Location loc, ValueRange args) {
  Value ones = scalarConstant(b, loc, args[0].getType(), -1);
  return arith::XOrIOp::create(b, loc, args[0], ones);
}

Value scalar(AddOp, OpBuilder &b, Location loc, ValueRange args) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, args);
}
Value scalar(SubOp, OpBuilder &b, Location loc, ValueRange args) {
  return floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, args);
}
Value scalar(MulOp, OpBuilder &b, Location loc, ValueRange args) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, args);
}
/// Signed integer division or remainder (`IntOp`) that never traps, with
/// XLA's results where the hardware's are undefined: x / 0 = -1, x % 0 = x,
/// INT_MIN / -1 = INT_MIN and INT_MIN % -1 = 0.
template <typename IntOp>
Value safeIntDivision(OpBuilder &b, Location loc, Value x, Value y) {
  Type type = x.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  auto constant = [&](const llvm::APInt &v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  };
  Value zero = constant(llvm::APInt(width, 0));
  Value minusOne = constant(llvm::APInt::getAllOnes(width));
  Value intMin = constant(llvm::APInt::getSignedMinValue(width));
  auto eq = [&](Value a, Value c) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, c);
  };
  Value byZero = eq(y, zero);
  Value overflows = arith::AndIOp::create(b, loc, eq(x, intMin),
                                          eq(y, minusOne));
  Value unsafe = arith::OrIOp::create(b, loc, byZero, overflows);
  Value divisor = arith::SelectOp::create(
      b, loc, unsafe, constant(llvm::APInt(width, 1)), y);
  Value result = IntOp::create(b, loc, x, divisor);
  bool isDiv = std::is_same_v<IntOp, arith::DivSIOp>;
  result = arith::SelectOp::create(b, loc, overflows, isDiv ? intMin : zero,
                                   result);
  return arith::SelectOp::create(b, loc, byZero, isDiv ? minusOne : x, result);
}

Value scalar(DivOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args[0].getType()))
    return arith::DivFOp::create(b, loc, args);
  return safeIntDivision<arith::DivSIOp>(b, loc, args[0], args[1]);
}
Value scalar(RemOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args[0].getType()))
    return arith::RemFOp::create(b, loc, args);
  return safeIntDivision<arith::RemSIOp>(b, loc, args[0], args[1]);
}
/// Booleans order false < true: max is or, min is and.
Value scalar(MaxOp, OpBuilder &b, Location loc, ValueRange args) {
  if (args[0].getType().isInteger(1))
    return arith::OrIOp::create(b, loc, args);
  return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, args);
}
Value scalar(MinOp, OpBuilder &b, Location loc, ValueRange args) {
  if (args[0].getType().isInteger(1))
    return arith::AndIOp::create(b, loc, args);
  return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, args);
}
/// Integer powers follow XLA: exponentiation by squaring (wrapping) for
/// y >= 0; for y < 0, 1 if x == 1 and 0 otherwise (also for x = -1).
Value scalar(PowOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args[0].getType()))
    return math::PowFOp::create(b, loc, args);
  Value x = args[0], y = args[1];
  Type type = x.getType();
  Value zero = scalarConstant(b, loc, type, 0);
  Value one = scalarConstant(b, loc, type, 1);
  // math.ipowi divides by zero for 0^y with y < 0: give it y >= 0 only.
  Value power = math::IPowIOp::create(
      b, loc, x, arith::MaxSIOp::create(b, loc, y, zero));
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero);
  Value xIsOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, one);
  Value reciprocal = arith::SelectOp::create(b, loc, xIsOne, one, zero);
  return arith::SelectOp::create(b, loc, negative, reciprocal, power);
}
Value scalar(AndOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::AndIOp::create(b, loc, args);
}
Value scalar(OrOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::OrIOp::create(b, loc, args);
}
Value scalar(XorOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::XOrIOp::create(b, loc, args);
}

/// A shift's amount where it is below the bit width (read as unsigned:
/// LLVM's shifts by the width or more are poison), `otherwise` elsewhere,
/// and whether it is.
std::pair<Value, Value> shiftAmount(OpBuilder &b, Location loc, Value amount,
                                    int64_t otherwise) {
  Type type = amount.getType();
  Value inRange = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, amount,
      scalarConstant(b, loc, type, type.getIntOrFloatBitWidth()));
  return {arith::SelectOp::create(b, loc, inRange, amount,
                                  scalarConstant(b, loc, type, otherwise)),
          inRange};
}
/// A shift that gives 0 from the bit width on.
template <typename ShiftOp>
Value zeroFilling(OpBuilder &b, Location loc, ValueRange args) {
  auto [amount, inRange] = shiftAmount(b, loc, args[1], 0);
  return arith::SelectOp::create(
      b, loc, inRange, ShiftOp::create(b, loc, args[0], amount),
      scalarConstant(b, loc, amount.getType(), 0));
}
Value scalar(ShiftLeftOp, OpBuilder &b, Location loc, ValueRange args) {
  return zeroFilling<arith::ShLIOp>(b, loc, args);
}
Value scalar(ShiftRightLogicalOp, OpBuilder &b, Location loc,
             ValueRange args) {
  return zeroFilling<arith::ShRUIOp>(b, loc, args);
}
Value scalar(ShiftRightArithmeticOp, OpBuilder &b, Location loc,
             ValueRange args) {
  // From the width on, the sign fills: a shift by width - 1.
  Type type = args[1].getType();
  auto [amount, inRange] =
      shiftAmount(b, loc, args[1], type.getIntOrFloatBitWidth() - 1);
  return arith::ShRSIOp::create(b, loc, args[0], amount);
}
Value scalar(BitcastConvertOp op, OpBuilder &b, Location loc,
             ValueRange args) {
  return arith::BitcastOp::create(b, loc, op.getType().getElementType(),
                                  args[0]);
}

Value scalar(SelectOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

arith::CmpFPredicate floatPredicate(ComparisonDirection direction) {
  switch (direction) {
  case ComparisonDirection::EQ:
    return arith::CmpFPredicate::OEQ;
  case ComparisonDirection::NE:
    return arith::CmpFPredicate::UNE;
  case ComparisonDirection::LT:
    return arith::CmpFPredicate::OLT;
  case ComparisonDirection::LE:
    return arith::CmpFPredicate::OLE;
  case ComparisonDirection::GT:
    return arith::CmpFPredicate::OGT;
  case ComparisonDirection::GE:
    return arith::CmpFPredicate::OGE;
  }
  return arith::CmpFPredicate::OEQ;
}

/// Signed predicates for integers; unsigned ones for booleans (false < true).
arith::CmpIPredicate intPredicate(ComparisonDirection direction,
                                  bool isBool) {
  switch (direction) {
  case ComparisonDirection::EQ:
    return arith::CmpIPredicate::eq;
  case ComparisonDirection::NE:
    return arith::CmpIPredicate::ne;
  case ComparisonDirection::LT:
    return isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
  case ComparisonDirection::LE:
    return isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
  case ComparisonDirection::GT:
    return isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
  case ComparisonDirection::GE:
    return isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
  }
  return arith::CmpIPredicate::eq;
}

Value scalar(CompareOp op, OpBuilder &b, Location loc, ValueRange args) {
  ComparisonDirection direction = op.getComparisonDirection();
  if (isFloat(args[0].getType()))
    return arith::CmpFOp::create(b, loc, floatPredicate(direction), args[0],
                                 args[1]);
  bool isBool = args[0].getType().isInteger(1);
  return arith::CmpIOp::create(b, loc, intPredicate(direction, isBool),
                               args[0], args[1]);
}

/// A float converted to an integer type toward zero, saturating at the
/// type's bounds, with NaN giving 0 (arith.fptosi alone is undefined there).
Value floatToInt(OpBuilder &b, Location loc, Value x, IntegerType to) {
  auto floatType = cast<FloatType>(x.getType());
  unsigned width = to.getWidth();
  // -2^(w-1) is exact in every float type; 2^(w-1) is the first value above
  // the largest integer.
  llvm::APFloat bound(floatType.getFloatSemantics());
  bound.convertFromAPInt(llvm::APInt::getSignedMinValue(width), true,
                         llvm::APFloat::rmNearestTiesToEven);
  Value low = arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, bound));
  Value high = arith::NegFOp::create(b, loc, low);
  Value truncated = arith::FPToSIOp::create(b, loc, to, x);
  Value tooLow =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, low);
  Value tooHigh =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, high);
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  auto intConstant = [&](const llvm::APInt &v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(to, v));
  };
  Value result = arith::SelectOp::create(
      b, loc, tooLow, intConstant(llvm::APInt::getSignedMinValue(width)),
      truncated);
  result = arith::SelectOp::create(
      b, loc, tooHigh, intConstant(llvm::APInt::getSignedMaxValue(width)),
      result);
  return arith::SelectOp::create(b, loc, isNaN, intConstant(llvm::APInt(width, 0)),
                                 result);
}

/// The f64 `x` rounded to f32 with round-to-odd: truncated toward zero,
/// with the lowest bit set when inexact. Rounding that to a format of at
/// most 22 bits then gives the correctly rounded result.
Value truncateToOddF32(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value nearest = arith::TruncFOp::create(b, loc, f32, x);
  Value back = arith::ExtFOp::create(b, loc, x.getType(), nearest);
  Value inexact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, back, x);
  // Rounded away from zero: step the magnitude back by one ulp.
  Value awayFromZero = arith::AndIOp::create(
      b, loc, inexact,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                            math::AbsFOp::create(b, loc, back),
                            math::AbsFOp::create(b, loc, x)));
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  Value stepped = arith::SubIOp::create(b, loc, bits,
                                        scalarConstant(b, loc, i32, 1));
  bits = arith::SelectOp::create(b, loc, awayFromZero, stepped, bits);
  Value odd =
      arith::OrIOp::create(b, loc, bits, scalarConstant(b, loc, i32, 1));
  bits = arith::SelectOp::create(b, loc, inexact, odd, bits);
  return arith::BitcastOp::create(b, loc, f32, bits);
}

Value scalar(ConvertOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Type from = x.getType();
  Type to = op.getType().getElementType();
  if (from == to)
    return x;
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0);
    if (isFloat(x.getType()))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  bool fromBool = from.isInteger(1);
  if (auto toFloat = dyn_cast<FloatType>(to)) {
    if (auto fromFloat = dyn_cast<FloatType>(from)) {
      if (fromFloat.getWidth() < toFloat.getWidth())
        return arith::ExtFOp::create(b, loc, to, x);
      // bf16 <-> f16 have equal widths: go through f32.
      if (fromFloat.getWidth() == toFloat.getWidth())
        x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
      // f64 -> 16 bits has no instruction and needs a compiler-rt routine
      // the JIT lacks: go through f32 rounded to odd, which rounds once.
      if (fromFloat.isF64() && toFloat.getWidth() == 16)
        x = truncateToOddF32(b, loc, x);
      return arith::TruncFOp::create(b, loc, to, x);
    }
    if (fromBool)
      return arith::UIToFPOp::create(b, loc, to, x);
    return arith::SIToFPOp::create(b, loc, to, x);
  }
  auto toInt = cast<IntegerType>(to);
  if (isFloat(x.getType()))
    return floatToInt(b, loc, x, toInt);
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  if (fromWidth > toInt.getWidth())
    return arith::TruncIOp::create(b, loc, to, x);
  if (fromBool)
    return arith::ExtUIOp::create(b, loc, to, x);
  return arith::ExtSIOp::create(b, loc, to, x);
}

/// Any elementwise kiln op -> linalg.generic computing `scalar(op, ...)`.
/// Rank-0 operands of a ranked op (select's scalar predicate) broadcast.
template <typename OpTy>
struct ElementwiseToGeneric : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    unsigned rank = type.getRank();
    SmallVector<AffineMap> maps;
    for (Value operand : adaptor.getOperands())
      maps.push_back(cast<RankedTensorType>(operand.getType()).getRank() == rank
                         ? rewriter.getMultiDimIdentityMap(rank)
                         : scalarMap(rewriter.getContext(), rank));
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), type, adaptor.getOperands(), maps,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return scalar(op, b, loc, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kiln::populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<
      ElementwiseToGeneric<NegOp>, ElementwiseToGeneric<AbsOp>,
      ElementwiseToGeneric<SignOp>, ElementwiseToGeneric<ExpOp>,
      ElementwiseToGeneric<Expm1Op>, ElementwiseToGeneric<LogOp>,
      ElementwiseToGeneric<Log1pOp>, ElementwiseToGeneric<TanhOp>,
      ElementwiseToGeneric<LogisticOp>, ElementwiseToGeneric<SqrtOp>,
      ElementwiseToGeneric<RsqrtOp>, ElementwiseToGeneric<SinOp>,
      ElementwiseToGeneric<CosOp>, ElementwiseToGeneric<FloorOp>,
      ElementwiseToGeneric<CeilOp>, ElementwiseToGeneric<NotOp>,
      ElementwiseToGeneric<AddOp>, ElementwiseToGeneric<SubOp>,
      ElementwiseToGeneric<MulOp>, ElementwiseToGeneric<DivOp>,
      ElementwiseToGeneric<RemOp>, ElementwiseToGeneric<MaxOp>,
      ElementwiseToGeneric<MinOp>, ElementwiseToGeneric<PowOp>,
      ElementwiseToGeneric<Atan2Op>, ElementwiseToGeneric<AndOp>,
      ElementwiseToGeneric<OrOp>, ElementwiseToGeneric<XorOp>,
      ElementwiseToGeneric<ShiftLeftOp>,
      ElementwiseToGeneric<ShiftRightLogicalOp>,
      ElementwiseToGeneric<ShiftRightArithmeticOp>,
      ElementwiseToGeneric<BitcastConvertOp>,
      ElementwiseToGeneric<CompareOp>, ElementwiseToGeneric<SelectOp>,
      ElementwiseToGeneric<ConvertOp>>(patterns.getContext());
}
