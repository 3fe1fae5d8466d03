//===- KilnGpuTileMatmuls.cpp - kiln-gpu-tile-matmuls ---------------------===//
//
// A thread per output of a matmul reads its A row and B column from global
// memory: 1.6 TFLOP/s at 1024^3 on an H100. Tiles staged in workgroup
// memory are read by 16 (A) and 16 (B) threads each, and a thread's outputs
// in registers reuse every value it reads several times.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

using namespace mlir;
using kiln::index;
using kiln::indicesAt;

namespace kiln {
#define GEN_PASS_DEF_KILNGPUTILEMATMULS
#include "lowering/gpu/Passes.h.inc"
} // namespace kiln

namespace {
/// Threads of a block, as a square; the k step of a tile.
constexpr int64_t kSide = 16, kThreads = kSide * kSide, kTileK = 16;
/// Tensor-core kernels: eight warps as 2x4 over a 128x128 tile, each warp
/// 64x32 outputs as 4x4 tiles of mma.sync m16n8k16; k steps of 32.
constexpr int64_t kWarpSize = 32, kMmaWarpsM = 2, kMmaWarpsN = 4,
                  kMmaTilesM = 4, kMmaTilesN = 4, kMmaK = 64;
constexpr int64_t kMmaWarpRows = 16 * kMmaTilesM,
                  kMmaWarpColumns = 8 * kMmaTilesN,
                  kMmaTileRows = kMmaWarpsM * kMmaWarpRows,
                  kMmaTileColumns = kMmaWarpsN * kMmaWarpColumns;

/// Whether `op`'s payload is acc + extf(a) * extf(b) with a and b bf16 and
/// acc f32: what mma.sync computes (products exact, sums in f32).
bool isBf16Product(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  auto add = dyn_cast_or_null<arith::AddFOp>(
      body->getTerminator()->getOperand(0).getDefiningOp());
  if (!add || !add.getType().isF32() || body->getOperations().size() != 5)
    return false;
  Value accumulator = op.getRegionOutputArgs()[0];
  Value product = add.getLhs() == accumulator ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul || (add.getLhs() != accumulator && add.getRhs() != accumulator))
    return false;
  auto widened = [&](Value value, unsigned input) {
    auto ext = value.getDefiningOp<arith::ExtFOp>();
    return ext && ext.getIn() == op.getRegionInputArgs()[input] &&
           ext.getIn().getType().isBF16();
  };
  return (widened(mul.getLhs(), 0) && widened(mul.getRhs(), 1)) ||
         (widened(mul.getLhs(), 1) && widened(mul.getRhs(), 0));
}

/// A contraction with one m, n and k loop and at most one batch loop.
struct Contraction {
  mutable linalg::LinalgOp op;
  unsigned m, n, k;
  std::optional<unsigned> batch;

