//===- KilnGpuMapReductions.cpp - kiln-gpu-map-reductions -----------------===//
//
// One thread per output accumulating in global memory ran row sums of
// 4096x4096 at 107 GB/s on an H100; a group of threads per row, reducing
// as a tree of shuffles, reads the row coalesced and keeps every lane busy.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using kiln::delinearize;
using kiln::emitPayload;
using kiln::index;
using kiln::indicesAt;

namespace kiln {
#define GEN_PASS_DEF_KILNGPUMAPREDUCTIONS
#include "lowering/gpu/Passes.h.inc"
} // namespace kiln

namespace {
constexpr int64_t kBlockThreads = 256, kWarp = 32;
/// Threads that keep a large GPU's memory busy: each has few loads in
/// flight, so an H100 (132 SMs of 2048 threads) wants about a million.
constexpr int64_t kFillingThreads = 1 << 20;
/// Elements a lane reduces before a group grows past a warp; elements a
/// thread reduces at least when an output's elements are split.
constexpr int64_t kLaneElements = 16, kSplitElements = 32;

/// How many parts to split each of `outputs` reductions of `length`
/// elements into, for `threads` threads per part to fill the GPU while
/// each thread still reduces kSplitElements or more.
int64_t splitsFor(int64_t outputs, int64_t length, int64_t threads) {
  int64_t wanted = llvm::divideCeil(kFillingThreads, outputs * threads);
  return std::clamp<int64_t>(
      std::min(wanted, length / (threads * kSplitElements)), 1, length);
}

/// The op that folds each element into a one-output reduction, with the
/// neutral value lanes start from.
struct Combiner {
  Operation *op;
  /// The operand of `op` that is the output's running value.
  BlockArgument accumulator;
  TypedAttr neutral;

  static std::optional<Combiner> match(linalg::LinalgOp reduction) {
    if (reduction.getNumDpsInits() != 1)
      return std::nullopt;
    BlockArgument accumulator = reduction.getRegionOutputArgs()[0];
    Operation *op =
        reduction.getBlock()->getTerminator()->getOperand(0).getDefiningOp();
    if (!op || op->getNumOperands() != 2 || op->getNumResults() != 1 ||
        !accumulator.hasOneUse() || *accumulator.getUsers().begin() != op)
      return std::nullopt;
    // Every op with a neutral element (add, mul, max, min, and, or, xor)
    // is associative and commutative, so any tree order is a valid order.
    std::optional<TypedAttr> neutral = arith::getNeutralElement(op);
    if (!neutral)
      return std::nullopt;
    return Combiner{op, accumulator, *neutral};
  }

