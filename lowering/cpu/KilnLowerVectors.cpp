//===- KilnLowerVectors.cpp - the kiln-lower-vectors pass -----------------===//
#include "Passes.h"
#include "kiln/TypeInference.h"
#include "lowering/common/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNLOWERVECTORS
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {
/// An n-D transfer_read through a memref.expand_shape whose vector spans
/// trailing dimensions expanded from one source dimension (a [6, 1] read
/// of a [2, 6, 1] expansion of [2, 6]) as n-1-D reads, one per row: the
/// upstream folding into the source reads the vector's dimensions as the
/// source's last ones (the 6 along the source's first dimension;
/// scripts/fuzz.py, seed 36616). Each row's read folds correctly once the
/// rest of its dimensions are the source's own.
struct UnrollTransferReadOfExpandShape
    : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto expand = read.getBase().getDefiningOp<memref::ExpandShapeOp>();
    VectorType type = read.getVectorType();
    int64_t rank = type.getRank();
    if (!expand || rank < 2 || read.getMask() || type.isScalable() ||
        !read.getPermutationMap().isMinorIdentity() ||
        !read.getInBoundsValues()[0])
      return failure();
    // The vector's dimensions after its first must each be expanded from a
    // source dimension of its own for the folding to be right.
    int64_t expandedRank = expand.getResultType().getRank();
    int64_t first = expandedRank - rank;
    bool ownDimensions = llvm::all_of(
        expand.getReassociationIndices(), [&](ReassociationIndices group) {
          return group.size() == 1 || group.back() <= first;
        });
    if (ownDimensions)
      return failure();
    Location loc = read.getLoc();
    VectorType rowType = VectorType::Builder(type).dropDim(0);
    Value result =
        vector::BroadcastOp::create(rewriter, loc, type, read.getPadding());
    SmallVector<bool> inBounds(read.getInBoundsValues());
    inBounds.erase(inBounds.begin());
    for (int64_t i = 0; i < type.getDimSize(0); ++i) {
      SmallVector<Value> indices(read.getIndices());
      indices[first] = arith::AddIOp::create(
          rewriter, loc, indices[first],
          arith::ConstantIndexOp::create(rewriter, loc, i));
      Value row = vector::TransferReadOp::create(
          rewriter, loc, rowType, read.getBase(), indices,
          AffineMap::getMinorIdentityMap(expandedRank, rank - 1,
                                         rewriter.getContext()),
          read.getPadding(), /*mask=*/Value(),
          rewriter.getBoolArrayAttr(inBounds));
      result = vector::InsertOp::create(rewriter, loc, row, result, i);
    }
    rewriter.replaceOp(read, result);
    return success();
  }
};

/// A 16 x 16 transpose of 8- or 16-bit elements (a byte transpose's tile:
/// int8 A^T, uint8 images) as one of their 32-bit widenings, which
/// transposes with shuffles (Shuffle16x16): 16 widening loads, the
/// shuffles and 16 narrowing stores instead of an insert per element.
struct WidenedTranspose : OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    VectorType type = transpose.getSourceVectorType();
    Type element = type.getElementType();
    if (type.getShape() != ArrayRef<int64_t>{16, 16} || !element.isIntOrFloat())
      return failure();
    unsigned bits = element.getIntOrFloatBitWidth();
    if (bits != 8 && bits != 16)
      return failure();
    Location loc = transpose.getLoc();
    VectorType ints = type.clone(rewriter.getIntegerType(bits));
    VectorType words = type.clone(rewriter.getI32Type());
    Value source = transpose.getVector();
    if (!isa<IntegerType>(element))
      source = arith::BitcastOp::create(rewriter, loc, ints, source);
    Value wide = arith::ExtUIOp::create(rewriter, loc, words, source);
    Value swapped = vector::TransposeOp::create(rewriter, loc, wide,
                                                ArrayRef<int64_t>{1, 0});
    Value narrow = arith::TruncIOp::create(rewriter, loc, ints, swapped);
    if (!isa<IntegerType>(element))
      narrow = arith::BitcastOp::create(rewriter, loc, type, narrow);
    rewriter.replaceOp(transpose, narrow);
    return success();
  }
};

