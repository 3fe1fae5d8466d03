//===- KilnLowerAmxTiles.cpp - the kiln-lower-amx-tiles pass --------------===//
//
// A register tile of a bf16 product packed in pairs, marked by
// kiln-tile-and-vectorize, computed on AMX tiles: C's 16 x 16 f32 tiles
// stay in tile registers while a loop over k multiplies A's 16 x 32 bf16
// tiles (16 rows of 16 pairs) by the panel's (16 pairs of 16 columns, each
// column's pair adjacent: the layout tdpbf16ps reads).
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNLOWERAMXTILES
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {

/// Rows of A's and C's tiles, k pairs of A's and B's (kiln::kAmxTileRows,
/// kiln::kAmxTilePairs), columns of B's and C's.
constexpr int64_t kRows = kiln::kAmxTileRows, kPairs = kiln::kAmxTilePairs,
                  kColumns = 16;

/// Columns of a panel: two tiles of B and of C.
constexpr int64_t kPanelColumns = 2 * kColumns;

/// A statically laid out memref operand: its shape and strides.
struct Layout {
  ArrayRef<int64_t> shape;
  SmallVector<int64_t> strides;
};

/// `value`'s layout, if it is a memref of `element` with static sizes and
/// strides.
std::optional<Layout> layoutOf(Value value, Type element) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || type.getElementType() != element || !type.hasStaticShape())
    return std::nullopt;
  Layout layout{type.getShape(), {}};
  int64_t offset;
  if (failed(type.getStridesAndOffset(layout.strides, offset)) ||
      llvm::any_of(layout.strides, ShapedType::isDynamic))
    return std::nullopt;
  return layout;
}

/// Whether the trailing sizes of `layout` are `sizes` (negative: any
/// positive multiple of its magnitude), its trailing strides `strides` (0:
/// any), and its leading sizes 1 (batch loops and the panel's).
bool hasTrailing(const Layout &layout, ArrayRef<int64_t> sizes,
                 ArrayRef<int64_t> strides) {
  size_t lead = layout.shape.size() - sizes.size();
  if (layout.shape.size() < sizes.size() ||
      llvm::any_of(layout.shape.take_front(lead),
                   [](int64_t size) { return size != 1; }))
    return false;
  for (auto [size, want, stride, wantStride] :
       llvm::zip_equal(layout.shape.drop_front(lead), sizes,
                       ArrayRef(layout.strides).drop_front(lead), strides))
    if ((want > 0 ? size != want : size % -want != 0) ||
        (wantStride != 0 && stride != wantStride))
      return false;
  return true;
}

/// A marked register tile's operands, if they are laid out as AMX tiles
/// read them: A [..., R, Q, 2] with pairs contiguous, the panel [..., 1,
/// Q, 32, 2] contiguous, C [..., R, 1, 32] with columns contiguous, R and
/// Q multiples of 16.
struct AmxOperands {
  Layout a, panel, c;
};
std::optional<AmxOperands> amxOperands(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  Builder b(op.getContext());
  std::optional<Layout> a = layoutOf(op->getOperand(0), b.getBF16Type());
  std::optional<Layout> panel = layoutOf(op->getOperand(1), b.getBF16Type());
  std::optional<Layout> c = layoutOf(op->getOperand(2), b.getF32Type());
  if (!a || !panel || !c || a->shape.size() < 3 ||
      !hasTrailing(*a, {-kRows, -kPairs, 2}, {0, 2, 1}) ||
      !hasTrailing(*panel, {-kPairs, kPanelColumns, 2},
                   {2 * kPanelColumns, 2, 1}) ||
      !hasTrailing(*c, {a->shape.end()[-3], 1, kPanelColumns}, {0, 0, 1}) ||
      panel->shape.end()[-3] != a->shape.end()[-2])
    return std::nullopt;
  return AmxOperands{*a, *panel, *c};
}

/// Indices into a memref of rank `rank`: `zero`s, then `trailing`.
SmallVector<Value> indices(unsigned rank, Value zero,
                           ArrayRef<Value> trailing) {
  SmallVector<Value> all(rank - trailing.size(), zero);
  llvm::append_range(all, trailing);
  return all;
}

