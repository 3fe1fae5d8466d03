//===- DataMovementToLinalg.cpp - kiln data movement to linalg -----------===//
//
// Constants and data movement become arith constants, tensor slices and
// linalg ops; the start indices of the dynamic slices are clamped into range
// here, as the kiln ops document.
//
//===----------------------------------------------------------------------===//
#include "LoweringUtils.h"
#include "Passes.h"
#include "kiln/KilnDialect.h"
#include "kiln/TypeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln;

namespace {

/// constant -> arith.constant, or a linalg.fill for a large splat, which
/// would otherwise become a global of that many bytes in the binary.
struct ConstantToArith : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  static constexpr int64_t kLargeSplatBytes = int64_t(1) << 20;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    RankedTensorType type = op.getType();
    // The verifier keeps the byte count in range.
    if (splat && *staticBytes(type) > kLargeSplatBytes) {
      Value scalar = arith::ConstantOp::create(
          rewriter, op.getLoc(), splat.getSplatValue<TypedAttr>());
      rewriter.replaceOp(op,
                         filledTensor(rewriter, op.getLoc(), type, scalar));
      return success();
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, cast<TypedAttr>(op.getValue()));
    return success();
  }
};

/// iota -> linalg.generic writing linalg.index of the iota dimension.
struct IotaToGeneric : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    uint64_t dim = op.getIotaDimension();
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), type, {}, {},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          Value index = linalg::IndexOp::create(b, loc, dim);
          Value asInt = arith::IndexCastOp::create(
              b, loc, isa<FloatType>(element) ? b.getI64Type() : element,
              index);
          if (isa<FloatType>(element))
            return arith::SIToFPOp::create(b, loc, element, asInt);
          return asInt;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// broadcast_in_dim -> linalg.generic reading the operand through a map
/// that sends mapped dimensions to their result dimension and size-1
/// dimensions that expand to 0.
struct BroadcastToGeneric : OpConversionPattern<BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    RankedTensorType operandType = op.getOperand().getType();
    SmallVector<AffineExpr> exprs;
    for (auto [i, dim] : llvm::enumerate(op.getBroadcastDimensions())) {
      bool expands = operandType.getDimSize(i) == 1 && type.getDimSize(dim) != 1;
      exprs.push_back(expands ? rewriter.getAffineConstantExpr(0)
                              : rewriter.getAffineDimExpr(dim));
    }
    auto map = AffineMap::get(type.getRank(), 0, exprs, rewriter.getContext());
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), type, adaptor.getOperand(), map,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// reshape -> tensor.collapse_shape and tensor.expand_shape (reshapeTensor).
struct ReshapeToTensor : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(),
                                         adaptor.getOperand(), op.getType()));
    return success();
  }
};

/// transpose -> linalg.transpose.
struct TransposeToLinalg : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value init = emptyTensor(rewriter, op.getLoc(), op.getType());
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getOperand(), init, op.getPermutation());
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

/// slice -> tensor.extract_slice.
struct SliceToTensor : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), adaptor.getOperand(), ValueRange{}, ValueRange{},
        ValueRange{}, op.getStartIndices(), op.getType().getShape(),
        op.getStrides());
    return success();
  }
};

/// The start indices of a dynamic slice, clamped so that a window of
/// `sizes` fits in `shape`.
SmallVector<OpFoldResult> clampedStarts(OpBuilder &b, Location loc,
                                        ValueRange indices,
                                        ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> sizes) {
  SmallVector<OpFoldResult> starts;
  for (auto [index, size, window] : llvm::zip(indices, shape, sizes))
    starts.push_back(
        clampedIndex(b, loc, extractScalar(b, loc, index), size - window));
  return starts;
}

/// dynamic_slice -> tensor.extract_slice at clamped offsets.
struct DynamicSliceToTensor : OpConversionPattern<DynamicSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DynamicSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> shape = op.getOperand().getType().getShape();
    SmallVector<OpFoldResult> starts =
        clampedStarts(rewriter, op.getLoc(), adaptor.getStartIndices(), shape,
                      op.getSliceSizes());
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(rewriter.getContext(), op.getSliceSizes());
    SmallVector<OpFoldResult> strides(shape.size(), rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), adaptor.getOperand(), starts, sizes, strides);
    return success();
  }
};

/// dynamic_update_slice -> tensor.insert_slice at clamped offsets.
struct DynamicUpdateSliceToTensor : OpConversionPattern<DynamicUpdateSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DynamicUpdateSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> shape = op.getType().getShape();
    ArrayRef<int64_t> window = op.getUpdate().getType().getShape();
    SmallVector<OpFoldResult> starts = clampedStarts(
        rewriter, op.getLoc(), adaptor.getStartIndices(), shape, window);
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(rewriter.getContext(), window);
    SmallVector<OpFoldResult> strides(shape.size(), rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getUpdate(), adaptor.getOperand(), starts, sizes, strides);
    return success();
  }
};

