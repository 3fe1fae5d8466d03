//===- KilnTileAndVectorize.cpp - the kiln-tile-and-vectorize pass --------===//
#include "Passes.h"
#include "kiln/TypeInference.h"
#include "lowering/linalg/LoweringUtils.h"
#include "lowering/linalg/WindowProducts.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

#include <limits>
#include <numeric>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNTILEANDVECTORIZE
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {

/// `index` * `stride` + `offset`, folded where they are constants.
Value strided(RewriterBase &rewriter, Location loc, Value index,
              OpFoldResult stride, OpFoldResult offset) {
  Value scaled = index;
  if (!isConstantIntValue(stride, 1))
    scaled = rewriter.createOrFold<arith::MulIOp>(
        loc, index, getValueOrCreateConstantIndexOp(rewriter, loc, stride));
  if (isConstantIntValue(offset, 0))
    return scaled;
  return rewriter.createOrFold<arith::AddIOp>(
      loc, scaled, getValueOrCreateConstantIndexOp(rewriter, loc, offset));
}

/// Makes the tensor.extracts in `op`'s payload read the sources of the
/// slices they read, at the slices' offsets plus strides times their
/// indices. The vectorizer gathers an n-D extract at offsets it linearizes
/// by the tensor's shape, as if its buffer were contiguous; a slice's
/// buffer is a strided view of its source's, which the gather read as
/// consecutive elements (a take of rows from a pad's first of 3 columns
/// read the first 12 elements instead of every third: scripts/fuzz.py,
/// seed 3023).
void extractFromSliceSources(RewriterBase &rewriter, Operation *op) {
  SmallVector<tensor::ExtractOp> extracts;
  op->walk([&](tensor::ExtractOp extract) {
    if (extract.getTensor().getDefiningOp<tensor::ExtractSliceOp>())
      extracts.push_back(extract);
  });
  for (tensor::ExtractOp extract : extracts) {
    rewriter.setInsertionPoint(extract);
    Value source = extract.getTensor();
    SmallVector<Value> indices(extract.getIndices());
    while (auto slice = source.getDefiningOp<tensor::ExtractSliceOp>()) {
      llvm::SmallBitVector dropped = slice.getDroppedDims();
      SmallVector<OpFoldResult> offsets = slice.getMixedOffsets(),
                                strides = slice.getMixedStrides();
      SmallVector<Value> sourceIndices;
      unsigned kept = 0;
      for (unsigned dim = 0; dim < offsets.size(); ++dim)
        sourceIndices.push_back(
            dropped.test(dim)
                ? getValueOrCreateConstantIndexOp(rewriter, extract.getLoc(),
                                                  offsets[dim])
                : strided(rewriter, extract.getLoc(), indices[kept++],
                          strides[dim], offsets[dim]));
      indices = std::move(sourceIndices);
      source = slice.getSource();
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(extract, source, indices);
  }
}

/// Replaces the statically shaped linalg op `op` by vector code (a
/// vector.contract for contractions); leaves it for the loop lowering if the
/// vectorizer cannot handle it. Reads of an n-D tensor in a payload (a take
/// of rows) become vector loads where the vector runs along a row, else
/// gathers, from the tensor the read's slices are of
/// (extractFromSliceSources).
void vectorize(RewriterBase &rewriter, Operation *op) {
  extractFromSliceSources(rewriter, op);
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
      rewriter, op, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
      /*vectorizeNDExtract=*/true, /*flatten1DDepthwiseConv=*/false,
      /*assumeDynamicDimsMatchVecSizes=*/false,
      /*createNamedContraction=*/true);
  if (succeeded(vectorized))
    rewriter.replaceOp(op, vectorized->replacements);
}

/// `accumulatorBytes`: the results a reduction's row may carry in
/// registers (rowLength; 0: rows of `width`, for the ops that are no such
/// reductions).
void tileElementwise(RewriterBase &rewriter, linalg::LinalgOp op, int64_t width,
                     int64_t accumulatorBytes = 0);

/// Replaces `slice`, if it is a statically shaped part of a tensor.empty
/// (where a tiled op writes its part of the whole op's result), by a
/// tensor.empty of its own: no buffer of the whole result is then allocated
/// for the part.
void giveOwnBuffer(RewriterBase &rewriter, tensor::ExtractSliceOp slice) {
  if (!slice.getSource().getDefiningOp<tensor::EmptyOp>() ||
      !slice.getResultType().hasStaticShape())
    return;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(slice);
  rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
      slice, slice.getResultType().getShape(),
      slice.getResultType().getElementType());
}

/// The transpose that computes `value`, if nothing else reads it, else
/// null: a transpose a tiled matmul can compute part by part.
linalg::TransposeOp transposeReadOnce(Value value) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  return transpose && transpose->hasOneUse() ? transpose : nullptr;
}

/// The op that computes `value`, an input of a product, where nothing else
/// reads it and each chunk of the product can compute the part it reads
/// while it is in cache: a transpose (transposeReadOnce), or B's quad or
/// panel pack (on two threads, one core writing all of packed B, read by
/// both, made int8 512^3 no faster than on one; on one, an FFN's 16 MB of
/// f32 B packed in a pass of its own took 11% of its time); else null.
linalg::LinalgOp chunkInput(Value value) {
  if (linalg::TransposeOp transpose = transposeReadOnce(value))
    return transpose;
  auto pack = value.getDefiningOp<linalg::LinalgOp>();
  return pack && pack->hasOneUse() &&
                 (kiln::isQuadPack(pack) || kiln::panelPackGroup(pack))
             ? pack
             : nullptr;
}

/// The producer of `slice`'s source, outside `loops`, computed in them for
/// the slice instead: its tiled ops (none if it cannot be).
SmallVector<linalg::LinalgOp>
fuseProducer(RewriterBase &rewriter, tensor::ExtractSliceOp slice,
             MutableArrayRef<LoopLikeOpInterface> loops) {
  rewriter.setInsertionPoint(slice);
  std::optional<scf::SCFFuseProducerOfSliceResult> fused =
      scf::tileAndFuseProducerOfSlice(rewriter, slice, loops);
  if (!fused)
    return {};
  // The producer is then read by nothing else, and erased, not scheduled.
  if (slice->use_empty())
    rewriter.eraseOp(slice);
  return llvm::map_to_vector(fused->tiledOps, [](Operation *op) {
    return cast<linalg::LinalgOp>(op);
  });
}

/// fuseStart's width that leaves a start the op it is, to be moved on.
constexpr int64_t kStartMovesOn = -1;

/// The op that computes `init`, where a product accumulates, if each part
/// of it can be computed on its own right before the product accumulates
/// there: an elementwise op that does not read the tensor it overwrites (a
/// linalg.fill of zeros, an int8 product's C0 - 128 rowsum(A)); else null.
linalg::LinalgOp accumulatorStart(Value init) {
  auto op = init.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops())
    return nullptr;
  OpOperand *out = op.getDpsInitOperand(0);
  return op.getMatchingIndexingMap(out).isIdentity() &&
                 !op.payloadUsesValueFromOperand(out)
             ? op
             : nullptr;
}

/// Where the output `tiled` accumulates in (a slice of a loop's shared
/// output) is computed by an accumulatorStart outside `loops` (the loops
/// `tiled` was tiled by, outermost first), and `loops` tile none of
/// `tiled`'s reduction: computes each tile's slice in the loop instead, in
/// rows of up to `width`, right before `tiled` accumulates in it while it
/// is in cache, rather than the whole output first, in a pass over memory
/// (a 1024^3 matmul's 4 MB of zeros; on two threads, an int8 product's
/// start written by one core and read by the other). With kStartMovesOn
/// for `width`, the start moves as the op it is, for a tiling inside the
/// loops to move it further. Returns the starts moved.
SmallVector<linalg::LinalgOp>
fuseStart(RewriterBase &rewriter, Operation *tiled,
          MutableArrayRef<LoopLikeOpInterface> loops, int64_t width) {
  auto op = dyn_cast<linalg::LinalgOp>(tiled);
  if (!op || loops.empty() || op.getNumDpsInits() != 1)
    return {};
  auto slice =
      op.getDpsInitOperand(0)->get().getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice)
    return {};
  // The value the slice's loops start from.
  Value source = slice.getSource();
  for (LoopLikeOpInterface loop : llvm::reverse(loops)) {
    auto arg = dyn_cast<BlockArgument>(source);
    if (!arg || arg.getOwner()->getParentOp() != loop.getOperation())
      return {};
    OpOperand *init = loop.getTiedLoopInit(arg);
    if (!init)
      return {};
    source = init->get();
  }
  if (!accumulatorStart(source))
    return {};
  SmallVector<linalg::LinalgOp> starts = fuseProducer(rewriter, slice, loops);
  if (width != kStartMovesOn)
    for (linalg::LinalgOp start : starts)
      tileElementwise(rewriter, start, width);
  return starts;
}

/// The chunkInputs that `tiled`'s inputs are slices of, moved into `loops`
/// (those `tiled` was tiled by), where the loops slice them: each tile
/// computes the part it reads, while it is in cache (a weight gradient's
/// X^T, a row block per chunk that threads share), instead of the whole
/// input first on one thread. Parts take at most kiln::kThreadBufferBytes
/// in all: a chunk holding more would run on one thread (an FFN's 256 x
/// 4096 x 1024 packing 4 MB of panels a chunk: 1.8x slower on two).
/// Returns them, to be scheduled.
SmallVector<linalg::LinalgOp>
fuseChunkInputs(RewriterBase &rewriter, linalg::LinalgOp tiled,
                MutableArrayRef<LoopLikeOpInterface> loops) {
  SmallVector<linalg::LinalgOp> fusedOps;
  int64_t bytes = 0;
  for (OpOperand *input : tiled.getDpsInputOperands()) {
    auto slice = input->get().getDefiningOp<tensor::ExtractSliceOp>();
    // A slice as large as the whole input: every tile would compute all.
    if (!slice || slice.getSourceType() == slice.getType() ||
        !slice.getType().hasStaticShape())
      continue;
    int64_t partBytes = kiln::storageBytes(slice.getType());
    if (!chunkInput(slice.getSource()) ||
        bytes + partBytes > kiln::kThreadBufferBytes)
      continue;
    bytes += partBytes;
    llvm::append_range(fusedOps, fuseProducer(rewriter, slice, loops));
  }
  return fusedOps;
}

/// Tiles `op` by `sizes` with loops of `loopType` (scf.for loops nested in
/// `order`, default: the op's); returns the tiled op, which replaces `op`,
/// or null if tiling failed (and `op` is unchanged). With a `startWidth`,
/// the start the op accumulates in moves into the loops where it can
/// (fuseStart; the starts moved are added to `starts`); with `inputs`, so
/// do chunkInputs it reads, which are added there (fuseChunkInputs).
Operation *tile(RewriterBase &rewriter, linalg::LinalgOp op,
                ArrayRef<int64_t> sizes, ArrayRef<int64_t> order = {},
                scf::SCFTilingOptions::LoopType loopType =
                    scf::SCFTilingOptions::LoopType::ForOp,
                int64_t startWidth = 0,
                SmallVector<linalg::LinalgOp> *inputs = nullptr,
                SmallVector<linalg::LinalgOp> *starts = nullptr) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  options.setInterchange(order);
  options.setLoopType(loopType);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return nullptr;
  bool tilesReduction = llvm::any_of(
      llvm::zip(sizes, op.getIteratorTypesArray(), op.getStaticLoopRanges()),
      [](auto loop) {
        auto [size, type, range] = loop;
        return type != utils::IteratorType::parallel && size != 0 &&
               size < range;
      });
  rewriter.replaceOp(op, tiled->replacements);
  Operation *result = tiled->tiledOps.front();
  if (startWidth != 0 && !tilesReduction) {
    SmallVector<linalg::LinalgOp> moved =
        fuseStart(rewriter, result, tiled->loops, startWidth);
    if (starts)
      llvm::append_range(*starts, moved);
  }
  if (inputs)
    llvm::append_range(*inputs,
                       fuseChunkInputs(rewriter, cast<linalg::LinalgOp>(result),
                                       tiled->loops));
  return result;
}

/// The largest of `preferred`, `preferred / 2`, ..., 1 that divides `size`,
/// or `size` itself when it is at most `preferred`.
int64_t dividingTile(int64_t size, int64_t preferred) {
  if (size <= preferred)
    return size;
  int64_t tileSize = preferred;
  while (size % tileSize != 0)
    tileSize /= 2;
  return tileSize;
}

/// Whether tiling and vectorizing `op` is sound and pays: static, non-empty
/// loops (there is nothing to vectorize in an empty one, and tiles cannot
/// have size 0) and operands read through projected permutations (tiling
/// cannot slice a reversed or shifted access). Vectors of i1 load and store
/// a tensor of i1's bytes (kiln-bool-vectors-as-bytes).
bool isVectorizable(linalg::LinalgOp op) {
  if (llvm::any_of(op.getStaticLoopRanges(),
                   [](int64_t size) { return size <= 0; }))
    return false;
  return llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return map.isProjectedPermutation(/*allowZeroInResults=*/true);
  });
}

/// Whether `op` reads or writes bf16 or f16 tensors.
bool hasNarrowFloats(linalg::LinalgOp op) {
  return llvm::any_of(op->getOperandTypes(), [](Type type) {
    Type element = getElementTypeOrSelf(type);
    return element.isBF16() || element.isF16();
  });
}

/// The tile sizes of the matmul schedule (the pass's options), and whether
/// bf16 x bf16 -> f32 register tiles cover k pairs (bf16-dot-pairs), and
/// int8 / int16 -> i32 ones (int-dot-pairs).
struct MatmulTiles {
  int64_t registerM, registerN, cacheM, cacheN, cacheK;
  bool bf16Pairs, intPairs;
  /// Elements per vector row of an elementwise op (a fill).
  int64_t vectorWidth;
  /// Whether bf16 panel products multiply AMX tiles (amx-bf16).
  bool amx;
  /// Bytes of one of the target's vector registers (vector-bytes).
  int64_t vectorBytes;
  /// Whether a few-row product's register tiles convert its bf16 or f16
  /// operands as they read them (tileMatmul), in parts of power-of-two
  /// widths where its columns are no whole register tiles.
  bool convertsFewRows = false;
};

/// Makes each cache tile of `tiles` hold whole register tiles: one that a
/// register tile does not divide (64 rows of 6) would end in a tile of
/// dynamic size.
void alignCacheTiles(MatmulTiles &tiles) {
  tiles.cacheM = std::max(tiles.registerM,
                          tiles.cacheM / tiles.registerM * tiles.registerM);
  tiles.cacheN = std::max(tiles.registerN,
                          tiles.cacheN / tiles.registerN * tiles.registerN);
}

/// k steps of a cache tile of K of a product of fewer rows than a register
/// tile, which streams B: each K tile reads 8 of B's rows across all of N,
/// 8 sequential streams that the prefetchers follow, and loads and stores
/// C's rows once. Tiles of 256 steps walked each block of columns down 256
/// rows, each a page of its own where N is 1024 floats, and prefetchers do
/// not cross pages (1 x 1024 x 4096 f32 on a Zen 3: 0.54-0.61 -> 0.32-0.33
/// ms; 3 x 1024 x 1024 0.150 -> 0.091).
constexpr int64_t kFewRowsCacheK = 8;

/// k pairs of an AMX product's cache tile: its register tile's rows of A
/// (32 x 512 bf16, 32 KiB) stay in L1 while every panel's pairs stream past
/// them from L2, and C's tiles are loaded and stored once per 512 k steps.
constexpr int64_t kAmxCachePairs = 256;

/// Whether `op`'s register tiles multiply AMX tiles: a bf16 product packed
/// in pairs (kiln::panelProductGroup 2), whose panels of 32 columns are
/// two AMX tiles of B side by side.
bool multipliesAmxTiles(linalg::LinalgOp op, const MatmulTiles &tiles) {
  return tiles.amx && kiln::panelProductGroup(op) == 2;
}

/// The k steps (AMX: k pairs) of a cache tile of K of the panel product
/// `op` that splits off its first one where it starts from zeros (0 where
/// it does not): the first part's tiles start in registers (or tilezero),
/// instead of all of C filled with zeros first (1024^3: 4 MB, 3-8% of its
/// time). An f32 panel of 256 k steps (32 KiB) stays in L1 while every row
/// tile of a cache tile of A passes it: over all of K, each row tile
/// streamed its 1024 x 32 panel from L2 (1024^3 on an Intel Xeon: 3-7%
/// slower).
int64_t splitCacheTileK(linalg::LinalgOp op, const MatmulTiles &tiles) {
  if (multipliesAmxTiles(op, tiles))
    return kAmxCachePairs;
  return kiln::panelProductGroup(op) == 1 ? tiles.cacheK : 0;
}

/// `slice` of the chunkInput that computes its source, as that op on the
/// part of its input the slice covers, into a tensor of its own; returns
/// that op (null, leaving `slice`, where it cannot be).
linalg::LinalgOp ownPart(RewriterBase &rewriter, tensor::ExtractSliceOp slice) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(slice);
  FailureOr<TilingResult> own = tensor::replaceExtractSliceWithTiledProducer(
      rewriter, slice, cast<OpResult>(slice.getSource()));
  if (failed(own) || own->tiledOps.size() != 1)
    return nullptr;
  rewriter.replaceOp(slice, own->tiledValues);
  auto part = cast<linalg::LinalgOp>(own->tiledOps.front());
  if (auto init = part.getDpsInitOperand(0)
                      ->get()
                      .getDefiningOp<tensor::ExtractSliceOp>())
    giveOwnBuffer(rewriter, init);
  return part;
}

/// `start` (an accumulatorStart) computed on its part at `offsets`, `sizes`
/// only, into `into` (that part of the tensor a product accumulates in).
Value startPart(RewriterBase &rewriter, linalg::LinalgOp start,
                ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                Value into) {
  SmallVector<Value> operands = linalg::makeTiledShapes(
      rewriter, start.getLoc(), start, start->getOperands(), offsets, sizes,
      /*sizeBounds=*/{}, /*omitPartialTileCheck=*/true);
  Value &init = operands[start.getDpsInitOperand(0)->getOperandNumber()];
  Value unused = init;
  init = into;
  if (unused.use_empty())
    rewriter.eraseOp(unused.getDefiningOp());
  auto part = cast<linalg::LinalgOp>(
      clone(rewriter, start, TypeRange{into.getType()}, operands));
  linalg::offsetIndices(rewriter, part, offsets);
  return part->getResult(0);
}

/// `op` split along loop `loop` at `at`: the op on the iterations before
/// it, then the op on those after, each writing its part of the output.
/// Returns the two ops. With `inputs`, a chunkInput of `op` that the loop
/// slices is split with it, each piece computing its own part (which
/// fuseChunkInputs can then move into the piece's chunks); the two parts
/// are added to `inputs`. With `chained`, the second piece writes into the
/// first's result, so that both write one buffer in place; without, each
/// reads its part of the output as it was, so that the pieces depend on
/// nothing of each other (splitEpilogue's pieces each fuse into a loop).
std::pair<linalg::LinalgOp, linalg::LinalgOp>
split(RewriterBase &rewriter, linalg::LinalgOp op, unsigned loop, int64_t at,
      SmallVector<linalg::LinalgOp> *inputs = nullptr, bool chained = true) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t size = op.getStaticLoopRanges()[loop];
  Value init = op.getDpsInitOperand(0)->get();
  // Rows [offset, offset + length) of `operand` along the dimension that
  // loop `loop` indexes, if any.
  auto part = [&](OpOperand &operand, int64_t offset, int64_t length) {
    // A scalar operand (a fill's value) is not sliced.
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    int64_t rank = type ? type.getRank() : 0;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)), sizes,
        strides(rank, rewriter.getIndexAttr(1));
    for (int64_t d : type ? type.getShape() : ArrayRef<int64_t>())
      sizes.push_back(rewriter.getIndexAttr(d));
    bool sliced = false;
    for (auto [d, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr); dim && dim.getPosition() == loop) {
        offsets[d] = rewriter.getIndexAttr(offset);
        sizes[d] = rewriter.getIndexAttr(length);
        sliced = true;
      }
    return std::make_tuple(sliced, offsets, sizes, strides);
  };
  // The piece of `op` on [offset, offset + length), reading the part of
  // `output` it covers as its output; returns it and `into` with its
  // result inserted.
  OpOperand &initOperand = *op.getDpsInitOperand(0);
  // Pieces of an output that starts as an accumulatorStart (a matmul's
  // zeros), split along a loop that slices it, each compute their own part
  // of the start, so that each can move it into its tiles (fuseStart).
  linalg::LinalgOp start = accumulatorStart(init);
  if (start && std::get<0>(part(initOperand, 0, at)))
    init = start.getDpsInitOperand(0)->get();
  else
    start = nullptr;
  auto piece = [&](int64_t offset, int64_t length, Value output, Value into) {
    SmallVector<Value> operands;
    for (OpOperand &operand : op->getOpOperands()) {
      auto [sliced, offsets, sizes, strides] = part(operand, offset, length);
      Value source = &operand == &initOperand ? output : operand.get();
      bool splitInput = sliced && inputs && chunkInput(source);
      Value value = sliced ? tensor::ExtractSliceOp::create(
                                 rewriter, loc, source, offsets, sizes, strides)
                                 .getResult()
                           : source;
      if (splitInput)
        if (linalg::LinalgOp own = ownPart(
                rewriter, value.getDefiningOp<tensor::ExtractSliceOp>())) {
          value = own->getResult(0);
          inputs->push_back(own);
        }
      if (start && &operand == &initOperand)
        value = startPart(rewriter, start, offsets, sizes, value);
      operands.push_back(value);
    }
    Type resultType = operands[initOperand.getOperandNumber()].getType();
    auto tiled = cast<linalg::LinalgOp>(
        clone(rewriter, op, TypeRange{resultType}, operands));
    // A payload that reads its position (a gather's linalg.index) reads
    // it within the piece: shift it to the whole op's.
    SmallVector<OpFoldResult> shift(op.getNumLoops(),
                                    rewriter.getIndexAttr(0));
    shift[loop] = rewriter.getIndexAttr(offset);
    linalg::offsetIndices(rewriter, tiled, shift);
    auto [sliced, offsets, sizes, strides] =
        part(initOperand, offset, length);
    Value inserted = tensor::InsertSliceOp::create(
        rewriter, loc, tiled->getResult(0), into, offsets, sizes, strides);
    return std::make_pair(tiled, inserted);
  };
  auto [first, partial] = piece(0, at, init, init);
  auto [second, result] =
      piece(at, size - at, chained ? partial : init, partial);
  rewriter.replaceOp(op, result);
  return {first, second};
}