  /// `op` applied to `a` and `b`.
  Value combine(ImplicitLocOpBuilder &builder, Value a, Value b) const {
    IRMapping mapping;
    Value element = op->getOperand(op->getOperand(0) == accumulator ? 1 : 0);
    mapping.map(accumulator, a);
    mapping.map(element, b);
    return builder.clone(*op, mapping)->getResult(0);
  }
};

/// `value` from the lane whose id differs from this one's in the bits of
/// `offset`. Shuffles move 32 bits: narrower values travel widened,
/// wider ones in 32-bit halves.
Value shuffleXor(ImplicitLocOpBuilder &b, Value value, int32_t offset) {
  Type type = value.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  auto shuffle32 = [&](Value bits) {
    return gpu::ShuffleOp::create(b, bits, offset, kWarp,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  if (type.isInteger(32) || type.isF32())
    return shuffle32(value);
  Type bitsType = b.getIntegerType(width);
  Value bits = isa<FloatType>(type) ? arith::BitcastOp::create(b, bitsType, value)
                                    : value;
  Type i32 = b.getI32Type();
  Value moved;
  if (width < 32) {
    moved = arith::TruncIOp::create(
        b, bitsType, shuffle32(arith::ExtUIOp::create(b, i32, bits)));
  } else {
    Value shift = arith::ConstantOp::create(b, b.getIntegerAttr(bitsType, 32));
    Value low = shuffle32(arith::TruncIOp::create(b, i32, bits));
    Value high = shuffle32(arith::TruncIOp::create(
        b, i32, arith::ShRUIOp::create(b, bits, shift)));
    moved = arith::OrIOp::create(
        b, arith::ExtUIOp::create(b, bitsType, low),
        arith::ShLIOp::create(b, arith::ExtUIOp::create(b, bitsType, high),
                              shift));
  }
  return isa<FloatType>(type) ? arith::BitcastOp::create(b, type, moved)
                              : moved;
}

/// A kernel in which each of `units` outputs is reduced by a group of
/// `groupThreads` threads (a power of two from 32 to 256): lane l folds
/// elements l, l + groupThreads, ... below `length(unit)` into the neutral
/// value with `step`, the lanes and warps combine as a tree, and the first
/// lane passes the result to `finish`.
struct GroupReduction {
  const Combiner &combiner;
  int64_t units, groupThreads;
  function_ref<Value(ImplicitLocOpBuilder &, Value unit)> length;
  function_ref<Value(ImplicitLocOpBuilder &, Value unit, Value element,
                     Value accumulator)>
      step;
  function_ref<void(ImplicitLocOpBuilder &, Value unit, Value result)> finish;

  void emit(ImplicitLocOpBuilder &b) const {
    int64_t perBlock = kBlockThreads / groupThreads;
    int64_t warps = groupThreads / kWarp;
    Type type = combiner.neutral.getType();
    SmallVector<Type> workgroup;
    if (warps > 1)
      workgroup.push_back(MemRefType::get(
          {kBlockThreads / kWarp}, type, AffineMap(),
          gpu::AddressSpaceAttr::get(b.getContext(),
                                     gpu::AddressSpace::Workgroup)));
    OpBuilder::InsertionGuard guard(b);
    gpu::LaunchOp launch = kiln::launchKernel(
        b, {int64_t(llvm::divideCeil(units, perBlock)), 1, 1}, kBlockThreads,
        workgroup);

    Value thread = launch.getThreadIds().x;
    Value group = arith::DivUIOp::create(b, thread, index(b, groupThreads));
    Value lane = arith::RemUIOp::create(b, thread, index(b, groupThreads));
    Value unit = arith::AddIOp::create(
        b, arith::MulIOp::create(b, launch.getBlockIds().x, index(b, perBlock)),
        group);
    // Groups past the last unit reduce nothing but still reach the barrier.
    Value active = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, unit,
                                         index(b, units));
    Value count = arith::SelectOp::create(b, active, length(b, unit),
                                          index(b, 0));
    Value neutral = arith::ConstantOp::create(b, combiner.neutral);
    auto lanes = scf::ForOp::create(b, lane, count, index(b, groupThreads),
                                    ValueRange{neutral});
    {
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(lanes.getBody());
      Value next = step(b, unit, lanes.getInductionVar(),
                        lanes.getRegionIterArg(0));
      scf::YieldOp::create(b, next);
    }
    Value value = lanes.getResult(0);
    for (int32_t offset = kWarp / 2; offset > 0; offset /= 2)
      value = combiner.combine(b, value, shuffleXor(b, value, offset));

    Value zero = index(b, 0);
    Value leader = arith::AndIOp::create(
        b, active,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, zero));
    if (warps > 1) {
      Value slots = launch.getWorkgroupAttributions()[0];
      Value warp = arith::DivUIOp::create(b, thread, index(b, kWarp));
      Value warpLane = arith::RemUIOp::create(b, thread, index(b, kWarp));
      auto first = scf::IfOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, warpLane, zero),
          /*withElseRegion=*/false);
      b.setInsertionPointToStart(first.thenBlock());
      memref::StoreOp::create(b, value, slots, warp);
      b.setInsertionPointAfter(first);
      gpu::BarrierOp::create(b);
      auto combineWarps = scf::IfOp::create(b, leader, false);
      b.setInsertionPointToStart(combineWarps.thenBlock());
      value = memref::LoadOp::create(b, slots, warp);
      for (int64_t w = 1; w < warps; ++w)
        value = combiner.combine(
            b, value,
            memref::LoadOp::create(
                b, slots, ValueRange{arith::AddIOp::create(b, warp,
                                                           index(b, w))}));
      finish(b, unit, value);
      return;
    }
    auto write = scf::IfOp::create(b, leader, false);
    b.setInsertionPointToStart(write.thenBlock());
    finish(b, unit, value);
  }
};

