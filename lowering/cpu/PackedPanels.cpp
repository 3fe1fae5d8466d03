//===- PackedPanels.cpp - f32 matmuls on B packed into column panels ------===//
//
// A register tile walks B down K one row at a time. Where B's rows are a
// multiple of 4 KiB apart, every row of the walk falls in the same sets of
// L1 and L2 and in a page of its own, so the cache tile of B that should
// stay in L2 does not (f32 1024^3 ran at 90% of oneDNN). Packing B once
// into panels of a register tile's columns, [N / w, K, w], makes each
// panel's walk contiguous. kiln-tile-and-vectorize packs such products
// before it schedules them and schedules the packed product like a batch
// matmul whose batch is the panel.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "lowering/linalg/LoweringUtils.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;

namespace {

/// Rows of A from which B is packed: the packing copies B once, which 128
/// rows of products amortize (measured on 128 x 1024 x 1024: 3% faster
/// packed; 64 rows were 4% slower).
constexpr int64_t kPanelMinRows = 128;

/// The distance between B's rows, in bytes, a multiple of which makes them
/// fall in the same cache sets (4 KiB: L1's sets times its lines; the page
/// size). Products whose rows are 2, 3, 5 or 6 KiB apart ran no faster
/// packed, and paid for the copy.
constexpr int64_t kAliasingRowBytes = 4096;

/// Whether `op` is a linalg.matmul or linalg.batch_matmul with the default
/// indexing maps, on tensors.
bool isPlainMatmul(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return false;
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation()))
    return !matmul.hasUserDefinedMaps();
  if (auto matmul = dyn_cast<linalg::BatchMatmulOp>(op.getOperation()))
    return !matmul.hasUserDefinedMaps();
  return false;
}

/// The indexing maps of a panel product with `batch` batch loops, over
/// (batch..., j, m, c, k): A [batch..., M, K], the panels [batch..., J, K,
/// w], the result as [batch..., M, J, w].
SmallVector<AffineMap> panelProductMaps(MLIRContext *context, unsigned batch) {
  SmallVector<AffineExpr> dims = kiln::loopDims(context, batch + 4);
  AffineExpr j = dims[batch], m = dims[batch + 1], c = dims[batch + 2],
             k = dims[batch + 3];
  auto map = [&](ArrayRef<AffineExpr> inner) {
    SmallVector<AffineExpr> results(ArrayRef(dims).take_front(batch));
    results.append(inner.begin(), inner.end());
    return AffineMap::get(batch + 4, 0, results, context);
  };
  return {map({m, k}), map({j, k, c}), map({m, j, c})};
}