/// Rows and columns of a transpose's square blocks (tileTranspose).
constexpr int64_t kTransposeBlock = 16;

/// The loop along which the all-parallel `op` on 8- to 32-bit elements
/// reads an operand, where it writes along another (linalg.transpose, a
/// product's transposed operand), if any.
std::optional<unsigned> transposedLoop(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops < 2 || loops != op.getNumParallelLoops() ||
      op->getNumResults() != 1 ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return std::nullopt;
  unsigned innermost = loops - 1;
  std::optional<unsigned> across;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!type || map.getNumResults() == 0)
      continue;
    // A row broadcast along the innermost loop (a normalization's row
    // statistics) is no transpose: its map does not use that loop.
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (dim && dim.getPosition() != innermost &&
        map.isFunctionOfDim(innermost) &&
        type.getElementType().isIntOrFloat() &&
        llvm::is_contained({8u, 16u, 32u}, type.getElementTypeBitWidth()))
      across = dim.getPosition();
  }
  return across;
}

/// Square blocks of a transpose (transposedLoop) run in blocks of 16 x 16
/// over the loop it reads along and the innermost, each read as 16 rows and
/// transposed in registers (kiln-lower-vectors: 16 x 16 shuffles of 32-bit
/// words, narrower elements widened), instead of gathering an element per
/// lane; rows and columns past the last whole block are split off and
/// tiled as rows. An innermost loop of 4 or 8 (a batch of 8 moved last:
/// NHWC to CHWN, as a convolution's weight gradient reads its input) takes
/// blocks of 16 x 4 or 16 x 8, padded to 16 x 16 in registers. Returns
/// whether it did.
bool tileTranspose(RewriterBase &rewriter, linalg::LinalgOp op) {
  constexpr int64_t kBlock = kTransposeBlock;
  std::optional<unsigned> across = transposedLoop(op);
  if (!across)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned innermost = ranges.size() - 1;
  bool narrow = ranges[innermost] == 4 || ranges[innermost] == 8;
  if (ranges[*across] < kBlock || (ranges[innermost] < kBlock && !narrow))
    return false;
  // Rows or columns past the last whole block run on their own, as rows.
  for (unsigned loop : {*across, innermost})
    if (ranges[loop] % kBlock != 0 && !(loop == innermost && narrow)) {
      auto [whole, rest] =
          split(rewriter, op, loop, ranges[loop] - ranges[loop] % kBlock);
      tileElementwise(rewriter, whole, kBlock);
      tileElementwise(rewriter, rest, kBlock);
      return true;
    }
  SmallVector<int64_t> sizes(ranges.size(), 1);
  sizes[*across] = kBlock;
  sizes[innermost] = std::min(kBlock, ranges[innermost]);
  if (Operation *tiled = tile(rewriter, op, sizes)) {
    vectorize(rewriter, tiled);
    return true;
  }
  return false;
}

/// Marks the loops that tileElementwise tiled `tiled` in (one scf.for per
/// loop of the op, in `order`, default the op's, innermost last; see
/// reductionsInside) to be kept rolled by LLVM where they
/// step along a reduction. Such a loop carries its accumulators from one
/// step to the next: unrolling it adds no independent work, but lets the
/// scheduler reorder the loads of many steps, which made streaming a
/// matrix-vector product's misaligned rows slower (4096 x 1000: 0.35 ms
/// unrolled, 0.28 rolled; layer norm 4096 x 1024 1.59 and 1.44 ms). Int8
/// lanes of quads (tileLaneQuads) and matmuls keep LLVM's unrolling: their
/// short steps ran 7-17% slower rolled.
void keepReductionLoopsRolled(RewriterBase &rewriter, linalg::LinalgOp tiled,
                              ArrayRef<int64_t> order) {
  MLIRContext *context = rewriter.getContext();
  auto rolled = LLVM::LoopAnnotationAttr::get(
      context, {}, {}, {},
      LLVM::LoopUnrollAttr::get(context, rewriter.getBoolAttr(true), {}, {}, {},
                                {}, {}, {}),
      {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
  // scf-to-cf forwards the LLVM dialect's attributes of a loop to its back
  // edge, where cf-to-llvm makes the one of this name llvm.br's annotation.
  StringAttr name = LLVM::BrOp::getLoopAnnotationAttrName(
      OperationName(LLVM::BrOp::getOperationName(), context));
  SmallVector<utils::IteratorType> types = tiled.getIteratorTypesArray();
  Operation *loop = tiled;
  for (size_t step = types.size(); step-- > 0;) {
    loop = loop->getParentOfType<scf::ForOp>();
    if (!loop)
      return;
    if (types[order.empty() ? step : order[step]] ==
        utils::IteratorType::reduction)
      loop->setAttr(name, rolled);
  }
}

/// The loops of `op` in the order its tiles step along them: its parallel
/// loops, then its reduction loops, when the innermost is parallel (a sum
/// over rows); else empty (the op's order). A row of results then stays in
/// registers over every step of its reductions, where with the op's order
/// each step loaded and stored it (64 x 128 x 768 summed over [0, 1]: 1.19
/// ms, 21 GB/s; 0.32 ms in rows of 256).
SmallVector<int64_t> reductionsInside(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> types = op.getIteratorTypesArray();
  if (types.back() != utils::IteratorType::parallel ||
      op.getNumReductionLoops() == 0)
    return {};
  SmallVector<int64_t> order;
  for (auto kind :
       {utils::IteratorType::parallel, utils::IteratorType::reduction})
    for (auto [loop, type] : llvm::enumerate(types))
      if (type == kind)
        order.push_back(loop);
  return order;
}

/// Vector registers of results a row of a reduction with its reductions
/// inside (reductionsInside) carries at most: half of AVX-512's 32, all of
/// AVX2's 16 (rows of 1 KiB there, 32 ymm registers, spilled: on an AMD
/// Zen 3, column sums of 8192 x 768 took 1.13 ms in them, 0.87 in rows of
/// 512 bytes; of 2048 x 2048 0.92 and 0.64; a column max of 1024 x 8192
/// 3.75 and 2.57).
constexpr int64_t kAccumulatorRowRegisters = 16;

/// The length of rows that tileElementwise tiles `op` in, given rows of
/// `width` elements for elementwise ops: up to 4 x `width` (at most
/// `accumulatorBytes` of results) where `op`'s reductions step inside
/// (reductionsInside). Rows of 64 f32 read 256 bytes of each row of the
/// input before moving on to the next, rows of 256 change pages 4 times less
/// often (a column sum of 6144 x 1024 0.74 -> 0.45 ms, of 8192 x 768 0.42 ->
/// 0.32, on AVX-512).
int64_t rowLength(linalg::LinalgOp op, int64_t width, int64_t accumulatorBytes,
                  bool inside) {
  if (!inside)
    return width;
  int64_t resultBytes = 0;
  for (Type type : op->getResultTypes())
    resultBytes += kiln::elementBytes(getElementTypeOrSelf(type));
  return std::clamp<int64_t>(
      accumulatorBytes / std::max<int64_t>(1, resultBytes), width, 4 * width);
}

/// Elementwise: rows of up to `width` along the innermost loop (of a
/// reduction with its reductions inside, longer, rowLength). Where no
/// row length near `width` divides that loop (a row of 50257), the
/// multiple of `width` below it runs in rows of `width` and the rest as one
/// shorter row, instead of rows too short to vectorize. Rows of bf16 or
/// f16 have a power-of-two length: LLVM cannot legalize every operation on
/// odd-sized vectors of them; a loop no power of two near `width` divides
/// splits into parts that one does (129: 128 and 1; 63: 32, 16, ..., 1),
/// where its one largest divisor (1) ran element by element.
void tileElementwise(RewriterBase &rewriter, linalg::LinalgOp op, int64_t width,
                     int64_t accumulatorBytes) {
  if (tileTranspose(rewriter, op))
    return;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> sizes(ranges.size(), 1);
  int64_t size = ranges.back();
  unsigned innermost = ranges.size() - 1;
  bool narrow = hasNarrowFloats(op);
  SmallVector<int64_t> order = reductionsInside(op);
  int64_t row =
      rowLength(op, width, accumulatorBytes, !order.empty() && !narrow);
  // A reduction along that loop sums the rest onto the first part's
  // result (a biased int8 product's row sums over K = 517 ran element by
  // element).
  int64_t power = int64_t(llvm::bit_floor(uint64_t(row)));
  bool splits = narrow ? (size & -size) < std::min(size, power)
                       : size > row && dividingTile(size, row) < row / 4;
  if (splits &&
      (op.getIteratorTypesArray()[innermost] == utils::IteratorType::parallel ||
       op->getNumResults() == 1)) {
    int64_t at = !narrow        ? size - size % row
                 : size > power ? size - size % power
                                : int64_t(llvm::bit_floor(uint64_t(size)));
    auto [whole, rest] = split(rewriter, op, innermost, at);
    tileElementwise(rewriter, whole, width, accumulatorBytes);
    tileElementwise(rewriter, rest, width, accumulatorBytes);
    return;
  }
  // size & -size: the largest power of two that divides size.
  sizes.back() = dividingTile(narrow ? size & -size : size, row);
  if (auto tiled = dyn_cast_or_null<linalg::LinalgOp>(
          tile(rewriter, op, sizes, order))) {
    keepReductionLoopsRolled(rewriter, tiled, order);
    vectorize(rewriter, tiled.getOperation());
  }
}

/// Rows from which a matmul's narrow columns are padded (tileMatmul): the
/// copy of B costs about 1 / M of the product.
constexpr int64_t kPaddedColumnsMinRows = 32;

/// `value`, a tensor of floats or signed integers, widened (exactly) to
/// `element` by an elementwise op.
Value widenedTo(RewriterBase &rewriter, Location loc, Value value,
                Type element) {
  auto type = cast<RankedTensorType>(value.getType());
  AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
  return kiln::buildParallelGeneric(
      rewriter, loc, type.clone(element), value, identity,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        return kiln::widen(b, loc, args[0], element);
      });
}

/// `op` (a matmul of bf16 or f16, or of int8) computed from its operands
/// widened to `element` (f32, or i16; a copy of each: the product
/// accumulates in f32 or i32 either way); returns the new matmul. Copies
/// made while tiling are left to the loop lowering: as plain loops, LLVM
/// vectorizes them, where vectors of an odd number of bf16 or f16 would be
/// legalized element by element.
linalg::LinalgOp withWideOperands(RewriterBase &rewriter, linalg::LinalgOp op,
                                  Type element) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> inputs = {
      widenedTo(rewriter, loc, op->getOperand(0), element),
      widenedTo(rewriter, loc, op->getOperand(1), element)};
  Value acc = op->getOperand(2);
  Operation *wide =
      isa<linalg::BatchMatmulOp>(op.getOperation())
          ? linalg::BatchMatmulOp::create(rewriter, loc, acc.getType(), inputs,
                                          acc)
                .getOperation()
          : linalg::MatmulOp::create(rewriter, loc, acc.getType(), inputs, acc)
                .getOperation();
  rewriter.replaceOp(op, wide->getResults());
  return cast<linalg::LinalgOp>(wide);
}

/// The steps of a product's loop after K, which counts groups of them: a
/// packed quad product's 4, a panel product's pairs (2); else 0.
int64_t stepsAfterK(linalg::LinalgOp op) {
  if (kiln::isPackedQuadProduct(op))
    return 4;
  return kiln::panelProductGroup(op) == 2 ? 2 : 0;
}

/// The loop of a matmul's M ([B,] M, N, K, and the steps after K).
size_t firstMatmulLoop(linalg::LinalgOp op) {
  return op.getNumLoops() - 3 - (stepsAfterK(op) ? 1 : 0);
}

/// A quad pack (kiln::isQuadPack) in tiles of 16 columns, and of 16 quads
/// when it transposes B^T's (16 x 16 32-bit words); rows or columns past
/// the last whole tile as a smaller one.
void tileQuadPack(RewriterBase &rewriter, linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges(); // [B,] Q, N, 4
  size_t batch = ranges.size() - 3;
  int64_t quads = kiln::isTransposedQuadPack(op) ? 16 : 1;
  for (auto [loop, size] : {std::pair<size_t, int64_t>{batch, quads},
                            {batch + 1, 16}})
    if (ranges[loop] > size && ranges[loop] % size != 0) {
      auto [first, second] =
          split(rewriter, op, loop, ranges[loop] - ranges[loop] % size);
      tileQuadPack(rewriter, first);
      tileQuadPack(rewriter, second);
      return;
    }
  SmallVector<int64_t> sizes(batch, 1);
  sizes.append({std::min(ranges[batch], quads),
                std::min<int64_t>(ranges[batch + 1], 16), 4});
  if (auto tiled = dyn_cast_or_null<linalg::LinalgOp>(tile(rewriter, op, sizes)))
    kiln::vectorizeQuadPack(rewriter, tiled);
}

/// A pack of B's rows into panels, of rows (kiln::isRowPanelPack, `group`
/// 1) or of pairs of them (kiln::isPairPack, 2), in tiles of a group of
/// rows of one panel. Rows outside panels: B is read row by row, where a
/// panel at a time read a line of each row, a page every row or two, which
/// hardware prefetchers do not follow (bf16 1024^3's B packed at about 2.5
/// GB/s, its loads missing; on an AMD Zen 3, f32 36 x 4096 x 1024, whose B
/// streams from memory, spent 40% of its time packing panel by panel: 6.8
/// -> 5.3 ms, 64 x 1024 x 1024 2.28 -> 1.74, 128 x 4096 x 4096 60 -> 54).
void tilePanelPack(RewriterBase &rewriter, linalg::LinalgOp op, int64_t group) {
  // [B,] J, Q, C[, 2]
  unsigned loops = op.getNumLoops(), panel = loops - (group == 1 ? 3 : 4);
  SmallVector<int64_t> sizes(loops, 1);
  sizes[panel + 2] = op.getStaticLoopRanges()[panel + 2];
  if (group != 1)
    sizes.back() = group;
  SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, loops));
  std::swap(order[panel], order[panel + 1]);
  auto tiled =
      dyn_cast_or_null<linalg::LinalgOp>(tile(rewriter, op, sizes, order));
  if (tiled && group == 1)
    vectorize(rewriter, tiled.getOperation());
  else if (tiled)
    kiln::vectorizePairPack(rewriter, tiled);
}

/// Rows of an int8 matrix-vector product in lanes of quads per tile: each
/// row's vpdpbusd depends on its previous one, so 8 rows keep 8 in flight.
constexpr int64_t kLaneQuadRows = 8;

/// An int8 matrix-vector product in lanes of quads (kiln::isByteLaneQuads,
/// loops m, g, l, j) in tiles of kLaneQuadRows rows and one group of
/// lanes; rows past the last whole tile as a smaller one.
void tileLaneQuads(RewriterBase &rewriter, linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges[0] > kLaneQuadRows && ranges[0] % kLaneQuadRows != 0) {
    auto [first, second] =
        split(rewriter, op, 0, ranges[0] - ranges[0] % kLaneQuadRows);
    tileLaneQuads(rewriter, first);
    tileLaneQuads(rewriter, second);
    return;
  }
  if (auto tiled = dyn_cast_or_null<linalg::LinalgOp>(tile(
          rewriter, op,
          {std::min(ranges[0], kLaneQuadRows), 1, ranges[2], ranges[3]})))
    kiln::vectorizeLaneQuads(rewriter, tiled);
}

/// Bytes of the lanes a thin product sums along K: an AVX-512 register.
constexpr int64_t kThinProductLaneBytes = 64;

/// Columns up to which a matmul is thin (isThinProduct).
constexpr int64_t kThinProductMaxColumns = 8;

/// Vectors of lanes a thin product's register tile accumulates in (its
/// rows times its columns): the registers of a matmul's register tile of
/// f32, 16 on AVX-512 (8 x 32), 6 of 2 registers each on AVX2 (6 x 16).
int64_t laneAccumulators(const MatmulTiles &tiles) {
  return std::max<int64_t>(1, tiles.registerM * tiles.registerN * 4 /
                                  kThinProductLaneBytes);
}

/// Rows of a register tile in lanes of `columns` columns (or outputs):
/// rows x columns <= laneAccumulators, at most a register tile's rows.
int64_t laneTileRows(int64_t columns, const MatmulTiles &tiles) {
  return std::clamp<int64_t>(laneAccumulators(tiles) / columns, 1,
                             tiles.registerM);
}

/// Elements of `element` in a vector of a thin product's lanes.
int64_t thinProductLanes(Type element) {
  return kThinProductLaneBytes / kiln::elementBytes(element);
}

/// Steps of a thin product that pay for a vector of lanes' sum (its lanes
/// halved 4 times, once per element of C), with N a power of two or not:
/// register tiles of other widths are padded (B copied) or split (a pass
/// over A per part). Measured against register tiles: 64 x 64 x 4 0.88x
/// and 512 x 40 x 2 0.92x as fast in lanes, 1000 x 100 x 4 1.4x; a 3 x 3
/// convolution's 3 outputs from 64 features (64 steps) 1.9x, LeNet's input
/// gradient's 6 from 80 1.7x.
constexpr int64_t kLaneSumSteps = 18, kLaneSumStepsOddColumns = 8;

/// Whether `columns` of a product, each summing `steps` products, pay for
/// vectors of `lanes` along the steps (kLaneSumSteps): an element of C then
/// takes steps / lanes FMAs and a sum, instead of steps / columns FMAs.
bool lanesPay(int64_t columns, int64_t steps, int64_t lanes) {
  int64_t sumSteps = llvm::has_single_bit(uint64_t(columns))
                         ? kLaneSumSteps
                         : kLaneSumStepsOddColumns;
  return columns <= kThinProductMaxColumns && columns < lanes &&
         steps * (lanes - columns) >= sumSteps * columns * lanes;
}

/// The element type of the first input of `op`.
Type inputElement(linalg::LinalgOp op) {
  return getElementTypeOrSelf(op.getDpsInputs().front().getType());
}

/// The element type of the accumulator of the matmul `op` (its third
/// operand).
Type accumulatorElement(linalg::LinalgOp op) {
  return getElementTypeOrSelf(op->getOperand(2).getType());
}

/// The element type of the accumulator of `op` where products sum in lanes
/// of it: f32 or f64 with every input of that type, or f32 with every input
/// bf16 or every input f16 (widened as they are read:
/// kiln::yieldAccumulatedProduct); else null.
Type laneElement(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return Type();
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  Type input = inputElement(op);
  bool same = llvm::all_of(op.getDpsInputs(), [&](Value value) {
    return getElementTypeOrSelf(value.getType()) == input;
  });
  bool wide = (element.isF32() || element.isF64()) && input == element;
  bool narrow = element.isF32() && (input.isBF16() || input.isF16());
  return same && (wide || narrow) ? element : Type();
}

/// Whether `op` is a thin product: a matmul or batch matmul summing in f32
/// or f64 (of them, or of bf16 or f16), of at most
/// kThinProductMaxColumns columns, whose register tiles would be rows of N
/// lanes (of 16) broadcasting an element of A a step (256 x 784 x 2: 0.034
/// ms, as long as 8 columns; numpy 0.009), and with K long enough for
/// vectors of lanes along it to pay for their sums (lanesPay). Register
/// tiles that multiply bf16 in pairs (`bf16Pairs`) fill 2N lanes a step:
/// against them, lanes pay as for twice the columns (bf16 256 x 784 x 2
/// 0.029 -> 0.0084 ms in lanes, x 4 0.022 -> 0.015, x 8 0.022 and 0.032).
bool isThinProduct(linalg::LinalgOp op, bool bf16Pairs) {
  Type element = laneElement(op);
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
      !element)
    return false;
  Type input = inputElement(op);
  bool pairs = kiln::multipliesInPairs(input, input, element, bf16Pairs, false);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  size_t m = firstMatmulLoop(op);
  return lanesPay(ranges[m + 1] * (pairs ? 2 : 1), ranges[m + 2],
                  thinProductLanes(element));
}

/// `out` plus the float sums of `values` along dimension `dim` (out's
/// shape and that dimension).
linalg::ReduceOp addAlong(OpBuilder &b, Location loc, Value values, Value out,
                          int64_t dim) {
  return linalg::ReduceOp::create(
      b, loc, values, out, ArrayRef<int64_t>{dim},
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(
            b, loc,
            ValueRange{arith::AddFOp::create(b, loc, args[0], args[1])});
      });
}

/// `out` plus the sums of `lanes`' last dimension (out's shape and the
/// lanes).
linalg::ReduceOp addLanes(OpBuilder &b, Location loc, Value lanes, Value out) {
  return addAlong(b, loc, lanes, out,
                  cast<RankedTensorType>(lanes.getType()).getRank() - 1);
}

