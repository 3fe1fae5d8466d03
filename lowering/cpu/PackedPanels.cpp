//===- PackedPanels.cpp - matmuls on B packed into panels of columns ------===//
//
// A register tile walks B down K one row at a time. Where B's rows are a
// multiple of 2 KiB apart, every row of the walk falls in the same few sets
// of L1 and L2, so the part of B that should stay in cache does not (f32
// 1024^3 ran at 90% of oneDNN). Packing B once
// into panels of a register tile's columns, [N / w, K, w], makes each
// panel's walk contiguous. bf16 products on vdpbf16ps's k pairs pack pairs
// of rows interleaved, [N / w, K / 2, w, 2], as the instruction reads them,
// instead of interleaving B's rows in registers at every step; so do int16
// products on 16-bit pairs (vpmaddwd, vpdpwssd: int8 widened to int16).
// kiln-tile-and-vectorize packs such products before it schedules them and
// schedules the packed product like a batch matmul whose batch is the
// panel.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "lowering/linalg/LoweringUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;

namespace {

/// The distance between B's rows, in bytes, a multiple of which makes a
/// register tile's columns of them fall in a few cache sets (L1's 4 KiB
/// ways hold two such rows each): a panel's 256 k steps no longer stay in
/// L1 while row tiles pass it. Rows 2 KiB apart (256 x 784 x 512, a
/// layer's product) ran 1.50 -> 1.27 ms packed on an Intel Xeon.
constexpr int64_t kAliasingRowBytes = 2048;

/// The size of an f32 B past which it packs whatever its rows' distance
/// (half of L2 on this project's CPUs): a register tile then walks down K
/// through a panel's consecutive lines, not through rows that the hardware
/// prefetches a page at most of. On an Intel Xeon, 287 x 1280 x 768 (rows
/// 3 KiB apart) ran 4.47 -> 3.07 ms packed, 256 x 256 x 768 (768 KiB) 0.54
/// -> 0.48, 300 x 500 x 320 (640 KiB) the same on one thread and 0.37 ->
/// 0.31 on two; smaller Bs stay in L2 unpacked: 256 x 512 x 256 and 256^3
/// ran the same packed, 128^3 5% slower (15% on two threads).
constexpr int64_t kPackedPanelsMinBytes = 512 << 10;

} // namespace

bool kiln::isPlainMatmul(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return false;
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation()))
    return !matmul.hasUserDefinedMaps();
  if (auto matmul = dyn_cast<linalg::BatchMatmulOp>(op.getOperation()))
    return !matmul.hasUserDefinedMaps();
  return false;
}

namespace {

/// The indexing maps of a panel product with `batch` batch loops over k
/// steps in groups of `group` (1, or 2 for pairs): over (batch..., j, m,
/// c, k), A [batch..., M, K], the panels [batch..., J, K, w], the result
/// as [batch..., M, J, w]; over (batch..., j, m, c, q, p), A [batch..., M,
/// K / 2, 2] and the panels [batch..., J, K / 2, w, 2].
SmallVector<AffineMap> panelProductMaps(MLIRContext *context, unsigned batch,
                                        int64_t group) {
  unsigned loops = batch + (group == 1 ? 4 : 5);
  SmallVector<AffineExpr> dims = kiln::loopDims(context, loops);
  AffineExpr j = dims[batch], m = dims[batch + 1], c = dims[batch + 2];
  auto map = [&](ArrayRef<AffineExpr> inner) {
    SmallVector<AffineExpr> results(ArrayRef(dims).take_front(batch));
    results.append(inner.begin(), inner.end());
    return AffineMap::get(loops, 0, results, context);
  };
  if (group == 1) {
    AffineExpr k = dims[batch + 3];
    return {map({m, k}), map({j, k, c}), map({m, j, c})};
  }
  AffineExpr q = dims[batch + 3], p = dims[batch + 4];
  return {map({m, q, p}), map({j, q, c, p}), map({m, j, c})};
}

/// Whether `value`, computed in a panel product's body `body`, is its
/// argument `index` or that argument extended.
bool isArgument(Value value, Block &body, unsigned index) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>())
    value = ext.getIn();
  else if (auto ext = value.getDefiningOp<arith::ExtSIOp>())
    value = ext.getIn();
  return value == body.getArgument(index);
}

