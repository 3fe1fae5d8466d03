//===- KilnCarryExtremaAsKeys.cpp - the kiln-carry-extrema-as-keys pass ---===//
//
// A float maximum or minimum that an scf.for carries (a max or min
// reduction's running vector) is carried as integers instead: each
// element's bits as an integer key that orders like the float (-0 below
// +0), compared with one integer max or min, NaN told apart by the largest
// magnitude seen or by the key that wins.
// The float forms, arith.maximumf and arith.minimumf, become compares and
// selects (blends) in a chain through the carried vector, which limited a
// reduce_max of 6.4M f32 to 25 GB/s, half its reduce_sum's speed.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "kiln/TypeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNCARRYEXTREMAASKEYS
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {
/// A maximumf or minimumf of a vector that `loop` carries in iter_arg
/// `index`, which nothing else in the loop reads, and the value it takes
/// in.
struct CarriedExtremum {
  scf::ForOp loop;
  unsigned index;
  Operation *op;
  Value incoming;
};

/// `op` as a CarriedExtremum, if it is one.
std::optional<CarriedExtremum> carriedExtremum(Operation *op) {
  if (!isa<arith::MaximumFOp, arith::MinimumFOp>(op))
    return std::nullopt;
  auto type = dyn_cast<VectorType>(op->getResult(0).getType());
  if (!type ||
      !(type.getElementType().isF32() || type.getElementType().isF64()))
    return std::nullopt;
  auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
  if (!loop || !op->getResult(0).hasOneUse())
    return std::nullopt;
  auto yield = dyn_cast<scf::YieldOp>(*op->getResult(0).getUsers().begin());
  if (!yield || yield->getParentOp() != loop)
    return std::nullopt;
  unsigned index = op->getResult(0).getUses().begin()->getOperandNumber();
  BlockArgument carried = loop.getRegionIterArgs()[index];
  for (unsigned side : {0u, 1u})
    if (op->getOperand(side) == carried &&
        op->getOperand(1 - side) != carried && carried.hasOneUse())
      return CarriedExtremum{loop, index, op, op->getOperand(1 - side)};
  return std::nullopt;
}

/// Whether a carried vector of `bytes` also carries the largest magnitude
/// seen, which tells NaN apart (an integer max an element): where keys and
/// magnitudes take at most half of the target's `registers` vector
/// registers of `vectorBytes`. Larger ones select a NaN's key per element
/// (a compare and a select), as keys and magnitudes of 16 AVX-512
/// registers each would take all 32: a reduce_max over 4099 rows of 257
/// carries 256 lanes, 0.071 ms, 0.076 with magnitudes, 0.061 selecting;
/// over 2048 x 2048 magnitudes took 0.21 ms and selecting 0.28. On AVX2's
/// 16, a reduce_max of 1000003 f32 in rows of 64 lanes carried 16 ymm
/// registers of keys and magnitudes, spilled: 0.119 ms, 0.100 selecting
/// (an AMD Zen 3).
bool carriesMagnitudes(int64_t bytes, int64_t vectorBytes, int64_t registers) {
  return 2 * bytes <= registers * vectorBytes / 2;
}

/// The integer forms of vectors of f32 or f64 (`floats`) for a maximum
/// (`max`) or a minimum, with the constants they take, built once where
/// the loop starts: each element's key, and with `magnitudes` its bits
/// without the sign.
struct Keys {
  VectorType floats, ints;
  bool max, magnitudes;
  Value signShift, one, noSign, infinity, nanKey, nan;

  Keys(OpBuilder &b, Location loc, VectorType floats, bool max, bool magnitudes)
      : floats(floats), max(max), magnitudes(magnitudes) {
    unsigned width = floats.getElementTypeBitWidth();
    ints = floats.clone(b.getIntegerType(width));
    auto splat = [&](const APInt &value) {
      return arith::ConstantOp::create(b, loc, ints,
                                       DenseElementsAttr::get(ints, value))
          .getResult();
    };
    signShift = splat(APInt(width, width - 1));
    one = splat(APInt(width, 1));
    const llvm::fltSemantics &semantics =
        cast<FloatType>(floats.getElementType()).getFloatSemantics();
    if (magnitudes) {
      noSign = splat(APInt::getSignedMaxValue(width));
      infinity = splat(APFloat::getInf(semantics).bitcastToAPInt());
      nan = arith::ConstantOp::create(
          b, loc, floats,
          DenseElementsAttr::get(floats, APFloat::getQNaN(semantics)));
    } else {
      nanKey = splat(max ? APInt::getSignedMaxValue(width)
                         : APInt::getSignedMinValue(width));
    }
  }

  /// Flips the magnitude bits of negative values: signed integers in the
  /// floats' order (-0 below +0). Its own inverse.
  Value flip(OpBuilder &b, Location loc, Value bitsOrKey) const {
    Value sign = arith::ShRSIOp::create(b, loc, bitsOrKey, signShift);
    Value magnitudes = arith::ShRUIOp::create(b, loc, sign, one);
    return arith::XOrIOp::create(b, loc, bitsOrKey, magnitudes);
  }

  /// What the loop carries for x: its key, and its magnitude (above the
  /// infinity's exactly where x is NaN); or without magnitudes, its key or
  /// where x is NaN the key that wins the maximum or minimum, whose float
  /// is a NaN (0x7fff... or 0xffff...).
  SmallVector<Value> carried(OpBuilder &b, Location loc, Value x) const {
    Value bits = arith::BitcastOp::create(b, loc, ints, x);
    Value key = flip(b, loc, bits);
    if (magnitudes)
      return {key, arith::AndIOp::create(b, loc, bits, noSign)};
    Value isNaN =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    return {arith::SelectOp::create(b, loc, isNaN, nanKey, key)};
  }

  /// The carried values of the extremum of those carried as `first` and
  /// `second`.
  SmallVector<Value> extreme(OpBuilder &b, Location loc, ValueRange first,
                             ValueRange second) const {
    SmallVector<Value> result = {
        max ? arith::MaxSIOp::create(b, loc, first[0], second[0]).getResult()
            : arith::MinSIOp::create(b, loc, first[0], second[0]).getResult()};
    if (magnitudes)
      result.push_back(arith::MaxUIOp::create(b, loc, first[1], second[1]));
    return result;
  }

  /// The floats of the carried values.
  Value floatsOf(OpBuilder &b, Location loc, ValueRange carried) const {
    Value value =
        arith::BitcastOp::create(b, loc, floats, flip(b, loc, carried[0]));
    if (!magnitudes)
      return value;
    Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                        carried[1], infinity);
    return arith::SelectOp::create(b, loc, isNaN, nan, value);
  }
};