/// A register tile [R, N, K] of a thin product (A [R, K] times B^T [N, K],
/// withTransposedB; of one batch, [1, R, N, K]) summing R x N vectors of
/// lanes along K: partial[r, n, l] = sum over g of A[r, g L + l] B^T[n, g L
/// + l], a step of every vector per group g; then each vector's lanes
/// added into C, and the products past the last whole group.
void sumInLanes(RewriterBase &rewriter, linalg::LinalgOp tile) {
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  bool batch = tile.getNumLoops() == 4;
  // A batch's operands without their batch dimension of 1.
  auto unbatched = [&](Value operand) {
    auto type = cast<RankedTensorType>(operand.getType());
    return batch ? tensor::createCanonicalRankReducingExtractSliceOp(
                       rewriter, loc, operand,
                       RankedTensorType::get(type.getShape().drop_front(),
                                             type.getElementType()))
                 : operand;
  };
  Value a = unbatched(tile->getOperand(0)), bt = unbatched(tile->getOperand(1)),
        c = unbatched(tile->getOperand(2));
  Type element = getElementTypeOrSelf(c.getType());
  SmallVector<int64_t> ranges = tile.getStaticLoopRanges();
  if (batch)
    ranges.erase(ranges.begin());
  int64_t rows = ranges[0], columns = ranges[1], k = ranges[2];
  int64_t lanes = thinProductLanes(element), whole = k - k % lanes;
  auto groups = [&](Value operand) {
    return kiln::splitDim(rewriter, loc,
                          kiln::sliceAlong(rewriter, loc, operand, 1, 0, whole),
                          1, lanes);
  };
  MLIRContext *context = rewriter.getContext();
  AffineExpr m, n, g, l;
  bindDims(context, m, n, g, l);
  using utils::IteratorType;
  auto zeros = kiln::filledTensor(
      rewriter, loc, RankedTensorType::get({rows, columns, lanes}, element),
      kiln::scalarConstant(rewriter, loc, element, 0));
  auto partial = linalg::GenericOp::create(
      rewriter, loc, TypeRange{zeros.getType()},
      ValueRange{groups(a), groups(bt)}, ValueRange{zeros},
      AffineMap::inferFromExprList(
          ArrayRef<ArrayRef<AffineExpr>>{{m, g, l}, {n, g, l}, {m, n, l}},
          context),
      ArrayRef<IteratorType>{IteratorType::parallel, IteratorType::parallel,
                             IteratorType::reduction, IteratorType::parallel},
      kiln::yieldAccumulatedProduct);
  // The products past the last whole group, added into their first lanes.
  Value lanesDone = partial->getResult(0);
  linalg::GenericOp rest;
  if (whole != k) {
    auto first = cast<tensor::ExtractSliceOp>(
        kiln::sliceAlong(rewriter, loc, lanesDone, 2, 0, k - whole)
            .getDefiningOp());
    // Loops m, n and the lane, d0, d1 and d2.
    rest = linalg::GenericOp::create(
        rewriter, loc, TypeRange{first.getType()},
        ValueRange{kiln::sliceAlong(rewriter, loc, a, 1, whole, k - whole),
                   kiln::sliceAlong(rewriter, loc, bt, 1, whole, k - whole)},
        ValueRange{first},
        AffineMap::inferFromExprList(
            ArrayRef<ArrayRef<AffineExpr>>{{m, g}, {n, g}, {m, n, g}}, context),
        SmallVector<IteratorType>(3, IteratorType::parallel),
        kiln::yieldAccumulatedProduct);
    lanesDone = tensor::InsertSliceOp::create(
        rewriter, loc, rest->getResult(0), lanesDone, first.getMixedOffsets(),
        first.getMixedSizes(), first.getMixedStrides());
  }
  linalg::ReduceOp sum = addLanes(rewriter, loc, lanesDone, c);
  Value result = sum->getResult(0);
  if (batch)
    result = tensor::createCanonicalRankReducingInsertSliceOp(
        rewriter, loc, result, tile->getOperand(2));
  rewriter.replaceOp(tile, result);
  ::vectorize(rewriter, zeros.getDefiningOp());
  // A step per group, the accumulators carried from one to the next.
  if (Operation *step = ::tile(rewriter, partial, {0, 0, 1, 0}))
    ::vectorize(rewriter, step);
  if (rest)
    ::vectorize(rewriter, rest);
  ::vectorize(rewriter, sum);
}

/// `value` (a tensor of rank 2 or more) with its last two dimensions
/// swapped.
linalg::TransposeOp transposeLastTwo(RewriterBase &rewriter, Location loc,
                                     Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> swap = kiln::lastTwoSwapped(type.getRank());
  Value empty = tensor::EmptyOp::create(rewriter, loc,
                                        applyPermutation(type.getShape(), swap),
                                        type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, value, empty, swap);
}

/// The thin product `op` as C[m, n] += A[m, k] B^T[n, k] (each batch's,
/// C[b, m, n] += A[b, m, k] B^T[b, n, k]), both operands read along K: B^T
/// is the transpose's input where B is one only `op` reads (x W^T), else B
/// transposed (in rows of `width`). Returns it.
linalg::LinalgOp withTransposedB(RewriterBase &rewriter, linalg::LinalgOp op,
                                 int64_t width) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value b = op->getOperand(1);
  int64_t rank = cast<RankedTensorType>(b.getType()).getRank();
  linalg::TransposeOp created;
  // A transpose left unread is erased with the unread ops.
  Value bt = kiln::lastTwoTransposeInput(b);
  if (!bt) {
    created = transposeLastTwo(rewriter, loc, b);
    bt = created->getResult(0);
  }
  MLIRContext *context = rewriter.getContext();
  // Loops [b,] m, n, k.
  SmallVector<AffineExpr> dims;
  for (unsigned loop = 0; loop < unsigned(rank) + 1; ++loop)
    dims.push_back(getAffineDimExpr(loop, context));
  ArrayRef<AffineExpr> batch = ArrayRef(dims).drop_back(3);
  AffineExpr m = dims[rank - 2], n = dims[rank - 1], k = dims[rank];
  auto map = [&](AffineExpr row, AffineExpr column) {
    SmallVector<AffineExpr> results(batch);
    results.append({row, column});
    return AffineMap::get(rank + 1, 0, results, context);
  };
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  iterators.push_back(IteratorType::reduction);
  auto product = linalg::GenericOp::create(
      rewriter, loc, op->getResultTypes(), ValueRange{op->getOperand(0), bt},
      ValueRange{op->getOperand(2)},
      ArrayRef<AffineMap>{map(m, k), map(n, k), map(m, n)}, iterators,
      kiln::yieldAccumulatedProduct);
  rewriter.replaceOp(op, product->getResults());
  if (created)
    tileElementwise(rewriter, created, width);
  return product;
}

/// A thin product (withTransposedB) in register tiles of R rows and all its
/// columns (laneTileRows), each summing in lanes (sumInLanes); rows past
/// the last whole tile as a tile of their own.
void tileThinRows(RewriterBase &rewriter, linalg::LinalgOp op,
                  const MatmulTiles &tiles) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  size_t m = ranges.size() - 3;
  int64_t rows = laneTileRows(ranges[m + 1], tiles);
  if (ranges[m] > rows && ranges[m] % rows != 0) {
    auto [whole, rest] = split(rewriter, op, m, ranges[m] - ranges[m] % rows);
    tileThinRows(rewriter, whole, tiles);
    tileThinRows(rewriter, rest, tiles);
    return;
  }
  // A batch at a time.
  SmallVector<int64_t> sizes(ranges.size(), 0);
  if (m == 1)
    sizes[0] = 1;
  sizes[m] = std::min(ranges[m], rows);
  if (auto tiled = dyn_cast_or_null<linalg::LinalgOp>(
          tile(rewriter, op, sizes, /*order=*/{},
               scf::SCFTilingOptions::LoopType::ForOp, tiles.vectorWidth)))
    sumInLanes(rewriter, tiled);
}

/// Whether rows of `columns` accumulators of `element`, wider than a
/// register, take no more registers as kiln-lower-vectors carries them (in
/// pieces of the powers of two of their binary expansion) than padded to
/// the next power of two: 6272 x 40 x 20 ran in 75 us as 16 + 4 lanes, 108
/// padded to 32 (B and C copied, C copied back), and x 24 in 78 us as 16 +
/// 8, 118 padded; x 28 in 127 us as 16 + 8 + 4, 101 padded. Rows that fit
/// a register LLVM widens to a power of two with extra moves (3000 x 100 x
/// 14: 66 us, 58 padded).
bool fitsPieces(int64_t columns, Type element) {
  int64_t lanes = thinProductLanes(element);
  auto registers = [&](uint64_t size) {
    return (int64_t(size) + lanes - 1) / lanes;
  };
  if (columns <= lanes)
    return false;
  int64_t pieces = 0;
  for (uint64_t rest = columns; rest != 0; rest &= rest - 1)
    pieces += registers(rest & -rest);
  return pieces <= registers(llvm::bit_ceil(uint64_t(columns)));
}

/// Replaces the product `op` by its clone on `a`, `b` and `acc` (its own
/// operands, padded with zeros), whose result is sliced back to `op`'s
/// from its first element; returns the clone.
linalg::LinalgOp replaceByPadded(RewriterBase &rewriter, linalg::LinalgOp op,
                                 Value a, Value b, Value acc) {
  auto padded = cast<linalg::LinalgOp>(
      clone(rewriter, op, TypeRange{acc.getType()}, ValueRange{a, b, acc}));
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Value result = padded->getResult(0);
  if (result.getType() != type) {
    MLIRContext *context = rewriter.getContext();
    SmallVector<int64_t> zeros(type.getRank(), 0), ones(type.getRank(), 1);
    result = tensor::ExtractSliceOp::create(
        rewriter, op.getLoc(), type, result,
        getAsIndexOpFoldResult(context, zeros),
        getAsIndexOpFoldResult(context, type.getShape()),
        getAsIndexOpFoldResult(context, ones));
  }
  rewriter.replaceOp(op, result);
  return padded;
}

/// The AMX panel product `op` (multipliesAmxTiles) with its rows (loop
/// `loop` its first matmul loop) or k pairs (its K loop) padded with zeros
/// to `size`, a whole AMX tile's: A's rows and C's, then C's rows sliced
/// back; A's pairs and the panels'. Where fewer than 16 rows or pairs are
/// left (a K of 784 leaves 8 of 392 pairs), copying them padded costs a
/// row of tiles, and runs them on AMX: on vdpbf16ps, 8 pairs of 392 took
/// 15% of a 256 x 784 x 512 product's time.
linalg::LinalgOp paddedAmxProduct(RewriterBase &rewriter, linalg::LinalgOp op,
                                  size_t loop, int64_t size) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value a = op->getOperand(0), panels = op->getOperand(1),
        acc = op->getOperand(2);
  // A [..., M, Q, 2], the panels [..., J, Q, 32, 2], C [..., M, J, 32].
  auto rankOf = [](Value value) {
    return unsigned(cast<RankedTensorType>(value.getType()).getRank());
  };
  bool rows = loop == firstMatmulLoop(op);
  if (rows) {
    a = kiln::zeroPadded(rewriter, loc, a, rankOf(a) - 3, size);
    acc = kiln::zeroPadded(rewriter, loc, acc, rankOf(acc) - 3, size);
  } else {
    a = kiln::zeroPadded(rewriter, loc, a, rankOf(a) - 2, size);
    panels = kiln::zeroPadded(rewriter, loc, panels, rankOf(panels) - 3, size);
  }
  return replaceByPadded(rewriter, op, a, panels, acc);
}

/// Vectorizes `tile`, a register tile of a few-row product that converts
/// its bf16 or f16 B as it reads it (MatmulTiles::convertsFewRows), a row
/// at a time: each row's step of A is then one element, where a column of
/// narrow floats was assembled through the stack, a store-forwarding stall
/// every step (bf16 2 x 1024 x 1024 on a Zen 3: 0.236 -> 0.080 ms; 1 x
/// 1024 x 1024 0.057); the rows' reads and conversions of B are the same
/// ops, which CSE merges.
void vectorizeRows(RewriterBase &rewriter, linalg::LinalgOp tile,
                   unsigned rowLoop) {
  if (tile.getStaticLoopRanges()[rowLoop] > 1) {
    auto [first, rest] = split(rewriter, tile, rowLoop, 1);
    ::vectorize(rewriter, first);
    return vectorizeRows(rewriter, rest, rowLoop);
  }
  ::vectorize(rewriter, tile);
}

/// Whether `op` is a slice or reshape of its source: its elements, viewed.
bool isSliceOrReshape(Operation *op) {
  return isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp,
             tensor::CollapseShapeOp>(op);
}

/// What `value` views: itself, or the source of the slices and reshapes it
/// is made by.
Value viewedSource(Value value) {
  while (Operation *view = value.getDefiningOp()) {
    if (!isSliceOrReshape(view))
      break;
    value = view->getOperand(0);
  }
  return value;
}

/// The most bytes of B that a product of a few rows reads from L3 at most
/// (this project's CPUs have 32 MiB or more): larger, B streams from
/// memory.
constexpr int64_t kStreamedBMinBytes = 4 << 20;

/// The distance between rows of B and C, in bytes, a multiple of which puts
/// them in one set of L1 (a 4 KiB way).
constexpr int64_t kSameSetRowBytes = 4096;

/// Whether `op`, a linalg matmul or batch_matmul of f32, f64 or integers,
/// unpacked (fewer than kiln::kPanelMinRows rows), reads a B of more than
/// kStreamedBMinBytes: each row of B is used by few rows of A and streams
/// from memory (16 x 1024 x 1024, 4 MiB, ran 0.56 ms in cache tiles of
/// 256 x 256, 0.60 streamed). Not where B's and C's rows fall in one L1
/// set and more than 2 register tiles of `registerM` rows re-read each line
/// of B between C's lines (on an AMD Zen 3, 24 x 4096 x 4096 ran 18.8 ms
/// in cache tiles, 22.8 streamed; 8 x 4096 x 4096 11.2 and 5.6).
bool streamsRowsOfB(linalg::LinalgOp op, int64_t registerM) {
  int64_t m = op.getStaticLoopRanges()[firstMatmulLoop(op)];
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
      hasNarrowFloats(op) || m >= kiln::kPanelMinRows)
    return false;
  auto c = cast<ShapedType>(op->getOperand(2).getType());
  int64_t rowBytes =
      c.getShape().back() * kiln::elementBytes(c.getElementType());
  if (m > 2 * registerM && rowBytes % kSameSetRowBytes == 0)
    return false;
  // The whole B decides: a chunk's or a piece's part of it streams too.
  return kiln::storageBytes(cast<ShapedType>(
             viewedSource(op->getOperand(1)).getType())) > kStreamedBMinBytes;
}

/// f32, f64 or integer matmul, batched (one leading batch loop) or not: cache
/// tiles, then register tiles over single k steps, one batch at a time. No
/// dimension has a partial tile: where M, N or K is not a whole number of cache
/// tiles, or M or N of register tiles, the op splits at the last whole
/// tile and each part is tiled on its own (the rest of M or N as one
/// smaller tile, the rest of K as a shorter cache tile accumulating onto
/// the first part's result). A register tile narrower than the full width
/// and not a power of two is padded to one, or with few rows splits into
/// power-of-two widths: LLVM legalizes a vector of 31 floats element by
/// element. bf16 and f16 operands need whole tiles (LLVM
/// cannot legalize odd-sized vectors of them): off them, they are widened
/// to f32 first, except with fewer rows than a register tile (B converted
/// as it is read, in columns of power-of-two widths) and for bf16 -> f32 tiles
/// of k pairs, which kiln-lower-vectors pads itself; of those, an odd K's last
/// step runs as a tile of its own.
void tileMatmul(RewriterBase &rewriter, linalg::LinalgOp op,
                MatmulTiles tiles) {
  // [B,] M, N, K; a packed quad product's K counts quads, then its steps.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  bool packed = kiln::isPackedQuadProduct(op);
  size_t batch = firstMatmulLoop(op);
  int64_t m = ranges[batch], n = ranges[batch + 1], k = ranges[batch + 2];
  // A vdpbf16ps panel's rows are contiguous: as many of them as a cache
  // tile of B holds stay in L2 (1024^3: 192 -> 200 GFLOP/s over K tiles of
  // 256, on an AMD Zen 5).
  int64_t panels = kiln::panelProductGroup(op), steps = stepsAfterK(op);
  int64_t panelsPerTile = std::max<int64_t>(1, tiles.cacheN / tiles.registerN);
  int64_t firstK = splitCacheTileK(op, tiles);
  int64_t cacheK = packed   ? std::max<int64_t>(1, tiles.cacheK / 4)
                   : firstK ? firstK
                   : panels ? tiles.cacheK * panelsPerTile / panels
                            : tiles.cacheK;
  bool pairs = kiln::multipliesInPairs(
      getElementTypeOrSelf(op->getOperand(0).getType()),
      getElementTypeOrSelf(op->getOperand(1).getType()), accumulatorElement(op),
      tiles.bf16Pairs, tiles.intPairs);
  // Biased int8 products (kiln::biasByteProducts) multiply k quads.
  bool quads = kiln::isByteQuadProduct(op);
  int64_t kStep = steps ? 1 : quads ? 4 : pairs ? 2 : 1;
  // AMX tiles take rows and k pairs 16 at a time: the rest of either is
  // split off and padded with zeros to 16.
  bool amx = multipliesAmxTiles(op, tiles);
  if (amx)
    for (auto [loop, unit] : {std::pair(batch, kiln::kAmxTileRows),
                              std::pair(batch + 2, kiln::kAmxTilePairs)}) {
      int64_t rest = ranges[loop] % unit;
      if (rest == 0)
        continue;
      if (ranges[loop] < unit)
        return tileMatmul(rewriter, paddedAmxProduct(rewriter, op, loop, unit),
                          tiles);
      auto [first, second] = split(rewriter, op, loop, ranges[loop] - rest);
      tileMatmul(rewriter, first, tiles);
      tileMatmul(rewriter, second, tiles);
      return;
    }
  // A product from zeros over more k steps than a cache tile's: its first
  // cache tile of K starts its tiles at zero (in registers or tilezero,
  // fuseStart), the rest accumulate onto it.
  if (firstK && ranges[batch + 2] > firstK &&
      accumulatorStart(op->getOperand(2))) {
    auto [first, second] = split(rewriter, op, batch + 2, firstK);
    tileMatmul(rewriter, first, tiles);
    tileMatmul(rewriter, second, tiles);
    return;
  }
  // 2 x 2 AMX tiles of C, of 2 of A and a panel's 2 of B: the 8 tile
  // registers, with as many tile loads as products.
  if (amx)
    tiles.registerM = tiles.cacheM = 2 * kiln::kAmxTileRows;
  // Fewer rows than a register tile take as many more columns, up to a
  // cache tile: a vector-matrix product with 2 accumulators would wait on
  // each FMA's latency. The register tile becomes that many rows, so that
  // the parts split below do not widen it again (8 rows of byte quads
  // reached 128 columns, 64 accumulators spilled to the stack). Such a
  // product streams B, each element used by those few rows: its cache tile
  // takes all of N, so that a K tile walks every column of its rows while
  // their lines are in cache (1 x 1024 x 1024: 0.175 -> 0.149 ms), and K
  // tiles of single steps are short (kFewRowsCacheK; pairs and quads,
  // whose B rows are narrower, keep theirs). So do 5 of AVX2's 6 rows,
  // whose power of two is more: in cache tiles of 256 x 256, their
  // register tiles walked down 256 rows of B 8 KiB apart (5 x 2048 x 2048
  // on an AMD Zen 3: 4.05 -> 1.06 ms).
  int64_t fewRows = int64_t(llvm::bit_ceil(uint64_t(m)));
  if (m < tiles.registerM) {
    tiles.cacheN = std::max(tiles.cacheN, n);
    // A power of two as many: 2 of AVX2's 6 rows took 48 columns, carried
    // as vectors of 32 and 16 shuffled together every k step; 5 take 16.
    int64_t wider = int64_t(llvm::bit_floor(
        uint64_t(std::max<int64_t>(1, tiles.registerM / fewRows))));
    tiles.registerN = std::min(tiles.cacheN, tiles.registerN * wider);
    tiles.registerM = std::min(fewRows, tiles.registerM);
    // In `tiles`, so that the parts split below keep it.
    if (kStep == 1 && !steps && !packed)
      cacheK = tiles.cacheK = std::min(cacheK, kFewRowsCacheK);
    // bf16 and f16 B converted to f32 as the rows stream it, whatever the
    // columns, instead of widened first (a copy of all of B): one row by a
    // 1024 x 1024 bf16 B took 0.19 ms widened, 0.056 converting (f32's
    // 0.064; on a Zen 3), by 1024 x 1000 0.160 -> 0.071; 4 rows by 4096 x
    // 1024 1.57 -> 0.74 (row by row: vectorizeRows).
    tiles.convertsFewRows = hasNarrowFloats(op) && !pairs;
  }
  // So do more rows, too few to pack B, where B streams from memory: a
  // register tile walking 256 of its rows a page apart read them a line at
  // a time, which prefetchers do not follow (on an AMD Zen 3, 7 x 2048 x
  // 2048 2.49 -> 1.07 ms, 16 x 768 x 3072 1.35 -> 1.12, 28 x 4096 x 4096
  // 18.7 -> 13.8, numpy 2.6, 1.2, 14.8).
  bool streamsB = m >= tiles.registerM && kStep == 1 && !steps && !packed &&
                  streamsRowsOfB(op, tiles.registerM);
  if (streamsB) {
    tiles.cacheN = std::max(tiles.cacheN, n);
    cacheK = tiles.cacheK = std::min(cacheK, kFewRowsCacheK);
  }
  // bf16 and f16 off whole tiles would run as plain loops (an f16 257 x
  // 129 x 63 took 5.6 ms; 0.05 ms widened). Few rows converting B split its
  // columns into whole tiles and parts of power-of-two widths instead
  // (below), their rows vectorized one by one.
  if (hasNarrowFloats(op) && !pairs && !tiles.convertsFewRows &&
      (m % tiles.registerM != 0 || n % tiles.registerN != 0))
    return tileMatmul(
        rewriter, withWideOperands(rewriter, op, rewriter.getF32Type()), tiles);
  alignCacheTiles(tiles);
  // Dot pairs and quads take rows of whole 8-lane groups only.
  bool pieces =
      pairs || quads || packed
          ? n % 8 == 0
          : !tiles.convertsFewRows && fitsPieces(n, accumulatorElement(op));
  bool narrow =
      n < tiles.registerN && !llvm::has_single_bit(uint64_t(n)) && !pieces;
  // Where `op` splits along `loop` at `at` (0: nowhere).
  auto splitPoint = [&](size_t loop) -> int64_t {
    int64_t size = ranges[loop];
    int64_t registerTile = loop == batch       ? tiles.registerM
                           : loop == batch + 1 ? tiles.registerN
                                               : kStep;
    int64_t cacheTile = loop == batch       ? tiles.cacheM
                        : loop == batch + 1 ? tiles.cacheN
                                            : cacheK;
    if (size > registerTile && size % registerTile != 0)
      return size - size % registerTile;
    if (loop == batch + 1 && narrow)
      return int64_t(llvm::bit_floor(uint64_t(size)));
    if (loop == batch + 2 && pairs && !quads && !steps && size > 1 &&
        size % 2 != 0)
      return size - 1;
    if (size > cacheTile && size % cacheTile != 0)
      return size - size % cacheTile;
    return 0;
  };
  // Fewer columns than a register tile, not a power of two (a classifier
  // head's 10): LLVM legalizes a vector of 10 floats element by element.
  // With enough rows, B's and C's columns are padded with zeros to the next
  // power of two, computed as one tile, and the columns asked for sliced
  // back; with few, copying B would cost more than the product, and the
  // columns split into power-of-two widths (8, 2), each a pass over A.
  if (narrow && m >= kPaddedColumnsMinRows) {
    int64_t padded = int64_t(llvm::bit_ceil(uint64_t(n)));
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value rhs =
        kiln::zeroPadded(rewriter, loc, op->getOperand(1), batch + 1, padded);
    Value acc =
        kiln::zeroPadded(rewriter, loc, op->getOperand(2), batch + 1, padded);
    tileMatmul(rewriter,
               replaceByPadded(rewriter, op, op->getOperand(0), rhs, acc),
               tiles);
    return;
  }
  // Rows of B streamed from memory (streamsRowsOfB) take B's cache tiles
  // first, the rows past the last whole register tile split inside them:
  // a product of whole tiles' rows and one of the rest each streamed all
  // of B (8 x 4096 x 4096 on an AMD Zen 3: 7.6 -> 5.8 ms).
  bool rowsInside =
      streamsB && m % tiles.registerM != 0 && (n > tiles.cacheN || k > cacheK);
  for (size_t loop : {batch, batch + 1, batch + 2})
    if (int64_t at = loop == batch && rowsInside ? 0 : splitPoint(loop)) {
      auto [first, second] = split(rewriter, op, loop, at);
      tileMatmul(rewriter, first, tiles);
      tileMatmul(rewriter, second, tiles);
      return;
    }
  if (rowsInside) {
    SmallVector<int64_t> blocks(batch, 1), order(batch);
    std::iota(order.begin(), order.end(), 0);
    blocks.append({0, std::min(n, tiles.cacheN), std::min(k, cacheK)});
    order.append({int64_t(batch + 1), int64_t(batch + 2), int64_t(batch)});
    if (auto inner = dyn_cast_or_null<linalg::LinalgOp>(
            tile(rewriter, op, blocks, order)))
      tileMatmul(rewriter, inner, tiles);
    return;
  }
  SmallVector<int64_t> cache(batch, 1), registers(batch, 1);
  cache.append({std::min(m, tiles.cacheM), std::min(n, tiles.cacheN),
                std::min(k, cacheK)});
  registers.append({std::min(m, tiles.registerM), std::min(n, tiles.registerN),
                    std::min(k, kStep)});
  if (steps) {
    cache.push_back(steps);
    registers.push_back(steps);
  }
  // Batch, then N, then K, then M: a panel of B stays in L2 while every row
  // block of A streams past it. A panel product's batch ends with its panel
  // (kiln::panelProductGroup): its row blocks stay in L2 while every panel
  // streams past them.
  SmallVector<int64_t> order;
  for (size_t loop = 0; loop < batch - (panels ? 1 : 0); ++loop)
    order.push_back(loop);
  if (amx)
    order.push_back(batch + 2);
  if (panels)
    order.append({int64_t(batch), int64_t(batch - 1)});
  order.push_back(batch + 1);
  if (!amx)
    order.push_back(batch + 2);
  if (!panels)
    order.push_back(batch);
  if (steps)
    order.push_back(batch + 3);
  // Where a cache tile runs over all of K, its start (zeros) moves on into
  // each register tile, written as one vector right before the tile's K
  // loop: kiln-lower-vectors forwards it to the accumulators, which start
  // in registers, where a block of zeros was stored and loaded back (16
  // stores and 16 loads a tile of 8 x 32: 638 x 4 x 350 ran at 57% of
  // oneDNN's speed, 95-100% without them).
  bool startsInRegisters = k <= cacheK;
  SmallVector<linalg::LinalgOp> starts;
  auto outer = dyn_cast_or_null<linalg::LinalgOp>(
      tile(rewriter, op, cache, order, scf::SCFTilingOptions::LoopType::ForOp,
           startsInRegisters ? kStartMovesOn : tiles.vectorWidth,
           /*inputs=*/nullptr, &starts));
  if (!outer)
    return;
  if (startsInRegisters) {
    SmallVector<int64_t> tileMN(registers);
    std::fill(tileMN.begin() + batch + 2, tileMN.end(), 0);
    SmallVector<linalg::LinalgOp> registerStarts;
    auto registerTile = dyn_cast_or_null<linalg::LinalgOp>(
        tile(rewriter, outer, tileMN, /*order=*/{},
             scf::SCFTilingOptions::LoopType::ForOp, kStartMovesOn,
             /*inputs=*/nullptr, &registerStarts));
    // One write of the register tile's zeros, which kiln-lower-vectors
    // forwards to its accumulators' read.
    for (linalg::LinalgOp start : registerStarts)
      ::vectorize(rewriter, start);
    // A start that did not move on is computed for the cache tile.
    for (linalg::LinalgOp start : starts) {
      if (start->use_empty())
        rewriter.eraseOp(start);
      else
        tileElementwise(rewriter, start, tiles.vectorWidth);
    }
    if (registerTile) {
      outer = registerTile;
      // Its rows and columns are the register tile's: only K is left.
      std::fill(registers.begin(), registers.begin() + batch + 2, 0);
    }
  }
  // An AMX register tile loops over its cache tile's k pairs itself
  // (kiln-lower-amx-tiles), its C tiles in tile registers throughout.
  if (amx) {
    std::fill(registers.begin() + batch + 2, registers.end(), 0);
    bool whole =
        llvm::all_of(llvm::zip_equal(registers, outer.getStaticLoopRanges()),
                     [](auto sizes) {
                       auto [size, range] = sizes;
                       return size == 0 || size >= range;
                     });
    Operation *amxTile =
        whole ? outer.getOperation() : tile(rewriter, outer, registers);
    if (amxTile)
      amxTile->setAttr(kiln::kAmxTileAttr, rewriter.getUnitAttr());
    return;
  }
  Operation *inner = tile(rewriter, outer, registers);
  if (inner && packed)
    kiln::vectorizePackedQuads(rewriter, cast<linalg::LinalgOp>(inner));
  else if (inner && quads)
    kiln::vectorizeByteQuads(rewriter, cast<linalg::LinalgOp>(inner));
  else if (inner && panels == 2)
    kiln::vectorizePanelPairs(rewriter, cast<linalg::LinalgOp>(inner));
  else if (inner && panels)
    ::vectorize(rewriter, kiln::panelTileAsMatmul(
                              rewriter, cast<linalg::LinalgOp>(inner)));
  else if (inner && tiles.convertsFewRows)
    vectorizeRows(rewriter, cast<linalg::LinalgOp>(inner), batch);
  else if (inner)
    vectorize(rewriter, inner);
}