  static std::optional<Contraction> match(linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1 || op.hasIndexSemantics() ||
        !linalg::isaContractionOpInterface(op) ||
        ShapedType::isDynamicShape(op.getStaticLoopRanges()))
      return std::nullopt;
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
        dims->k.size() != 1 || dims->batch.size() > 1)
      return std::nullopt;
    std::optional<unsigned> batch;
    if (!dims->batch.empty())
      batch = dims->batch[0];
    Contraction found{op, dims->m[0], dims->n[0], dims->k[0], batch};
    // No outputs: kiln-gpu-map-reductions drops the op.
    if (found.size(found.m) == 0 || found.size(found.n) == 0 ||
        (batch && found.size(*batch) == 0))
      return std::nullopt;
    return found;
  }

  int64_t size(unsigned loop) const { return op.getStaticLoopRanges()[loop]; }

  /// A kernel of one block of `threads` per `tileRows` x `tileColumns`
  /// outputs (block z: the batch) with workgroup tiles of the two operands,
  /// and where a block's outputs start; `b` is left in its body.
  struct TiledLaunch {
    gpu::LaunchOp launch;
    Value lhsTile, rhsTile, thread, batch, rowBase, columnBase;
  };
  TiledLaunch launchTiles(ImplicitLocOpBuilder &b, int64_t tileRows,
                          int64_t tileColumns, int64_t threads,
                          MemRefType lhsTile, MemRefType rhsTile) const {
    gpu::LaunchOp launch = kiln::launchKernel(
        b,
        {int64_t(llvm::divideCeil(size(n), tileColumns)),
         int64_t(llvm::divideCeil(size(m), tileRows)),
         batch ? size(*batch) : 1},
        threads, TypeRange{lhsTile, rhsTile});
    auto ids = launch.getBlockIds();
    return {launch,
            launch.getWorkgroupAttributions()[0],
            launch.getWorkgroupAttributions()[1],
            launch.getThreadIds().x,
            ids.z,
            arith::MulIOp::create(b, ids.y, index(b, tileRows)),
            arith::MulIOp::create(b, ids.x, index(b, tileColumns))};
  }

  /// The element of input `operand` (0: lhs, 1: rhs) at `row` or `column`
  /// and `depth`, or zero outside the operand, so that it adds nothing.
  Value operandElement(ImplicitLocOpBuilder &b, unsigned operand,
                       Value batchIndex, Value row, Value column,
                       Value depth) const;

  /// Loop coordinates with the given m, n, k and batch (unused loops 0).
  SmallVector<Value> at(ImplicitLocOpBuilder &b, Value batchIndex, Value row,
                        Value column, Value depth) const {
    SmallVector<Value> ivs(op.getNumLoops(), index(b, 0));
    for (auto [loop, value] : {std::pair{m, row}, {n, column}, {k, depth}})
      if (value)
        ivs[loop] = value;
    if (batch)
      ivs[*batch] = batchIndex;
    return ivs;
  }
};

/// `then` guarded by `condition`, else `otherwise`.
Value guarded(ImplicitLocOpBuilder &b, Value condition, Type type,
              function_ref<Value()> then, Value otherwise) {
  auto choice = scf::IfOp::create(b, type, condition, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(choice.thenBlock());
  scf::YieldOp::create(b, then());
  b.setInsertionPointToStart(choice.elseBlock());
  scf::YieldOp::create(b, otherwise);
  return choice.getResult(0);
}

Value below(ImplicitLocOpBuilder &b, Value value, int64_t bound) {
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, value,
                               index(b, bound));
}

Value Contraction::operandElement(ImplicitLocOpBuilder &b, unsigned operand,
                                  Value batchIndex, Value row, Value column,
                                  Value depth) const {
  OpOperand *input = op.getDpsInputOperand(operand);
  Type type = getElementTypeOrSelf(input->get().getType());
  unsigned free = operand == 0 ? m : n;
  Value position = operand == 0 ? row : column;
  Value valid = arith::AndIOp::create(b, below(b, depth, size(k)),
                                      below(b, position, size(free)));
  // The load reads a clamped element and the select drops it: no branch,
  // so a thread's loads of a tile issue together.
  auto clamp = [&](Value value, unsigned loop) -> Value {
    return arith::MinUIOp::create(b, value, index(b, size(loop) - 1));
  };
  Value clampedPosition = clamp(position, free);
  Value loaded = memref::LoadOp::create(
      b, input->get(),
      indicesAt(b, op.getMatchingIndexingMap(input),
                at(b, batchIndex, operand == 0 ? clampedPosition : Value(),
                   operand == 0 ? Value() : clampedPosition,
                   clamp(depth, k))));
  return arith::SelectOp::create(
      b, valid, loaded, arith::ConstantOp::create(b, b.getZeroAttr(type)));
}