/// The sum and the product of a panel product's body: `add` (arith.addf or
/// arith.addi) of its accumulator and `mul` (arith.mulf or arith.muli).
std::pair<Operation *, Operation *> sumOfProduct(Block &body) {
  Operation *add =
      cast<linalg::YieldOp>(body.getTerminator()).getOperand(0).getDefiningOp();
  if (!isa_and_present<arith::AddFOp, arith::AddIOp>(add))
    return {};
  Operation *mul = add->getOperand(1).getDefiningOp();
  if (!mul || (isa<arith::AddFOp>(add) ? !isa<arith::MulFOp>(mul)
                                       : !isa<arith::MulIOp>(mul)))
    return {};
  return {add, mul};
}

/// How a pack of `batch` batch loops over (batch..., j, k, c), or (batch...,
/// j, q, c, p) in groups, reads B split into [batch..., K, J, width], or
/// [batch..., K / group, group, J, width]; `transposed`, B^T split into
/// [batch..., J, width, K] (group 1).
AffineMap packReadMap(MLIRContext *context, unsigned batch, int64_t group,
                      bool transposed = false) {
  unsigned loops = batch + (group == 1 ? 3 : 4);
  SmallVector<AffineExpr> dims = kiln::loopDims(context, loops);
  SmallVector<AffineExpr> read(ArrayRef(dims).take_front(batch));
  AffineExpr j = dims[batch], q = dims[batch + 1], c = dims[batch + 2];
  if (transposed)
    read.append({j, c, q});
  else if (group == 1)
    read.append({q, j, c});
  else
    read.append({q, dims[batch + 3], j, c});
  return AffineMap::get(loops, 0, read, context);
}

/// `source` [batch..., K, N] as panels [batch..., N / width, K, width], or
/// of k steps in groups of `group` (2): [batch..., N / width, K / group,
/// width, group], each column's steps of a group consecutive. Panels of a
/// transpose only the pack reads (kiln::lastTwoTransposeInput) transpose
/// its input's rows themselves: written out first, the transpose was a pass
/// over B more, and on two threads one that the chunks packing their
/// panels waited for (256 x 512 x 784 nt: 2.01 ms, 1.46 unpacked).
Value packPanels(OpBuilder &b, Location loc, Value source, int64_t width,
                 int64_t group) {
  auto type = cast<RankedTensorType>(source.getType());
  unsigned rank = type.getRank(), batch = rank - 2;
  int64_t k = type.getDimSize(rank - 2), n = type.getDimSize(rank - 1);
  SmallVector<int64_t> shape(type.getShape().take_front(batch));
  auto copy = [](OpBuilder &, Location, ValueRange args) { return args[0]; };
  Value transposed = group == 1 ? kiln::lastTwoTransposeInput(source) : Value();
  if (transposed) {
    shape.append({n / width, k, width});
    return kiln::buildParallelGeneric(
        b, loc, type.clone(shape),
        kiln::splitDim(b, loc, transposed, rank - 2, width),
        packReadMap(b.getContext(), batch, group, /*transposed=*/true), copy);
  }
  Value columns = kiln::splitDim(b, loc, source, rank - 1, width);
  if (group == 1) {
    shape.append({n / width, k, width});
  } else {
    // [K / group, group, J, width]: a group's rows side by side.
    columns = kiln::splitDim(b, loc, columns, rank - 2, group);
    shape.append({n / width, k / group, width, group});
  }
  return kiln::buildParallelGeneric(b, loc, type.clone(shape), columns,
                                    packReadMap(b.getContext(), batch, group),
                                    copy);
}

/// The k steps per group of panels for a product of `lhs` by `rhs` into
/// `acc` of M rows, K steps and B rows of `n` (kiln::panelGroup).
int64_t groupFor(Type lhs, Type rhs, Type acc, int64_t m, int64_t n, int64_t k,
                 int64_t width, bool bf16Pairs, bool intPairs,
                 bool amx = false) {
  bool amxPairs = amx && bf16Pairs && lhs.isBF16();
  // Dynamic sizes are negative; an empty product has nothing to pack.
  if (m <= 0 || n <= 0 || k <= 0 || width <= 0 ||
      m < (amxPairs ? kiln::kAmxPanelMinRows : kiln::kPanelMinRows) ||
      n % width != 0 || lhs != rhs)
    return 0;
  // vdpbf16ps's and vpmaddwd's pairs: packing also saves interleaving B's
  // rows at every pair of steps (int8 1024^3 on an AMD Zen 3's vpmaddwd:
  // 24.5 -> 14.5 ms). int8 products pair once widened to int16.
  if ((lhs.isBF16() || lhs.isInteger(16)) && k % 2 == 0 &&
      kiln::multipliesInPairs(lhs, rhs, acc, bf16Pairs, intPairs))
    return 2;
  return acc.isF32() && lhs.isF32() && kiln::f32PanelsPay(m, n, k) ? 1 : 0;
}