/// Whether `op` is a linalg.matmul or linalg.batch_matmul accumulating in
/// f32 (from f32, or from bf16 / f16 operands widened as they are read), in
/// f64 from f64, or in i32 or i64 from integers of at most its width
/// (int8 weights and activations sign-extended as they are read).
bool isTiledMatmul(linalg::LinalgOp op) {
  if (kiln::isByteQuadProduct(op) || kiln::isPackedQuadProduct(op) ||
      kiln::panelProductGroup(op))
    return true;
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
    return false;
  Type lhs = getElementTypeOrSelf(op->getOperand(0).getType());
  Type rhs = getElementTypeOrSelf(op->getOperand(1).getType());
  Type acc = accumulatorElement(op);
  if (lhs != rhs)
    return false;
  if (acc.isF32())
    return lhs.isF32() || lhs.isBF16() || lhs.isF16();
  if (acc.isInteger(32) || acc.isInteger(64))
    return lhs.isInteger() && lhs.getIntOrFloatBitWidth() >= 8 &&
           lhs.getIntOrFloatBitWidth() <= acc.getIntOrFloatBitWidth();
  return lhs == acc && acc.isF64();
}

/// The output spatial dimensions of a line window product (or of its
/// tiles): its loops are batch, output spatial..., outputs, window... (as
/// many) and features.
unsigned outputSpatialDims(linalg::LinalgOp op) {
  return (op.getNumLoops() - 3) / 2;
}

/// The steps of a line window product's input expression along one
/// spatial dimension: stride * output + dilation * window.
struct LineSteps {
  int64_t stride, dilation;
};

/// The steps of a line window product's input expression `expr` along its
/// output loop `output` and window loop `window` (of `loops`), where it is
/// exactly stride * output + dilation * window with a positive stride.
std::optional<LineSteps> lineSteps(AffineExpr expr, unsigned loops,
                                   unsigned output, unsigned window) {
  MLIRContext *context = expr.getContext();
  // The coefficient of loop `one`: expr at 1 there and 0 elsewhere.
  auto coefficient = [&](unsigned one) -> std::optional<int64_t> {
    SmallVector<AffineExpr> point(loops, getAffineConstantExpr(0, context));
    point[one] = getAffineConstantExpr(1, context);
    auto value = dyn_cast<AffineConstantExpr>(
        simplifyAffineExpr(expr.replaceDims(point), loops, 0));
    return value ? std::optional<int64_t>(value.getValue()) : std::nullopt;
  };
  std::optional<int64_t> stride = coefficient(output),
                         dilation = coefficient(window);
  // Affine expressions are uniqued: equal to the rebuilt one, expr reads
  // no other loop and no constant.
  if (!stride || !dilation || *stride < 1 || *dilation < 0 ||
      expr != getAffineDimExpr(output, context) * *stride +
                  getAffineDimExpr(window, context) * *dilation)
    return std::nullopt;
  return LineSteps{*stride, *dilation};
}

/// The steps of a line window product's (or its tile's) innermost output
/// and window dimensions.
LineSteps lastLineSteps(linalg::LinalgOp op) {
  unsigned spatial = outputSpatialDims(op);
  return *lineSteps(op.getIndexingMapsArray()[0].getResult(spatial),
                    op.getNumLoops(), spatial, 2 * spatial + 1);
}

/// Whether `op` is a line window product (convert-kiln-to-linalg's
/// window-products): a contraction over (batch, output spatial..., output,
/// window..., feature) into [batch, output spatial..., outputs] of the
/// input [batch, spatial..., features] read at stride * output + dilation
/// * window (lineSteps), and a kernel [window..., features, outputs].
bool isLineWindowProduct(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  unsigned loops = op.getNumLoops();
  if (!generic || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || loops < 5 || loops % 2 == 0)
    return false;
  unsigned spatial = outputSpatialDims(op);
  if (op.getNumParallelLoops() != spatial + 2 ||
      llvm::any_of(op.getStaticLoopRanges(),
                   [](int64_t size) { return size <= 0; }))
    return false;
  for (unsigned d = 0; d < spatial + 2; ++d)
    if (!linalg::isParallelIterator(op.getIteratorTypesArray()[d]))
      return false;
  MLIRContext *context = op.getContext();
  SmallVector<AffineExpr> dims = kiln::loopDims(context, loops);
  SmallVector<AffineExpr> kernel(dims.begin() + spatial + 2, dims.end());
  kernel.push_back(dims[spatial + 1]);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap input = maps[0];
  if (maps[2] != AffineMap::get(loops, 0,
                                ArrayRef(dims).take_front(spatial + 2),
                                context) ||
      maps[1] != AffineMap::get(loops, 0, kernel, context) ||
      input.getNumResults() != spatial + 2 || input.getResult(0) != dims[0] ||
      input.getResults().back() != dims.back())
    return false;
  for (unsigned d = 0; d < spatial; ++d)
    if (!lineSteps(input.getResult(1 + d), loops, 1 + d, spatial + 2 + d))
      return false;
  return linalg::detail::isContractionBody(
      *op.getBlock(), [](Operation *multiply, Operation *add) {
        return (isa<arith::MulFOp>(multiply) && isa<arith::AddFOp>(add)) ||
               (isa<arith::MulIOp>(multiply) && isa<arith::AddIOp>(add));
      });
}

/// The bits of an element of the matmul `op`'s accumulator.
unsigned accumulatorBits(linalg::LinalgOp op) {
  return accumulatorElement(op).getIntOrFloatBitWidth();
}

/// Flops a nanosecond of an f32 matmul's register tiles on one thread:
/// 8 x 32 tiles of 16-lane FMAs ran products of 308 x 192 x 192 to 616 x
/// 192 x 768 at 190-225 GFLOP/s on this project's AVX-512 CPUs. An
/// estimate at half that had a 4 x 77 x 192 transformer block's products
/// of 105 us share 3 chunks between 2 threads, which gained less than
/// waking the second thread cost.
constexpr double kMatmulFlopsPerNs = 200;

/// Bytes a nanosecond a reduction reads and writes on one thread: it
/// streams its input and writes little (a 1024 x 1024 f32 matrix-vector
/// product or row sum read its 4 MB in 46 us, and took longer on 2 threads
/// than on 1).
constexpr double kReductionBytesPerNs = 80;

/// The time `op` is estimated to take on one thread, in ns. A matmul's
/// flops at kMatmulFlopsPerNs (an f64 one at half that; an int8 one on
/// vpdpbusd's byte quads at 4 times that: 64 products an instruction, 16
/// of an f32 FMA; a thin one summing in lanes at half that: 4096 x 256 x 4
/// and x 8 ran at 83-98 GFLOP/s; others times the share of their vectors'
/// lanes that their columns fill: 4096 x 256 x 10 ran at 97 GFLOP/s, x 24
/// at 132, 2048 x 512 x 40 at 143), or its bytes as a reduction's where
/// that is longer (a matrix-vector product: 1 x 4096 x 4096 reads 64 MB
/// for 34 MFLOP); a reduction at kReductionBytesPerNs of the tensors it
/// reads and writes; any other op at 20 GB/s.
double estimatedNs(linalg::LinalgOp op) {
  double bytes = 0;
  for (Type type : op->getOperandTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      bytes += double(kiln::storageBytes(tensor));
  if (isTiledMatmul(op) || isLineWindowProduct(op)) {
    double flops = 2;
    for (int64_t size : op.getStaticLoopRanges())
      flops *= size;
    double rate = kMatmulFlopsPerNs;
    if (kiln::isByteQuadProduct(op) || kiln::isPackedQuadProduct(op))
      rate *= 4;
    else if (accumulatorBits(op) == 64)
      rate /= 2;
    if (isThinProduct(op, false)) {
      rate /= 2;
    } else if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(
                   op.getOperation())) {
      int64_t columns = op.getStaticLoopRanges()[firstMatmulLoop(op) + 1];
      int64_t lanes = thinProductLanes(accumulatorElement(op));
      rate *= double(columns) / double(llvm::alignTo(columns, lanes));
    }
    return std::max(flops / rate, bytes / kReductionBytesPerNs);
  }
  return bytes / (op.getNumReductionLoops() > 0 ? kReductionBytesPerNs
                                                : kiln::kStreamingBytesPerNs);
}

/// `tiles` with the register tile of the matmul `op` (isTiledMatmul).
MatmulTiles registerTilesOf(linalg::LinalgOp op, MatmulTiles tiles) {
  // A register tile of 64-bit elements takes as many registers as a 32-bit
  // one of half the columns.
  if (accumulatorBits(op) == 64)
    tiles.registerN = std::max<int64_t>(1, tiles.registerN / 2);
  // A register tile of byte quads interleaves B's rows in registers once
  // per k quad: twice the rows on half the columns share each interleaving
  // between twice as many rows (1024^3: 6.5 -> 5.7 ms). Packed quads need
  // no interleaving: 8 x 32 loads 10 vectors for 16 vpdpbusd where 16 x 16
  // loaded 17 (one broadcast of A a row), and ran 10-22% faster (1024^3
  // 3.29 -> 2.99 ms, 670 x 169 x 594 0.250 -> 0.206).
  if (kiln::isByteQuadProduct(op)) {
    tiles.registerM *= 2;
    tiles.registerN = std::max<int64_t>(1, tiles.registerN / 2);
  }
  alignCacheTiles(tiles);
  return tiles;
}

/// A whole product (not a part tileMatmul split off: the last 4 columns of
/// 100 x 100 x 100 ran 7% slower in lanes): a thin one in lanes
/// (isThinProduct), else tileMatmul.
void tileProduct(RewriterBase &rewriter, linalg::LinalgOp op,
                 MatmulTiles tiles) {
  // Columns that need more vectors of lanes than the register tile has
  // registers for (8 of AVX2's 6) take register tiles: on an AMD Zen 3,
  // 4096 x 512 x 8 ran in 0.96 ms in lanes, 0.60 in tiles of 6 x 8
  // (oneDNN 0.50), 2000 x 300 x 8 (nt) 0.247 -> 0.147 ms.
  int64_t columns = op.getStaticLoopRanges()[firstMatmulLoop(op) + 1];
  if (isThinProduct(op, tiles.bf16Pairs) && columns <= laneAccumulators(tiles))
    return tileThinRows(
        rewriter, withTransposedB(rewriter, op, tiles.vectorWidth), tiles);
  tileMatmul(rewriter, op, registerTilesOf(op, tiles));
}

/// The most bytes of A that every chunk of an int8 product's columns may
/// read (from L2, at 1 MiB a core on this project's CPUs): chunks of 16
/// columns of int8 1024^3 streamed its 1 MiB of A from L3 each, 1.3x
/// slower on one thread than chunks of rows.
constexpr int64_t kChunkedColumnsMaxABytes = 512 << 10;

/// Whether `op`, an int8 product of packed quads or a bf16 or f32 one of
/// packed panels, runs in chunks of columns (of panels) that each pack
/// their own part of B (preferredChunkLoop): where nothing else reads the
/// pack and, for f32, A is not a transpose that chunks of rows compute part
/// by part (a weight gradient's X^T: 784 x 256 x 512 on 2 threads 0.78 ms in
/// chunks of rows, 0.85 in chunks of panels); for int8 and bf16, A is small
/// enough for each chunk to read all of it, and the chunks share no cache
/// line of C: a panel's 32 columns are two, and int8 products need C's rows
/// to be whole lines of 16 i32 (800 x 300 x 300 in chunks of 48 columns,
/// the lines at their edges moving between cores: 1.0x on two threads, 1.3x
/// in chunks of rows).
bool packsPerChunk(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2)
    return false;
  linalg::LinalgOp pack = chunkInput(op->getOperand(1));
  if (!pack)
    return false;
  // Chunks of rows each stream all of packed B, packed in a pass before
  // them; a chunk of panels packs its part while it is in cache and keeps
  // it in L2 while all of A streams past (on an Intel Xeon, 1024^3: 14.7 ->
  // 13.4 ms on one thread, 8.3 -> 6.9 on two; 2048 x 1024 x 512, A 4 times
  // B's size: 13.5 -> 12.1 and 7.6 -> 7.3).
  if (kiln::panelPackGroup(pack) == 1)
    return !transposeReadOnce(op->getOperand(0));
  if (kiln::storageBytes(cast<ShapedType>(op->getOperand(0).getType())) >
      kChunkedColumnsMaxABytes)
    return false;
  if (kiln::isPairPack(pack))
    return true;
  auto c = cast<RankedTensorType>(op->getOperand(2).getType());
  return kiln::isPackedQuadProduct(op) && c.getShape().back() % 16 == 0;
}

/// What a chunk of each loop of `op` must be a multiple of for the schedule
/// to tile it as it tiles the whole op (a matmul's cache or register tile,
/// an elementwise row), or 0 for a loop that cannot be split into chunks
/// running at once (a reduction).
SmallVector<int64_t> chunkGranules(linalg::LinalgOp op, MatmulTiles tiles,
                                   int64_t width) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> granules(ranges.size(), 1);
  if (isTiledMatmul(op)) {
    tiles = registerTilesOf(op, tiles);
    size_t m = firstMatmulLoop(op), n = m + 1;
    // Each chunk of rows reads all of B: a chunk of 8 rows read it from L3
    // for every 8 rows (493 x 633 x 505 on one thread: 1.86 ms in chunks
    // of 8 rows, 1.62 unchunked), one of half a cache tile's rows from L2.
    int64_t rows =
        llvm::alignTo(std::max<int64_t>(tiles.cacheM / 2, 1), tiles.registerM);
    // Whole cache tiles where threads can share them evenly: a chunk of 64
    // of 192 rows left one of 2 threads 2 of them.
    granules[m] = ranges[m] % (2 * tiles.cacheM) == 0 ? tiles.cacheM : rows;
    granules[n] = ranges[n] % tiles.cacheN == 0 ? tiles.cacheN : tiles.registerN;
    // Chunks of columns that pack their own quads of B need not be whole
    // cache tiles: int8 512^3 has 2 of those, and 8 chunks of 64 columns.
    if (packsPerChunk(op) && !kiln::panelProductGroup(op))
      granules[n] = tiles.registerN;
    // Chunks of a product's panels each read all of A, as chunks of rows
    // read all of B: distribute takes the loop with more chunks, panels by
    // a cache tile's columns (8 panels of 32). An FFN's 256 x 1024 x 4096
    // on 2 threads ran 7.8 ms in 4 chunks of rows, each streaming all 16
    // MB of packed B, and 6.6 ms in 16 chunks of panels. f32 panels that
    // chunks pack chunk one at a time (distribute keeps a cache tile's in a
    // chunk where there are enough): 11 panels (257 x 1000 x 333) in one
    // chunk of 8 and 3 left over kept one of 2 threads idle for most of
    // the product.
    if (int64_t group = kiln::panelProductGroup(op))
      granules[m - 1] =
          group == 1 && packsPerChunk(op)
              ? 1
              : std::max<int64_t>(1, tiles.cacheN / tiles.registerN);
  } else {
    granules.back() = width;
    // Chunks of a transpose keep whole blocks (tileTranspose): NHWC to
    // CHWN in chunks of 8 channels gathered an element per lane, 1.37 ms
    // for 8 x 56 x 56 x 64.
    if (std::optional<unsigned> across = transposedLoop(op))
      granules[*across] = kTransposeBlock;
  }
  for (auto [granule, type] :
       llvm::zip_equal(granules, op.getIteratorTypesArray()))
    if (type != utils::IteratorType::parallel)
      granule = 0;
  return granules;
}

/// Panels of 32 columns in a cache tile of 256.
constexpr int64_t kPanelsPerTile = 8;

/// Chunks of one loop at most: enough for 64 threads.
constexpr int64_t kMaxChunks = 64;

/// How many chunks threads should share work estimated at `ns` (at least
/// `minNs`, positive): about one per `minNs / 2`, from 2 to kMaxChunks.
int64_t chunkTarget(double ns, int64_t minNs) {
  return std::clamp<int64_t>(ns / (minNs / 2.0), 2, kMaxChunks);
}