/// concatenate -> tensor.insert_slice of each input into an empty result.
struct ConcatenateToTensor : OpConversionPattern<ConcatenateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatenateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    uint64_t dim = op.getDimension();
    Value result = emptyTensor(rewriter, op.getLoc(), type);
    SmallVector<int64_t> offsets(type.getRank(), 0);
    SmallVector<int64_t> strides(type.getRank(), 1);
    for (Value input : adaptor.getInputs()) {
      ArrayRef<int64_t> sizes =
          cast<RankedTensorType>(input.getType()).getShape();
      result = tensor::InsertSliceOp::create(rewriter, op.getLoc(), input,
                                             result, ValueRange{}, ValueRange{},
                                             ValueRange{}, offsets, sizes,
                                             strides);
      offsets[dim] += sizes[dim];
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// pad -> the operand inserted with stride interior + 1 after the
/// non-negative low padding into a tensor holding the padding value
/// elsewhere, then a slice that crops what negative padding removes.
/// Without interior padding only the border is filled (borderFilled): a
/// convolution's padded 8 x 58 x 58 x 64 input was written whole, then
/// almost all of it again by the operand.
struct PadToTensor : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    ArrayRef<int64_t> shape = op.getOperand().getType().getShape();
    SmallVector<int64_t> paddedShape, insertAt, insertStrides, cropAt;
    for (auto [size, low, high, interior] :
         llvm::zip(shape, op.getEdgePaddingLow(), op.getEdgePaddingHigh(),
                   op.getInteriorPadding())) {
      int64_t spread = size == 0 ? 0 : size + (size - 1) * interior;
      paddedShape.push_back(std::max<int64_t>(low, 0) + spread +
                            std::max<int64_t>(high, 0));
      insertAt.push_back(std::max<int64_t>(low, 0));
      insertStrides.push_back(interior + 1);
      cropAt.push_back(std::max<int64_t>(-low, 0));
    }
    auto paddedType = type.clone(paddedShape);
    Value fill = extractScalar(rewriter, loc, adaptor.getPaddingValue());
    // An empty operand leaves only padding (and its offsets may lie at the
    // end of a dimension, where no slice may start).
    Value padded;
    if (op.getOperand().getType().getNumElements() == 0)
      padded = filledTensor(rewriter, loc, paddedType, fill);
    else
      padded = tensor::InsertSliceOp::create(
          rewriter, loc, adaptor.getOperand(),
          llvm::all_of(insertStrides, [](int64_t s) { return s == 1; })
              ? borderFilled(rewriter, loc, paddedType, fill, insertAt, shape)
              : filledTensor(rewriter, loc, paddedType, fill),
          ValueRange{}, ValueRange{}, ValueRange{}, insertAt, shape,
          insertStrides);
    if (paddedType != type) {
      SmallVector<int64_t> ones(type.getRank(), 1);
      padded = tensor::ExtractSliceOp::create(
          rewriter, loc, type, padded, ValueRange{}, ValueRange{},
          ValueRange{}, cropAt, type.getShape(), ones);
    }
    rewriter.replaceOp(op, padded);
    return success();
  }

  /// A tensor of `type` holding `fill` outside the box of `sizes` at
  /// `offsets` (left undefined): per dimension d, the slabs before and
  /// after the box along d, spanning the box along the dimensions before d
  /// and everything along those after, each filled in place.
  static Value borderFilled(OpBuilder &b, Location loc, RankedTensorType type,
                            Value fill, ArrayRef<int64_t> offsets,
                            ArrayRef<int64_t> sizes) {
    Value result = emptyTensor(b, loc, type);
    SmallVector<int64_t> at(type.getRank(), 0), extent(type.getShape());
    SmallVector<int64_t> ones(type.getRank(), 1);
    for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
      int64_t after = offsets[d] + sizes[d];
      for (auto [begin, end] : {std::make_pair(int64_t(0), offsets[d]),
                                std::make_pair(after, type.getDimSize(d))}) {
        if (begin == end)
          continue;
        at[d] = begin;
        extent[d] = end - begin;
        Value slab = tensor::ExtractSliceOp::create(
            b, loc, type.clone(extent), result, ValueRange{}, ValueRange{},
            ValueRange{}, at, extent, ones);
        slab = linalg::FillOp::create(b, loc, fill, slab).getResult(0);
        result = tensor::InsertSliceOp::create(b, loc, slab, result,
                                               ValueRange{}, ValueRange{},
                                               ValueRange{}, at, extent, ones);
      }
      at[d] = offsets[d];
      extent[d] = sizes[d];
    }
    return result;
  }
};

/// reverse -> linalg.generic reading index size - 1 - i along the reversed
/// dimensions.
struct ReverseToGeneric : OpConversionPattern<ReverseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      AffineExpr index = rewriter.getAffineDimExpr(d);
      exprs.push_back(llvm::is_contained(op.getDimensions(), d)
                          ? type.getDimSize(d) - 1 - index
                          : index);
    }
    auto map = AffineMap::get(type.getRank(), 0, exprs, rewriter.getContext());
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), type, adaptor.getOperand(), map,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// stop_gradient and checkpoint_name matter to the transformations only:
/// their operand.
template <typename OpTy>
struct ToOperand : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperand());
    return success();
  }
};

} // namespace

void kiln::populateDataMovementToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConstantToArith, IotaToGeneric, BroadcastToGeneric,
               ReshapeToTensor, TransposeToLinalg, SliceToTensor,
               DynamicSliceToTensor, DynamicUpdateSliceToTensor,
               ConcatenateToTensor, PadToTensor, ReverseToGeneric,
               ToOperand<StopGradientOp>, ToOperand<CheckpointNameOp>,
               ToOperand<ShardingConstraintOp>>(
      patterns.getContext());
}
