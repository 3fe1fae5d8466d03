//===- MathEmitter.h - arithmetic for math approximations -------*- C++ -*-===//
//
// Builds arith and math ops on values shaped like one operand of the op
// being approximated (a scalar, or a vector of any shape), for the patterns
// of kiln-approximate-math.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_CPU_MATHEMITTER_H
#define KILN_LOWERING_CPU_MATHEMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

#include <optional>

namespace kiln {

/// Marks a math op a pattern leaves to libm (for the arguments its fast
/// path does not cover), so that no pattern rewrites it again.
constexpr llvm::StringLiteral kLibmAttr = "kiln.libm";

/// 1.5 * 2^52 and its bits: an integer-valued f64 k with |k| < 2^51 added
/// to it is exact, and the sum's low bits are k in two's complement.
constexpr double kIntegerShift = 0x1.8p52;
constexpr int64_t kIntegerShiftBits = 0x4338000000000000;

struct MathEmitter {
  mlir::OpBuilder &b;
  mlir::Location loc;
  /// The shape of the operand; null for a scalar.
  mlir::VectorType shape;

  /// The emitter for rewriting `op` in place, shaped like its result, if
  /// that is a scalar or fixed-size vector of an element type `accepts`.
  static std::optional<MathEmitter>
  forResult(mlir::OpBuilder &b, mlir::Operation *op,
            llvm::function_ref<bool(mlir::Type)> accepts) {
    mlir::Type type = op->getResult(0).getType();
    auto shape = mlir::dyn_cast<mlir::VectorType>(type);
    if (!accepts(mlir::getElementTypeOrSelf(type)) ||
        (shape && shape.isScalable()))
      return std::nullopt;
    return MathEmitter{b, op->getLoc(), shape};
  }

  /// `element`, or a vector of it of the operand's shape.
  mlir::Type typeOf(mlir::Type element) const {
    return shape ? mlir::Type(mlir::VectorType::get(shape.getShape(), element))
                 : element;
  }
  mlir::Value splat(mlir::TypedAttr attr) const {
    if (!shape)
      return mlir::arith::ConstantOp::create(b, loc, attr);
    return mlir::arith::ConstantOp::create(
        b, loc,
        mlir::DenseElementsAttr::get(
            mlir::VectorType::get(shape.getShape(), attr.getType()), attr));
  }
  mlir::Value constant(mlir::Type element, double value) const {
    return splat(b.getFloatAttr(element, value));
  }
  mlir::Value f64(double value) const {
    return constant(b.getF64Type(), value);
  }
  mlir::Value f32(double value) const {
    return constant(b.getF32Type(), value);
  }
  mlir::Value i64(int64_t value) const {
    return splat(b.getI64IntegerAttr(value));
  }

  mlir::Value add(mlir::Value x, mlir::Value y) const {
    return mlir::arith::AddFOp::create(b, loc, x, y);
  }
  mlir::Value sub(mlir::Value x, mlir::Value y) const {
    return mlir::arith::SubFOp::create(b, loc, x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) const {
    return mlir::arith::MulFOp::create(b, loc, x, y);
  }
  mlir::Value div(mlir::Value x, mlir::Value y) const {
    return mlir::arith::DivFOp::create(b, loc, x, y);
  }
  mlir::Value neg(mlir::Value x) const {
    return mlir::arith::NegFOp::create(b, loc, x);
  }
  mlir::Value fma(mlir::Value x, mlir::Value y, mlir::Value z) const {
    return mlir::math::FmaOp::create(b, loc, x, y, z);
  }
  mlir::Value floor(mlir::Value x) const {
    return mlir::math::FloorOp::create(b, loc, x);
  }
  /// Compares `x` with the constant `y` of its element type.
  mlir::Value cmp(mlir::arith::CmpFPredicate predicate, mlir::Value x,
                  double y) const {
    return mlir::arith::CmpFOp::create(
        b, loc, predicate, x, constant(mlir::getElementTypeOrSelf(x), y));
  }
  mlir::Value eq(mlir::Value x, double y) const {
    return cmp(mlir::arith::CmpFPredicate::OEQ, x, y);
  }
  mlir::Value isNaN(mlir::Value x) const {
    return mlir::arith::CmpFOp::create(b, loc, mlir::arith::CmpFPredicate::UNO,
                                       x, x);
  }
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y) const {
    return mlir::arith::SelectOp::create(b, loc, c, x, y);
  }
  mlir::Value both(mlir::Value x, mlir::Value y) const {
    return mlir::arith::AndIOp::create(b, loc, x, y);
  }
  mlir::Value either(mlir::Value x, mlir::Value y) const {
    return mlir::arith::OrIOp::create(b, loc, x, y);
  }
  /// Whether any element of the i1 scalar or vector `flags` is set.
  mlir::Value any(mlir::Value flags) const;
  /// `fast`, or where some element of `slow` is set, `exact()` (built in the
  /// branch that runs only then) at those elements: an scf.if that keeps
  /// rare slow paths out of the common case.
  mlir::Value unlessAny(mlir::Value slow, mlir::Value fast,
                        llvm::function_ref<mlir::Value()> exact) const;

  /// The f64 polynomial with `coefficients` (of x^0, x^1, ...) at `x`, by
  /// Horner's rule in FMAs.
  mlir::Value polynomial(mlir::Value x,
                         llvm::ArrayRef<double> coefficients) const {
    mlir::Value p = f64(coefficients.back());
    for (double c : llvm::reverse(coefficients.drop_back()))
      p = fma(x, p, f64(c));
    return p;
  }

  /// The f64 `value` as `type` (a float type of the operand's shape),
  /// through f32 where `type` is narrower than that.
  mlir::Value narrowed(mlir::Value value, mlir::Type type) const {
    mlir::Type element = mlir::getElementTypeOrSelf(type);
    if (element.isF64())
      return value;
    value =
        mlir::arith::TruncFOp::create(b, loc, typeOf(b.getF32Type()), value);
    if (element.isF32())
      return value;
    return mlir::arith::TruncFOp::create(b, loc, type, value);
  }

  /// x mod m for an f64 `x` and m > 0, in [0, m).
  mlir::Value mod(mlir::Value x, double m) const {
    return sub(x, mul(floor(mul(x, f64(1 / m))), f64(m)));
  }
};

} // namespace kiln

#endif // KILN_LOWERING_CPU_MATHEMITTER_H