/// Whether `op` is a batch matmul of a few rows per batch (vector-matrix
/// products, splitRowProductsK's pieces of K), which chunks by batch from 2
/// of them: a chunk of its columns would read each of B's rows in pieces.
bool isBatchOfRows(linalg::LinalgOp op) {
  if (!isa<linalg::BatchMatmulOp>(op.getOperation()))
    return false;
  int64_t rows = op.getStaticLoopRanges()[1];
  return rows > 0 && rows < kiln::kPanelMinRows;
}

/// The loop a chunked `op` should split first, if any: the batch of a
/// batch of rows (isBatchOfRows); N of a matmul whose
/// B is a transpose that only it reads and whose A is not (x W^T, a
/// backward pass's dY W), or of a product that packsPerChunk (of a bf16
/// panel product, its panels), so that each chunk transposes or packs its
/// own columns of B (fuseChunkInputs) instead of one thread computing all
/// of B before the chunks start.
std::optional<unsigned> preferredChunkLoop(linalg::LinalgOp op) {
  // A panel product's panels are the loop before M.
  if (packsPerChunk(op))
    return kiln::panelProductGroup(op) ? firstMatmulLoop(op) - 1
                                       : firstMatmulLoop(op) + 1;
  if (isBatchOfRows(op))
    return 0;
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
    return std::nullopt;
  if (!transposeReadOnce(op->getOperand(1)) ||
      transposeReadOnce(op->getOperand(0)))
    return std::nullopt;
  return firstMatmulLoop(op) + 1;
}

/// Reduction steps a piece of a product keeps when it splits so that its
/// chunks' parts of B fit a thread's buffers: a multiple of this many.
constexpr int64_t kPackedPartSteps = 64;

/// Where chunks of `chunkSize` along loop `loop` of `op`, a panel product
/// whose panels they split, would each pack more of B than a thread's
/// buffers hold (kiln::kThreadBufferBytes; fuseChunkInputs would then
/// leave the whole packing to one thread, in a pass over memory): the K
/// loop and the step to split it at, for pieces whose chunks' parts fit
/// (an FFN's 256 x 4096 x 1024: 4 pieces of 1024 steps, 9% faster on one
/// thread); else nothing.
std::optional<std::pair<unsigned, int64_t>>
packedPartSplit(linalg::LinalgOp op, unsigned loop, int64_t chunkSize) {
  unsigned panelLoop = firstMatmulLoop(op) - 1, kLoop = panelLoop + 3;
  if (!kiln::panelProductGroup(op) || loop != panelLoop ||
      op->getNumResults() != 1 || !chunkInput(op->getOperand(1)))
    return std::nullopt;
  auto packed = cast<RankedTensorType>(op->getOperand(1).getType());
  int64_t bytes =
      kiln::storageBytes(packed) / packed.getDimSize(panelLoop) * chunkSize;
  int64_t steps = op.getStaticLoopRanges()[kLoop];
  int64_t at = llvm::alignDown(steps * kiln::kThreadBufferBytes / bytes,
                               kPackedPartSteps);
  if (bytes <= kiln::kThreadBufferBytes || at == 0 || at >= steps)
    return std::nullopt;
  return std::make_pair(kLoop, at);
}

/// Bytes a nanosecond that a thread reads from cache lines another core
/// wrote: a product's operand built by one thread each call, then read by
/// two, moves half its lines to the other core and back (LeNet's second
/// layer, a product of 1.9 MB of patches at 8 flops a byte, took 3.3 times
/// as long on two threads as on one: its copies and its product alike),
/// set against products at kMatmulFlopsPerNs. At 8, the products of an
/// 8-head attention's 8 MB of probabilities (512 tokens) and their values
/// ran on one thread, and the transformer block took 51 ms on two threads
/// instead of 46-49.
constexpr double kCrossCoreBytesPerNs = 16;

/// The bytes of the inputs of the product `op` that its function computes
/// and no chunk of it does (its chunkInputs do): its arguments, constants
/// and views of them are already in every core's reach.
double computedInputBytes(linalg::LinalgOp op) {
  double bytes = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Operation *producer = viewedSource(input->get()).getDefiningOp();
    if (producer && !producer->hasTrait<OpTrait::ConstantLike>() &&
        !chunkInput(input->get()))
      if (auto type = dyn_cast<RankedTensorType>(input->get().getType()))
        bytes += double(kiln::storageBytes(type));
  }
  return bytes;
}

/// How many chunks of whole granules threads should share `units`
/// granules in: of the counts from `target` (at most `units`), the fewest
/// whose longest share on 1 and 2 threads (this project's machines' cores)
/// plus half that on 4 is least, a share being a thread's block of chunks
/// (a static schedule's) then the granules past the last whole chunk,
/// which run after them (only where `leftover` allows any), each chunk
/// costing `overhead` granules more. A transformer block's 308 x 192 x 192
/// products (9 granules of 32 rows, a target of 3) made 3 chunks, 2 of
/// them on one of 2 threads: 6 granules; 4 chunks of 2 leave it 5, with
/// the last one.
int64_t chunkCount(int64_t units, int64_t target, bool leftover,
                   double overhead) {
  int64_t best = units;
  double leastSpan = std::numeric_limits<double>::max();
  for (int64_t count = std::min(target, units); count <= units; ++count) {
    int64_t size = units / count, rest = units % count;
    if (rest != 0 && !leftover)
      continue;
    double span = 0;
    for (auto [threads, weight] :
         {std::pair(1, 1.0), std::pair(2, 1.0), std::pair(4, 0.5)})
      span += weight * (llvm::divideCeil(count, threads) * (size + overhead) +
                        (rest != 0 ? rest + overhead : 0));
    if (span < leastSpan) {
      best = count;
      leastSpan = span;
    }
  }
  return best;
}

/// What each chunk of `op` along `loop` costs beyond its granules, in
/// granules of `granuleNs`: streaming the inputs that every chunk reads
/// whole (that loop does not index) from memory, where they are more than
/// a core's L2 holds. 1134 x 756 x 826 in 26 chunks of one panel, each
/// streaming all 3.4 MB of A, took 11.0 ms on one thread.
double chunkOverhead(linalg::LinalgOp op, unsigned loop, double granuleNs) {
  int64_t bytes = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (type && type.hasStaticShape() &&
        !op.getMatchingIndexingMap(input).isFunctionOfDim(loop))
      bytes += kiln::storageBytes(type);
  }
  if (bytes <= kiln::kThreadBufferBytes || granuleNs <= 0)
    return 0;
  return bytes / kiln::kStreamingBytesPerNs / granuleNs;
}

/// The share of the parallel-work threshold from which an op that runs
/// right after chunks (followsChunks) is worth chunks of its own: threads
/// asleep for under ~40 us start about 12 us after the loop that wakes
/// them, against ~75 us for a cold start, which the threshold pays for.
/// 493 x 633 x 505 on 2 threads ran its leftover panel and its 25 narrow
/// columns, about 100 us each, on one thread after its 2 chunks of 7
/// panels: 1.07 -> 0.99 ms on an AMD Zen 5, alternated.
constexpr double kWarmWorkShare = 0.4;

/// How long threads may sleep after their chunks and still start in ~12 us.
constexpr double kWarmSleepNs = 30000;

/// Whether `op` runs within kWarmSleepNs of an scf.forall whose chunks
/// threads shared, with nothing between but views, empty tensors and
/// linalg ops estimated to take less all together (a piece's start, its
/// own part of packed B).
bool followsChunks(Operation *op) {
  double ns = 0;
  for (Operation *before = op->getPrevNode(); before && ns < kWarmSleepNs;
       before = before->getPrevNode()) {
    if (isa<scf::ForallOp>(before))
      return true;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(before))
      ns += estimatedNs(linalgOp);
    else if (!isSliceOrReshape(before) &&
             !before->hasTrait<OpTrait::ConstantLike>() &&
             !isa<tensor::EmptyOp, tensor::InsertSliceOp>(before))
      return false;
  }
  return false;
}

/// Where `op` is estimated to take at least `minNs` on one thread (or
/// kWarmWorkShare of it where it followsChunks), splits
/// one of its parallel loops into chunks (whole multiples of the loop's
/// granule) that an scf.forall runs, for threads to share: the first loop
/// with enough granules for about one chunk per `minNs / 2`, else the one
/// with the most, in as many chunks as chunkCount says. Rows past the last
/// whole granule or chunk run after it, in chunks along another loop where
/// they are worth it, else on one thread. A panel
/// product whose chunks would pack too much of B splits along K first
/// (packedPartSplit), each piece distributed on its own. Returns the ops
/// left to schedule: the chunk, those rows and the parts of chunkInputs it
/// reads that each chunk computes. The start the op
/// accumulates in (accumulatorStart) is computed by each chunk, in rows of
/// `width`.
SmallVector<linalg::LinalgOp> distribute(RewriterBase &rewriter,
                                         linalg::LinalgOp op,
                                         ArrayRef<int64_t> granules,
                                         int64_t minNs, int64_t width) {
  double ns = estimatedNs(op);
  // Sharing a product saves at most half its time; moving the inputs the
  // function computed between cores can cost more.
  if (minNs <= 0 || ns < (followsChunks(op) ? kWarmWorkShare : 1.0) * minNs ||
      (isTiledMatmul(op) &&
       ns / 2 < computedInputBytes(op) / kCrossCoreBytesPerNs))
    return {op};
  int64_t target = chunkTarget(ns, minNs);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  std::optional<unsigned> loop = preferredChunkLoop(op);
  int64_t units = 1;
  // Chunks that pack their own part of B pay from 2 of them: bf16 256 x
  // 784 x 512 has 2 chunks of 8 panels, where chunks of rows each read all
  // of B packed by one core.
  if (loop && granules[*loop] != 0 &&
      ranges[*loop] / granules[*loop] >=
          (packsPerChunk(op) || isBatchOfRows(op) ? 2 : target)) {
    units = ranges[*loop] / granules[*loop];
    // Chunks of single f32 panels (chunkGranules) each read all of A: they
    // hold a cache tile's 8 where there are enough (1024^3 in 32 chunks of
    // a panel ran 12.8 -> 15.7 ms on one thread, 6.8 -> 8.1 on two).
    if (kiln::panelProductGroup(op) == 1)
      target = std::min(target, std::max<int64_t>(2, units / kPanelsPerTile));
  } else {
    loop = std::nullopt;
    for (auto [index, range, granule] : llvm::enumerate(ranges, granules)) {
      if (granule == 0 || range / granule <= units)
        continue;
      loop = index;
      units = range / granule;
      if (units >= target)
        break;
    }
  }
  if (!loop || units < 2)
    return {op};
  int64_t range = ranges[*loop], granule = granules[*loop];
  // `op` split along `splitLoop` at `at` (split() rebuilds one result), each
  // piece distributed on its own.
  auto distributePieces = [&](unsigned splitLoop, int64_t at) {
    SmallVector<linalg::LinalgOp> inputs;
    auto [first, second] = split(rewriter, op, splitLoop, at, &inputs);
    SmallVector<linalg::LinalgOp> parts =
        distribute(rewriter, first, granules, minNs, width);
    llvm::append_range(parts,
                       distribute(rewriter, second, granules, minNs, width));
    // The pieces' own inputs that no chunk took in.
    for (linalg::LinalgOp input : inputs) {
      if (input->use_empty())
        rewriter.eraseOp(input);
      else
        parts.push_back(input);
    }
    return parts;
  };
  if (range % granule != 0) {
    if (op->getNumResults() != 1)
      return {op};
    // The rest may be worth chunks along another loop (31 rows of a
    // 4096-column product).
    return distributePieces(*loop, range - range % granule);
  }
  int64_t chunks = chunkCount(units, target, op->getNumResults() == 1,
                              chunkOverhead(op, *loop, ns / units));
  if (units % chunks != 0)
    return distributePieces(*loop, units / chunks * chunks * granule);
  if (std::optional<std::pair<unsigned, int64_t>> at =
          packedPartSplit(op, *loop, range / chunks))
    return distributePieces(at->first, at->second);
  SmallVector<int64_t> sizes(ranges.size(), 0);
  sizes[*loop] = range / chunks;
  SmallVector<linalg::LinalgOp> parts;
  Operation *chunk =
      tile(rewriter, op, sizes, /*order=*/{},
           scf::SCFTilingOptions::LoopType::ForallOp, width, &parts);
  if (!chunk)
    return {op};
  parts.push_back(cast<linalg::LinalgOp>(chunk));
  return parts;
}

/// Replaces `tile`, a tile of a line window product, by the matmul of
/// `rows` and `taps` into `acc`, a matrix of `tile`'s output (keepingDims),
/// inserted back into it; returns the matmul.
linalg::LinalgOp replaceByMatmul(RewriterBase &rewriter, linalg::LinalgOp tile,
                                 Value rows, Value taps, Value acc) {
  auto matmul = linalg::MatmulOp::create(
      rewriter, tile.getLoc(), ValueRange{rows, taps}, ValueRange{acc});
  kiln::replaceTile(rewriter, tile, matmul.getResult(0));
  return cast<linalg::LinalgOp>(matmul.getOperation());
}

/// `count` rows of `value` (a tile of a window product's input, every
/// dimension but `dim` and the last one long), `stride` apart along `dim`,
/// as a matrix [count, last dimension]. Rows of one feature strided by more
/// than one are sliced whole and collapsed: upstream's
/// expand-strided-metadata crashes on a rank-reducing subview to [count, 1]
/// with strides [stride, 1] (LLVM 22, getDroppedDims).
Value stridedRows(RewriterBase &rewriter, Location loc, Value value,
                  unsigned dim, int64_t count, int64_t stride) {
  auto type = cast<RankedTensorType>(value.getType());
  unsigned rank = type.getRank();
  SmallVector<int64_t> zeros(rank, 0), sizes(rank, 1), strides(rank, 1);
  sizes[dim] = count;
  sizes.back() = type.getShape().back();
  strides[dim] = stride;
  MLIRContext *context = rewriter.getContext();
  bool whole = sizes.back() == 1 && stride != 1;
  auto matrix =
      RankedTensorType::get({count, sizes.back()}, type.getElementType());
  Value rows = tensor::ExtractSliceOp::create(
      rewriter, loc, whole ? type.clone(sizes) : matrix, value,
      getAsIndexOpFoldResult(context, zeros),
      getAsIndexOpFoldResult(context, sizes),
      getAsIndexOpFoldResult(context, strides));
  if (!whole)
    return rows;
  SmallVector<ReassociationIndices> groups = {
      llvm::to_vector(llvm::seq<int64_t>(0, rank - 1)), {rank - 1}};
  return tensor::CollapseShapeOp::create(rewriter, loc, matrix, rows, groups);
}

/// A window position of one output line of a line window product
/// (isLineWindowProduct) as the matmul it is: the line's pixels, every
/// stride-th [X, features], times the kernel's [features, outputs] there,
/// into the line's [X, outputs].
linalg::LinalgOp lineTileAsMatmul(RewriterBase &rewriter,
                                  linalg::LinalgOp tile) {
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  unsigned spatial = outputSpatialDims(tile);
  Value pixels = tile.getDpsInputOperand(0)->get();
  Value kernel = tile.getDpsInputOperand(1)->get();
  Value line = tile.getDpsInitOperand(0)->get();
  unsigned rank = cast<RankedTensorType>(pixels.getType()).getRank();
  Value rows =
      stridedRows(rewriter, loc, pixels, rank - 2,
                  cast<RankedTensorType>(line.getType()).getDimSize(spatial),
                  lastLineSteps(tile).stride);
  unsigned kernelRank = cast<RankedTensorType>(kernel.getType()).getRank();
  return replaceByMatmul(
      rewriter, tile, rows,
      kiln::asMatrix(rewriter, loc, kernel, kernelRank - 2, kernelRank - 1),
      kiln::asMatrix(rewriter, loc, line, rank - 2, rank - 1));
}

/// Whether a line window product runs faster by output pixels than by
/// output lines: with more batch elements than an output line, shorter
/// than two register tiles, has pixels, and at least two register tiles
/// of them (which threads can share: 8 x 7 x 7 x 512 on two threads took
/// 9.7 ms by pixels, 5.2 by lines). JAX's kernel gradients are such
/// products: the input features are the batch, the kernel's taps the
/// pixels, the images the window and their batch the features (a 3 x 3
/// layer's of 8 x 56 x 56 x 64: lines of 3 pixels summing 3136 window
/// positions of 8 features).
bool runsByPixels(linalg::LinalgOp op, const MatmulTiles &tiles) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned spatial = outputSpatialDims(op);
  return ranges[0] > ranges[spatial] && ranges[0] >= 2 * tiles.registerM &&
         ranges[spatial] < 2 * tiles.registerM;
}

/// One output pixel and window row (every window dimension but the last at
/// one position) of a line window product as the matmul it is: the input's
/// rows there, [batch, window width * features] (each contiguous in the
/// input), times the kernel's [window width * features, outputs] there,
/// into the pixel's [batch, outputs]; of a tile at one window position
/// (tileInRegisters), the width is 1.
linalg::LinalgOp pixelTileAsMatmul(RewriterBase &rewriter,
                                   linalg::LinalgOp tile) {
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  Value pixels = tile.getDpsInputOperand(0)->get();
  Value kernel = tile.getDpsInputOperand(1)->get();
  Value out = tile.getDpsInitOperand(0)->get();
  unsigned rank = cast<RankedTensorType>(pixels.getType()).getRank();
  unsigned kernelRank = cast<RankedTensorType>(kernel.getType()).getRank();
  // [batch, width, features] and [width, features, outputs], with the
  // width and features as one dimension.
  auto merged = [&](Value value, ArrayRef<unsigned> dims,
                    ArrayRef<ReassociationIndices> groups) -> Value {
    return tensor::CollapseShapeOp::create(
        rewriter, loc, kiln::keepingDims(rewriter, loc, value, dims), groups);
  };
  Value rows = merged(pixels, {0, rank - 2, rank - 1}, {{0}, {1, 2}});
  Value taps = merged(kernel, {kernelRank - 3, kernelRank - 2, kernelRank - 1},
                      {{0, 1}, {2}});
  return replaceByMatmul(rewriter, tile, rows, taps,
                         kiln::asMatrix(rewriter, loc, out, 0, rank - 1));
}

/// The kernel [window..., features, outputs] of a line window product.
ShapedType windowKernelType(linalg::LinalgOp op) {
  return cast<ShapedType>(op.getDpsInputOperand(1)->get().getType());
}

/// The bytes of a matmul's cache tile of B in elements of `type`'s.
int64_t cacheTileOfBBytes(ShapedType type, const MatmulTiles &tiles) {
  return tiles.cacheK * tiles.cacheN *
         kiln::elementBytes(type.getElementType());
}

/// Whether the kernel of the line window product `op` fits a matmul's
/// cache tile of B: each register tile can then sum the whole window,
/// reading the kernel from L2 (tileInRegisters), where one window position
/// after another kept a position's part in L1 for every tile of the line
/// but loaded and stored the tiles' accumulators at each.
bool fitsCacheTileOfB(linalg::LinalgOp op, const MatmulTiles &tiles) {
  ShapedType kernel = windowKernelType(op);
  return kiln::storageBytes(kernel) <= cacheTileOfBBytes(kernel, tiles);
}

/// A line of a line window product (isLineWindowProduct) of fewer than
/// kiln::kWindowProductMinFeatures features or whose kernel fits a cache
/// tile of B (fitsCacheTileOfB), or (`byPixels`) a product by output
/// pixels whose window is dilated, in register tiles of its rows (the
/// line's pixels; by pixels, the batch) and outputs, each summing every
/// window position and feature (all of them its matmul's steps,
/// lineTileAsMatmul or pixelTileAsMatmul; `featureStep` features a step,
/// 0: all of them) before its accumulators are stored: a position's
/// matmul of its own would load and store them every 1 to 15 steps (by
/// pixels, every step of a feature; a 3 x 3 layer of 64 features, every
/// 64). Rows and outputs past the last whole register tile are a tile of
/// their own.
void tileInRegisters(RewriterBase &rewriter, linalg::LinalgOp op,
                     const MatmulTiles &tiles, bool byPixels,
                     int64_t featureStep = 0) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned outputs = outputSpatialDims(op) + 1;
  unsigned rows = byPixels ? 0 : outputs - 1;
  unsigned tiled[] = {rows, outputs};
  int64_t registerTile[] = {tiles.registerM, tiles.registerN};
  for (auto [loop, step] : llvm::zip(tiled, registerTile)) {
    int64_t size = ranges[loop];
    if (size <= step || size % step == 0)
      continue;
    rewriter.setInsertionPoint(op);
    auto [whole, rest] =
        linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()),
                        loop, rewriter.getIndexAttr(size - size % step));
    for (TilingInterface part : {whole, rest})
      tileInRegisters(rewriter, cast<linalg::LinalgOp>(part.getOperation()),
                      tiles, byPixels, featureStep);
    return;
  }
  // Rows, outputs, then each window position with `featureStep` features
  // a step (the other loops one iteration each).
  SmallVector<int64_t> sizes(ranges.size(), 1);
  sizes[rows] = std::min(ranges[rows], tiles.registerM);
  sizes[outputs] = std::min(ranges[outputs], tiles.registerN);
  sizes.back() = featureStep;
  auto position = dyn_cast_or_null<linalg::LinalgOp>(tile(rewriter, op, sizes));
  if (position)
    ::vectorize(rewriter, byPixels ? pixelTileAsMatmul(rewriter, position)
                                   : lineTileAsMatmul(rewriter, position));
}

/// `op`, a line window product by output pixels (runsByPixels), in blocks
/// of its outermost window dimension whose part of the kernel fits a
/// matmul's cache tile of B, the block loop outermost: each register tile
/// then sums a block read from L2, where summing the whole window read all
/// of the kernel from memory once per tile (a 3 x 3 stride 2 layer's
/// kernel gradient, 64 -> 128 features on 8 x 56 x 56: its 3.2 MB output
/// gradient once per 8 input features and kernel tap). Returns the block
/// (`op` where the kernel fits whole; null where tiling failed).
linalg::LinalgOp windowBlock(RewriterBase &rewriter, linalg::LinalgOp op,
                             const MatmulTiles &tiles) {
  ShapedType kernel = windowKernelType(op);
  int64_t rows = kernel.getDimSize(0);
  int64_t rowBytes = std::max<int64_t>(1, kiln::storageBytes(kernel) / rows);
  int64_t blockRows =
      std::max<int64_t>(1, cacheTileOfBBytes(kernel, tiles) / rowBytes);
  if (blockRows >= rows)
    return op;
  while (rows % blockRows != 0)
    --blockRows;
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  sizes[outputSpatialDims(op) + 2] = blockRows;
  return dyn_cast_or_null<linalg::LinalgOp>(tile(rewriter, op, sizes));
}