/// Whether `value` is defined outside `loop`.
bool definedOutside(Value value, Operation *loop) {
  return !loop->isAncestor(value.getParentBlock()->getParentOp());
}

/// The rows of the whole A of which `a` is a block's part in `loop`: a
/// slice of an A defined outside the loop, or the loop's transpose of a
/// slice of one (fuseChunkInputs: a weight gradient's X^T, each block
/// transposing its rows); else 0.
int64_t wholeRows(Value a, Operation *loop) {
  auto transpose = a.getDefiningOp<linalg::TransposeOp>();
  if (transpose)
    a = transpose.getInput();
  auto slice = a.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || !definedOutside(slice.getSource(), loop) ||
      slice.getSourceType().getRank() != slice.getResultType().getRank())
    return 0;
  unsigned rows = slice.getSourceType().getRank() - 2;
  return slice.getSourceType().getDimSize(
      transpose ? transpose.getPermutation()[rows] : rows);
}

/// Whether `offset` is a multiple of `width`: a constant, or the induction
/// variable of an scf.for or scf.forall whose bounds and steps are.
bool isMultipleOf(OpFoldResult offset, int64_t width) {
  auto multiple = [&](OpFoldResult value) {
    std::optional<int64_t> constant = getConstantIntValue(value);
    return constant && *constant % width == 0;
  };
  if (multiple(offset))
    return true;
  auto iv = dyn_cast_if_present<BlockArgument>(dyn_cast<Value>(offset));
  if (!iv)
    return false;
  if (auto loop = dyn_cast<scf::ForOp>(iv.getOwner()->getParentOp()))
    return iv == loop.getInductionVar() &&
           multiple(getAsOpFoldResult(loop.getLowerBound())) &&
           multiple(getAsOpFoldResult(loop.getStep()));
  if (auto loop = dyn_cast<scf::ForallOp>(iv.getOwner()->getParentOp())) {
    unsigned index = iv.getArgNumber();
    return index < loop.getRank() &&
           multiple(loop.getMixedLowerBound()[index]) &&
           multiple(loop.getMixedStep()[index]);
  }
  return false;
}
} // namespace

void kiln::replaceTile(RewriterBase &rewriter, linalg::LinalgOp tile,
                       Value result) {
  Value init = tile.getDpsInitOperand(0)->get();
  auto type = cast<RankedTensorType>(init.getType());
  MLIRContext *context = rewriter.getContext();
  SmallVector<int64_t> zeros(type.getRank(), 0), ones(type.getRank(), 1);
  rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
      tile, result, init, getAsIndexOpFoldResult(context, zeros),
      getAsIndexOpFoldResult(context, type.getShape()),
      getAsIndexOpFoldResult(context, ones));
}

Value kiln::keepingDims(OpBuilder &b, Location loc, Value value,
                        ArrayRef<unsigned> dims) {
  auto type = cast<RankedTensorType>(value.getType());
  MLIRContext *context = b.getContext();
  SmallVector<int64_t> zeros(type.getRank(), 0), ones(type.getRank(), 1), kept;
  for (unsigned d : dims)
    kept.push_back(type.getDimSize(d));
  return tensor::ExtractSliceOp::create(
      b, loc, type.clone(kept), value, getAsIndexOpFoldResult(context, zeros),
      getAsIndexOpFoldResult(context, type.getShape()),
      getAsIndexOpFoldResult(context, ones));
}

Value kiln::lastTwoTransposeInput(Value value) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || !transpose->hasOneUse())
    return {};
  SmallVector<int64_t> swap = lastTwoSwapped(transpose.getPermutation().size());
  return transpose.getPermutation() == ArrayRef(swap) ? transpose.getInput()
                                                      : Value();
}