/// A transpose of 4 or 8 rows of 16 elements of 8 to 32 bits (a block of
/// a transpose whose innermost loop is that short, kiln-tile-and-vectorize)
/// as the 16 x 16 transpose of the rows padded with zeros, which
/// transposes with shuffles, and the columns that are the rows: an
/// extract and an insert per element otherwise.
struct PaddedTranspose : OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    VectorType type = transpose.getSourceVectorType();
    Type element = type.getElementType();
    if (type.getRank() != 2 || type.getDimSize(1) != 16 ||
        (type.getDimSize(0) != 4 && type.getDimSize(0) != 8) ||
        !element.isIntOrFloat() ||
        !llvm::is_contained({8u, 16u, 32u}, element.getIntOrFloatBitWidth()))
      return failure();
    Location loc = transpose.getLoc();
    auto square = VectorType::get({16, 16}, element);
    Value zeros = arith::ConstantOp::create(rewriter, loc, square,
                                            rewriter.getZeroAttr(square));
    Value padded = vector::InsertStridedSliceOp::create(
        rewriter, loc, transpose.getVector(), zeros, ArrayRef<int64_t>{0, 0},
        ArrayRef<int64_t>{1, 1});
    Value swapped = vector::TransposeOp::create(rewriter, loc, padded,
                                                ArrayRef<int64_t>{1, 0});
    rewriter.replaceOpWithNewOp<vector::ExtractStridedSliceOp>(
        transpose, swapped, ArrayRef<int64_t>{0, 0},
        ArrayRef<int64_t>{16, type.getDimSize(0)}, ArrayRef<int64_t>{1, 1});
    return success();
  }
};

/// A batched contraction of operands narrower than its accumulator (int8
/// or int16 into i32, bf16 into f32, where no dot product instruction of
/// the CPU takes them) on its operands extended to the accumulator's
/// element type, signed as upstream's outer products extend a 2-D one's:
/// upstream lowers a batched contraction only where its types agree, and
/// left these unlowered on CPUs without AVX-512 VNNI and BF16.
struct WidenedBatchContraction : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ContractionOp contract,
                                PatternRewriter &rewriter) const override {
    Type acc = getElementTypeOrSelf(contract.getAccType());
    VectorType lhs = contract.getLhsType(), rhs = contract.getRhsType();
    if (contract.getIteratorTypes().size() <= 3 || !acc.isIntOrFloat() ||
        (lhs.getElementType() == acc && rhs.getElementType() == acc))
      return failure();
    Location loc = contract.getLoc();
    auto widened = [&](Value operand) -> Value {
      auto type = cast<VectorType>(operand.getType());
      if (type.getElementType() == acc)
        return operand;
      if (isa<FloatType>(acc))
        return arith::ExtFOp::create(rewriter, loc, type.clone(acc), operand);
      return arith::ExtSIOp::create(rewriter, loc, type.clone(acc), operand);
    };
    Value wideLhs = widened(contract.getLhs());
    Value wideRhs = widened(contract.getRhs());
    rewriter.modifyOpInPlace(contract, [&] {
      contract.getLhsMutable().assign(wideLhs);
      contract.getRhsMutable().assign(wideRhs);
    });
    return success();
  }
};

/// Bits of a transfer's rows below which they are flattened.
constexpr int64_t kNarrowRowBits = 64;