/// Whether the line window product `op` (or its chunk) has thin outputs: f32
/// or f64 throughout (bf16 windows keep their dot pairs), outputs that a
/// window's products (its positions times its
/// features, whole vectors of lanes) pay to sum in lanes for (lanesPay):
/// an output layer's 3 from 64 features of 3 x 3 pixels, a mask's 1, LeNet's
/// input gradient's 6 from 16 features of 5 x 5 (matmuls of 3 or 6 columns
/// would fill 3 or 6 lanes of 16 a step).
bool isThinWindowProduct(linalg::LinalgOp op) {
  Type element = laneElement(op);
  if (!element || inputElement(op) != element)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned spatial = outputSpatialDims(op);
  int64_t lanes = thinProductLanes(element), steps = 1;
  for (int64_t size : ArrayRef(ranges).drop_front(spatial + 2))
    steps *= size;
  return ranges.back() % lanes == 0 &&
         lanesPay(ranges[spatial + 1], steps, lanes);
}

/// The kernel [window..., features, outputs] of a line window product
/// transposed to [window..., outputs, features], each output's features
/// along a row as the input's are.
linalg::TransposeOp outputsFirst(RewriterBase &rewriter, linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  return transposeLastTwo(rewriter, op.getLoc(),
                          op.getDpsInputOperand(1)->get());
}

/// A register tile of a window product in lanes (windowInLanes: one window
/// position and group of lanes, `rows` loop `rows` long, the outputs and
/// lanes whole) as the generic it is on its operands' rows: partial[r, o,
/// l] += input[r, l] kernel[o, l], the input's rows `stride` apart.
void laneTileOnRows(RewriterBase &rewriter, linalg::LinalgOp tile,
                    unsigned rows, int64_t stride) {
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  MLIRContext *context = rewriter.getContext();
  Value input = tile.getDpsInputOperand(0)->get();
  Value kernel = tile.getDpsInputOperand(1)->get();
  Value partial = tile.getDpsInitOperand(0)->get();
  Value inputRows = stridedRows(rewriter, loc, input, rows,
                                tile.getStaticLoopRanges()[rows], stride);
  unsigned kernelRank = cast<RankedTensorType>(kernel.getType()).getRank();
  unsigned partialRank = cast<RankedTensorType>(partial.getType()).getRank();
  Value kernelRows = kiln::keepingDims(rewriter, loc, kernel,
                                       {kernelRank - 3, kernelRank - 1});
  Value acc = kiln::keepingDims(rewriter, loc, partial,
                                {rows, partialRank - 2, partialRank - 1});
  AffineExpr r, o, l;
  bindDims(context, r, o, l);
  using utils::IteratorType;
  auto product = linalg::GenericOp::create(
      rewriter, loc, TypeRange{acc.getType()},
      ValueRange{inputRows, kernelRows}, ValueRange{acc},
      AffineMap::inferFromExprList(
          ArrayRef<ArrayRef<AffineExpr>>{{r, l}, {o, l}, {r, o, l}}, context),
      SmallVector<IteratorType>(3, IteratorType::parallel),
      kiln::yieldAccumulatedProduct);
  kiln::replaceTile(rewriter, tile, product->getResult(0));
  ::vectorize(rewriter, product);
}

/// A window product in lanes (windowInLanes) in register tiles of R
/// (along its loop `rows`; laneTileRows) x all outputs x a
/// vector of lanes, each carried over every
/// window position and group of lanes; rows past the last whole tile as a
/// tile of their own.
void tileLaneRows(RewriterBase &rewriter, linalg::LinalgOp op, unsigned rows,
                  int64_t stride, const MatmulTiles &tiles) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned loops = ranges.size(), outputs = outputSpatialDims(op) + 1;
  int64_t count = laneTileRows(ranges[outputs], tiles);
  if (ranges[rows] > count && ranges[rows] % count != 0) {
    // linalg's split, which slices the input's windows (split() slices only
    // operands indexed by the loop itself).
    rewriter.setInsertionPoint(op);
    auto [whole, rest] = linalg::splitOp(
        rewriter, cast<TilingInterface>(op.getOperation()), rows,
        rewriter.getIndexAttr(ranges[rows] - ranges[rows] % count));
    for (TilingInterface part : {whole, rest})
      tileLaneRows(rewriter, cast<linalg::LinalgOp>(part.getOperation()), rows,
                   stride, tiles);
    return;
  }
  // The window positions and groups (loops outputs + 1 to loops - 2).
  SmallVector<int64_t> sizes(loops, 0);
  sizes[rows] = std::min(ranges[rows], count);
  for (unsigned d = outputs + 1; d + 1 < loops; ++d)
    sizes[d] = 1;
  if (auto step = dyn_cast_or_null<linalg::LinalgOp>(tile(rewriter, op, sizes)))
    laneTileOnRows(rewriter, step, rows, stride);
}

/// `op`, a part of a line window product with thin outputs
/// (isThinWindowProduct; an output line, or pixel by pixels) whose kernel
/// is `kernelT` (outputsFirst), as sums in lanes along its window:
/// partial[..., o, l] = sum over the window and groups g of input[...,
/// g L + l] kernelT[..., o, g L + l] in register tiles along its loop
/// `rows` (the line's pixels, `stride` apart in the input, or the batch;
/// tileLaneRows), then each vector's lanes summed into the output.
void windowInLanes(RewriterBase &rewriter, linalg::LinalgOp op, Value kernelT,
                   unsigned rows, int64_t stride, const MatmulTiles &tiles,
                   int64_t width) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  MLIRContext *context = rewriter.getContext();
  unsigned loops = op.getNumLoops(), outputs = outputSpatialDims(op) + 1;
  Value input = op.getDpsInputOperand(0)->get();
  Value out = op.getDpsInitOperand(0)->get();
  auto outType = cast<RankedTensorType>(out.getType());
  Type element = outType.getElementType();
  int64_t lanes = thinProductLanes(element);
  unsigned inputRank = cast<RankedTensorType>(input.getType()).getRank();
  unsigned kernelRank = cast<RankedTensorType>(kernelT.getType()).getRank();
  // The loops, the features' as its groups, then the lanes.
  SmallVector<AffineExpr> dims = kiln::loopDims(context, loops + 1);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto withTail = [&](AffineMap map, unsigned kept, ArrayRef<AffineExpr> tail) {
    SmallVector<AffineExpr> results(map.getResults().take_front(kept));
    llvm::append_range(results, tail);
    return AffineMap::get(loops + 1, 0, results, context);
  };
  AffineExpr group = dims[loops - 1], lane = dims[loops];
  SmallVector<AffineMap> laneMaps = {
      withTail(maps[0], inputRank - 1, {group, lane}),
      withTail(maps[1], kernelRank - 2, {dims[outputs], group, lane}),
      withTail(maps[2], outType.getRank(), {lane})};
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::parallel);
  SmallVector<int64_t> shape(outType.getShape());
  shape.push_back(lanes);
  Value zeros =
      kiln::filledTensor(rewriter, loc, RankedTensorType::get(shape, element),
                         kiln::scalarConstant(rewriter, loc, element, 0));
  auto partial = linalg::GenericOp::create(
      rewriter, loc, TypeRange{zeros.getType()},
      ValueRange{kiln::splitDim(rewriter, loc, input, inputRank - 1, lanes),
                 kiln::splitDim(rewriter, loc, kernelT, kernelRank - 1, lanes)},
      ValueRange{zeros}, laneMaps, iterators, kiln::yieldAccumulatedProduct);
  linalg::ReduceOp sum = addLanes(rewriter, loc, partial->getResult(0), out);
  rewriter.replaceOp(op, sum->getResults());
  tileElementwise(rewriter, zeros.getDefiningOp<linalg::LinalgOp>(), width);
  tileLaneRows(rewriter, partial, rows, stride, tiles);
  tileElementwise(rewriter, sum, width);
}

/// A line window product (isLineWindowProduct) by output lines (one
/// batch element and outer output row at a time, the innermost output
/// dimension whole), each summing, window position by window position, the
/// matmul of its pixels with the kernel there (lineTileAsMatmul), tiled
/// like any matmul; of fewer than kiln::kWindowProductMinFeatures
/// features, in register tiles that sum the whole window
/// (tileInRegisters); where runsByPixels, by output pixels, each summing
/// the matmuls of the whole batch's window rows (pixelTileAsMatmul), or
/// where the window is dilated (a strided layer's kernel gradient) in
/// register tiles of the batch that sum the whole window. Threads share the
/// batch (or, of one image, its first output dimension) when the product is
/// estimated at `minNs` or more. The zeros it accumulates in are computed by
/// each chunk or line, in rows of `width`, just before it accumulates there.
void scheduleLineWindowProduct(RewriterBase &rewriter, linalg::LinalgOp op,
                               MatmulTiles tiles, int64_t minNs,
                               int64_t width) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned loops = op.getNumLoops(), spatial = outputSpatialDims(op);
  double ns = estimatedNs(op);
  unsigned shared = ranges[0] == 1 && spatial > 1 ? 1 : 0;
  bool byPixels = runsByPixels(op, tiles);
  // With thin outputs, the kernel is transposed once, before any chunk.
  linalg::TransposeOp kernelT =
      isThinWindowProduct(op) ? outputsFirst(rewriter, op) : nullptr;
  // By pixels, the batch is each matmul's rows: chunks keep at least two
  // register tiles of them.
  int64_t mostChunks =
      byPixels ? ranges[0] / (2 * tiles.registerM) : ranges[shared];
  if (minNs > 0 && ns >= minNs && mostChunks >= 2) {
    // The fewest chunks, at least the target, that divide the loop (by
    // pixels, the most up to the target).
    int64_t chunks = std::min(chunkTarget(ns, minNs), mostChunks);
    while (ranges[shared] % chunks != 0)
      chunks += byPixels ? -1 : 1;
    SmallVector<int64_t> sizes(loops, 0);
    sizes[shared] = ranges[shared] / chunks;
    Operation *chunk =
        chunks < 2 ? op.getOperation()
                   : tile(rewriter, op, sizes, /*order=*/{},
                          scf::SCFTilingOptions::LoopType::ForallOp, width);
    if (!chunk)
      return;
    op = cast<linalg::LinalgOp>(chunk);
  }
  if (kernelT) {
    // Each output line (by pixels, each output pixel of the whole batch).
    int64_t stride = byPixels ? 1 : lastLineSteps(op).stride;
    SmallVector<int64_t> sizes(loops, 0);
    std::fill_n(sizes.begin() + (byPixels ? 1 : 0), spatial, 1);
    if (auto part = dyn_cast_or_null<linalg::LinalgOp>(
            tile(rewriter, op, sizes, /*order=*/{},
                 scf::SCFTilingOptions::LoopType::ForOp, width)))
      windowInLanes(rewriter, part, kernelT->getResult(0),
                    byPixels ? 0 : spatial, stride, tiles, width);
    tileElementwise(rewriter, kernelT, width);
    return;
  }
  if (byPixels && lastLineSteps(op).dilation != 1) {
    if (linalg::LinalgOp block = windowBlock(rewriter, op, tiles))
      tileInRegisters(rewriter, block, registerTilesOf(block, tiles), true);
    return;
  }
  if (byPixels) {
    // Each output pixel, window row by window row.
    SmallVector<int64_t> rows(loops, 0);
    for (unsigned d = 1; d + 2 < loops; ++d)
      rows[d] = d != spatial + 1;
    auto row = dyn_cast_or_null<linalg::LinalgOp>(
        tile(rewriter, op, rows, /*order=*/{},
             scf::SCFTilingOptions::LoopType::ForOp, width));
    if (!row)
      return;
    linalg::LinalgOp matmul = pixelTileAsMatmul(rewriter, row);
    tileProduct(rewriter, matmul, tiles);
    return;
  }
  SmallVector<int64_t> lines(loops, 0);
  for (unsigned d = 0; d < spatial; ++d)
    lines[d] = 1;
  auto line = dyn_cast_or_null<linalg::LinalgOp>(
      tile(rewriter, op, lines, /*order=*/{},
           scf::SCFTilingOptions::LoopType::ForOp, width));
  if (!line)
    return;
  if (ranges.back() < kiln::kWindowProductMinFeatures) {
    tileInRegisters(rewriter, line, registerTilesOf(line, tiles), false);
    return;
  }
  if (fitsCacheTileOfB(line, tiles)) {
    tileInRegisters(rewriter, line, registerTilesOf(line, tiles), false,
                    /*featureStep=*/1);
    return;
  }
  SmallVector<int64_t> positions(loops, 0);
  for (unsigned d = spatial + 2; d + 1 < loops; ++d)
    positions[d] = 1;
  auto position =
      dyn_cast_or_null<linalg::LinalgOp>(tile(rewriter, line, positions));
  if (!position)
    return;
  linalg::LinalgOp matmul = lineTileAsMatmul(rewriter, position);
  tileProduct(rewriter, matmul, tiles);
}

/// Whether `op` is a matmul: a named one, or an int8 product of byte quads
/// (kiln::biasByteProducts). Row fusion leaves them outside its loops.
bool isMatmulProduct(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
         (linalgOp && (kiln::isByteQuadProduct(linalgOp) ||
                       kiln::isPackedQuadProduct(linalgOp)));
}

/// The linalg ops (not matmuls) in `root`'s block that `root` is computed
/// from, through slices and reshapes, `root` first.
SmallVector<linalg::LinalgOp> producerCone(linalg::LinalgOp root) {
  SmallVector<linalg::LinalgOp> cone{root};
  SmallVector<Value> work(root->getOperands());
  DenseSet<Operation *> seen{root};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != root->getBlock() || !seen.insert(def).second)
      continue;
    if (isSliceOrReshape(def)) {
      work.push_back(def->getOperand(0));
    } else if (auto op = dyn_cast<linalg::LinalgOp>(def);
               op && !isMatmulProduct(def)) {
      cone.push_back(op);
      llvm::append_range(work, def->getOperands());
    }
  }
  return cone;
}

/// The ops that read `op`'s results, through slices and reshapes.
SmallVector<Operation *> readers(Operation *op) {
  SmallVector<Operation *> found;
  SmallVector<Operation *> work(op->getUsers().begin(), op->getUsers().end());
  while (!work.empty()) {
    Operation *user = work.pop_back_val();
    if (isSliceOrReshape(user))
      llvm::append_range(work, user->getUsers());
    else
      found.push_back(user);
  }
  return found;
}

/// Whether `value` is `op`'s result, or a slice or reshape of it through
/// any number of them.
bool derivesFrom(Value value, Operation *op) {
  for (Operation *def = value.getDefiningOp(); def;
       def = isSliceOrReshape(def) ? def->getOperand(0).getDefiningOp()
                                   : nullptr)
    if (def == op)
      return true;
  return false;
}

/// Whether `matmul` accumulates in `op`'s result (through slices and
/// reshapes): `op` is its start (an int8 product's C0 - 128 rowsum(A)).
bool startsProduct(Operation *op, Operation *matmul) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(matmul);
  return linalgOp && linalgOp.getNumDpsInits() == 1 &&
         derivesFrom(linalgOp.getDpsInitOperand(0)->get(), op);
}

/// Whether a matmul reads `op`'s result as A or B (through slices and
/// reshapes).
bool feedsProductOperand(Operation *op) {
  return llvm::any_of(readers(op), [&](Operation *reader) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(reader);
    return linalgOp && isMatmulProduct(reader) &&
           llvm::any_of(linalgOp.getDpsInputs(),
                        [&](Value input) { return derivesFrom(input, op); });
  });
}

/// Whether every reader of `op`'s results, through slices and reshapes, is
/// in `ops`.
bool readOnlyBy(Operation *op, const DenseSet<Operation *> &ops) {
  return llvm::all_of(readers(op),
                      [&](Operation *reader) { return ops.contains(reader); });
}

/// Whether `op`'s payload computes from its operands' elements alone: not
/// from its position (linalg.index) or from a tensor it reads from above
/// (a gather's table), which differ between parts at different offsets.
bool computesFromElementsOnly(linalg::GenericOp op) {
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op.getRegion(), captured);
  bool readsPosition =
      op.getRegion()
          .walk([](linalg::IndexOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  return !readsPosition && llvm::all_of(captured, [](Value value) {
           return !isa<ShapedType>(value.getType());
         });
}

/// How far into a wider value a part of it starts along each dimension;
/// none where any offset would do (values that do not change along it: a
/// broadcast's).
using Shift = SmallVector<std::optional<int64_t>>;

/// Whether `op` is an elementwise op whose parts reuseWidestCopies may take
/// from a wider copy: all loops parallel, one result, written in order.
bool isPartitionable(linalg::GenericOp op) {
  return op.getNumLoops() == op.getNumParallelLoops() &&
         op->getNumResults() == 1 && op.hasPureTensorSemantics() &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity();
}

std::optional<Shift> partShift(linalg::GenericOp narrow,
                               linalg::GenericOp wide);

/// The shift of `narrow` in `wide` (tensors of one rank): where it is
/// `wide` itself, a slice of it, a slice of the tensor `wide` slices at
/// constant offsets from `wide`'s, or a part of a wider copy (partShift).
std::optional<Shift> valueShift(Value narrow, Value wide) {
  auto rank = cast<ShapedType>(narrow.getType()).getRank();
  if (narrow == wide)
    return Shift(rank, 0);
  auto narrowCopy = narrow.getDefiningOp<linalg::GenericOp>();
  auto wideCopy = wide.getDefiningOp<linalg::GenericOp>();
  if (narrowCopy && wideCopy)
    return partShift(narrowCopy, wideCopy);
  auto narrowSlice = narrow.getDefiningOp<tensor::ExtractSliceOp>();
  if (!narrowSlice || !narrowSlice.hasUnitStride() ||
      narrowSlice.getSourceType().getRank() != rank)
    return std::nullopt;
  // Where `wide` is the tensor `narrow` slices, its offsets there are 0.
  SmallVector<OpFoldResult> wideOffsets(
      rank, IntegerAttr::get(IndexType::get(wide.getContext()), 0));
  if (narrowSlice.getSource() != wide) {
    auto wideSlice = wide.getDefiningOp<tensor::ExtractSliceOp>();
    if (!wideSlice || wideSlice.getSource() != narrowSlice.getSource() ||
        !wideSlice.hasUnitStride())
      return std::nullopt;
    wideOffsets = wideSlice.getMixedOffsets();
  }
  Shift shift;
  for (auto [from, to] :
       llvm::zip(wideOffsets, narrowSlice.getMixedOffsets())) {
    std::optional<int64_t> start = getConstantIntValue(from);
    std::optional<int64_t> end = getConstantIntValue(to);
    if (start && end)
      shift.push_back(*end - *start);
    else if (from == to)
      shift.push_back(0);
    else
      return std::nullopt;
  }
  return shift;
}

/// Where the elementwise `narrow` (isPartitionable) computes a part of
/// what `wide` computes (the same payload on parts of the same operands:
/// valueShift), the shift of each of its loops in `wide`'s.
std::optional<Shift> partShift(linalg::GenericOp narrow,
                               linalg::GenericOp wide) {
  if (!isPartitionable(narrow) || !isPartitionable(wide) ||
      !computesFromElementsOnly(narrow) ||
      narrow.getIndexingMapsArray() != wide.getIndexingMapsArray() ||
      narrow.getNumDpsInputs() != wide.getNumDpsInputs() ||
      !OperationEquivalence::isRegionEquivalentTo(
          &narrow.getRegion(), &wide.getRegion(),
          OperationEquivalence::IgnoreLocations))
    return std::nullopt;
  Shift shift(narrow.getNumLoops());
  for (auto [narrowInput, wideInput, map] :
       llvm::zip(narrow.getDpsInputs(), wide.getDpsInputs(),
                 narrow.getIndexingMapsArray())) {
    std::optional<Shift> inputShift = valueShift(narrowInput, wideInput);
    if (!inputShift)
      return std::nullopt;
    for (auto [expr, by] : llvm::zip(map.getResults(), *inputShift)) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return std::nullopt;
      std::optional<int64_t> &loop = shift[dim.getPosition()];
      if (by && loop && *loop != *by)
        return std::nullopt;
      if (by)
        loop = by;
    }
  }
  return shift;
}

/// The offsets of `narrow`'s result in `wide`'s where it is a part of it
/// (partShift) that lies within it.
std::optional<SmallVector<int64_t>> partOf(linalg::GenericOp narrow,
                                           linalg::GenericOp wide) {
  std::optional<Shift> shift = partShift(narrow, wide);
  if (!shift)
    return std::nullopt;
  SmallVector<int64_t> offsets;
  for (auto [by, size, wideSize] : llvm::zip(
           *shift, narrow.getStaticLoopRanges(), wide.getStaticLoopRanges())) {
    int64_t offset = by.value_or(0);
    if (offset < 0 || offset + size > wideSize)
      return std::nullopt;
    offsets.push_back(offset);
  }
  return offsets;
}

/// Where fusion computed an elementwise producer once per reader of a
/// different part of a block (a softmax's exponentials: all columns for
/// the division, the vector lanes' columns and the rest for the sum), the
/// parts become slices of the widest copy, so that it is computed once.
void reuseWidestCopies(RewriterBase &rewriter, Operation *loop,
                       DominanceInfo &dominance) {
  SmallVector<linalg::GenericOp> copies;
  loop->walk([&](linalg::GenericOp op) {
    if (isPartitionable(op))
      copies.push_back(op);
  });
  // Readers first: a part of a broadcast, once a slice, no longer says
  // that any of its offsets would do.
  DenseSet<Operation *> replaced;
  for (linalg::GenericOp narrow : llvm::reverse(copies)) {
    if (narrow->use_empty()) {
      rewriter.eraseOp(narrow);
      replaced.insert(narrow);
      continue;
    }
    for (linalg::GenericOp wide : copies) {
      if (wide == narrow || replaced.contains(wide) ||
          wide->getBlock() != narrow->getBlock())
        continue;
      std::optional<SmallVector<int64_t>> offsets = partOf(narrow, wide);
      if (!offsets)
        continue;
      // A wide copy after its part (all columns for a consumer after the
      // sum's lanes and rest) moves up with what it reads, where it can.
      if (narrow->isBeforeInBlock(wide)) {
        if (failed(
                moveOperationDependencies(rewriter, wide, narrow, dominance)))
          continue;
        rewriter.moveOpBefore(wide, narrow);
      }
      rewriter.setInsertionPoint(narrow);
      MLIRContext *context = rewriter.getContext();
      SmallVector<int64_t> strides(offsets->size(), 1);
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          narrow, wide->getResult(0),
          getAsIndexOpFoldResult(context, *offsets),
          getAsIndexOpFoldResult(context, narrow.getStaticLoopRanges()),
          getAsIndexOpFoldResult(context, strides));
      replaced.insert(narrow);
      break;
    }
  }
}