bool kiln::f32PanelsPay(int64_t m, int64_t n, int64_t k) {
  int64_t rowBytes = n * int64_t(sizeof(float));
  return m >= kPanelMinRows && (rowBytes % kAliasingRowBytes == 0 ||
                                k * rowBytes > kPackedPanelsMinBytes);
}

int64_t kiln::panelGroup(linalg::LinalgOp op, int64_t width, bool bf16Pairs,
                         bool intPairs, bool amx) {
  if (!isPlainMatmul(op))
    return 0;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges(); // [B,] M, N, K
  if (llvm::any_of(ranges, [](int64_t size) { return size <= 0; }))
    return 0;
  size_t batch = ranges.size() - 3;
  return groupFor(getElementTypeOrSelf(op->getOperand(0).getType()),
                  getElementTypeOrSelf(op->getOperand(1).getType()),
                  getElementTypeOrSelf(op->getOperand(2).getType()),
                  ranges[batch], ranges[batch + 1], ranges[batch + 2], width,
                  bf16Pairs, intPairs, amx);
}

bool kiln::packBlockPanels(RewriterBase &rewriter, linalg::LinalgOp matmul,
                           Operation *loop, int64_t width, bool bf16Pairs,
                           bool intPairs, kiln::PackedSources &packed) {
  if (!isPlainMatmul(matmul))
    return false;
  auto bSlice = matmul->getOperand(1).getDefiningOp<tensor::ExtractSliceOp>();
  if (!bSlice || !definedOutside(bSlice.getSource(), loop) ||
      !bSlice.hasUnitStride() ||
      bSlice.getSourceType().getRank() != bSlice.getResultType().getRank() ||
      !bSlice.getResultType().hasStaticShape())
    return false;
  // The whole product decides, as if it were not computed by blocks: the
  // packing is shared by all of them.
  RankedTensorType whole = bSlice.getSourceType();
  unsigned rank = whole.getRank();
  int64_t k = whole.getDimSize(rank - 2), n = whole.getDimSize(rank - 1);
  int64_t m = wholeRows(matmul->getOperand(0), loop);
  int64_t group =
      groupFor(whole.getElementType(),
               getElementTypeOrSelf(matmul->getOperand(0).getType()),
               getElementTypeOrSelf(matmul->getOperand(2).getType()), m, n, k,
               width, bf16Pairs, intPairs);
  // The block reads all of K and whole panels.
  SmallVector<OpFoldResult> offsets = bSlice.getMixedOffsets();
  ArrayRef<int64_t> sizes = bSlice.getResultType().getShape();
  if (!group || sizes[rank - 2] != k ||
      !isConstantIntValue(offsets[rank - 2], 0) ||
      sizes[rank - 1] % width != 0 || !isMultipleOf(offsets[rank - 1], width))
    return false;
  Location loc = matmul.getLoc();
  Value &panels = packed[{bSlice.getSource(), loop->getBlock()}];
  if (!panels) {
    rewriter.setInsertionPoint(loop);
    panels = packPanels(rewriter, loc, bSlice.getSource(), width, group);
  }
  // The block's panels: its batch, columns / width panels from offset /
  // width on, all of the rest.
  rewriter.setInsertionPoint(matmul);
  auto panelType = cast<RankedTensorType>(panels.getType());
  SmallVector<OpFoldResult> panelOffsets(offsets.begin(),
                                         offsets.begin() + rank - 2);
  SmallVector<OpFoldResult> panelSizes;
  for (int64_t size : sizes.take_front(rank - 2))
    panelSizes.push_back(rewriter.getIndexAttr(size));
  AffineExpr column;
  bindDims(rewriter.getContext(), column);
  panelOffsets.push_back(affine::makeComposedFoldedAffineApply(
      rewriter, loc, column.floorDiv(width), {offsets[rank - 1]}));
  panelSizes.push_back(rewriter.getIndexAttr(sizes[rank - 1] / width));
  for (int64_t extent : panelType.getShape().drop_front(rank - 1)) {
    panelOffsets.push_back(rewriter.getIndexAttr(0));
    panelSizes.push_back(rewriter.getIndexAttr(extent));
  }
  SmallVector<OpFoldResult> strides(panelType.getRank(),
                                    rewriter.getIndexAttr(1));
  Value block = tensor::ExtractSliceOp::create(
      rewriter, loc, panels, panelOffsets, panelSizes, strides);
  packMatmulPanels(rewriter, matmul, width, group, block);
  return true;
}