/// The write of zeros to all of `c` right before `op`, if any: where a
/// register tile's start moved into it (kiln-tile-and-vectorize's
/// fuseStart), C's tiles start as tile_zero instead of being stored and
/// loaded back.
vector::TransferWriteOp zerosBefore(Operation *op, Value c) {
  auto write = dyn_cast_or_null<vector::TransferWriteOp>(op->getPrevNode());
  DenseFPElementsAttr zeros;
  if (!write || write.getBase() != c || write.getMask() ||
      write.getVectorType().getShape() !=
          cast<MemRefType>(c.getType()).getShape() ||
      !llvm::all_of(write.getIndices(), isZeroInteger) ||
      !matchPattern(write.getVector(), m_Constant(&zeros)) ||
      !zeros.isSplat() || !zeros.getSplatValue<APFloat>().isPosZero())
    return {};
  return write;
}

/// Replaces `op` (amxOperands `operands`) by its AMX code.
void lowerToAmx(RewriterBase &rewriter, linalg::GenericOp op,
                const AmxOperands &operands) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value a = op->getOperand(0), panel = op->getOperand(1), c = op->getOperand(2);
  vector::TransferWriteOp zeros = zerosBefore(op, c);
  // Index constants, made once before `op`.
  DenseMap<int64_t, Value> constants;
  auto index = [&](int64_t value) {
    Value &constant = constants[value];
    if (!constant)
      constant = arith::ConstantIndexOp::create(rewriter, loc, value);
    return constant;
  };
  unsigned aRank = operands.a.shape.size();
  unsigned panelRank = operands.panel.shape.size();
  unsigned cRank = operands.c.shape.size();
  int64_t rowTiles = operands.a.shape[aRank - 3] / kRows;
  int64_t pairs = operands.a.shape[aRank - 2];
  // Strides between a tile's rows, in elements.
  Value aRowStride = index(operands.a.strides[aRank - 3]);
  Value panelRowStride = index(operands.panel.strides[panelRank - 3]);
  Value cRowStride = index(operands.c.strides[cRank - 3]);
  auto bf16Tile =
      amx::TileType::get({kRows, 2 * kPairs}, rewriter.getBF16Type());
  auto f32Tile = amx::TileType::get({kRows, kColumns}, rewriter.getF32Type());
  // C's tiles, row tile by column tile, at their rows and columns.
  SmallVector<std::pair<Value, Value>> cAt;
  for (int64_t row = 0; row < rowTiles; ++row)
    for (int64_t column = 0; column < 2; ++column)
      cAt.emplace_back(index(row * kRows), index(column * kColumns));
  Value zero = index(0);
  auto cIndices = [&](const std::pair<Value, Value> &at) {
    return indices(cRank, zero, {at.first, zero, at.second});
  };
  SmallVector<Value> sums;
  for (const auto &at : cAt)
    sums.push_back(
        zeros ? amx::TileZeroOp::create(rewriter, loc, f32Tile).getResult()
              : amx::TileLoadOp::create(rewriter, loc, f32Tile, c, cIndices(at),
                                        cRowStride)
                    .getResult());
  if (zeros)
    rewriter.eraseOp(zeros);
  auto loop = scf::ForOp::create(
      rewriter, loc, zero, index(pairs), index(kPairs), sums,
      [&](OpBuilder &b, Location loc, Value pair, ValueRange acc) {
        SmallVector<Value> aTiles, bTiles;
        for (int64_t row = 0; row < rowTiles; ++row)
          aTiles.push_back(amx::TileLoadOp::create(
              b, loc, bf16Tile, a,
              indices(aRank, zero, {index(row * kRows), pair, zero}),
              aRowStride));
        for (int64_t column = 0; column < 2; ++column)
          bTiles.push_back(amx::TileLoadOp::create(
              b, loc, bf16Tile, panel,
              indices(panelRank, zero, {pair, index(column * kColumns), zero}),
              panelRowStride));
        SmallVector<Value> next;
        for (auto [i, sum] : llvm::enumerate(acc))
          next.push_back(amx::TileMulFOp::create(b, loc, f32Tile, aTiles[i / 2],
                                                 bTiles[i % 2], sum));
        scf::YieldOp::create(b, loc, next);
      });
  for (auto [at, sum] : llvm::zip_equal(cAt, loop.getResults()))
    amx::TileStoreOp::create(rewriter, loc, c, cIndices(at), sum, cRowStride);
  rewriter.eraseOp(op);
}

struct KilnLowerAmxTilesPass
    : kiln::impl::KilnLowerAmxTilesBase<KilnLowerAmxTilesPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> marked;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op->hasAttr(kiln::kAmxTileAttr))
        marked.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : marked) {
      op->removeAttr(kiln::kAmxTileAttr);
      if (std::optional<AmxOperands> operands = amxOperands(op))
        lowerToAmx(rewriter, op, *operands);
    }
  }
};
} // namespace