struct KilnLowerVectorsPass
    : kiln::impl::KilnLowerVectorsBase<KilnLowerVectorsPass> {
  using KilnLowerVectorsBase::KilnLowerVectorsBase;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Operation *root = getOperation();
    // Transfers on subviews must address the base memref directly before
    // hoisting can see that an accumulator is loop-invariant.
    RewritePatternSet folding(context);
    folding.add<UnrollTransferReadOfExpandShape>(context, /*benefit=*/2);
    memref::populateFoldMemRefAliasOpPatterns(folding);
    // As in upstream's fold-memref-alias-ops, not converging is harmless:
    // accesses through reshapes that cannot be folded stay as they are.
    (void)applyPatternsGreedily(root, std::move(folding));
    // The folded indices are recomputed per transfer; a read and a write of
    // the same accumulator must share them to be hoisted as a pair.
    IRRewriter rewriter(context);
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, root);
    linalg::hoistRedundantVectorTransfers(root);
    hoistAccumulatorsOfAllocations(root);
    vector::transferOpflowOpt(rewriter, root);

    lowerRowReductions(root);

    // Dot products first, on the contractions as tiling made them: a
    // packed quad product's B is one row of bytes shape-cast to [N, 4],
    // which folds away only before shape casts are lowered.
    RewritePatternSet dots(context);
    if (bf16DotPairs)
      kiln::populateBf16DotPairPatterns(dots);
    if (intDotPairs)
      kiln::populateIntDotPairPatterns(dots);
    else if (intMaddPairs)
      kiln::populateIntMaddPairPatterns(dots);
    if (failed(applyPatternsGreedily(root, std::move(dots)))) {
      root->emitError("kiln-lower-vectors: the dot product patterns did not "
                      "converge");
      return signalPassFailure();
    }

    splitCarriedVectors(root);

    // Transfers of rows narrower than 64 bits to or from contiguous memory
    // (a pair pack's [32, 2] bf16) become one 1-D transfer: unrolled, they
    // were a load and a store per row (a 1024 x 1024 B packed in pairs at
    // 1.5 GB/s).
    SmallVector<Operation *> narrowRows;
    root->walk([&](VectorTransferOpInterface transfer) {
      // Upstream's flattening reads the memref's shape as far as the
      // vector's rank (LLVM 22 crashed on a broadcast from a 0-d memref).
      VectorType type = transfer.getVectorType();
      auto memref = dyn_cast<MemRefType>(transfer.getShapedType());
      if (memref && !transfer.getMask() &&
          transfer.getPermutationMap().isMinorIdentity() &&
          memref.getRank() >= type.getRank() && type.getRank() > 1 &&
          type.getShape().back() * type.getElementTypeBitWidth() <
              kNarrowRowBits)
        narrowRows.push_back(transfer);
    });
    RewritePatternSet flattening(context);
    vector::populateFlattenVectorTransferPatterns(flattening, kNarrowRowBits);
    (void)applyOpPatternsGreedily(narrowRows, std::move(flattening));

    RewritePatternSet lowering(context);
    lowering.add<WidenedBatchContraction>(context, /*benefit=*/2);
    vector::populateVectorContractLoweringPatterns(
        lowering, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(lowering);
    vector::populateVectorTransferPermutationMapLoweringPatterns(lowering);
    vector::populateVectorMultiReductionLoweringPatterns(
        lowering, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorBroadcastLoweringPatterns(lowering);
    // 16 x 16 blocks of 32-bit elements (a transpose's tiles) transpose
    // with shuffles, those of narrower ones widened to 32 bits first, 4 or
    // 8 rows of 16 padded to 16; other shapes element by element.
    lowering.add<WidenedTranspose, PaddedTranspose>(context, /*benefit=*/3);
    vector::populateVectorTransposeLoweringPatterns(
        lowering, vector::VectorTransposeLowering::Shuffle16x16,
        /*benefit=*/2);
    vector::populateVectorTransposeLoweringPatterns(
        lowering, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorShapeCastLoweringPatterns(lowering);
    // n-D bitcasts (a quad pack's rows of 32-bit words) become 1-D ones.
    vector::populateVectorBitCastLoweringPatterns(lowering);
    vector::populateVectorStepLoweringPatterns(lowering);
    // Strided slices (of bf16 dot products' columns) become shuffles.
    vector::populateVectorInsertExtractStridedSliceTransforms(lowering);
    // n-D gathers (take with n-D indices) unroll into 1-D ones, which LLVM
    // lowers.
    vector::populateVectorGatherLoweringPatterns(lowering);
    // n-D transfers unroll into 1-D ones, which become vector loads/stores.
    VectorTransferToSCFOptions unrolled;
    unrolled.enableFullUnroll();
    populateVectorToSCFConversionPatterns(lowering, unrolled);
    vector::populateVectorTransferLoweringPatterns(lowering,
                                                   /*maxTransferRank=*/1);
    // A 1-D transfer that may run past its buffer (a vector wider than
    // the slice canonicalization folded it into) becomes a masked load or
    // store (scripts/fuzz.py, seed 8035439: one was left unlowered).
    vector::populateVectorMaskMaterializationPatterns(
        lowering, /*force32BitVectorIndices=*/false);
    if (failed(applyPatternsGreedily(root, std::move(lowering)))) {
      root->emitError("kiln-lower-vectors: the vector lowering patterns did "
                      "not converge");
      return signalPassFailure();
    }
    if (failed(scalarizeStridedGathers(root)))
      return signalPassFailure();
    streamLargeStores(root, streamingBytes);
  }

  /// The buffer `memref` views (through view-like ops), or itself.
  static Value rootBuffer(Value memref) {
    while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
      memref = view.getViewSource();
    return memref;
  }

  /// Whether `a` and `b` are views of different buffers one of which this
  /// function allocated (a fresh allocation overlaps nothing else), or of
  /// two of its arguments: upstream's hoisting assumes that arguments do
  /// not overlap for the transfers it hoists (a matmul's accumulator in its
  /// result argument, read past A and B), and the runtime's results must
  /// not alias its arguments. A panel product's result is read through a
  /// view of its argument (kiln::packMatmulPanels).
  static bool distinctAllocations(Value a, Value b) {
    Value rootA = rootBuffer(a), rootB = rootBuffer(b);
    auto allocated = [](Value root) {
      return root.getDefiningOp<memref::AllocOp>() ||
             root.getDefiningOp<memref::AllocaOp>();
    };
    auto argument = [](Value root) {
      auto arg = dyn_cast<BlockArgument>(root);
      return arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
    };
    return rootA != rootB && (allocated(rootA) || allocated(rootB) ||
                              (argument(rootA) && argument(rootB)));
  }

  /// Whether no op in `loop` but `read` and `write` may touch the memory
  /// they access: every other access is to a distinct allocation.
  static bool onlyAccesses(scf::ForOp loop, vector::TransferReadOp read,
                           vector::TransferWriteOp write) {
    Value base = read.getBase();
    WalkResult walk = loop.getBody()->walk([&](Operation *op) {
      if (op == read || op == write || isMemoryEffectFree(op) ||
          op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance();
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects)
        return WalkResult::interrupt();
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &instance : instances) {
        Value value = instance.getValue();
        if (!value || !distinctAllocations(value, base))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return !walk.wasInterrupted();
  }

  /// Hoists one accumulator out of `loop` (a read and a later write of the
  /// same vector at loop-invariant indices, which upstream's hoisting
  /// leaves where the buffer has a view anywhere, as a product read back
  /// through a reshape has); returns the new loop, or null.
  static scf::ForOp hoistOneAccumulator(scf::ForOp loop) {
    for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
      if (!isa<MemRefType>(read.getBase().getType()) || read.getMask() ||
          !llvm::all_of(read->getOperands(), [&](Value operand) {
            return loop.isDefinedOutsideOfLoop(operand);
          }))
        continue;
      vector::TransferWriteOp write;
      for (auto candidate : loop.getBody()->getOps<vector::TransferWriteOp>())
        if (candidate.getBase() == read.getBase() &&
            candidate.getIndices() == read.getIndices() &&
            candidate.getVectorType() == read.getVectorType() &&
            candidate.getPermutationMap() == read.getPermutationMap() &&
            !candidate.getMask() && read->isBeforeInBlock(candidate))
          write = candidate;
      if (!write || !onlyAccesses(loop, read, write))
        continue;
      IRRewriter rewriter(loop);
      loop.moveOutOfLoop(read);
      write->moveAfter(loop);
      FailureOr<LoopLikeOpInterface> replaced =
          cast<LoopLikeOpInterface>(loop.getOperation())
              .replaceWithAdditionalYields(
                  rewriter, read.getVector(),
                  /*replaceInitOperandUsesInLoop=*/true,
                  [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                    return SmallVector<Value>{write.getVector()};
                  });
      if (failed(replaced))
        return {};
      auto hoisted = cast<scf::ForOp>(replaced->getOperation());
      write.getValueToStoreMutable().assign(hoisted.getResults().back());
      return hoisted;
    }
    return {};
  }

  /// Keeps accumulators in registers across their loop where every other
  /// buffer the loop touches is a distinct allocation, innermost loops
  /// first.
  static void hoistAccumulatorsOfAllocations(Operation *root) {
    SmallVector<scf::ForOp> loops;
    root->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      while (scf::ForOp hoisted = hoistOneAccumulator(loop))
        loop = hoisted;
  }

  /// Reductions along the innermost dimension only (a row's vector lanes)
  /// become horizontal reductions, which LLVM computes as a tree of
  /// log2(lanes) shuffle steps instead of a chain of one step per lane;
  /// float sums and products may reassociate for that. Other reductions
  /// (across rows) stay elementwise: the lowering below.
  static void lowerRowReductions(Operation *root) {
    SmallVector<Operation *> rowReductions;
    DenseSet<Operation *> existing;
    root->walk([&](Operation *op) {
      if (isa<vector::ReductionOp>(op))
        existing.insert(op);
      auto reduction = dyn_cast<vector::MultiDimReductionOp>(op);
      if (!reduction)
        return;
      SmallVector<bool> mask = reduction.getReductionMask();
      if (reduction.getSourceVectorType().getShape().back() > 1 &&
          mask.back() && llvm::count(mask, true) == 1)
        rowReductions.push_back(op);
    });
    RewritePatternSet inner(root->getContext());
    vector::populateVectorMultiReductionLoweringPatterns(
        inner, vector::VectorMultiReductionLowering::InnerReduction);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    (void)applyOpPatternsGreedily(rowReductions, std::move(inner), config);
    root->walk([&](vector::ReductionOp reduction) {
      if (existing.contains(reduction) ||
          !isa<FloatType>(reduction.getType()) ||
          (reduction.getKind() != vector::CombiningKind::ADD &&
           reduction.getKind() != vector::CombiningKind::MUL))
        return;
      reduction.setFastmath(arith::FastMathFlags::reassoc);
    });
  }

  /// Whether a vector of `type` that a loop carries should be carried as
  /// pieces: LLVM scalarizes a phi of 1-D vectors (an n-D vector's rows)
  /// wider than a register whose length is not a power of two (the 48
  /// lanes of a sum over the middle dimension of [300, 400, 48] were taken
  /// apart into 48 scalars and put together again at every step, 3x
  /// slower than 64 lanes); one that fits a register it widens to the next
  /// power of two, which is better than pieces (7 lanes as 4, 2 and 1 took
  /// 5x as long).
  static bool carriedInPieces(Type type) {
    auto vector = dyn_cast<VectorType>(type);
    if (!vector || !vector.hasStaticShape() || vector.isScalable() ||
        vector.getRank() == 0 || !vector.getElementType().isIntOrFloat())
      return false;
    int64_t lanes = vector.getShape().back();
    return !llvm::isPowerOf2_64(lanes) &&
           lanes * vector.getElementTypeBitWidth() > kRegisterBits;
  }

  /// Bits of the widest vector register code generation may use
  /// (AVX-512's).
  static constexpr int64_t kRegisterBits = 512;

  /// The pieces of rows of `lanes` elements: the powers of two of
  /// `lanes`'s binary expansion, largest first, as (offset, size).
  static SmallVector<std::pair<int64_t, int64_t>> pieces(int64_t lanes) {
    SmallVector<std::pair<int64_t, int64_t>> result;
    for (int64_t offset = 0; offset < lanes;) {
      int64_t size = int64_t(1) << llvm::Log2_64(lanes - offset);
      result.push_back({offset, size});
      offset += size;
    }
    return result;
  }

  /// `value`'s pieces (pieces() of its rows).
  static SmallVector<Value> split(OpBuilder &b, Location loc, Value value) {
    ArrayRef<int64_t> shape = cast<VectorType>(value.getType()).getShape();
    SmallVector<int64_t> offsets(shape.size(), 0), sizes(shape);
    SmallVector<int64_t> strides(shape.size(), 1);
    SmallVector<Value> result;
    for (auto [offset, size] : pieces(shape.back())) {
      offsets.back() = offset;
      sizes.back() = size;
      result.push_back(vector::ExtractStridedSliceOp::create(
          b, loc, value, offsets, sizes, strides));
    }
    return result;
  }

  /// The vector of `type` whose pieces (split()) are `parts`.
  static Value join(OpBuilder &b, Location loc, VectorType type,
                    ValueRange parts) {
    Value whole = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
    SmallVector<int64_t> offsets(type.getRank(), 0);
    SmallVector<int64_t> strides(type.getRank(), 1);
    for (auto [part, piece] :
         llvm::zip(parts, pieces(type.getShape().back()))) {
      offsets.back() = piece.first;
      whole = vector::InsertStridedSliceOp::create(b, loc, part, whole, offsets,
                                                   strides);
    }
    return whole;
  }

  /// Carries the vectors of `loop` that LLVM would scalarize
  /// (carriedInPieces) as pieces of power-of-two sizes, joined where the
  /// body and the code after the loop read them.
  static void splitCarriedVectors(scf::ForOp loop) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    SmallVector<Value> inits;
    // How many values carry each of the loop's.
    SmallVector<unsigned> widths;
    for (Value init : loop.getInitArgs()) {
      SmallVector<Value> parts = carriedInPieces(init.getType())
                                     ? split(b, loc, init)
                                     : SmallVector<Value>{init};
      widths.push_back(parts.size());
      llvm::append_range(inits, parts);
    }
    auto splitLoop =
        scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                           loop.getStep(), inits);
    splitLoop->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
    // The values in `values` that carry each of the loop's.
    auto grouped = [&](ValueRange values) {
      SmallVector<ValueRange> groups;
      for (unsigned width : widths) {
        groups.push_back(values.take_front(width));
        values = values.drop_front(width);
      }
      return groups;
    };
    // Each carried value from its values in `values`.
    auto joined = [&](OpBuilder &builder, ValueRange values) {
      SmallVector<Value> result;
      for (auto [old, parts] : llvm::zip(loop.getInitArgs(), grouped(values)))
        result.push_back(
            parts.size() == 1
                ? parts.front()
                : join(builder, loc, cast<VectorType>(old.getType()), parts));
      return result;
    };
    Block *body = splitLoop.getBody();
    OpBuilder inside = OpBuilder::atBlockBegin(body);
    SmallVector<Value> arguments{splitLoop.getInductionVar()};
    llvm::append_range(arguments,
                       joined(inside, splitLoop.getRegionIterArgs()));
    body->getOperations().splice(body->end(), loop.getBody()->getOperations());
    for (auto [old, replacement] :
         llvm::zip(loop.getBody()->getArguments(), arguments))
      old.replaceAllUsesWith(replacement);
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    inside.setInsertionPoint(yield);
    SmallVector<Value> yielded;
    for (Value value : yield.getOperands())
      if (carriedInPieces(value.getType()))
        llvm::append_range(yielded, split(inside, loc, value));
      else
        yielded.push_back(value);
    yield->setOperands(yielded);
    b.setInsertionPointAfter(splitLoop);
    for (auto [old, parts] :
         llvm::zip(loop.getResults(), grouped(splitLoop.getResults())))
      if (parts.size() > 1)
        for (Operation *user : llvm::make_early_inc_range(old.getUsers()))
          if (auto write = dyn_cast<vector::TransferWriteOp>(user))
            writeInPieces(write, parts);
    loop->replaceAllUsesWith(joined(b, splitLoop.getResults()));
    loop->erase();
  }

  /// Replaces `write` of a vector whose pieces (split()) are `parts`, where
  /// it writes whole rows to a buffer, by writes of the pieces: LLVM puts a
  /// joined vector whose rows are not a power of two long together element
  /// by element before storing it (a 6272 x 40 x 24 product's 8 x 24
  /// register tiles took 30 shuffles a row).
  static void writeInPieces(vector::TransferWriteOp write, ValueRange parts) {
    if (write.getMask() || write.hasPureTensorSemantics() ||
        !write.getPermutationMap().isMinorIdentity() ||
        llvm::any_of(write.getInBoundsValues(),
                     [](bool inBounds) { return !inBounds; }))
      return;
    OpBuilder b(write);
    Location loc = write.getLoc();
    int64_t lanes = write.getVectorType().getShape().back();
    for (auto [part, piece] : llvm::zip(parts, pieces(lanes))) {
      SmallVector<Value> indices(write.getIndices());
      indices.back() = arith::AddIOp::create(
          b, loc, indices.back(),
          arith::ConstantIndexOp::create(b, loc, piece.first));
      auto type = cast<VectorType>(part.getType());
      vector::TransferWriteOp::create(b, loc, part, write.getBase(), indices,
                                      SmallVector<bool>(type.getRank(), true));
    }
    write.erase();
  }

  /// splitCarriedVectors on every loop that carries such a vector.
  static void splitCarriedVectors(Operation *root) {
    SmallVector<scf::ForOp> loops;
    root->walk([&](scf::ForOp loop) {
      if (llvm::any_of(loop.getInitArgs().getTypes(), carriedInPieces))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      splitCarriedVectors(loop);
  }

  /// 1-D gathers from a strided view (a take from a slice, or from a tensor
  /// computed in place in a pad's buffer) become scalar loads: LLVM's gather
  /// lowering needs a contiguous buffer. A gather's offsets count elements
  /// from its indices in the row-major order of the view's shape (the
  /// vectorizer linearized them by the tensor's shape), so each lane's
  /// element is found by delinearizing by that shape, and the load then
  /// steps by the view's strides (scripts/fuzz.py, seed 20265495).
  static LogicalResult scalarizeStridedGathers(Operation *root) {
    SmallVector<vector::GatherOp> strided;
    root->walk([&](vector::GatherOp gather) {
      auto type = dyn_cast<MemRefType>(gather.getBase().getType());
      if (type && !type.getLayout().isIdentity())
        strided.push_back(gather);
    });
    for (vector::GatherOp gather : strided) {
      VectorType type = gather.getVectorType();
      if (type.getRank() != 1 || type.isScalable())
        return gather.emitError("kiln-lower-vectors: cannot lower this "
                                "gather from a strided view");
      OpBuilder b(gather);
      Location loc = gather.getLoc();
      SmallVector<OpFoldResult> shape =
          memref::getMixedSizes(b, loc, gather.getBase());
      Value first = affine::AffineLinearizeIndexOp::create(
          b, loc, gather.getOffsets(), shape);
      Value result = gather.getPassThru();
      for (int64_t lane = 0; lane < type.getNumElements(); ++lane) {
        Value offset = vector::ExtractOp::create(b, loc, gather.getIndices(),
                                                 lane);
        if (!offset.getType().isIndex())
          offset =
              arith::IndexCastOp::create(b, loc, b.getIndexType(), offset);
        Value linear = arith::AddIOp::create(b, loc, first, offset);
        Value active = vector::ExtractOp::create(b, loc, gather.getMask(),
                                                 lane);
        auto load = scf::IfOp::create(
            b, loc, active,
            [&](OpBuilder &then, Location thenLoc) {
              // Only an active lane's offset is in bounds (and only then are
              // the sizes divided by nonzero).
              ValueRange at = affine::AffineDelinearizeIndexOp::create(
                                  then, thenLoc, linear, shape)
                                  .getResults();
              Value element =
                  memref::LoadOp::create(then, thenLoc, gather.getBase(), at);
              scf::YieldOp::create(
                  then, thenLoc,
                  vector::InsertOp::create(then, thenLoc, element, result, lane)
                      .getResult());
            },
            [&](OpBuilder &otherwise, Location elseLoc) {
              scf::YieldOp::create(otherwise, elseLoc, result);
            });
        result = load.getResult(0);
      }
      gather.replaceAllUsesWith(result);
      gather.erase();
    }
    return success();
  }

  /// Marks vector stores into buffers far larger than the caches as
  /// non-temporal: they bypass the caches instead of first reading every
  /// line they overwrite, a third of a streaming loop's traffic. The CPU
  /// streams only whole aligned lines, so only provably aligned stores are
  /// marked (and told their alignment).
  static void streamLargeStores(Operation *root, int64_t streamingBytes) {
    root->walk([&](vector::StoreOp store) {
      MemRefType type = store.getMemRefType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          *kiln::staticBytes(type) < streamingBytes ||
          !isCacheLineAligned(store))
        return;
      store.setNontemporal(true);
      store.setAlignmentAttr(
          IntegerAttr::get(IntegerType::get(store.getContext(), 64),
                           kCacheLine));
    });
  }

  static constexpr int64_t kCacheLine = 64;

  /// Whether a buffer starts on a cache line: an argument of an entry whose
  /// buffers kiln-prepare-entries says are so aligned, or an aligned
  /// allocation.
  static bool isAlignedBuffer(Value buffer) {
    int64_t alignment = 0;
    if (auto arg = dyn_cast<BlockArgument>(buffer)) {
      auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
      auto entryAlignment =
          fn ? fn->getAttrOfType<IntegerAttr>(kiln::kEntryAlignmentAttrName)
             : IntegerAttr();
      if (entryAlignment && arg.getOwner()->isEntryBlock())
        alignment = entryAlignment.getInt();
    } else if (auto alloc = buffer.getDefiningOp<memref::AllocOp>()) {
      alignment = alloc.getAlignment().value_or(0);
    }
    return alignment > 0 && alignment % kCacheLine == 0;
  }

  /// Whether every address `store` writes starts a cache line: an aligned
  /// buffer whose rows are whole lines, written a whole number of lines at
  /// a time by a loop over the innermost dimension that starts at 0.
  static bool isCacheLineAligned(vector::StoreOp store) {
    MemRefType type = store.getMemRefType();
    int64_t elementBytes = kiln::elementBytes(type.getElementType());
    if (!isAlignedBuffer(store.getBase()) ||
        type.getShape().back() * elementBytes % kCacheLine != 0 ||
        store.getVectorType().getNumElements() * elementBytes % kCacheLine != 0)
      return false;
    auto iv = dyn_cast<BlockArgument>(store.getIndices().back());
    auto loop = iv ? dyn_cast<scf::ForOp>(iv.getOwner()->getParentOp())
                   : scf::ForOp();
    if (!loop || loop.getInductionVar() != iv)
      return false;
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    return lower == 0 && step && *step * elementBytes % kCacheLine == 0;
  }
};
} // namespace