linalg::LinalgOp kiln::packMatmulPanels(RewriterBase &rewriter,
                                        linalg::LinalgOp matmul, int64_t width,
                                        int64_t group, Value panels) {
  Location loc = matmul.getLoc();
  rewriter.setInsertionPoint(matmul);
  Value a = matmul->getOperand(0), init = matmul->getOperand(2);
  auto resultType = cast<RankedTensorType>(init.getType());
  unsigned rank = resultType.getRank(), batch = rank - 2;
  if (!panels)
    panels = packPanels(rewriter, loc, matmul->getOperand(1), width, group);
  if (group != 1)
    a = splitDim(rewriter, loc, a, rank - 1, group);
  // Zeros the product starts from are filled in its shape, so that its
  // tiles can fill their own blocks (kiln-tile-and-vectorize's fuseFill).
  auto fill = init.getDefiningOp<linalg::FillOp>();
  auto expand = splitDim(rewriter, loc, fill ? fill.getOutputs()[0] : init,
                         rank - 1, width)
                    .getDefiningOp<tensor::ExpandShapeOp>();
  Value start = fill ? linalg::FillOp::create(rewriter, loc, fill.getInputs(),
                                              expand.getResult())
                           .getResult(0)
                     : expand.getResult();
  SmallVector<utils::IteratorType> iterators(batch + 3,
                                             utils::IteratorType::parallel);
  iterators.append(group == 1 ? 1 : 2, utils::IteratorType::reduction);
  auto product = linalg::GenericOp::create(
      rewriter, loc, start.getType(), ValueRange{a, panels}, start,
      panelProductMaps(rewriter.getContext(), batch, group), iterators,
      kiln::yieldAccumulatedProduct);
  // Back to [batch..., M, N]: the groups splitDim expanded.
  rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
      matmul, resultType, product.getResult(0),
      expand.getReassociationIndices());
  return cast<linalg::LinalgOp>(product.getOperation());
}

int64_t kiln::panelProductGroup(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1)
    return 0;
  Type result = getElementTypeOrSelf(generic.getResultTypes()[0]);
  if (!result.isF32() && !result.isInteger(32))
    return 0;
  Block &body = generic.getRegion().front();
  auto [add, mul] = sumOfProduct(body);
  if (!mul || add->getOperand(0) != body.getArgument(2) ||
      !isArgument(mul->getOperand(0), body, 0) ||
      !isArgument(mul->getOperand(1), body, 1))
    return 0;
  unsigned loops = generic.getNumLoops();
  for (int64_t group : {1, 2}) {
    unsigned extra = group == 1 ? 4 : 5;
    if (loops >= extra &&
        generic.getIndexingMapsArray() ==
            panelProductMaps(op.getContext(), loops - extra, group))
      return group;
  }
  return 0;
}

linalg::LinalgOp kiln::panelTileAsMatmul(RewriterBase &rewriter,
                                         linalg::LinalgOp tile) {
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  // A [batch..., m, k], the panel [batch..., 1, k, c], the result
  // [batch..., m, 1, c].
  Value a = tile->getOperand(0), panels = tile->getOperand(1),
        init = tile->getOperand(2);
  unsigned rank = cast<RankedTensorType>(init.getType()).getRank();
  Value acc = kiln::asMatrix(rewriter, loc, init, rank - 3, rank - 1);
  auto matmul = linalg::MatmulOp::create(
      rewriter, loc, acc.getType(),
      ValueRange{kiln::asMatrix(rewriter, loc, a, rank - 3, rank - 2),
                 kiln::asMatrix(rewriter, loc, panels, rank - 2, rank - 1)},
      acc);
  kiln::replaceTile(rewriter, tile, matmul.getResult(0));
  return cast<linalg::LinalgOp>(matmul.getOperation());
}