/// Threads per output for rows of `length` elements: enough lanes that
/// each folds about kLaneElements, in whole warps, at most a block.
int64_t groupThreadsFor(int64_t length) {
  int64_t threads = kWarp;
  while (threads < kBlockThreads && threads * kLaneElements < length)
    threads *= 2;
  return threads;
}

struct KilnGpuMapReductionsPass
    : kiln::impl::KilnGpuMapReductionsBase<KilnGpuMapReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> reductions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() > 0 && op.hasPureBufferSemantics() &&
          !ShapedType::isDynamicShape(op.getStaticLoopRanges()))
        reductions.push_back(op);
    });
    for (linalg::LinalgOp op : reductions) {
      ImplicitLocOpBuilder b(op.getLoc(), op);
      std::optional<Combiner> combiner = Combiner::match(op);
      bool innermostReduced =
          linalg::isReductionIterator(op.getIteratorTypesArray().back());
      bool contraction = linalg::isaContractionOpInterface(op);
      Ranges ranges(op);
      // No outputs, or nothing to fold into them: the op changes nothing
      // (and a kernel of no blocks could not launch).
      if (ranges.outputs == 0 || ranges.length == 0) {
        op->erase();
        continue;
      }
      int64_t splits = splitsFor(ranges.outputs, ranges.length, 1);
      if (combiner && innermostReduced && !contraction)
        reduceInGroups(b, op, ranges, *combiner);
      else if (combiner && !contraction && splits > 1)
        reduceSplitPerThread(b, op, ranges, *combiner, splits);
      else
        reducePerThread(b, op, ranges);
      op->erase();
    }
  }

  /// The loop ranges of `op`'s parallel and of its reduction loops.
  struct Ranges {
    SmallVector<int64_t> parallel, reduced;
    /// The number of outputs, and of elements reduced into each.
    int64_t outputs = 1, length = 1;

    explicit Ranges(linalg::LinalgOp op) {
      for (auto [size, iterator] :
           llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray())) {
        bool isReduced = linalg::isReductionIterator(iterator);
        (isReduced ? reduced : parallel).push_back(size);
        (isReduced ? length : outputs) *= size;
      }
    }
  };

  /// Loop coordinates from the parallel and the reduction coordinates.
  static SmallVector<Value> mergeCoordinates(linalg::LinalgOp op,
                                             ArrayRef<Value> parallel,
                                             ArrayRef<Value> reduced) {
    SmallVector<Value> ivs;
    size_t p = 0, r = 0;
    for (utils::IteratorType iterator : op.getIteratorTypesArray())
      ivs.push_back(linalg::isReductionIterator(iterator) ? reduced[r++]
                                                          : parallel[p++]);
    return ivs;
  }

  /// The output's element at parallel coordinates `parallel`.
  static SmallVector<Value> outputIndices(ImplicitLocOpBuilder &b,
                                          linalg::LinalgOp op, unsigned output,
                                          ArrayRef<Value> parallel) {
    SmallVector<Value> zeros(op.getNumReductionLoops(), index(b, 0));
    return indicesAt(b, op.getMatchingIndexingMap(op.getDpsInitOperand(output)),
                     mergeCoordinates(op, parallel, zeros));
  }

  void reduceInGroups(ImplicitLocOpBuilder &b, linalg::LinalgOp op,
                      const Ranges &ranges, const Combiner &combiner) {
    ArrayRef<int64_t> parallel = ranges.parallel, reduced = ranges.reduced;
    int64_t outputs = ranges.outputs, length = ranges.length;
    Value output = op.getDpsInitOperand(0)->get();
    int64_t threads = groupThreadsFor(length);
    // Few outputs with long rows: `splits` groups per output, each over a
    // chunk of the row, then a second kernel over the partial results.
    int64_t splits = splitsFor(outputs, length, threads);
    int64_t chunk = llvm::divideCeil(length, splits);

    auto elementAt = [&](ImplicitLocOpBuilder &b, Value out, Value element,
                         Value accumulator) {
      return emitPayload(b, op,
                         mergeCoordinates(op, delinearize(b, out, parallel),
                                          delinearize(b, element, reduced)),
                         accumulator)[0];
    };
    auto intoOutput = [&](ImplicitLocOpBuilder &b, Value out, Value result) {
      SmallVector<Value> at = outputIndices(b, op, 0, delinearize(b, out, parallel));
      Value old = memref::LoadOp::create(b, output, at);
      memref::StoreOp::create(b, combiner.combine(b, old, result), output, at);
    };
    if (splits == 1) {
      GroupReduction{combiner, outputs, threads,
                     [&](ImplicitLocOpBuilder &b, Value) {
                       return index(b, length);
                     },
                     elementAt, intoOutput}
          .emit(b);
      return;
    }
    auto partialType =
        MemRefType::get({outputs * splits}, combiner.neutral.getType());
    Value partials = memref::AllocOp::create(b, partialType);
    Value splitCount = index(b, splits), chunkSize = index(b, chunk);
    // Unit u reduces elements [s * chunk, min((s + 1) * chunk, length)) of
    // output u / splits, s = u % splits.
    GroupReduction{
        combiner, outputs * splits, threads,
        [&](ImplicitLocOpBuilder &b, Value unit) -> Value {
          Value begin = arith::MulIOp::create(
              b, arith::RemUIOp::create(b, unit, splitCount), chunkSize);
          Value left = arith::SubIOp::create(
              b, index(b, length),
              arith::MinUIOp::create(b, begin, index(b, length)));
          return arith::MinUIOp::create(b, left, chunkSize);
        },
        [&](ImplicitLocOpBuilder &b, Value unit, Value element,
            Value accumulator) {
          Value begin = arith::MulIOp::create(
              b, arith::RemUIOp::create(b, unit, splitCount), chunkSize);
          return elementAt(b, arith::DivUIOp::create(b, unit, splitCount),
                           arith::AddIOp::create(b, begin, element),
                           accumulator);
        },
        [&](ImplicitLocOpBuilder &b, Value unit, Value result) {
          memref::StoreOp::create(b, result, partials, unit);
        }}
        .emit(b);
    GroupReduction{
        combiner, outputs, groupThreadsFor(splits),
        [&](ImplicitLocOpBuilder &b, Value) { return splitCount; },
        [&](ImplicitLocOpBuilder &b, Value out, Value split,
            Value accumulator) {
          Value at = arith::AddIOp::create(
              b, arith::MulIOp::create(b, out, splitCount), split);
          return combiner.combine(b, accumulator,
                                  memref::LoadOp::create(b, partials, at));
        },
        intoOutput}
        .emit(b);
    memref::DeallocOp::create(b, partials);
  }

  /// Few outputs reduced over leading dimensions (column sums): each
  /// output's elements split in `splits` chunks, a thread per chunk and
  /// output folding a partial result (neighbouring threads take
  /// neighbouring outputs), then a thread per output combining them.
  void reduceSplitPerThread(ImplicitLocOpBuilder &b, linalg::LinalgOp op,
                            const Ranges &ranges, const Combiner &combiner,
                            int64_t splits) {
    ArrayRef<int64_t> parallel = ranges.parallel, reduced = ranges.reduced;
    int64_t outputs = ranges.outputs, length = ranges.length;
    int64_t chunk = llvm::divideCeil(length, splits);
    Value partials = memref::AllocOp::create(
        b, MemRefType::get({splits * outputs}, combiner.neutral.getType()));
    Value zero = index(b, 0), one = index(b, 1), outputCount = index(b, outputs);
    auto parts = scf::ParallelOp::create(
        b, ValueRange{zero, zero}, ValueRange{index(b, splits), outputCount},
        ValueRange{one, one});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(parts.getBody());
      Value split = parts.getInductionVars()[0];
      Value out = parts.getInductionVars()[1];
      Value begin = arith::MulIOp::create(b, split, index(b, chunk));
      Value end = arith::MinUIOp::create(
          b, arith::AddIOp::create(b, begin, index(b, chunk)),
          index(b, length));
      auto fold = scf::ForOp::create(
          b, begin, end, one,
          ValueRange{arith::ConstantOp::create(b, combiner.neutral)});
      {
        OpBuilder::InsertionGuard inLoop(b);
        b.setInsertionPointToStart(fold.getBody());
        SmallVector<Value> ivs = mergeCoordinates(
            op, delinearize(b, out, parallel),
            delinearize(b, fold.getInductionVar(), reduced));
        scf::YieldOp::create(
            b, emitPayload(b, op, ivs, fold.getRegionIterArgs())[0]);
      }
      memref::StoreOp::create(
          b, fold.getResult(0), partials,
          ValueRange{arith::AddIOp::create(
              b, arith::MulIOp::create(b, split, outputCount), out)});
    }
    auto combine = scf::ParallelOp::create(b, ValueRange{zero},
                                           ValueRange{outputCount},
                                           ValueRange{one});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(combine.getBody());
      Value out = combine.getInductionVars()[0];
      Value output = op.getDpsInitOperand(0)->get();
      SmallVector<Value> at =
          outputIndices(b, op, 0, delinearize(b, out, parallel));
      auto fold = scf::ForOp::create(
          b, zero, index(b, splits), one,
          ValueRange{memref::LoadOp::create(b, output, at)});
      {
        OpBuilder::InsertionGuard inLoop(b);
        b.setInsertionPointToStart(fold.getBody());
        Value part = memref::LoadOp::create(
            b, partials,
            ValueRange{arith::AddIOp::create(
                b, arith::MulIOp::create(b, fold.getInductionVar(), outputCount),
                out)});
        scf::YieldOp::create(
            b, combiner.combine(b, fold.getRegionIterArg(0), part));
      }
      memref::StoreOp::create(b, fold.getResult(0), output, at);
    }
    memref::DeallocOp::create(b, partials);
  }

  /// One thread per output: a parallel loop over the outputs whose body
  /// folds the reduced elements into accumulators held in registers.
  void reducePerThread(ImplicitLocOpBuilder &b, linalg::LinalgOp op,
                       const Ranges &ranges) {
    ArrayRef<int64_t> parallel = ranges.parallel, reduced = ranges.reduced;
    int64_t length = ranges.length;
    // A reduction to a single output still needs a loop to map.
    SmallVector<int64_t> bounds(parallel);
    if (bounds.empty())
      bounds.push_back(1);
    SmallVector<Value> lower, upper, steps;
    for (int64_t size : bounds) {
      lower.push_back(index(b, 0));
      upper.push_back(index(b, size));
      steps.push_back(index(b, 1));
    }
    auto loop = scf::ParallelOp::create(b, lower, upper, steps);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> coordinates(loop.getInductionVars());
    coordinates.resize(parallel.size());
    SmallVector<SmallVector<Value>> at;
    SmallVector<Value> initial;
    for (unsigned output = 0; output < op.getNumDpsInits(); ++output) {
      at.push_back(outputIndices(b, op, output, coordinates));
      initial.push_back(memref::LoadOp::create(
          b, op.getDpsInitOperand(output)->get(), at.back()));
    }
    auto fold = scf::ForOp::create(b, index(b, 0), index(b, length),
                                   index(b, 1), initial);
    {
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(fold.getBody());
      SmallVector<Value> ivs = mergeCoordinates(
          op, coordinates, delinearize(b, fold.getInductionVar(), reduced));
      scf::YieldOp::create(b, emitPayload(b, op, ivs, fold.getRegionIterArgs()));
    }
    for (unsigned output = 0; output < op.getNumDpsInits(); ++output)
      memref::StoreOp::create(b, fold.getResult(output),
                              op.getDpsInitOperand(output)->get(), at[output]);
  }
};
} // namespace