/// A producer fused into `loop` writes its block into a slice of the empty
/// tensor that held all of its result: give it a block of its own instead,
/// so that no buffer of the whole result is allocated (a thread's blocks
/// become its stack buffers) and producers computed twice (for two
/// consumers) do not write one buffer.
void giveBlocksOwnBuffers(RewriterBase &rewriter, Operation *loop) {
  loop->walk(
      [&](tensor::ExtractSliceOp slice) { giveOwnBuffer(rewriter, slice); });
}

/// Replaces `root`, tiled into `loop` with its producers fused, by
/// `replacement`, and erases the producers left dead outside the loop (dead
/// unless something else uses them, once the slices of them fusion left
/// in the loop are gone); adds what it erases to `erased`.
void replaceFusedRoot(RewriterBase &rewriter, Operation *root,
                      Value replacement, Operation *loop,
                      DenseSet<Operation *> &erased) {
  SmallVector<Operation *> work;
  loop->walk([&](tensor::ExtractSliceOp slice) { work.push_back(slice); });
  for (Value operand : root->getOperands())
    if (Operation *def = operand.getDefiningOp())
      work.push_back(def);
  erased.insert(root);
  rewriter.replaceOp(root, replacement);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        work.push_back(def);
    erased.insert(op);
    rewriter.eraseOp(op);
  }
}

/// Bytes of row blocks that rows fusion aims at: a block's intermediate
/// values stay in L2.
constexpr int64_t kRowBlockBytes = 64 << 10;

/// Whether `op` can end a chain that rows fusion computes block by block:
/// an all-parallel op, or a reduction of trailing loops (a row sum, the
/// sum of a matrix-vector product's lanes) that is not a matmul.
bool isRowsFusionRoot(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto firstReduction = llvm::find(iterators, utils::IteratorType::reduction);
  return firstReduction != iterators.begin() &&
         std::all_of(firstReduction, iterators.end(),
                     [](utils::IteratorType type) {
                       return type == utils::IteratorType::reduction;
                     }) &&
         !isMatmulProduct(op);
}

/// Whether a reduction that rows fusion takes as a root reads `op`'s
/// results (through slices and reshapes): then `op` is the middle of that
/// root's chain (a softmax's exponentials), not its end, and a loop of it
/// alone would leave its rows in other threads' caches for the rest of the
/// chain to read. A matmul that reads it as an operand (attention's
/// probabilities times values) starts a chain of its own; one that
/// accumulates in it continues this one. A reduction over its first loop
/// (the rows' results of a whole-tensor reduction, a loss's mean over the
/// batch) is no root: `op` ends the chain.
bool continuesInRoot(Operation *op) {
  return llvm::any_of(readers(op), [&](Operation *reader) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(reader);
    return linalgOp && linalgOp.getNumReductionLoops() > 0 &&
           (isMatmulProduct(reader) ? startsProduct(op, reader)
                                    : isRowsFusionRoot(linalgOp));
  });
}

/// Tile sizes of fuseRows's blocks of `root`, or none where it has fewer
/// than 2 rows or no block pays (a single block still computes its chain
/// without intermediate tensors). Its rows are the indices of its loops
/// but the last (of all an all-parallel root's but a 1-D one's; of a
/// reduction's parallel loops): a layer norm's [batch, sequence],
/// attention scores' [batch, heads, queries]. A reduction takes one row at a
/// time, so that the lanes of partial sums it reduces stay in registers from
/// the op that computes them (a 1024 x 1024 matrix-vector product: 0.060 ->
/// 0.046 ms, builds alternated; blocks of 16 rows ran at 0.062 ms, of 256 at
/// 0.058, their partial sums stored and read back). Else a block takes one
/// index of each outer row loop and, of the first whose indices each hold at
/// most kRowBlockBytes (else of the last row loop), the most that divide it and
/// fit a block of kRowBlockBytes: blocks of a leading batch of 1 would have
/// nothing to share, blocks of 2 x 12 heads' 3 MB scores would not stay in L2.
std::optional<SmallVector<int64_t>> rowBlockSizes(linalg::LinalgOp root) {
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  unsigned loops = ranges.size();
  bool reduction = root.getNumReductionLoops() > 0;
  unsigned rowLoops =
      reduction ? root.getNumParallelLoops() : std::max(1u, loops - 1);
  int64_t rowCount = 1;
  for (int64_t size : ArrayRef(ranges).take_front(rowLoops))
    rowCount *= size;
  if (rowCount < 2)
    return std::nullopt;
  SmallVector<int64_t> sizes(loops, 0);
  if (reduction) {
    std::fill_n(sizes.begin(), rowLoops, 1);
    return sizes;
  }
  auto type = cast<RankedTensorType>(root->getResult(0).getType());
  int64_t bytesEach = kiln::elementBytes(type.getElementType());
  // Bytes of one index of `loop`: the product of the loops inside it.
  auto indexBytes = [&](unsigned loop) {
    int64_t bytes = bytesEach;
    for (int64_t size : ArrayRef(ranges).drop_front(loop + 1))
      bytes *= size;
    return bytes;
  };
  unsigned blocked = 0;
  while (blocked + 1 < rowLoops && indexBytes(blocked) > kRowBlockBytes)
    sizes[blocked++] = 1;
  int64_t rows = ranges[blocked];
  int64_t fitting = std::max<int64_t>(
      1, kRowBlockBytes / std::max<int64_t>(1, indexBytes(blocked)));
  int64_t block = std::min(fitting, rows);
  while (rows % block != 0)
    --block;
  // Blocks of a few rows where more would fit (a prime number of short
  // rows) cost more in loop overhead than fusion saves.
  if (block < std::min<int64_t>(fitting, 8))
    return std::nullopt;
  sizes[blocked] = block;
  return sizes;
}

/// Bytes of B per batch up to which rows fusion computes each block's part
/// of a product its chain reads (isBlockProduct): B stays in L2 while the
/// blocks pass.
constexpr int64_t kBlockProductMaxBBytes = 256 << 10;

/// Rows of a block from which rows fusion computes block products in it:
/// a register tile's.
constexpr int64_t kBlockProductMinRows = 8;

/// Whether rows fusion computes each block's part of `product` where its
/// chain reads it, right before it reads it from cache: a plain f32
/// matmul or batch matmul whose B per batch holds at most
/// kBlockProductMaxBBytes (attention's scores of a block of queries, from
/// one head's keys, instead of all heads' 6 MB of scores written to memory
/// and read back).
bool isBlockProduct(Operation *product) {
  auto op = dyn_cast<linalg::LinalgOp>(product);
  if (!op || !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(product) ||
      !isTiledMatmul(op))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges(); // [B,] M, N, K
  size_t batch = ranges.size() - 3;
  int64_t n = ranges[batch + 1], k = ranges[batch + 2];
  Type element = getElementTypeOrSelf(op->getOperand(1).getType());
  return element.isF32() && n > 0 && k > 0 &&
         n * k * int64_t(sizeof(float)) <= kBlockProductMaxBBytes;
}

/// Whether `slice` of a block product's result takes whole rows of it.
bool takesWholeRows(tensor::ExtractSliceOp slice) {
  return slice.hasUnitStride() &&
         slice.getSourceType().getRank() == slice.getResultType().getRank() &&
         slice.getResultType().getShape().back() ==
             slice.getSourceType().getShape().back();
}

/// The block products (isBlockProduct) that ops of `cone` read, through
/// slices and reshapes.
SmallVector<Operation *> blockProductsOf(ArrayRef<linalg::LinalgOp> cone) {
  llvm::SetVector<Operation *> products;
  for (linalg::LinalgOp op : cone)
    for (Value operand : op->getOperands())
      if (Operation *def = viewedSource(operand).getDefiningOp();
          def && isBlockProduct(def))
        products.insert(def);
  return products.takeVector();
}

/// Fusion that follows the data: where `root` (isRowsFusionRoot) ends a
/// chain computed from a reduction (a layer norm's scaling by its rows'
/// inverse standard deviations, the sum of a matrix-vector product's lanes
/// of partial sums), tiles it by blocks of its rows (rowBlockSizes)
/// and computes, inside the loop, the rows of every producer it needs
/// (reductions, elementwise ops, fills), so that a normalization reads its
/// input from memory about once instead of once per op. Producers whose
/// every row each block would need (a column sum) and matmuls stay
/// outside. The loop is an scf.forall, shared by threads,
/// when the ops are estimated to take at least `minNs` together. Returns
/// the loop, or null where `root` is not such an op or fusion failed; adds
/// the ops it erases (`root` and the producers left dead) to `erased`.
Operation *fuseRows(RewriterBase &rewriter, linalg::LinalgOp root,
                    int64_t minNs, DenseSet<Operation *> &erased) {
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  if (ranges.empty() || !isRowsFusionRoot(root) || root->getNumResults() != 1 ||
      root.getNumDpsInputs() == 0)
    return nullptr;
  if (continuesInRoot(root))
    return nullptr;
  SmallVector<linalg::LinalgOp> cone = producerCone(root);
  if (llvm::none_of(llvm::drop_begin(cone), [](linalg::LinalgOp op) {
        return op.getNumReductionLoops() > 0;
      }))
    return nullptr;
  // A producer that two ops of the chain read is fused once per reader;
  // the copies are merged after fusion. One that ops outside the chain
  // read too would be computed both in the loop and outside it: fine for a
  // subtraction (layer norm's x - mean), not for exponentials, which then
  // stay unfused.
  DenseSet<Operation *> inCone;
  for (linalg::LinalgOp op : cone)
    inCone.insert(op);
  for (linalg::LinalgOp op : llvm::drop_begin(cone)) {
    bool costly = op->walk([](Operation *inner) {
                      return isa<math::MathDialect>(inner->getDialect())
                                 ? WalkResult::interrupt()
                                 : WalkResult::advance();
                    }).wasInterrupted();
    if (costly && !readOnlyBy(op, inCone))
      return nullptr;
  }
  std::optional<SmallVector<int64_t>> sizes = rowBlockSizes(root);
  if (!sizes)
    return nullptr;
  // Block products that only the chain reads are computed in the loop
  // (another reader would have them computed twice), where a block has
  // rows for a register tile (not a reduction's single row: the
  // classifier head's product a row at a time took 2x as long); they
  // count too: a loop of them that threads do not share would keep them
  // on one thread.
  double ns = 0;
  for (linalg::LinalgOp op : cone)
    ns += estimatedNs(op);
  DenseSet<Operation *> blockProducts;
  int64_t blockRows = *llvm::find_if(llvm::reverse(*sizes),
                                     [](int64_t size) { return size != 0; });
  if (root.getNumReductionLoops() == 0 && blockRows >= kBlockProductMinRows)
    for (Operation *product : blockProductsOf(cone))
      if (readOnlyBy(product, inCone)) {
        blockProducts.insert(product);
        ns += estimatedNs(cast<linalg::LinalgOp>(product));
      }

  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), *sizes));
  tiling.setLoopType(minNs > 0 && ns >= minNs
                         ? scf::SCFTilingOptions::LoopType::ForallOp
                         : scf::SCFTilingOptions::LoopType::ForOp);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp slice, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        // A block's part of a block product is computed in the block; what
        // the product reads, every block would compute again.
        if ((isMatmulProduct(producer.getOwner()) &&
             !(blockProducts.contains(producer.getOwner()) &&
               takesWholeRows(slice))) ||
            feedsProductOperand(slice) ||
            slice.getSourceType() == slice.getResultType())
          return std::nullopt;
        // Nor is a producer fused that cannot be tiled (isVectorizable): one
        // with an empty loop (a sum over a size-0 dimension), which crashed
        // upstream's tiling (scripts/fuzz.py, seed 2013336), or that reads
        // through a map other than a projected permutation (a reverse's
        // n - 1 - d), which upstream's tiling keeps against the input's
        // slice, which then falls short of it (seed 1592).
        auto linalgOp = dyn_cast<linalg::LinalgOp>(producer.getOwner());
        if (linalgOp && !isVectorizable(linalgOp))
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  // Slices of a reshape (a reduction's [rows, groups, lanes] view) or of
  // a slice move above it, onto the op that computes the rows.
  RewritePatternSet cleanup(rewriter.getContext());
  tensor::populateBubbleUpExtractSliceOpPatterns(cleanup);
  tensor::populateMergeConsecutiveInsertExtractSlicePatterns(cleanup);
  options.cleanupPatterns = FrozenRewritePatternSet(std::move(cleanup));

  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(fused) || fused->loops.empty())
    return nullptr;
  Operation *loop = fused->loops.front();
  giveBlocksOwnBuffers(rewriter, loop);
  // A producer fused for two readers (a softmax's exponentials, summed
  // and divided) is computed once: equal copies merge, then parts of a
  // wider copy are sliced from it.
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, loop);
  reuseWidestCopies(rewriter, loop, dominance);
  replaceFusedRoot(rewriter, root, fused->replacements.lookup(root->getResult(0)),
                   loop, erased);
  return loop;
}

/// The static [M, N, K] of `matmul`, a plain matmul of `element` operands
/// into `sum`, none of them empty; else nothing.
std::optional<std::array<int64_t, 3>> paddableProduct(linalg::LinalgOp matmul,
                                                      Type element, Type sum) {
  if (!kiln::isPlainMatmul(matmul) || inputElement(matmul) != element ||
      getElementTypeOrSelf(matmul->getOperand(1).getType()) != element ||
      accumulatorElement(matmul) != sum)
    return std::nullopt;
  SmallVector<int64_t> ranges = matmul.getStaticLoopRanges();
  if (llvm::any_of(ranges, [](int64_t size) { return size <= 0; }))
    return std::nullopt;
  size_t batch = firstMatmulLoop(matmul);
  return std::array<int64_t, 3>{ranges[batch], ranges[batch + 1],
                                ranges[batch + 2]};
}

/// The fewest k steps of an f32 product whose whole panels split off to
/// pack (splitForF32Panels).
constexpr int64_t kSplitPanelsMinK = 64;

/// The fewest rows of an f32 product whose whole panels split off to pack
/// where B is small and its rows apart by no multiple of 2 KiB
/// (kiln::f32PanelsPay's exceptions). On an AMD Zen 3, one thread, 512 x
/// 256 x 330 ran 0.94 ms split and packed, 1.11 not; 32 x 200 x 200 0.027
/// unsplit, 0.032 split.
constexpr int64_t kSplitSmallPanelsMinRows = 128;

/// The columns of whole panels of `width` that splitForF32Panels splits
/// from those after them, so that their B packs (the rest is a product of
/// fewer columns than a register tile), where `matmul` is an f32
/// linalg.matmul or batch_matmul of kSplitPanelsMinK k steps or more whose
/// N is not a multiple of `width` (B's rows off cache lines, where a
/// register tile's row of B straddles lines, or on them but in no whole
/// panels) and whose whole panels pay for packing (kiln::f32PanelsPay, or
/// kSplitSmallPanelsMinRows rows). On an Intel Xeon, one thread, 514 x 1395 x
/// 450 ran 6.9 -> 4.4 ms, 257 x 1000 x 333 1.36 -> 1.20 (1.36 with B and C
/// padded with zero columns into whole panels, which copies both), 1134 x 756 x
/// 826 10.4 -> 9.7 (padded), 512 x 512 x 784 2.74 -> 2.49 and A^T B of
/// 1437 x 759 x 1136 24.1 -> 17.4 (neither packed). A B that is a
/// transpose chunks of columns compute (x W^T) splits only where it is
/// over 1 MiB and rows outnumber columns, so that chunks of rows would
/// each stream it (999 x 1166 x 698: 17.9 -> 11.2 ms, transposed whole
/// first); else its chunks transpose their own columns (256 x 512 x 784
/// ran 1.24 -> 1.45 ms split, 267 x 768 x 1412 3.57 -> 4.40).
/// Returns 0 where `matmul` is not such a product.
int64_t wholeF32Panels(linalg::LinalgOp matmul, int64_t width) {
  MLIRContext *context = matmul.getContext();
  auto f32 = Float32Type::get(context);
  auto sizes = paddableProduct(matmul, f32, f32);
  if (!sizes)
    return 0;
  auto [m, n, k] = *sizes;
  int64_t whole = llvm::alignDown(n, width);
  if ((m < kSplitSmallPanelsMinRows && !kiln::f32PanelsPay(m, whole, k)) ||
      k < kSplitPanelsMinK || n % width == 0 ||
      (transposeReadOnce(matmul->getOperand(1)) &&
       (m <= n || k * n * int64_t(sizeof(float)) <= kiln::kThreadBufferBytes)))
    return 0;
  return whole;
}

/// The matmul (one the schedule register-tiles) whose result the
/// all-parallel `op` reads element for element, as the only reader: the
/// product `op` is an epilogue of (a bias add, an activation); else null.
linalg::LinalgOp epilogueProducer(linalg::LinalgOp op) {
  if (op.getNumLoops() != op.getNumParallelLoops() ||
      op->getNumResults() != 1 || !op.hasPureTensorSemantics() ||
      !isVectorizable(op) ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return {};
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto matmul = input->get().getDefiningOp<linalg::LinalgOp>();
    if (matmul && isTiledMatmul(matmul) && matmul.hasPureTensorSemantics() &&
        isVectorizable(matmul) && input->get().hasOneUse() &&
        op.getMatchingIndexingMap(input).isIdentity())
      return matmul;
  }
  return {};
}

/// A block of a matmul's rows or columns for its epilogue's loop: the
/// largest multiple of the register tile, up to `most`, that divides
/// `size`; 0 (the whole dimension, untiled) where none does or `size` is
/// no larger than `most`.
int64_t epilogueBlock(int64_t size, int64_t registerTile, int64_t most) {
  for (int64_t block = most - most % registerTile;
       block >= registerTile && block < size; block -= registerTile)
    if (size % block == 0)
      return block;
  return 0;
}

/// Cache tiles of rows per block of a matmul with an epilogue: a block of
/// B's columns stays in L2 while this many row tiles of A stream past it.
constexpr int64_t kEpilogueRowTiles = 4;

/// The most blocks of columns of a matmul with an epilogue whose blocks each
/// transpose their rows of A^T: each column block transposes all of it
/// again.
constexpr int64_t kEpilogueTransposedColumnBlocks = 2;

/// Whether the blocks of `matmul`, whose A is a transpose they compute
/// part by part (a weight gradient's X^T), take all of its columns, so
/// that each transposes its rows of A once: where B stays in L2 while
/// every row block passes it (at most kThreadBufferBytes), and the largest
/// row block of C fits half a thread's buffers. The MLP step's 784 x 256 x
/// 512 weight gradient with its SGD update ran 1.37 -> 1.23 ms on an Intel
/// Xeon in blocks of 56 x 512, which had been 56 x 256, each row of X^T
/// transposed twice.
bool transposedRowsTakeAllColumns(linalg::LinalgOp matmul, MatmulTiles tiles) {
  if (!transposeReadOnce(matmul->getOperand(0)))
    return false;
  auto b = cast<RankedTensorType>(matmul->getOperand(1).getType());
  auto c = cast<RankedTensorType>(matmul->getOperand(2).getType());
  int64_t largestRows = kEpilogueRowTiles * tiles.cacheM;
  return kiln::storageBytes(b) <= kiln::kThreadBufferBytes &&
         2 * kiln::storageBytes(RankedTensorType::get(
                 {largestRows, c.getShape().back()}, c.getElementType())) <=
             kiln::kThreadBufferBytes;
}

/// `consumer`, an epilogue of `matmul` (epilogueProducer), and `matmul`
/// split at column `whole` (wholeF32Panels), each piece of `consumer`
/// reading its own piece of the product: blocks of the whole panels' piece
/// read B packed (kiln::packBlockPanels), where blocks of all of N read it
/// as it is (on an AMD Zen 3, one thread, a bias and ReLU on 1134 x 756 x
/// 826 ran 21 -> 16.1 ms, the product alone 17.6); the few columns after them
/// are a small product of their own. Returns the whole panels' piece of
/// `consumer`; adds the ops it erases to `erased`.
linalg::LinalgOp splitEpilogue(RewriterBase &rewriter,
                               linalg::LinalgOp consumer,
                               linalg::LinalgOp matmul, int64_t whole,
                               DenseSet<Operation *> &erased) {
  unsigned columns = firstMatmulLoop(matmul) + 1;
  unsigned read = llvm::find_if(consumer->getOpOperands(), [&](OpOperand &use) {
                    return use.get().getDefiningOp() == matmul;
                  })->getOperandNumber();
  erased.insert(matmul);
  erased.insert(consumer);
  auto products = split(rewriter, matmul, columns, whole, /*inputs=*/nullptr,
                        /*chained=*/false);
  auto joined =
      consumer->getOperand(read).getDefiningOp<tensor::InsertSliceOp>();
  auto pieces = split(rewriter, consumer, columns, whole);
  for (auto [piece, product] : {std::pair(pieces.first, products.first),
                                std::pair(pieces.second, products.second)}) {
    auto slice =
        piece->getOperand(read).getDefiningOp<tensor::ExtractSliceOp>();
    piece->setOperand(read, product->getResult(0));
    rewriter.eraseOp(slice);
  }
  auto partial = joined.getDest().getDefiningOp<tensor::InsertSliceOp>();
  rewriter.eraseOp(joined);
  rewriter.eraseOp(partial);
  return pieces.first;
}