void kiln::vectorizePanelPairs(RewriterBase &rewriter, linalg::LinalgOp tile) {
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  // A [batch..., m, 1, 2] as [m, 2]; the panel's rows [batch..., 1, 1, c,
  // 2] as one row, then [c, 2] (so that the dot's operands are slices of
  // the row); the result [batch..., m, 1, c] as [m, c].
  Value a = tile->getOperand(0), panels = tile->getOperand(1),
        init = tile->getOperand(2);
  unsigned rank = cast<RankedTensorType>(init.getType()).getRank();
  auto panelType = cast<RankedTensorType>(panels.getType());
  int64_t columns = panelType.getDimSize(panelType.getRank() - 2);
  Value lhs = kiln::readAll(
      rewriter, loc, kiln::asMatrix(rewriter, loc, a, rank - 3, rank - 1));
  Value row = kiln::readAll(
      rewriter, loc,
      tensor::CollapseShapeOp::create(rewriter, loc, panels,
                                      kiln::allInOne(panelType.getRank())));
  Value rhs = vector::ShapeCastOp::create(
      rewriter, loc, VectorType::get({columns, 2}, panelType.getElementType()),
      row);
  Value accTile = kiln::asMatrix(rewriter, loc, init, rank - 3, rank - 1);
  AffineExpr m, n, k;
  bindDims(rewriter.getContext(), m, n, k);
  Value sum = vector::ContractionOp::create(
      rewriter, loc, lhs, rhs, kiln::readAll(rewriter, loc, accTile),
      ArrayRef<ArrayRef<AffineExpr>>{{m, k}, {n, k}, {m, n}},
      ArrayRef<vector::IteratorType>{vector::IteratorType::parallel,
                                     vector::IteratorType::parallel,
                                     vector::IteratorType::reduction});
  kiln::replaceTile(rewriter, tile,
                    kiln::writeAll(rewriter, loc, sum, accTile));
}

int64_t kiln::panelPackGroup(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  unsigned loops = generic ? generic.getNumLoops() : 0;
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || loops < 3 ||
      loops != generic.getNumParallelLoops() ||
      !generic.getIndexingMapsArray().back().isIdentity())
    return 0;
  Block &body = generic.getRegion().front();
  if (cast<linalg::YieldOp>(body.getTerminator()).getOperand(0) !=
      body.getArgument(0))
    return 0;
  AffineMap read = generic.getIndexingMapsArray().front();
  if (read == packReadMap(op.getContext(), loops - 3, 1, /*transposed=*/true))
    return 1;
  for (int64_t group : {1, 2})
    if (loops >= 2 + group &&
        read == packReadMap(op.getContext(), loops - 2 - group, group))
      return group;
  return 0;
}

bool kiln::isRowPanelPack(linalg::LinalgOp op) {
  return panelPackGroup(op) == 1 &&
         op.getIndexingMapsArray().front() ==
             packReadMap(op.getContext(), op.getNumLoops() - 3, 1);
}

bool kiln::isPairPack(linalg::LinalgOp op) {
  Type element = getElementTypeOrSelf(op->getResultTypes()[0]);
  return panelPackGroup(op) == 2 && (element.isBF16() || element.isInteger(16));
}

void kiln::vectorizePairPack(RewriterBase &rewriter, linalg::LinalgOp tile) {
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  // Rows [batch..., 1, 2, 1, w] of B, into [batch..., 1, 1, w, 2].
  Value source = tile->getOperand(0), init = tile->getOperand(1);
  unsigned rank = cast<RankedTensorType>(init.getType()).getRank();
  Value rows = kiln::asMatrix(rewriter, loc, source, rank - 3, rank - 1);
  auto rowsType = cast<RankedTensorType>(rows.getType());
  int64_t width = rowsType.getDimSize(1);
  Value read = kiln::readAll(rewriter, loc, rows);
  // As 16-bit integers: LLVM shuffles those well.
  Type element = rowsType.getElementType(), i16 = rewriter.getI16Type();
  auto as = [&](Type type, Value vector) -> Value {
    auto vectorType = cast<VectorType>(vector.getType());
    if (vectorType.getElementType() == type)
      return vector;
    return vector::BitCastOp::create(rewriter, loc, vectorType.clone(type),
                                     vector);
  };
  SmallVector<Value> steps;
  for (int64_t step = 0; step < 2; ++step)
    steps.push_back(
        as(i16, vector::ExtractOp::create(rewriter, loc, read, step)));
  Value pairs = vector::ShapeCastOp::create(
      rewriter, loc, VectorType::get({width, 2}, element),
      as(element, kiln::interleaveRows(rewriter, loc, steps)));
  Value out = kiln::asMatrix(rewriter, loc, init, rank - 2, rank - 1);
  kiln::replaceTile(rewriter, tile, kiln::writeAll(rewriter, loc, pairs, out));
}