/// `source` [batch..., K, N] as panels [batch..., N / width, K, width].
Value packPanels(OpBuilder &b, Location loc, Value source, int64_t width) {
  auto type = cast<RankedTensorType>(source.getType());
  unsigned rank = type.getRank(), batch = rank - 2;
  SmallVector<int64_t> shape(type.getShape().take_front(batch));
  shape.append({type.getDimSize(rank - 1) / width, type.getDimSize(rank - 2),
                width});
  SmallVector<AffineExpr> dims = kiln::loopDims(b.getContext(), batch + 3);
  SmallVector<AffineExpr> read(ArrayRef(dims).take_front(batch));
  read.append({dims[batch + 1], dims[batch], dims[batch + 2]});
  Value columns = kiln::splitDim(b, loc, source, rank - 1, width);
  return kiln::buildParallelGeneric(
      b, loc, type.clone(shape), columns,
      AffineMap::get(batch + 3, 0, read, b.getContext()),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

/// The statically shaped `value` as a matrix: a rank-reducing slice of all
/// of it keeping dimensions `rows` and `columns` (the others are 1).
Value asMatrix(OpBuilder &b, Location loc, Value value, unsigned rows,
               unsigned columns) {
  auto type = cast<RankedTensorType>(value.getType());
  MLIRContext *context = b.getContext();
  SmallVector<int64_t> zeros(type.getRank(), 0), ones(type.getRank(), 1);
  return tensor::ExtractSliceOp::create(
      b, loc, type.clone({type.getDimSize(rows), type.getDimSize(columns)}),
      value, getAsIndexOpFoldResult(context, zeros),
      getAsIndexOpFoldResult(context, type.getShape()),
      getAsIndexOpFoldResult(context, ones));
}
} // namespace

bool kiln::shouldPackPanels(linalg::LinalgOp op, int64_t width) {
  if (!isPlainMatmul(op) || width <= 0 ||
      llvm::any_of(op->getOperandTypes(), [](Type type) {
        return !getElementTypeOrSelf(type).isF32();
      }))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges(); // [B,] M, N, K
  size_t batch = ranges.size() - 3;
  int64_t m = ranges[batch], n = ranges[batch + 1];
  int64_t rowBytes = n * int64_t(sizeof(float));
  return m >= kPanelMinRows && n % width == 0 &&
         rowBytes % kAliasingRowBytes == 0;
}

linalg::LinalgOp kiln::packMatmulPanels(RewriterBase &rewriter,
                                        linalg::LinalgOp matmul,
                                        int64_t width) {
  Location loc = matmul.getLoc();
  rewriter.setInsertionPoint(matmul);
  Value a = matmul->getOperand(0), init = matmul->getOperand(2);
  auto resultType = cast<RankedTensorType>(init.getType());
  unsigned rank = resultType.getRank(), batch = rank - 2;
  Value panels = packPanels(rewriter, loc, matmul->getOperand(1), width);
  Value start = splitDim(rewriter, loc, init, rank - 1, width);
  SmallVector<utils::IteratorType> iterators(batch + 3,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto product = linalg::GenericOp::create(
      rewriter, loc, start.getType(), ValueRange{a, panels}, start,
      panelProductMaps(rewriter.getContext(), batch), iterators,
      [](OpBuilder &b, Location loc, ValueRange args) {
        Value term = arith::MulFOp::create(b, loc, args[0], args[1]);
        linalg::YieldOp::create(
            b, loc, ValueRange{arith::AddFOp::create(b, loc, args[2], term)});
      });
  // Back to [batch..., M, N]: the groups splitDim expanded.
  auto expand = start.getDefiningOp<tensor::ExpandShapeOp>();
  rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
      matmul, resultType, product.getResult(0),
      expand.getReassociationIndices());
  return cast<linalg::LinalgOp>(product.getOperation());
}

bool kiln::isPanelProduct(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() < 4 ||
      !getElementTypeOrSelf(generic.getResultTypes()[0]).isF32() ||
      generic.getIndexingMapsArray() !=
          panelProductMaps(op.getContext(), generic.getNumLoops() - 4))
    return false;
  Block &body = generic.getRegion().front();
  auto add = cast<linalg::YieldOp>(body.getTerminator())
                 .getOperand(0)
                 .getDefiningOp<arith::AddFOp>();
  auto mul = add ? add.getRhs().getDefiningOp<arith::MulFOp>() : nullptr;
  return mul && add.getLhs() == body.getArgument(2) &&
         mul.getLhs() == body.getArgument(0) &&
         mul.getRhs() == body.getArgument(1);
}

linalg::LinalgOp kiln::panelTileAsMatmul(RewriterBase &rewriter,
                                         linalg::LinalgOp tile) {
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  // A [batch..., m, k], panels [batch..., 1, k, c], result [batch..., m,
  // 1, c]: one panel's rows.
  Value a = tile->getOperand(0), panels = tile->getOperand(1),
        init = tile->getOperand(2);
  unsigned rank = cast<RankedTensorType>(a.getType()).getRank();
  Value acc = asMatrix(rewriter, loc, init, rank - 2, rank);
  auto matmul = linalg::MatmulOp::create(
      rewriter, loc, acc.getType(),
      ValueRange{asMatrix(rewriter, loc, a, rank - 2, rank - 1),
                 asMatrix(rewriter, loc, panels, rank - 1, rank)},
      acc);
  auto type = cast<RankedTensorType>(init.getType());
  MLIRContext *context = rewriter.getContext();
  SmallVector<int64_t> zeros(type.getRank(), 0), ones(type.getRank(), 1);
  rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
      tile, matmul.getResult(0), init, getAsIndexOpFoldResult(context, zeros),
      getAsIndexOpFoldResult(context, type.getShape()),
      getAsIndexOpFoldResult(context, ones));
  return cast<linalg::LinalgOp>(matmul.getOperation());
}