/// Matmul epilogues: where the all-parallel `consumer` reads a matmul's
/// result element for element, as its only reader (a bias add and an
/// activation), tiles `consumer` by blocks of the matmul's rows and columns
/// (columns outermost, as the matmul's cache tiles go) and computes each
/// block of the product, over all of K, in the loop, just before the
/// epilogue reads it from cache, instead of in a pass of its own over
/// memory; with splitEpilogue first where whole panels split off and
/// `packs` (B is packed into panels). Columns narrower than a register tile are
/// left alone: their product is small, and its blocks would pad B once each.
/// The loop is an scf.forall when the ops are estimated to take at least
/// `minNs`, with blocks of fewer rows where there would be fewer blocks than
/// distribute() would make chunks. Returns the loop, or null where `consumer`
/// is no epilogue or fusion failed; adds the ops it erases to `erased`.
Operation *fuseEpilogue(RewriterBase &rewriter, linalg::LinalgOp consumer,
                        MatmulTiles tiles, int64_t minNs, bool packs,
                        DenseSet<Operation *> &erased) {
  linalg::LinalgOp matmul = epilogueProducer(consumer);
  if (!matmul)
    return nullptr;
  if (int64_t whole = packs ? wholeF32Panels(matmul, tiles.registerN) : 0) {
    consumer = splitEpilogue(rewriter, consumer, matmul, whole, erased);
    if (!(matmul = epilogueProducer(consumer)))
      return nullptr;
  }
  SmallVector<int64_t> ranges = matmul.getStaticLoopRanges(); // [B,] M, N, K
  size_t batch = firstMatmulLoop(matmul);
  int64_t m = ranges[batch], n = ranges[batch + 1];
  if (n < tiles.registerN)
    return nullptr;
  double ns = estimatedNs(matmul) + estimatedNs(consumer);
  bool threaded = minNs > 0 && ns >= minNs;
  int64_t columns = transposedRowsTakeAllColumns(matmul, tiles)
                        ? 0
                        : epilogueBlock(n, tiles.registerN, tiles.cacheN);
  int64_t columnBlocks = n / (columns ? columns : n), blocks = columnBlocks;
  for (int64_t size : ArrayRef(ranges).take_front(batch))
    blocks *= size;
  int64_t rows =
      epilogueBlock(m, tiles.registerM, kEpilogueRowTiles * tiles.cacheM);
  if (threaded && blocks * (m / (rows ? rows : m)) < chunkTarget(ns, minNs))
    rows = epilogueBlock(m, tiles.registerM, tiles.cacheM);
  SmallVector<int64_t> sizes(batch, 1);
  sizes.append({rows, columns});
  if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
    return nullptr; // One block: the product stays in cache anyway.
  SmallVector<int64_t> order(batch);
  std::iota(order.begin(), order.end(), 0);
  order.append({int64_t(batch + 1), int64_t(batch)});
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  tiling.setInterchange(order);
  tiling.setLoopType(threaded ? scf::SCFTilingOptions::LoopType::ForallOp
                              : scf::SCFTilingOptions::LoopType::ForOp);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  // The product's block, the zeros it starts from and, where the blocks
  // are at most kEpilogueTransposedColumnBlocks wide and the rows fit in
  // half a thread's buffers (beside the block's own), the rows of A^T it
  // reads (each block transposing its part in cache, instead of one thread
  // writing all of A^T first).
  Type aElement = getElementTypeOrSelf(matmul->getOperand(0).getType());
  int64_t aRowsBytes = kiln::storageBytes(
      RankedTensorType::get({rows ? rows : m, ranges[batch + 2]}, aElement));
  linalg::TransposeOp transposedA =
      columnBlocks <= kEpilogueTransposedColumnBlocks &&
              2 * aRowsBytes <= kiln::kThreadBufferBytes
          ? transposeReadOnce(matmul->getOperand(0))
          : nullptr;
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *owner = producer.getOwner();
        if (owner != matmul && !isa<linalg::FillOp>(owner) &&
            owner != transposedA.getOperation())
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  rewriter.setInsertionPoint(consumer);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(consumer.getOperation()), options);
  if (failed(fused) || fused->loops.empty())
    return nullptr;
  Operation *loop = fused->loops.front();
  giveBlocksOwnBuffers(rewriter, loop);
  replaceFusedRoot(rewriter, consumer,
                   fused->replacements.lookup(consumer->getResult(0)), loop,
                   erased);
  return loop;
}

/// Whether the schedule tiles `op`: matmuls it register-tiles, all-parallel
/// ops and reductions.
bool isScheduled(linalg::LinalgOp op) {
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
    return isTiledMatmul(op);
  // A reduction tiles like an elementwise op: its tiles accumulate in order
  // into the result, a vector of partial results at a time. So does a
  // generic one with one result and no index in its payload (a
  // matrix-vector product's multiply-add).
  if (isa<linalg::GenericOp>(op.getOperation()))
    return op.getNumLoops() == op.getNumParallelLoops() ||
           (op->getNumResults() == 1 && !op.hasIndexSemantics());
  return op.getNumLoops() == op.getNumParallelLoops() ||
         isa<linalg::ReduceOp>(op.getOperation());
}

/// Tiles and vectorizes `op`, one isScheduled accepts.
void schedule(RewriterBase &rewriter, linalg::LinalgOp op, MatmulTiles tiles,
              int64_t width) {
  if (kiln::isQuadPack(op))
    return tileQuadPack(rewriter, op);
  if (kiln::isPairPack(op))
    return tilePanelPack(rewriter, op, 2);
  if (kiln::isRowPanelPack(op))
    return tilePanelPack(rewriter, op, 1);
  if (kiln::isByteLaneQuads(op))
    return tileLaneQuads(rewriter, op);
  if (!isTiledMatmul(op))
    return tileElementwise(rewriter, op, width,
                           kAccumulatorRowRegisters * tiles.vectorBytes);
  tileProduct(rewriter, op, tiles);
}

/// The one of `fusedLoops` that `op` is in, or null.
Operation *fusedLoopOf(Operation *op, const DenseSet<Operation *> &fusedLoops) {
  auto loop = llvm::find_if(
      fusedLoops, [&](Operation *loop) { return loop->isProperAncestor(op); });
  return loop == fusedLoops.end() ? nullptr : *loop;
}

/// `matmul` with K padded with zeros to `paddedK` (in A and B) and N to
/// `paddedN` (in B and C, C's start a fill of the padded shape where it is
/// a fill), its result's columns sliced back; returns the padded matmul.
linalg::LinalgOp paddedProduct(RewriterBase &rewriter, linalg::LinalgOp matmul,
                               int64_t paddedK, int64_t paddedN) {
  Location loc = matmul.getLoc();
  rewriter.setInsertionPoint(matmul);
  Value a = matmul->getOperand(0), b = matmul->getOperand(1),
        c = matmul->getOperand(2);
  auto type = cast<RankedTensorType>(c.getType());
  unsigned rank = type.getRank();
  if (paddedK != cast<RankedTensorType>(a.getType()).getDimSize(rank - 1)) {
    a = kiln::zeroPadded(rewriter, loc, a, rank - 1, paddedK);
    b = kiln::zeroPadded(rewriter, loc, b, rank - 2, paddedK);
  }
  if (paddedN != type.getDimSize(rank - 1)) {
    b = kiln::zeroPadded(rewriter, loc, b, rank - 1, paddedN);
    SmallVector<int64_t> shape(type.getShape());
    shape[rank - 1] = paddedN;
    auto fill = c.getDefiningOp<linalg::FillOp>();
    c = fill ? kiln::filledTensor(rewriter, loc, type.clone(shape),
                                  fill.getInputs()[0])
             : kiln::zeroPadded(rewriter, loc, c, rank - 1, paddedN);
  }
  return replaceByPadded(rewriter, matmul, a, b, c);
}

/// `matmul`, a bf16 x bf16 -> f32 linalg.matmul or batch_matmul of at
/// least kiln::kAmxPanelMinRows rows, with K padded with zeros to an even
/// size and N to a multiple of `width` (paddedProduct), so that B packs
/// into whole panels of pairs and the product runs on AMX tiles; on
/// vdpbf16ps, with B's rows interleaved in registers, 257 x 129 x 63 took 3
/// times oneDNN's time. Returns the padded matmul, or null where `matmul`
/// is not such a product or needs no padding.
linalg::LinalgOp paddedForAmxPanels(RewriterBase &rewriter,
                                    linalg::LinalgOp matmul, int64_t width) {
  auto sizes =
      paddableProduct(matmul, rewriter.getBF16Type(), rewriter.getF32Type());
  if (!sizes)
    return {};
  auto [m, n, k] = *sizes;
  int64_t paddedK = llvm::alignTo(k, 2), paddedN = llvm::alignTo(n, width);
  if (m < kiln::kAmxPanelMinRows || (paddedK == k && paddedN == n))
    return {};
  return paddedProduct(rewriter, matmul, paddedK, paddedN);
}

/// `matmul` split at wholeF32Panels's columns: returns the product of
/// whole panels, or null where there are none.
linalg::LinalgOp splitForF32Panels(RewriterBase &rewriter,
                                   linalg::LinalgOp matmul, int64_t width) {
  int64_t whole = wholeF32Panels(matmul, width);
  if (!whole)
    return {};
  return split(rewriter, matmul, firstMatmulLoop(matmul) + 1, whole).first;
}

/// Of `matmul`, an int16 x int16 -> i32 linalg.matmul or batch_matmul on
/// `tiles`' 16-bit pairs (int8 widened by widenNarrowProducts) of at least
/// kiln::kPanelMinRows rows: the columns of whole panels split from those
/// after them (split, as splitForF32Panels), and an odd K padded with a
/// zero step (paddedProduct), so that B packs into panels of pairs
/// (kiln::panelGroup); else null. On an AMD Zen 3 (vpmaddwd), int8 670 x
/// 169 x 594 ran 1.42 -> 1.06 ms, 503 x 229 x 164 (x W^T) 0.44 -> 0.29,
/// 333 x 517 x 111 0.51 -> 0.32.
linalg::LinalgOp wholePairPanels(RewriterBase &rewriter,
                                 linalg::LinalgOp matmul,
                                 const MatmulTiles &tiles) {
  auto sizes =
      paddableProduct(matmul, rewriter.getI16Type(), rewriter.getI32Type());
  if (!sizes || !tiles.intPairs)
    return {};
  auto [m, n, k] = *sizes;
  int64_t whole = llvm::alignDown(n, tiles.registerN);
  if (m < kiln::kPanelMinRows || whole == 0 || (whole == n && k % 2 == 0))
    return {};
  if (whole != n)
    matmul = split(rewriter, matmul, firstMatmulLoop(matmul) + 1, whole).first;
  return k % 2 ? paddedProduct(rewriter, matmul, k + 1, whole) : matmul;
}

/// Packs B of the f32, bf16 and int16 matmuls that pay for it into panels of a
/// register tile's columns (kiln::panelGroup), once, before threads share
/// the product; for a product computed block by block in a fused loop (an
/// epilogue's), once before the loop, each block reading its columns'
/// panels.
void packMatmulPanels(RewriterBase &rewriter, Operation *root,
                      MatmulTiles tiles,
                      const DenseSet<Operation *> &fusedLoops) {
  SmallVector<linalg::LinalgOp> matmuls;
  root->walk([&](linalg::LinalgOp op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
      matmuls.push_back(op);
  });
  kiln::PackedSources packed;
  for (linalg::LinalgOp matmul : matmuls) {
    if (Operation *loop = fusedLoopOf(matmul, fusedLoops)) {
      kiln::packBlockPanels(rewriter, matmul, loop, tiles.registerN,
                            tiles.bf16Pairs, tiles.intPairs, packed);
      continue;
    }
    if (tiles.amx)
      if (linalg::LinalgOp padded =
              paddedForAmxPanels(rewriter, matmul, tiles.registerN))
        matmul = padded;
    if (linalg::LinalgOp pairs = wholePairPanels(rewriter, matmul, tiles))
      matmul = pairs;
    // Whole f32 panels split off pack whatever the distance between B's
    // rows.
    if (linalg::LinalgOp panels =
            splitForF32Panels(rewriter, matmul, tiles.registerN)) {
      kiln::packMatmulPanels(rewriter, panels, tiles.registerN, /*group=*/1);
      continue;
    }
    if (int64_t group =
            kiln::panelGroup(matmul, tiles.registerN, tiles.bf16Pairs,
                             tiles.intPairs, tiles.amx))
      kiln::packMatmulPanels(rewriter, matmul, tiles.registerN, group);
  }
}

/// The most pieces splitRowProductsK splits K into, and the fewest k steps
/// per piece.
constexpr int64_t kRowProductMaxPieces = 8, kRowProductMinSteps = 64;

/// Vector-matrix products under `root` ([M, K] x [K, N] of fewer rows than
/// a register tile, f32 or f64 linalg matmuls, or bf16 or f16 ones into
/// f32, of a B of at least kStreamedBMinBytes whose rows are wider than
/// a cache tile) that threads would share by chunks of columns, split along
/// K into pieces as a batch matmul of [P, M, K / P] by B's rows [P, K / P,
/// N], whose P partial products add into the product's output: a chunk of
/// columns reads each of B's rows in pieces a chunk wide, pages apart,
/// which the hardware prefetches poorly, where the batch's chunks
/// (preferredChunkLoop) each read whole rows of B, one block of memory.
/// On an AMD Zen 3, one thread, 1 x 4096 x 4096 took 3.6 ms in chunks of
/// 256 columns and 2.2 unchunked (numpy 2.2); 1 x 4096 x 1024 0.42 and
/// 0.29 (numpy 0.33); 2 x 4096 x 4096 4.3 and 2.2; bf16 1 x 4096 x 4096
/// into f32 2.9 and 1.4. P is the largest divisor of K up to
/// kRowProductMaxPieces that leaves kRowProductMinSteps steps a piece.
void splitRowProductsK(RewriterBase &rewriter, Operation *root,
                       const MatmulTiles &tiles) {
  SmallVector<linalg::MatmulOp> products;
  root->walk([&](linalg::MatmulOp op) {
    auto b = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    auto c = dyn_cast<RankedTensorType>(op->getOperand(2).getType());
    Type sum = c ? c.getElementType() : Type();
    Type element = b ? b.getElementType() : Type();
    if (b && c && b.hasStaticShape() && c.hasStaticShape() &&
        inputElement(op) == element && op.hasPureTensorSemantics() &&
        (((sum.isF32() || sum.isF64()) && element == sum) ||
         (sum.isF32() && (element.isBF16() || element.isF16()))) &&
        (c.getDimSize(0) < tiles.registerM ||
         streamsRowsOfB(op, tiles.registerM)) &&
        c.getDimSize(1) > tiles.cacheN &&
        kiln::storageBytes(b) >= kStreamedBMinBytes &&
        !transposeReadOnce(op->getOperand(1)))
      products.push_back(op);
  });
  for (linalg::MatmulOp op : products) {
    auto b = cast<RankedTensorType>(op->getOperand(1).getType());
    int64_t k = b.getDimSize(0), n = b.getDimSize(1), pieces = 1;
    for (int64_t count = 2; count <= kRowProductMaxPieces; ++count)
      if (k % count == 0 && k / count >= kRowProductMinSteps)
        pieces = count;
    if (pieces == 1)
      continue;
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Type element = b.getElementType();
    auto c = cast<RankedTensorType>(op->getOperand(2).getType());
    int64_t rows = c.getDimSize(0), steps = k / pieces;
    // A's pieces as [P, M, K / P]: a view of one row; of more, A's rows
    // as [M, P, K / P] transposed (each chunk computes its part).
    auto pieceType = RankedTensorType::get({pieces, rows, steps}, element);
    Value a = op->getOperand(0);
    if (rows == 1)
      a = kiln::reshapeTensor(rewriter, loc, a, pieceType);
    else
      a = linalg::TransposeOp::create(
              rewriter, loc,
              kiln::reshapeTensor(
                  rewriter, loc, a,
                  RankedTensorType::get({rows, pieces, steps}, element)),
              tensor::EmptyOp::create(rewriter, loc, pieceType.getShape(),
                                      element),
              ArrayRef<int64_t>{1, 0, 2})
              .getResult()[0];
    Value bRows =
        kiln::reshapeTensor(rewriter, loc, op->getOperand(1),
                            RankedTensorType::get({pieces, steps, n}, element));
    Value zeros = kiln::filledTensor(
        rewriter, loc,
        RankedTensorType::get({pieces, rows, n}, c.getElementType()),
        kiln::scalarConstant(rewriter, loc, c.getElementType(), 0));
    Value partials = linalg::BatchMatmulOp::create(
                         rewriter, loc, ValueRange{a, bRows}, ValueRange{zeros})
                         .getResult(0);
    rewriter.replaceOp(
        op, addAlong(rewriter, loc, partials, op->getOperand(2), /*dim=*/0)
                ->getResults());
  }
}

/// Widens the operands of every bf16 or f16 matmul under `root` that does
/// not multiply them in pairs, with two register tiles' rows or more and a
/// register tile's columns, to f32, once, before it is scheduled: its
/// register tiles converted B's elements in their k loops for every block
/// of rows, and A's for every block of columns (bf16 1024^3 on an AMD Zen
/// 3: 57 -> 24 ms, f32's). Fewer rows convert each element of B once or
/// twice as they read it (7 x 1000 x 999 widened: 0.40 -> 0.44 ms), fewer
/// columns each of A (256 x 784 x 2: 0.023 -> 0.041). int8 products on
/// 16-bit pairs (vpmaddwd, vpdpwssd) widen to i16 alike: each row's pair
/// of A is then one broadcast, where it was a load, a move, a sign
/// extension and a broadcast in every register tile (Zen 3: 256 x 512 x
/// 256 0.97 -> 0.60 ms, 1024^3 31.1 -> 25.3, 670 x 169 x 594 1.85 ->
/// 1.57).
void widenNarrowProducts(RewriterBase &rewriter, Operation *root,
                         const MatmulTiles &tiles) {
  SmallVector<std::pair<linalg::LinalgOp, Type>> narrow;
  root->walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
        !op.hasPureTensorSemantics() || !isTiledMatmul(op))
      return;
    Type lhs = getElementTypeOrSelf(op->getOperand(0).getType());
    bool pairs = kiln::multipliesInPairs(
        lhs, getElementTypeOrSelf(op->getOperand(1).getType()),
        accumulatorElement(op), tiles.bf16Pairs, tiles.intPairs);
    Type wide = hasNarrowFloats(op) && !pairs ? rewriter.getF32Type()
                : pairs && lhs.isInteger(8)   ? Type(rewriter.getI16Type())
                                              : Type();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    size_t m = firstMatmulLoop(op);
    if (wide && ranges[m] >= 2 * tiles.registerM &&
        ranges[m + 1] >= tiles.registerN)
      narrow.emplace_back(op, wide);
  });
  for (auto [op, wide] : narrow)
    withWideOperands(rewriter, op, wide);
}

struct KilnTileAndVectorizePass
    : kiln::impl::KilnTileAndVectorizeBase<KilnTileAndVectorizePass> {
  using KilnTileAndVectorizeBase::KilnTileAndVectorizeBase;
  void runOnOperation() override {
    MatmulTiles tiles{registerTileM, registerTileN, cacheTileM,
                      cacheTileN,    cacheTileK,    bf16DotPairs,
                      intDotPairs,   vectorWidth,   amxBf16 && bf16DotPairs,
                      vectorBytes};
    if (vectorWidth <= 0 || vectorBytes <= 0 || tiles.registerM <= 0 ||
        tiles.registerN <= 0 || tiles.cacheM <= 0 || tiles.cacheN <= 0 ||
        tiles.cacheK <= 0) {
      getOperation()->emitError(
          "kiln-tile-and-vectorize: vector width, vector bytes and tile sizes "
          "must be positive");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    if (byteQuads)
      kiln::biasByteProducts(rewriter, getOperation());
    widenNarrowProducts(rewriter, getOperation(), tiles);
    if (parallelWork > 0)
      splitRowProductsK(rewriter, getOperation(), tiles);
    // Rows fusion first, last roots first: a root fused into a later one's
    // loop is gone by the time the walk would reach it.
    SmallVector<linalg::LinalgOp> roots;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && isVectorizable(op) &&
          isRowsFusionRoot(op))
        roots.push_back(op);
    });
    DenseSet<Operation *> fusedLoops, erased;
    for (linalg::LinalgOp root : llvm::reverse(roots))
      if (!erased.contains(root))
        if (Operation *loop = fuseRows(rewriter, root, parallelWork, erased))
          fusedLoops.insert(loop);
    // Then matmul epilogues, on the ops rows fusion left.
    for (linalg::LinalgOp root : roots)
      if (!erased.contains(root))
        if (Operation *loop = fuseEpilogue(rewriter, root, tiles, parallelWork,
                                           packPanels, erased))
          fusedLoops.insert(loop);
    if (packPanels)
      packMatmulPanels(rewriter, getOperation(), tiles, fusedLoops);
    SmallVector<linalg::LinalgOp> lineWindowProducts;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isLineWindowProduct(op))
        lineWindowProducts.push_back(op);
    });
    for (linalg::LinalgOp op : lineWindowProducts)
      scheduleLineWindowProduct(rewriter, op, tiles, parallelWork, vectorWidth);
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && op.getNumLoops() > 0 &&
          isVectorizable(op) && isScheduled(op))
        ops.push_back(op);
    });
    // Matmuls first: the fills and starts they accumulate in move into their
    // tiles (fuseStart), and are gone by the time the walk would reach them.
    auto others =
        std::stable_partition(ops.begin(), ops.end(), [](linalg::LinalgOp op) {
          return isTiledMatmul(op);
        });
    // The ops to tile for `op`: its chunk and pieces, or none where it is
    // dead. A block of fused rows is small: threads share the loop around
    // it. A panel product's chunks take its start as it is, for their
    // first cache tile of K to start in registers (splitCacheTileK).
    auto partsOf = [&](linalg::LinalgOp op) -> SmallVector<linalg::LinalgOp> {
      if (op->use_empty()) {
        rewriter.eraseOp(op);
        return {};
      }
      if (fusedLoopOf(op, fusedLoops))
        return {op};
      return distribute(
          rewriter, op, chunkGranules(op, tiles, vectorWidth), parallelWork,
          splitCacheTileK(op, tiles) ? kStartMovesOn : vectorWidth);
    };
    // Matmuls are all distributed before any is tiled: one that follows
    // another's chunks sees them, and the pieces between, as they run
    // (followsChunks), not yet as loops.
    SmallVector<linalg::LinalgOp> matmulParts;
    for (linalg::LinalgOp op : llvm::make_range(ops.begin(), others))
      llvm::append_range(matmulParts, partsOf(op));
    for (linalg::LinalgOp part : matmulParts)
      schedule(rewriter, part, tiles, vectorWidth);
    for (linalg::LinalgOp op : llvm::make_range(others, ops.end()))
      for (linalg::LinalgOp part : partsOf(op))
        schedule(rewriter, part, tiles, vectorWidth);
  }
};
} // namespace