struct KilnGpuTileMatmulsPass
    : kiln::impl::KilnGpuTileMatmulsBase<KilnGpuTileMatmulsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Contraction> contractions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<Contraction> found = Contraction::match(op))
        contractions.push_back(*found);
    });
    for (Contraction &contraction : contractions) {
      ImplicitLocOpBuilder b(contraction.op.getLoc(), contraction.op);
      if (tensorCores && isBf16Product(contraction.op))
        emitTensorCoreKernel(b, contraction);
      else
        emitKernel(b, contraction);
      contraction.op->erase();
    }
  }

  /// One block per tile of (kSide * threadRows) x (kSide * threadColumns)
  /// outputs; thread (tx, ty) computes outputs (ty + kSide i, tx + kSide j)
  /// in registers, so that a warp's reads of the B tile fall in distinct
  /// banks and its stores are contiguous runs.
  void emitKernel(ImplicitLocOpBuilder &b, const Contraction &c) {
    linalg::LinalgOp op = c.op;
    int64_t rows = c.size(c.m), columns = c.size(c.n), depth = c.size(c.k);
    int64_t tileRows = kSide * threadRows, tileColumns = kSide * threadColumns;
    OpOperand *lhs = op.getDpsInputOperand(0), *rhs = op.getDpsInputOperand(1);
    OpOperand *out = op.getDpsInitOperand(0);
    Type lhsType = getElementTypeOrSelf(lhs->get().getType());
    Type rhsType = getElementTypeOrSelf(rhs->get().getType());
    Type outType = getElementTypeOrSelf(out->get().getType());
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto lhsTileType =
        MemRefType::get({tileRows, kTileK}, lhsType, AffineMap(), workgroup);
    auto rhsTileType =
        MemRefType::get({kTileK, tileColumns}, rhsType, AffineMap(), workgroup);
    OpBuilder::InsertionGuard guard(b);
    Contraction::TiledLaunch kernel = c.launchTiles(
        b, tileRows, tileColumns, kThreads, lhsTileType, rhsTileType);
    Value lhsTile = kernel.lhsTile, rhsTile = kernel.rhsTile;
    Value thread = kernel.thread, batch = kernel.batch;
    Value rowBase = kernel.rowBase, columnBase = kernel.columnBase;
    Value tx = arith::RemUIOp::create(b, thread, index(b, kSide));
    Value ty = arith::DivUIOp::create(b, thread, index(b, kSide));
    auto offset = [&](Value base, Value start, int64_t step) {
      return arith::AddIOp::create(
          b, base, arith::AddIOp::create(b, start, index(b, step)));
    };
    // The thread's outputs: their coordinates, whether they exist, and
    // their initial values.
    SmallVector<Value> outRows, outColumns, accumulators;
    for (int64_t i = 0; i < threadRows; ++i)
      outRows.push_back(offset(rowBase, ty, kSide * i));
    for (int64_t j = 0; j < threadColumns; ++j)
      outColumns.push_back(offset(columnBase, tx, kSide * j));
    Value zeroOut = arith::ConstantOp::create(b, b.getZeroAttr(outType));
    auto outIndices = [&](int64_t i, int64_t j) {
      return indicesAt(b, op.getMatchingIndexingMap(out),
                       c.at(b, batch, outRows[i], outColumns[j], Value()));
    };
    auto inside = [&](int64_t i, int64_t j) {
      return arith::AndIOp::create(b, below(b, outRows[i], rows),
                                   below(b, outColumns[j], columns));
    };
    for (int64_t i = 0; i < threadRows; ++i)
      for (int64_t j = 0; j < threadColumns; ++j)
        accumulators.push_back(guarded(
            b, inside(i, j), outType,
            [&] {
              return memref::LoadOp::create(b, out->get(), outIndices(i, j));
            },
            zeroOut));

    auto steps = scf::ForOp::create(b, index(b, 0), index(b, depth),
                                    index(b, kTileK), accumulators);
    {
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(steps.getBody());
      Value k0 = steps.getInductionVar();
      // Stage the tiles: element e = thread + kThreads * r of each, zero
      // outside the operands so that it adds nothing.
      auto stage = [&](Value tile, int64_t tileWidth, bool isLhs) {
        for (int64_t r = 0; r < kTileK * (isLhs ? tileRows : tileColumns) /
                                    kThreads;
             ++r) {
          Value element = arith::AddIOp::create(b, thread,
                                                index(b, kThreads * r));
          Value first = arith::DivUIOp::create(b, element, index(b, tileWidth));
          Value second =
              arith::RemUIOp::create(b, element, index(b, tileWidth));
          // lhs tiles are [row][k], rhs tiles [k][column].
          Value row = isLhs ? arith::AddIOp::create(b, rowBase, first) : Value();
          Value column =
              isLhs ? Value() : arith::AddIOp::create(b, columnBase, second);
          Value kIndex = arith::AddIOp::create(b, k0, isLhs ? second : first);
          Value value =
              c.operandElement(b, isLhs ? 0 : 1, batch, row, column, kIndex);
          memref::StoreOp::create(b, value, tile, ValueRange{first, second});
        }
      };
      stage(lhsTile, kTileK, /*isLhs=*/true);
      stage(rhsTile, tileColumns, /*isLhs=*/false);
      gpu::BarrierOp::create(b);
      SmallVector<Value> sums(steps.getRegionIterArgs());
      for (int64_t kk = 0; kk < kTileK; ++kk) {
        Value at = index(b, kk);
        SmallVector<Value> a, bValues;
        for (int64_t i = 0; i < threadRows; ++i)
          a.push_back(memref::LoadOp::create(
              b, lhsTile,
              ValueRange{arith::AddIOp::create(b, ty, index(b, kSide * i)),
                         at}));
        for (int64_t j = 0; j < threadColumns; ++j)
          bValues.push_back(memref::LoadOp::create(
              b, rhsTile,
              ValueRange{at,
                         arith::AddIOp::create(b, tx, index(b, kSide * j))}));
        for (int64_t i = 0; i < threadRows; ++i)
          for (int64_t j = 0; j < threadColumns; ++j) {
            Value &sum = sums[i * threadColumns + j];
            sum = kiln::clonePayload(b, op, ValueRange(),
                                     ValueRange{a[i], bValues[j]}, sum)[0];
          }
      }
      gpu::BarrierOp::create(b);
      scf::YieldOp::create(b, sums);
    }
    for (int64_t i = 0; i < threadRows; ++i)
      for (int64_t j = 0; j < threadColumns; ++j) {
        auto store = scf::IfOp::create(b, inside(i, j), /*withElse=*/false);
        OpBuilder::InsertionGuard inIf(b);
        b.setInsertionPointToStart(store.thenBlock());
        memref::StoreOp::create(b, steps.getResult(i * threadColumns + j),
                                out->get(), outIndices(i, j));
      }
  }
  /// Two bf16 values as the i32 mma.sync takes: `low` in the low half.
  static Value pack(ImplicitLocOpBuilder &b, Value low, Value high) {
    Type i16 = b.getI16Type(), i32 = b.getI32Type();
    auto bits = [&](Value value) {
      return arith::ExtUIOp::create(b, i32,
                                    arith::BitcastOp::create(b, i16, value));
    };
    return arith::OrIOp::create(
        b, bits(low),
        arith::ShLIOp::create(b, bits(high),
                              arith::ConstantIntOp::create(b, i32, 16)));
  }

  /// bf16 contractions on tensor cores: a block of eight warps computes a
  /// 128x128 tile. Per k step of 32 the block stages A as [row][k/2] and B as
  /// [k/2][column] pairs of bf16 packed in i32 (zero outside the operands),
  /// rows padded so that a warp's fragment loads hit 32 distinct banks;
  /// each warp then runs 4 x 4 x 2 mma.sync m16n8k16 into f32 accumulators
  /// laid out as PTX defines (lane = 4 group + t: rows group and group + 8,
  /// columns 2t and 2t + 1).
  void emitTensorCoreKernel(ImplicitLocOpBuilder &b, const Contraction &c) {
    linalg::LinalgOp op = c.op;
    int64_t rows = c.size(c.m), columns = c.size(c.n), depth = c.size(c.k);
    OpOperand *out = op.getDpsInitOperand(0);
    MLIRContext *context = b.getContext();
    Type i32 = b.getI32Type(), f32 = b.getF32Type();
    auto workgroup =
        gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
    constexpr int64_t kPairs = kMmaK / 2, kLhsStride = kPairs + 4,
                      kRhsStride = kMmaTileColumns + 8;
    auto lhsTileType = MemRefType::get({kMmaTileRows, kLhsStride}, i32,
                                       AffineMap(), workgroup);
    auto rhsTileType =
        MemRefType::get({kPairs, kRhsStride}, i32, AffineMap(), workgroup);
    int64_t threads = kMmaWarpsM * kMmaWarpsN * kWarpSize;
    OpBuilder::InsertionGuard guard(b);
    Contraction::TiledLaunch kernel = c.launchTiles(
        b, kMmaTileRows, kMmaTileColumns, threads, lhsTileType, rhsTileType);
    Value lhsTile = kernel.lhsTile, rhsTile = kernel.rhsTile;
    Value thread = kernel.thread, batch = kernel.batch;
    Value rowBase = kernel.rowBase, columnBase = kernel.columnBase;
    Value warp = arith::DivUIOp::create(b, thread, index(b, kWarpSize));
    Value lane = arith::RemUIOp::create(b, thread, index(b, kWarpSize));
    Value group = arith::DivUIOp::create(b, lane, index(b, 4));
    Value twoT = arith::MulIOp::create(
        b, arith::RemUIOp::create(b, lane, index(b, 4)), index(b, 2));
    // The warp's outputs within the block's tile.
    Value warpRow = arith::MulIOp::create(
        b, arith::DivUIOp::create(b, warp, index(b, kMmaWarpsN)),
        index(b, kMmaWarpRows));
    Value warpColumn = arith::MulIOp::create(
        b, arith::RemUIOp::create(b, warp, index(b, kMmaWarpsN)),
        index(b, kMmaWarpColumns));
    auto plus = [&](Value value, int64_t offset) -> Value {
      return offset ? arith::AddIOp::create(b, value, index(b, offset)) : value;
    };
    // Accumulator v of tile (i, j): row group + 8 (v / 2), column 2t + v % 2.
    auto tileRow = [&](int64_t i, int64_t v) {
      return arith::AddIOp::create(b, plus(rowBase, 16 * i + 8 * (v / 2)),
                                   arith::AddIOp::create(b, warpRow, group));
    };
    auto tileColumn = [&](int64_t j, int64_t v) {
      return arith::AddIOp::create(
          b, plus(columnBase, 8 * j + v % 2),
          arith::AddIOp::create(b, warpColumn, twoT));
    };
    auto outIndices = [&](Value row, Value column) {
      return indicesAt(b, op.getMatchingIndexingMap(out),
                       c.at(b, batch, row, column, Value()));
    };
    auto inside = [&](Value row, Value column) {
      return arith::AndIOp::create(b, below(b, row, rows),
                                   below(b, column, columns));
    };
    Value zero = arith::ConstantOp::create(b, b.getZeroAttr(f32));
    SmallVector<Value> accumulators;
    SmallVector<std::pair<Value, Value>> coordinates;
    for (int64_t i = 0; i < kMmaTilesM; ++i)
      for (int64_t j = 0; j < kMmaTilesN; ++j)
        for (int64_t v = 0; v < 4; ++v) {
          Value row = tileRow(i, v), column = tileColumn(j, v);
          coordinates.push_back({row, column});
          accumulators.push_back(guarded(
              b, inside(row, column), f32,
              [&] {
                return memref::LoadOp::create(b, out->get(),
                                              outIndices(row, column));
              },
              zero));
        }

    // The pairs this thread stages: where each goes in its tile and which
    // operand element (row or column, k offset) it packs.
    struct Staged {
      Value tile, first, second, position;
      Value kOffset;
      unsigned operand;
    };
    SmallVector<Staged> staged;
    for (int64_t r = 0; r < kMmaTileRows * kPairs / threads; ++r) {
      Value pair = plus(thread, threads * r);
      Value row = arith::DivUIOp::create(b, pair, index(b, kPairs));
      Value kPair = arith::RemUIOp::create(b, pair, index(b, kPairs));
      staged.push_back({lhsTile, row, kPair,
                        arith::AddIOp::create(b, rowBase, row),
                        arith::MulIOp::create(b, kPair, index(b, 2)), 0});
    }
    for (int64_t r = 0; r < kPairs * kMmaTileColumns / threads; ++r) {
      Value pair = plus(thread, threads * r);
      Value kPair = arith::DivUIOp::create(b, pair, index(b, kMmaTileColumns));
      Value column =
          arith::RemUIOp::create(b, pair, index(b, kMmaTileColumns));
      staged.push_back({rhsTile, kPair, column,
                        arith::AddIOp::create(b, columnBase, column),
                        arith::MulIOp::create(b, kPair, index(b, 2)), 1});
    }
    // The packed pairs of the k step at `k0`, loaded from global memory.
    auto fetch = [&](Value k0) {
      SmallVector<Value> values;
      for (const Staged &pair : staged) {
        Value k = arith::AddIOp::create(b, k0, pair.kOffset);
        auto element = [&](Value depth) {
          return pair.operand == 0
                     ? c.operandElement(b, 0, batch, pair.position, Value(),
                                        depth)
                     : c.operandElement(b, 1, batch, Value(), pair.position,
                                        depth);
        };
        values.push_back(pack(b, element(k), element(plus(k, 1))));
      }
      return values;
    };
    // Software pipelining: the loop carries the next step's pairs in
    // registers, loaded while the tensor cores work on the staged step.
    int64_t accumulatorCount = accumulators.size();
    SmallVector<Value> carried(accumulators);
    llvm::append_range(carried, fetch(index(b, 0)));
    auto steps = scf::ForOp::create(b, index(b, 0), index(b, depth),
                                    index(b, kMmaK), carried);
    {
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(steps.getBody());
      Value k0 = steps.getInductionVar();
      for (auto [pair, value] : llvm::zip(
               staged, steps.getRegionIterArgs().drop_front(accumulatorCount)))
        memref::StoreOp::create(b, value, pair.tile,
                                ValueRange{pair.first, pair.second});
      gpu::BarrierOp::create(b);
      SmallVector<Value> next = fetch(plus(k0, kMmaK));
      SmallVector<Value> sums(
          steps.getRegionIterArgs().take_front(accumulatorCount));
      Value t = arith::DivUIOp::create(b, twoT, index(b, 2));
      auto resultType = LLVM::LLVMStructType::getLiteral(context,
                                                         {f32, f32, f32, f32});
      for (int64_t ks = 0; ks < kMmaK; ks += 16) {
        // A: rows group, group + 8; k pairs t, t + 4 (k 2t, 2t + 8).
        SmallVector<SmallVector<Value>> a(kMmaTilesM), bFrags(kMmaTilesN);
        for (int64_t i = 0; i < kMmaTilesM; ++i)
          for (auto [dr, dk] : {std::pair<int64_t, int64_t>{0, 0},
                                {8, 0}, {0, 4}, {8, 4}})
            a[i].push_back(memref::LoadOp::create(
                b, lhsTile,
                ValueRange{plus(arith::AddIOp::create(b, warpRow, group),
                                16 * i + dr),
                           plus(t, ks / 2 + dk)}));
        for (int64_t j = 0; j < kMmaTilesN; ++j)
          for (int64_t dk : {0, 4})
            bFrags[j].push_back(memref::LoadOp::create(
                b, rhsTile,
                ValueRange{plus(t, ks / 2 + dk),
                           plus(arith::AddIOp::create(b, warpColumn, group),
                                8 * j)}));
        for (int64_t i = 0; i < kMmaTilesM; ++i)
          for (int64_t j = 0; j < kMmaTilesN; ++j) {
            MutableArrayRef<Value> accumulator(&sums[(i * kMmaTilesN + j) * 4], 4);
            Value result = NVVM::MmaOp::create(
                b, resultType, a[i], bFrags[j], accumulator, {16, 8, 16},
                std::nullopt, std::nullopt,
                std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                              NVVM::MMATypes::bf16},
                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                               NVVM::MMALayout::col});
            for (int64_t v = 0; v < 4; ++v)
              accumulator[v] = LLVM::ExtractValueOp::create(b, result, v);
          }
      }
      gpu::BarrierOp::create(b);
      llvm::append_range(sums, next);
      scf::YieldOp::create(b, sums);
    }
    for (auto [value, at] : llvm::zip(
             steps.getResults().take_front(accumulatorCount), coordinates)) {
      auto store = scf::IfOp::create(b, inside(at.first, at.second),
                                     /*withElse=*/false);
      OpBuilder::InsertionGuard inIf(b);
      b.setInsertionPointToStart(store.thenBlock());
      memref::StoreOp::create(b, value, out->get(),
                              outIndices(at.first, at.second));
    }
  }
};
} // namespace