void carryAsKeys(RewriterBase &rewriter, const CarriedExtremum &extremum,
                 bool magnitudes) {
  scf::ForOp loop = extremum.loop;
  Location loc = extremum.op->getLoc();
  rewriter.setInsertionPoint(loop);
  Keys keys(rewriter, loc,
            cast<VectorType>(extremum.op->getResult(0).getType()),
            isa<arith::MaximumFOp>(extremum.op), magnitudes);
  SmallVector<Value> inits =
      keys.carried(rewriter, loc, loop.getInitArgs()[extremum.index]);
  FailureOr<LoopLikeOpInterface> grown =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(
              rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &b, Location, ArrayRef<BlockArgument> carried) {
                return keys.extreme(b, loc, ValueRange(carried),
                                    keys.carried(b, loc, extremum.incoming));
              });
  if (failed(grown))
    return;
  auto grownLoop = cast<scf::ForOp>(grown->getOperation());
  // The float iter_arg is yielded unchanged (LLVM drops it); its result
  // is the keys' floats.
  rewriter.replaceOp(extremum.op,
                     grownLoop.getRegionIterArgs()[extremum.index]);
  rewriter.setInsertionPointAfter(grownLoop);
  Value result = keys.floatsOf(rewriter, loc,
                               grownLoop.getResults().take_back(inits.size()));
  rewriter.replaceAllUsesWith(grownLoop.getResult(extremum.index), result);
}

struct KilnCarryExtremaAsKeysPass
    : kiln::impl::KilnCarryExtremaAsKeysBase<KilnCarryExtremaAsKeysPass> {
  using KilnCarryExtremaAsKeysBase::KilnCarryExtremaAsKeysBase;
  void runOnOperation() override {
    if (vectorBytes <= 0 || vectorRegisters <= 0) {
      getOperation()->emitError("kiln-carry-extrema-as-keys: vector-bytes "
                                "and vector-registers must be positive");
      return signalPassFailure();
    }
    // Inner loops first: an outer loop's rewrite moves the inner ones.
    SmallVector<Operation *> extrema;
    getOperation()->walk([&](Operation *op) {
      if (carriedExtremum(op))
        extrema.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : extrema)
      if (std::optional<CarriedExtremum> extremum = carriedExtremum(op)) {
        auto type = cast<VectorType>(op->getResult(0).getType());
        carryAsKeys(rewriter, *extremum,
                    carriesMagnitudes(*kiln::staticBytes(type), vectorBytes,
                                      vectorRegisters));
      }
  }
};
} // namespace
