//===- ComputeToLinalg.cpp - contractions, reductions and gathers ---------===//
//
// dot_general becomes linalg.matmul / linalg.batch_matmul in the canonical
// layouts the CPU schedule tiles, and a linalg.generic contraction
// otherwise; reductions become linalg.reduce; take is a gather inside a
// linalg.generic; scatter_add is a loop nest, since repeated indices make it
// sequential.
//
//===----------------------------------------------------------------------===//
#include "LoweringUtils.h"
#include "Passes.h"
#include "WindowProducts.h"
#include "kiln/KilnDialect.h"
#include "kiln/TypeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace kiln;

namespace {

/// The type sums of `element` accumulate in: f32 for bf16 and f16 (whose
/// 8 or 11 bits would lose the sum), `element` itself otherwise.
Type accumulatorType(Type element) {
  if (element.isBF16() || element.isF16())
    return Float32Type::get(element.getContext());
  return element;
}

/// The tensor `x` of `element`s: widened (widen), or (accumulated in f32)
/// rounded; `x` itself when it already has them.
Value withElements(OpBuilder &b, Location loc, Value x, Type element) {
  auto type = cast<RankedTensorType>(x.getType());
  Type from = type.getElementType();
  if (from == element)
    return x;
  bool wider = element.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth();
  return buildParallelGeneric(
      b, loc, type.clone(element), x, b.getMultiDimIdentityMap(type.getRank()),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) -> Value {
        if (wider)
          return widen(nested, nestedLoc, args[0], element);
        return arith::TruncFOp::create(nested, nestedLoc, element, args[0]);
      });
}

/// The map of one dot_general operand into the iteration space
/// (batch..., lhs free..., rhs free..., contracting...).
AffineMap dotOperandMap(MLIRContext *context, int64_t rank,
                        ArrayRef<int64_t> batching,
                        ArrayRef<int64_t> contracting, unsigned freeOffset,
                        unsigned contractOffset, unsigned numLoops) {
  SmallVector<AffineExpr> exprs;
  unsigned nextFree = freeOffset;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t *batch = llvm::find(batching, d);
    const int64_t *contract = llvm::find(contracting, d);
    unsigned loop = batch != batching.end() ? batch - batching.begin()
                    : contract != contracting.end()
                        ? contractOffset + (contract - contracting.begin())
                        : nextFree++;
    exprs.push_back(getAffineDimExpr(loop, context));
  }
  return AffineMap::get(numLoops, 0, exprs, context);
}

/// Lanes a reduction of `size` elements along the innermost dimension
/// uses (see ReduceToLinalg::reduceTrailingInLanes): one vector's worth for
/// short rows, so that the final reduction over the lanes stays short; 64;
/// for a float sum of 4096 or more, a multiple of 64 near sqrt(size), so
/// that each lane adds about sqrt(size) elements and the error grows as
/// sqrt(size), not size.
int64_t reductionLanes(int64_t size, bool floatSum) {
  constexpr int64_t kLanes = 64, kLongSum = 4096;
  if (floatSum && size >= kLongSum)
    return llvm::divideCeil(int64_t(std::sqrt(double(size))), kLanes) * kLanes;
  return size < 8 * kLanes ? kLanes / 4 : kLanes;
}

/// `FloatOp` of `lhs` and `rhs` where they are floats, else `IntOp`.
template <typename FloatOp, typename IntOp>
Value arithmetic(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isFloat(lhs.getType()))
    return FloatOp::create(b, loc, lhs, rhs);
  return IntOp::create(b, loc, lhs, rhs);
}

/// The window positions of convolution patches: `taps` slices of one
/// tensor [batch, padded spatial..., features], each of the whole batch and
/// features, at `starts` (spatial, one list per tap) and the same spatial
/// `strides`.
struct WindowTaps {
  Value source;
  SmallVector<SmallVector<int64_t>> starts;
  SmallVector<int64_t> strides;
};

/// The taps of `patches` where it is a concatenation, along its window
/// dimension, of equally strided slices of one tensor each reshaped to
/// [batch, output spatial..., 1, features] (kiln-import-stablehlo's
/// patches); else nothing.
std::optional<WindowTaps> windowTapsOf(Value patches) {
  auto concat = patches.getDefiningOp<ConcatenateOp>();
  auto type = cast<RankedTensorType>(patches.getType());
  int64_t rank = type.getRank();
  if (!concat || rank < 4 || int64_t(concat.getDimension()) != rank - 2)
    return std::nullopt;
  WindowTaps taps;
  for (Value input : concat.getInputs()) {
    auto reshape = input.getDefiningOp<ReshapeOp>();
    auto slice =
        reshape ? reshape.getOperand().getDefiningOp<SliceOp>() : SliceOp();
    if (!slice || (taps.source && slice.getOperand() != taps.source))
      return std::nullopt;
    taps.source = slice.getOperand();
    ArrayRef<int64_t> source = slice.getOperand().getType().getShape();
    ArrayRef<int64_t> start = slice.getStartIndices();
    // The reshape only puts a window dimension of 1 before the features.
    SmallVector<int64_t> tapShape(slice.getType().getShape());
    tapShape.insert(tapShape.end() - 1, 1);
    if (reshape.getType().getShape() != ArrayRef<int64_t>(tapShape) ||
        source.size() != size_t(rank - 1) || start.front() != 0 ||
        start.back() != 0 ||
        slice.getType().getShape().front() != source.front() ||
        slice.getType().getShape().back() != source.back() ||
        slice.getStrides().front() != 1 || slice.getStrides().back() != 1 ||
        (!taps.starts.empty() && slice.getStrides().drop_front().drop_back() !=
                                     ArrayRef<int64_t>(taps.strides)))
      return std::nullopt;
    taps.starts.emplace_back(start.drop_front().drop_back());
    taps.strides.assign(slice.getStrides().begin() + 1,
                        slice.getStrides().end() - 1);
  }
  return taps;
}

/// The window the spatial `starts` of taps (row-major over the window)
/// cover: its sizes and dilations, where the starts are exactly that grid
/// from the first tap's; else nothing.
std::optional<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
windowGrid(ArrayRef<SmallVector<int64_t>> starts) {
  size_t spatial = starts.front().size();
  SmallVector<int64_t> sizes, dilations;
  for (size_t d = 0; d < spatial; ++d) {
    SmallVector<int64_t> values;
    for (ArrayRef<int64_t> start : starts)
      values.push_back(start[d]);
    llvm::sort(values);
    values.erase(std::unique(values.begin(), values.end()), values.end());
    sizes.push_back(int64_t(values.size()));
    dilations.push_back(values.size() > 1 ? values[1] - values[0] : 1);
  }
  if (std::accumulate(sizes.begin(), sizes.end(), int64_t(1),
                      std::multiplies<int64_t>()) != int64_t(starts.size()))
    return std::nullopt;
  SmallVector<int64_t> index(spatial, 0);
  for (ArrayRef<int64_t> start : starts) {
    for (size_t d = 0; d < spatial; ++d)
      if (start[d] != starts.front()[d] + index[d] * dilations[d])
        return std::nullopt;
    for (int64_t d = int64_t(spatial) - 1; d >= 0 && ++index[d] == sizes[d];
         --d)
      index[d] = 0;
  }
  return std::make_pair(sizes, dilations);
}

/// out += a * b, for a window product's body.
void yieldMultiplyAdd(OpBuilder &b, Location loc, ValueRange args) {
  Value times =
      arithmetic<arith::MulFOp, arith::MulIOp>(b, loc, args[0], args[1]);
  linalg::YieldOp::create(
      b, loc, arithmetic<arith::AddFOp, arith::AddIOp>(b, loc, times, args[2]));
}

/// A convolution's contraction of its patches (windowTapsOf: `taps` of the
/// padded input [batch, padded spatial..., features]) with its kernel
/// [window, features, outputs], of the element types and features window
/// products take (kiln::isWindowProduct): a linalg.generic over (batch, output
/// spatial..., outputs, window..., features) that reads the input at
/// stride * output + dilation * window from the first tap's start and
/// writes the result itself, which kiln-tile-and-vectorize runs by output
/// lines. The patches hold the input once per window position (a 3 x 3
/// window's 9 copies were written and read back: ResNet's 3 x 3, 64
/// convolution took 1.45 times PyTorch's time; a 3 x 3 stride 2 layer of
/// 64 features spent a quarter of its time on them). Against the padded
/// grid's rows (each output row shifted by each window position), which
/// unit strides took until 2026-11-28, alternated on one thread: 8 x 56 x
/// 56 x 64 -> 64 1.08x faster, 8 x 28 x 28 x 128 1.13x, as fast on
/// MNIST's, CIFAR's and an RGB first layer; against the patches: 8 x 7 x 7
/// x 512 1.10x, 32 x 16 x 16 x 32 1.42x, LeNet's second layer 1.64x.
std::optional<Value> windowProduct(ConversionPatternRewriter &rewriter,
                                   DotGeneralOp op, Value kernel,
                                   RankedTensorType accType) {
  RankedTensorType lhsType = op.getLhs().getType();
  int64_t lhsRank = lhsType.getRank();
  if (!op.getLhsBatchingDimensions().empty() || lhsRank < 4 ||
      op.getLhsContractingDimensions() !=
          ArrayRef<int64_t>{lhsRank - 2, lhsRank - 1} ||
      op.getRhsContractingDimensions() != ArrayRef<int64_t>{0, 1} ||
      op.getRhs().getType().getRank() != 3 ||
      !kiln::isWindowProduct(
          lhsType.getElementType(), op.getRhs().getType().getElementType(),
          op.getType().getElementType(), lhsType.getShape().back()))
    return std::nullopt;
  std::optional<WindowTaps> taps = windowTapsOf(op.getLhs());
  if (!taps)
    return std::nullopt;
  auto grid = windowGrid(taps->starts);
  Value input = rewriter.getRemappedValue(taps->source);
  auto inputType = cast<RankedTensorType>(input.getType());
  if (!grid || !inputType.hasStaticShape())
    return std::nullopt;
  auto [sizes, dilations] = *grid;
  Location loc = op.getLoc();
  // bf16 and f16 sum in f32: the input (a window's size times smaller than
  // its patches) and kernel are widened once.
  Type element = accType.getElementType();
  input = withElements(rewriter, loc, input, element);
  kernel = withElements(rewriter, loc, kernel, element);
  inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank(), spatial = rank - 2;
  MLIRContext *context = rewriter.getContext();
  // Loops: batch, output spatial..., outputs, window..., features.
  unsigned loops = 2 * spatial + 3;
  SmallVector<AffineExpr> dims = loopDims(context, loops);
  SmallVector<AffineExpr> inputExprs = {dims[0]}, kernelExprs;
  for (int64_t d = 0; d < spatial; ++d) {
    inputExprs.push_back(dims[1 + d] * taps->strides[d] +
                         dims[spatial + 2 + d] * dilations[d]);
    kernelExprs.push_back(dims[spatial + 2 + d]);
  }
  inputExprs.push_back(dims.back());
  kernelExprs.append({dims.back(), dims[spatial + 1]});
  SmallVector<AffineMap> maps = {
      AffineMap::get(loops, 0, inputExprs, context),
      AffineMap::get(loops, 0, kernelExprs, context),
      AffineMap::get(loops, 0, ArrayRef(dims).take_front(spatial + 2),
                     context)};
  SmallVector<utils::IteratorType> iterators(spatial + 2,
                                             utils::IteratorType::parallel);
  iterators.append(spatial + 1, utils::IteratorType::reduction);
  // From the first tap's first pixel: tiling assumes a map that reads
  // position 0 at iteration 0.
  SmallVector<int64_t> offsets = {0}, extent, ones(rank, 1);
  llvm::append_range(offsets, taps->starts.front());
  offsets.push_back(0);
  for (int64_t d = 0; d < rank; ++d)
    extent.push_back(inputType.getDimSize(d) - offsets[d]);
  Value pixels = tensor::ExtractSliceOp::create(
      rewriter, loc, inputType.clone(extent), input, ValueRange{}, ValueRange{},
      ValueRange{}, offsets, extent, ones);
  SmallVector<int64_t> kernelShape(sizes);
  kernelShape.append({inputType.getShape().back(), accType.getShape().back()});
  Value kernelGrid = reshapeTensor(
      rewriter, loc, kernel,
      cast<RankedTensorType>(kernel.getType()).clone(kernelShape));
  Value zeros =
      filledTensor(rewriter, loc, accType,
                   scalarConstant(rewriter, loc, accType.getElementType(), 0));
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{accType}, ValueRange{pixels, kernelGrid},
             ValueRange{zeros}, maps, iterators, yieldMultiplyAdd)
      .getResult(0);
}

/// dot_general -> linalg.matmul ([M,K] x [K,N]), linalg.batch_matmul
/// ([B,M,K] x [B,K,N]), either of them on transposed and reshaped operands
/// (buildDecomposed), or an outer product (no contracting dimensions).
struct DotGeneralToLinalg : OpConversionPattern<DotGeneralOp> {
  DotGeneralToLinalg(MLIRContext *context, bool laneReductions,
                     bool windowProducts)
      : OpConversionPattern(context), laneReductions(laneReductions),
        windowProducts(windowProducts) {}

  static bool isCanonical(DotGeneralOp op, int64_t batch) {
    int64_t rank = batch + 2;
    SmallVector<int64_t> batchDims;
    for (int64_t i = 0; i < batch; ++i)
      batchDims.push_back(i);
    return op.getLhs().getType().getRank() == rank &&
           op.getRhs().getType().getRank() == rank &&
           op.getLhsBatchingDimensions() == ArrayRef<int64_t>(batchDims) &&
           op.getRhsBatchingDimensions() == ArrayRef<int64_t>(batchDims) &&
           op.getLhsContractingDimensions() == ArrayRef<int64_t>{batch + 1} &&
           op.getRhsContractingDimensions() == ArrayRef<int64_t>{batch};
  }

  LogicalResult
  matchAndRewrite(DotGeneralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    // bf16 and f16 results accumulate in f32 and are rounded once at the end.
    RankedTensorType accType = type.clone(accumulatorType(type.getElementType()));
    Value result;
    std::optional<Value> window =
        windowProducts ? windowProduct(rewriter, op, adaptor.getRhs(), accType)
                       : std::nullopt;
    if (window) {
      result = *window;
    } else if (op.getLhsContractingDimensions().empty()) {
      result = buildProduct(rewriter, op, adaptor, accType);
    } else if (isCanonical(op, 0) || isCanonical(op, 1)) {
      result = product(rewriter, loc, adaptor.getLhs(), adaptor.getRhs(),
                       accType.getElementType(), laneReductions);
    } else {
      result = buildDecomposed(rewriter, op, adaptor, accType, laneReductions);
    }
    rewriter.replaceOp(
        op, withElements(rewriter, loc, result, type.getElementType()));
    return success();
  }

  /// The maps of the lhs, rhs and result into the iteration space (result
  /// dims..., contracting dims...).
  static SmallVector<AffineMap> dotMaps(MLIRContext *context, DotGeneralOp op) {
    ArrayRef<int64_t> lhsBatch = op.getLhsBatchingDimensions();
    ArrayRef<int64_t> lhsContract = op.getLhsContractingDimensions();
    int64_t lhsRank = op.getLhs().getType().getRank();
    int64_t rhsRank = op.getRhs().getType().getRank();
    unsigned resultRank = op.getType().getRank();
    unsigned numLoops = resultRank + lhsContract.size();
    unsigned lhsFree = lhsRank - lhsBatch.size() - lhsContract.size();
    SmallVector<AffineExpr> resultExprs;
    for (unsigned d = 0; d < resultRank; ++d)
      resultExprs.push_back(getAffineDimExpr(d, context));
    return {dotOperandMap(context, lhsRank, lhsBatch, lhsContract,
                          lhsBatch.size(), resultRank, numLoops),
            dotOperandMap(context, rhsRank, op.getRhsBatchingDimensions(),
                          op.getRhsContractingDimensions(),
                          lhsBatch.size() + lhsFree, resultRank, numLoops),
            AffineMap::get(numLoops, 0, resultExprs, context)};
  }

  /// A dot_general without contracting dimensions (an outer product): an
  /// all-parallel generic that never reads its output, so that elementwise
  /// fusion cannot turn the output into an accumulator.
  static Value buildProduct(OpBuilder &b, DotGeneralOp op, OpAdaptor adaptor,
                            RankedTensorType type) {
    SmallVector<AffineMap> maps = dotMaps(b.getContext(), op);
    maps.pop_back();
    Type element = type.getElementType();
    return buildParallelGeneric(
        b, op.getLoc(), type, ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        maps, [&](OpBuilder &nested, Location loc, ValueRange args) -> Value {
          return arithmetic<arith::MulFOp, arith::MulIOp>(
              nested, loc, widen(nested, loc, args[0], element),
              widen(nested, loc, args[1], element));
        });
  }

  /// The dimensions of `groups`, in order.
  static SmallVector<int64_t> concat(ArrayRef<SmallVector<int64_t>> groups) {
    SmallVector<int64_t> dims;
    for (ArrayRef<int64_t> group : groups)
      llvm::append_range(dims, group);
    return dims;
  }

  /// Whether `permutation` of `type`'s dimensions keeps its elements in
  /// order: it moves only dimensions of size 1 (x^T of one row x).
  static bool keepsOrder(RankedTensorType type, ArrayRef<int64_t> permutation) {
    SmallVector<int64_t> moved;
    for (int64_t d : permutation)
      if (type.getDimSize(d) != 1)
        moved.push_back(d);
    return llvm::is_sorted(moved);
  }

  /// The bytes a transpose of `value` into the order of `groups` moves:
  /// none if its elements stay in order.
  static int64_t transposeCost(Value value,
                               ArrayRef<SmallVector<int64_t>> groups) {
    auto type = cast<RankedTensorType>(value.getType());
    if (keepsOrder(type, concat(groups)))
      return 0;
    return *staticBytes(type);
  }

  /// `value` transposed by `permutation`: a reshape where its elements stay
  /// in order.
  static Value transposed(OpBuilder &b, Location loc, Value value,
                          ArrayRef<int64_t> permutation) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape;
    for (int64_t d : permutation)
      shape.push_back(type.getDimSize(d));
    if (keepsOrder(type, permutation))
      return reshapeTensor(b, loc, value, type.clone(shape));
    Value init = emptyTensor(b, loc, type.clone(shape));
    return linalg::TransposeOp::create(b, loc, value, init, permutation)
        .getResult()[0];
  }

  /// `operand` with its dimensions in the order of `groups`, each group
  /// collapsed to one dimension of `sizes` (an empty group to a 1).
  static Value regroup(OpBuilder &b, Location loc, Value operand,
                       ArrayRef<SmallVector<int64_t>> groups,
                       ArrayRef<int64_t> sizes) {
    Value value = transposed(b, loc, operand, concat(groups));
    return reshapeTensor(b, loc, value,
                         cast<RankedTensorType>(value.getType()).clone(sizes));
  }

  /// The product of the sizes of `dims` of `value`'s type.
  static int64_t volume(Value value, ArrayRef<int64_t> dims) {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t size = 1;
    for (int64_t d : dims)
      size *= type.getDimSize(d);
    return size;
  }

  /// The dimensions of `value` in neither `batch` nor `contracting`.
  static SmallVector<int64_t> freeDims(Value value, ArrayRef<int64_t> batch,
                                       ArrayRef<int64_t> contracting) {
    SmallVector<int64_t> free;
    for (int64_t d = 0, e = cast<RankedTensorType>(value.getType()).getRank();
         d < e; ++d)
      if (!llvm::is_contained(batch, d) && !llvm::is_contained(contracting, d))
        free.push_back(d);
    return free;
  }

  /// Bytes of a matrix from which a matrix-vector product of it, read
  /// straight from the function's arguments, runs as a matmul of one
  /// column (the CPU's thin products: register tiles of several rows, each
  /// summing vector lanes along K, so several rows stream at once) rather
  /// than in lanes a row at a time, one stream, which the prefetchers
  /// restart at every page. On an AMD Zen 3, one thread: 4096 x 4096 x 1
  /// 2.97 -> 2.01 ms (numpy 1.95), one row x W^T of 4096 x 4096 3.01 ->
  /// 1.97, 4096 x 1024 x 1 0.409 -> 0.345; from 1536 x 1024 down, equal.
  /// A matrix computed in the function keeps lanes, which fuse with its
  /// producers a row at a time.
  static constexpr int64_t kStreamedMatrixBytes = 8 << 20;

  /// Whether `matrix` x `vector` into `element` is such a product: f32 or
  /// f64 throughout, `matrix` a function argument (reshaped or not) of
  /// kStreamedMatrixBytes or more.
  static bool isStreamedMatrix(Value matrix, Value vector, Type element) {
    auto type = cast<RankedTensorType>(matrix.getType());
    if (!(element.isF32() || element.isF64()) ||
        type.getElementType() != element ||
        getElementTypeOrSelf(vector.getType()) != element ||
        staticBytes(type).value_or(0) < kStreamedMatrixBytes)
      return false;
    while (isa_and_present<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
        matrix.getDefiningOp()))
      matrix = matrix.getDefiningOp()->getOperand(0);
    return isa<BlockArgument>(matrix);
  }

  /// left x right ([M, K] x [K, N], or batches of them) accumulating in
  /// `element`: a matmul or batch matmul, or with `laneReductions` a product
  /// with one column long enough for two groups of lanes as
  /// matrixVectorInLanes (unless isStreamedMatrix).
  static Value product(OpBuilder &b, Location loc, Value left, Value right,
                       Type element, bool laneReductions) {
    auto leftType = cast<RankedTensorType>(left.getType());
    auto rightType = cast<RankedTensorType>(right.getType());
    SmallVector<int64_t> shape(leftType.getShape().drop_back());
    shape.push_back(rightType.getShape().back());
    auto type = RankedTensorType::get(shape, element);
    int64_t k = leftType.getShape().back();
    bool batched = leftType.getRank() == 3;
    if (laneReductions && !batched && shape.back() == 1 &&
        2 * reductionLanes(k, isFloat(element)) <= k &&
        !isStreamedMatrix(left, right, element))
      return reshapeTensor(b, loc,
                           matrixVectorInLanes(b, loc, left, right, element),
                           type);
    Value init = filledTensor(b, loc, type, scalarConstant(b, loc, element, 0));
    SmallVector<Value> inputs{left, right};
    return batched
               ? linalg::BatchMatmulOp::create(b, loc, inputs, init).getResult(0)
               : linalg::MatmulOp::create(b, loc, inputs, init).getResult(0);
  }

  /// y = A x for A: [M, K] and x: [K, 1] as a reduction along K in vector
  /// lanes, the way reduceTrailingInLanes reduces rows: partial[m, l] sums
  /// A[m, g L + l] x[g L + l] over the groups g (L products at a time, in
  /// vector accumulators), then each row's L lanes are summed, then the
  /// products past the last whole group. A matmul with one column would
  /// broadcast one element of A at a time instead. Returns y: [M].
  static Value matrixVectorInLanes(OpBuilder &b, Location loc, Value a,
                                   Value x, Type element) {
    MLIRContext *context = b.getContext();
    auto aType = cast<RankedTensorType>(a.getType());
    int64_t m = aType.getDimSize(0), k = aType.getDimSize(1);
    int64_t lanes = reductionLanes(k, isFloat(element));
    int64_t whole = k / lanes * lanes;
    Value zero = scalarConstant(b, loc, element, 0);
    auto tensorOf = [&](ArrayRef<int64_t> shape, Value of) {
      return RankedTensorType::get(
          shape, cast<RankedTensorType>(of.getType()).getElementType());
    };
    // Columns [begin, end) of A and the same elements of x, as [K'].
    auto columns = [&](int64_t begin, int64_t end) {
      Value aPart = tensor::ExtractSliceOp::create(
          b, loc, a, ArrayRef<OpFoldResult>{b.getIndexAttr(0),
                                            b.getIndexAttr(begin)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(m), b.getIndexAttr(end - begin)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
      Value xPart = tensor::ExtractSliceOp::create(
          b, loc, x, ArrayRef<OpFoldResult>{b.getIndexAttr(begin),
                                            b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(end - begin), b.getIndexAttr(1)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
      return std::make_pair(
          aPart, reshapeTensor(b, loc, xPart, tensorOf({end - begin}, x)));
    };
    // out += a * x, widened to the accumulator type.
    auto multiplyAdd = [&](OpBuilder &nested, Location nestedLoc,
                           ValueRange args) {
      Value times = arithmetic<arith::MulFOp, arith::MulIOp>(
          nested, nestedLoc, widen(nested, nestedLoc, args[0], element),
          widen(nested, nestedLoc, args[1], element));
      linalg::YieldOp::create(nested, nestedLoc,
                              arithmetic<arith::AddFOp, arith::AddIOp>(
                                  nested, nestedLoc, times, args[2]));
    };
    using utils::IteratorType;
    auto [aWhole, xWhole] = columns(0, whole);
    Value aGroups = reshapeTensor(b, loc, aWhole,
                                  tensorOf({m, whole / lanes, lanes}, a));
    Value xGroups =
        reshapeTensor(b, loc, xWhole, tensorOf({whole / lanes, lanes}, x));
    AffineExpr d0, d1, d2;
    bindDims(context, d0, d1, d2);
    Value partial =
        linalg::GenericOp::create(
            b, loc, TypeRange{RankedTensorType::get({m, lanes}, element)},
            ValueRange{aGroups, xGroups},
            ValueRange{filledTensor(
                b, loc, RankedTensorType::get({m, lanes}, element), zero)},
            ArrayRef<AffineMap>{AffineMap::get(3, 0, {d0, d1, d2}, context),
                                AffineMap::get(3, 0, {d1, d2}, context),
                                AffineMap::get(3, 0, {d0, d2}, context)},
            ArrayRef<IteratorType>{IteratorType::parallel,
                                   IteratorType::reduction,
                                   IteratorType::parallel},
            multiplyAdd)
            .getResult(0);
    Value result =
        linalg::ReduceOp::create(
            b, loc, partial,
            filledTensor(b, loc, RankedTensorType::get({m}, element), zero),
            ArrayRef<int64_t>{1},
            [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
              linalg::YieldOp::create(nested, nestedLoc,
                                      arithmetic<arith::AddFOp, arith::AddIOp>(
                                          nested, nestedLoc, args[0], args[1]));
            })
            .getResult(0);
    if (whole == k)
      return result;
    auto [aRest, xRest] = columns(whole, k);
    return linalg::GenericOp::create(
               b, loc, TypeRange{result.getType()}, ValueRange{aRest, xRest},
               ValueRange{result},
               ArrayRef<AffineMap>{AffineMap::get(2, 0, {d0, d1}, context),
                                   AffineMap::get(2, 0, {d1}, context),
                                   AffineMap::get(2, 0, {d0}, context)},
               ArrayRef<IteratorType>{IteratorType::parallel,
                                      IteratorType::reduction},
               multiplyAdd)
        .getResult(0);
  }

  /// Any other contraction, as XLA's dot decomposition does: the operands
  /// transposed and reshaped to [B, M, K] and [B, K, N] (no B without batch
  /// dimensions), then a (batch) matmul, whose [B, M, N] result is the
  /// dot_general's (batch dims, lhs free dims, rhs free dims) reshaped. Or,
  /// where that moves fewer bytes, the swapped product [B, N, K] x
  /// [B, K, M] transposed to [B, M, N] (a product with a large transposed
  /// weight: transposing the activations and the result is cheaper; not
  /// of int8 into i32, whose result has 4 times the bytes: x W^T of 124 x
  /// 223 x 450 took 56 us swapped, 44 not). The transposes cost a pass over
  /// what they move, but the straight order's transposed B only half its
  /// bytes: kiln-tile-and-vectorize's chunks of columns transpose their
  /// parts of it in cache, on their threads, where the swapped product's
  /// transposes are passes of their own (256 x 512 x 784 on an Intel Xeon:
  /// 1.24 -> 1.14 ms on one thread, 0.82 -> 0.67 on two, straight; 83 x 361
  /// x 451 stays swapped, 0.18 ms against 0.22 straight). The matmul path's
  /// blocking is worth far more than the transposes on every shape but the
  /// smallest.
  static Value buildDecomposed(OpBuilder &b, DotGeneralOp op,
                               OpAdaptor adaptor, RankedTensorType accType,
                               bool laneReductions) {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    SmallVector<int64_t> lhsBatch(op.getLhsBatchingDimensions()),
        rhsBatch(op.getRhsBatchingDimensions()),
        lhsContract(op.getLhsContractingDimensions()),
        rhsContract(op.getRhsContractingDimensions());
    SmallVector<int64_t> lhsFree = freeDims(lhs, lhsBatch, lhsContract),
                         rhsFree = freeDims(rhs, rhsBatch, rhsContract);
    int64_t batch = volume(lhs, lhsBatch), m = volume(lhs, lhsFree),
            k = volume(lhs, lhsContract), n = volume(rhs, rhsFree);
    bool batched = !lhsBatch.empty();
    auto shape = [&](int64_t rows, int64_t columns) {
      return batched ? SmallVector<int64_t>{batch, rows, columns}
                     : SmallVector<int64_t>{rows, columns};
    };
    int64_t straight = transposeCost(lhs, {lhsBatch, lhsFree, lhsContract}) +
                       transposeCost(rhs, {rhsBatch, rhsContract, rhsFree}) / 2;
    // The swapped product's result is transposed back, a reshape where it
    // has one row or column.
    int64_t resultCost =
        m == 1 || n == 1
            ? 0
            : batch * m * n * elementBytes(accType.getElementType());
    int64_t swapped = transposeCost(rhs, {rhsBatch, rhsFree, rhsContract}) +
                      transposeCost(lhs, {lhsBatch, lhsContract, lhsFree}) +
                      resultCost;
    bool swap = swapped < straight;
    Value left = swap ? regroup(b, loc, rhs, {rhsBatch, rhsFree, rhsContract},
                                shape(n, k))
                      : regroup(b, loc, lhs, {lhsBatch, lhsFree, lhsContract},
                                shape(m, k));
    Value right = swap ? regroup(b, loc, lhs, {lhsBatch, lhsContract, lhsFree},
                                 shape(k, m))
                       : regroup(b, loc, rhs, {rhsBatch, rhsContract, rhsFree},
                                 shape(k, n));
    // A matrix-vector product in lanes either way: swapped, its one column
    // of results is a row as it is.
    Value result =
        product(b, loc, left, right, accType.getElementType(), laneReductions);
    if (swap)
      result = transposed(b, loc, result,
                          batched ? SmallVector<int64_t>{0, 2, 1}
                                  : SmallVector<int64_t>{1, 0});
    return reshapeTensor(b, loc, result, accType);
  }

  bool laneReductions, windowProducts;
};

/// The identity of a reduction: 0, 1, or the lowest / highest value.
enum class Identity { Zero, One, Lowest, Highest };

Value identityValue(OpBuilder &b, Location loc, Type type, Identity identity) {
  switch (identity) {
  case Identity::Zero:
    return scalarConstant(b, loc, type, 0);
  case Identity::One:
    return scalarConstant(b, loc, type, 1);
  case Identity::Lowest:
  case Identity::Highest: {
    bool high = identity == Identity::Highest;
    if (auto floatType = dyn_cast<FloatType>(type))
      return arith::ConstantOp::create(
          b, loc,
          b.getFloatAttr(floatType,
                         llvm::APFloat::getInf(floatType.getFloatSemantics(),
                                               /*Negative=*/!high)));
    unsigned width = type.getIntOrFloatBitWidth();
    return arith::ConstantOp::create(
        b, loc,
        b.getIntegerAttr(type, high ? llvm::APInt::getSignedMaxValue(width)
                                    : llvm::APInt::getSignedMinValue(width)));
  }
  }
  return {};
}

/// reduce_* -> linalg.reduce combining with `FloatOp` / `IntOp` from
/// `identity`.
template <typename OpTy, typename FloatOp, typename IntOp, Identity identity>
struct ReduceToLinalg : OpConversionPattern<OpTy> {
  ReduceToLinalg(MLIRContext *context, bool laneReductions)
      : OpConversionPattern<OpTy>(context), laneReductions(laneReductions) {}
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    // Sums and products of bf16 / f16 accumulate in f32; max and min are
    // exact in any type.
    bool accumulates = identity == Identity::Zero || identity == Identity::One;
    Type element = accumulates ? accumulatorType(type.getElementType())
                               : type.getElementType();
    Value init = identityTensor(rewriter, loc, type.clone(element));
    // The order of the reduced dimensions does not matter; linalg wants
    // them ascending.
    SmallVector<int64_t> dims(op.getDimensions());
    llvm::sort(dims);
    auto reduceOver = [&](Value input, ArrayRef<int64_t> over, Value into) {
      return linalg::ReduceOp::create(
                 rewriter, loc, input, into, over,
                 [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
                   linalg::YieldOp::create(
                       b, nestedLoc,
                       arithmetic<FloatOp, IntOp>(
                           b, nestedLoc, widen(b, nestedLoc, args[0], element),
                           args[1]));
                 })
          .getResult(0);
    };
    Value input = adaptor.getOperand();
    Value reduced;
    // An empty input reduces to its init as it is: its lanes' or blocks'
    // slices would have an offset of 0 in a dimension of size 0, which
    // upstream's verifier calls out of bounds (a random program's
    // reduce_max of 6 x 0 x 1 x 17 x 17 failed to compile).
    bool empty = llvm::is_contained(
        cast<RankedTensorType>(input.getType()).getShape(), 0);
    if (laneReductions && !empty) {
      input =
          reduceTrailingFirst(rewriter, loc, input, dims, element, reduceOver);
      reduced =
          static_cast<int64_t>(dims.size()) ==
                  cast<RankedTensorType>(input.getType()).getRank()
              ? reduceWhole(rewriter, loc, input, element, init, reduceOver)
              : reduceTrailingInLanes(rewriter, loc, input, dims, element, init,
                                      reduceOver);
    }
    if (!reduced) {
      if (identity == Identity::Zero && isFloat(element) && !empty)
        input = longSumBlocks(rewriter, loc, input, dims, element, reduceOver);
      reduced = reduceOver(input, dims, init);
    }
    rewriter.replaceOp(
        op, withElements(rewriter, loc, reduced, type.getElementType()));
    return success();
  }

  /// A tensor of `type` holding the reduction's identity: where its
  /// results, whole or partial, start.
  static Value identityTensor(OpBuilder &b, Location loc,
                              RankedTensorType type) {
    return filledTensor(b, loc, type,
                        identityValue(b, loc, type.getElementType(), identity));
  }

  /// The divisor of `size` nearest below its square root.
  static int64_t rootDivisor(int64_t size) {
    int64_t divisor = 1;
    for (int64_t d = 1; d * d <= size; ++d)
      if (size % d == 0)
        divisor = d;
    return divisor;
  }

  /// A reduction over trailing dimensions, combined one element after
  /// another, is a chain of dependent scalar ops per output that no vector
  /// unit helps (a row max of 1000 ran at 12 ns an element). Its R elements
  /// are reduced instead as [R / L, L]: first across the groups, L lanes
  /// at a time (vectors along the innermost dimension), then over the L
  /// lanes; a remainder of R mod L is combined last. A float sum of 4096
  /// or more takes L a multiple of 64 near sqrt(R), so that each lane adds
  /// about sqrt(R) elements and its error grows as sqrt(R), not R. Returns
  /// the reduction into `init`, or null for other reductions and rows too
  /// short to pay.
  template <typename ReduceOver>
  static Value reduceTrailingInLanes(ConversionPatternRewriter &rewriter,
                                     Location loc, Value input,
                                     ArrayRef<int64_t> dims, Type element,
                                     Value init, ReduceOver reduceOver) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank(), count = dims.size();
    if (count == 0 ||
        !llvm::equal(dims, llvm::seq<int64_t>(rank - count, rank)))
      return Value();
    int64_t size = 1;
    for (int64_t d : dims)
      size *= type.getDimSize(d);
    int64_t lanes =
        reductionLanes(size, identity == Identity::Zero && isFloat(element));
    if (size < 2 * lanes)
      return Value();
    SmallVector<int64_t> kept(type.getShape().drop_back(count));
    auto shaped = [&](ArrayRef<int64_t> trailing, Type of) {
      SmallVector<int64_t> shape(kept);
      llvm::append_range(shape, trailing);
      return RankedTensorType::get(shape, of);
    };
    Value flat = reshapeTensor(rewriter, loc, input,
                               shaped({size}, type.getElementType()));
    int64_t whole = size / lanes * lanes;
    auto columns = [&](int64_t begin, int64_t end) -> Value {
      if (begin == 0 && end == size)
        return flat;
      SmallVector<OpFoldResult> offsets(kept.size() + 1,
                                        rewriter.getIndexAttr(0)),
          sizes, strides(kept.size() + 1, rewriter.getIndexAttr(1));
      for (int64_t d : kept)
        sizes.push_back(rewriter.getIndexAttr(d));
      offsets.back() = rewriter.getIndexAttr(begin);
      sizes.push_back(rewriter.getIndexAttr(end - begin));
      return tensor::ExtractSliceOp::create(rewriter, loc, flat, offsets,
                                            sizes, strides);
    };
    Value groups = reshapeTensor(
        rewriter, loc, columns(0, whole),
        shaped({whole / lanes, lanes}, type.getElementType()));
    int64_t across = kept.size();
    Value partial =
        reduceOver(groups, {across},
                   identityTensor(rewriter, loc, shaped({lanes}, element)));
    Value reduced = reduceOver(partial, {across}, init);
    if (whole < size)
      reduced = reduceOver(columns(whole, size), {across}, reduced);
    return reduced;
  }

  /// Of a reduction over trailing dimensions and others (a batch norm's
  /// N, H and W of NCHW, which ran as one loop nest over all three at 24%
  /// of PyTorch's speed), the trailing ones in lanes. Returns the partial
  /// result, `dims` left with the others; else `input`.
  template <typename ReduceOver>
  static Value reduceTrailingFirst(ConversionPatternRewriter &rewriter,
                                   Location loc, Value input,
                                   SmallVectorImpl<int64_t> &dims, Type element,
                                   ReduceOver reduceOver) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    int64_t count = dims.size(), trailing = 0;
    while (trailing < count &&
           dims[count - 1 - trailing] == rank - 1 - trailing)
      ++trailing;
    // A whole tensor computed by an all-parallel op, with rows long enough
    // for lanes, reduces its rows first (all but the first dimension), so
    // that its producer fuses by rows (max(abs(x)) of 2048 x 2048: 1.2 ->
    // 0.54 ms); one read from memory reduces flat (reduceWhole: its max
    // 0.24 ms, by rows 0.28).
    constexpr int64_t kMinRow = 128;
    auto producer = input.getDefiningOp<linalg::GenericOp>();
    if (trailing == rank && rank >= 2 && producer &&
        producer.getNumReductionLoops() == 0 && type.getDimSize(0) >= 2 &&
        type.getNumElements() / type.getDimSize(0) >= kMinRow)
      trailing = rank - 1;
    if (trailing == 0 || trailing == count)
      return input;
    SmallVector<int64_t> inner(dims.end() - trailing, dims.end());
    dims.truncate(dims.size() - trailing);
    return reduceInLanes(
        rewriter, loc, input, inner, element,
        identityTensor(rewriter, loc,
                       RankedTensorType::get(
                           type.getShape().drop_back(trailing), element)),
        reduceOver);
  }

  /// A reduction over trailing dimensions in lanes where that pays (see
  /// reduceTrailingInLanes), else one reduction.
  template <typename ReduceOver>
  static Value reduceInLanes(ConversionPatternRewriter &rewriter, Location loc,
                             Value input, ArrayRef<int64_t> dims, Type element,
                             Value init, ReduceOver reduceOver) {
    Value reduced = reduceTrailingInLanes(rewriter, loc, input, dims, element,
                                          init, reduceOver);
    return reduced ? reduced : reduceOver(input, dims, init);
  }

  /// A reduction of a whole tensor of R elements, in lanes (a max of 4M
  /// elements as one chain of vector reductions took 1.7 ms; of 2048 x
  /// 2048, as scalar loops, 28 ms): as up to 64 rows of at least 16K
  /// elements (for threads), each row in lanes, then the rows' results,
  /// then the R mod rows elements left.
  template <typename ReduceOver>
  static Value reduceWhole(ConversionPatternRewriter &rewriter, Location loc,
                           Value input, Type element, Value init,
                           ReduceOver reduceOver) {
    constexpr int64_t kRowElements = 16384, kMaxRows = 64;
    auto type = cast<RankedTensorType>(input.getType());
    int64_t size = type.getNumElements();
    auto flatType = RankedTensorType::get({size}, type.getElementType());
    Value flat = reshapeTensor(rewriter, loc, input, flatType);
    auto inLanes = [&](Value part, ArrayRef<int64_t> over, Value into) {
      return reduceInLanes(rewriter, loc, part, over, element, into,
                           reduceOver);
    };
    int64_t rows = std::clamp<int64_t>(size / kRowElements, 1, kMaxRows);
    if (rows == 1)
      return inLanes(flat, {0}, init);
    int64_t row = size / rows, whole = rows * row;
    auto part = [&](int64_t begin, int64_t end) -> Value {
      return tensor::ExtractSliceOp::create(
          rewriter, loc, flat,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(begin)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(end - begin)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    };
    Value grid = reshapeTensor(
        rewriter, loc, whole == size ? flat : part(0, whole),
        RankedTensorType::get({rows, row}, type.getElementType()));
    Value partial = inLanes(
        grid, {1},
        identityTensor(rewriter, loc, RankedTensorType::get({rows}, element)));
    Value reduced = inLanes(partial, {0}, init);
    return whole == size ? reduced : inLanes(part(whole, size), {0}, reduced);
  }

  /// A long float sum over leading dimensions: its R elements summed in
  /// blocks of about sqrt(R) first (see reduceTrailingInLanes), whose sums
  /// the caller then adds. Returns `input` with its reduced dimensions
  /// replaced by one of the block sums, or `input` itself when R is small.
  template <typename ReduceOver>
  static Value longSumBlocks(ConversionPatternRewriter &rewriter, Location loc,
                             Value input, SmallVectorImpl<int64_t> &dims,
                             Type element, ReduceOver reduceOver) {
    constexpr int64_t kMinimum = 4096;
    auto type = cast<RankedTensorType>(input.getType());
    int64_t count = dims.size();
    int64_t reduced = 1;
    for (int64_t d : dims)
      reduced *= type.getDimSize(d);
    if (count == 0 || !llvm::equal(dims, llvm::seq<int64_t>(0, count)) ||
        reduced < kMinimum)
      return input;
    int64_t block = rootDivisor(reduced);
    if (block < 16)
      return input;
    // [R / block, block, kept...]: the block sums, then the caller's sum.
    SmallVector<int64_t> shape = {reduced / block, block};
    llvm::append_range(shape, type.getShape().drop_front(count));
    Value blocks = reshapeTensor(rewriter, loc, input, type.clone(shape));
    SmallVector<int64_t> partialShape(shape);
    partialShape.erase(partialShape.begin() + 1);
    auto partialType = RankedTensorType::get(partialShape, element);
    Value zero = scalarConstant(rewriter, loc, element, 0);
    Value partial = reduceOver(blocks, {1},
                               filledTensor(rewriter, loc, partialType, zero));
    dims.assign({0});
    return partial;
  }

  bool laneReductions;
};

/// argmax in two reductions kiln already vectorizes along a row, instead of
/// one of (value, index) pairs, which ran as scalar loops (15 ns an element):
/// the maximum (NaN if any element is NaN, as NaN counts as the largest),
/// then the least index whose element equals it (or is NaN where it is),
/// over `n` elsewhere. Each pass reads the operand once; the comparison
/// fuses into the second.
struct ArgmaxToReductions : OpConversionPattern<ArgmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArgmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    auto type = cast<RankedTensorType>(x.getType());
    RankedTensorType indexType = op.getType();
    int64_t dim = op.getDimension(), n = type.getDimSize(dim);
    auto splat = [&](RankedTensorType t, Attribute value) -> Value {
      return ConstantOp::create(rewriter, loc,
                                DenseElementsAttr::get(t, value));
    };
    Attribute zero = rewriter.getIntegerAttr(indexType.getElementType(), 0);
    if (n == 0) {
      // No element to pick: index 0, as a reduction of nothing leaves it.
      rewriter.replaceOp(op, splat(indexType, zero));
      return success();
    }
    auto dims = rewriter.getDenseI64ArrayAttr({dim});
    Value best = BroadcastInDimOp::create(
        rewriter, loc, type,
        ReduceMaxOp::create(rewriter, loc, indexType.clone(type.getElementType()),
                            x, dims),
        rewriter.getDenseI64ArrayAttr(llvm::to_vector(llvm::concat<int64_t>(
            llvm::seq<int64_t>(0, dim),
            llvm::seq<int64_t>(dim + 1, type.getRank())))),
        Value());
    Value hit = CompareOp::create(rewriter, loc, ComparisonDirection::EQ, x, best);
    if (isFloat(type.getElementType())) {
      auto isNaN = [&](Value v) -> Value {
        return CompareOp::create(rewriter, loc, ComparisonDirection::NE, v, v);
      };
      hit = OrOp::create(rewriter, loc, hit,
                         AndOp::create(rewriter, loc, isNaN(x), isNaN(best)));
    }
    auto positionsType = type.clone(indexType.getElementType());
    Value candidates = SelectOp::create(
        rewriter, loc, positionsType, hit,
        IotaOp::create(rewriter, loc, positionsType, dim),
        splat(positionsType,
              rewriter.getIntegerAttr(indexType.getElementType(), n)));
    rewriter.replaceOpWithNewOp<ReduceMinOp>(op, indexType, candidates, dims);
    return success();
  }
};

/// The operand coordinates that result / update coordinates `coords` of a
/// take along `dim` with `indexRank`-dimensional indices read, given the
/// clamped index.
SmallVector<Value> gatherCoordinates(ValueRange coords, Value index,
                                     int64_t dim, int64_t indexRank) {
  SmallVector<Value> result(coords.take_front(dim));
  result.push_back(index);
  llvm::append_range(result, coords.drop_front(dim + indexRank));
  return result;
}

/// take -> linalg.generic over the result whose body reads the index and
/// then the operand at the clamped index (a gather). The index is read in
/// the body, not as an input, so that the vectorizer sees it is the same
/// along the dimensions after the taken ones: a take of rows then copies
/// each row with vector loads instead of gathering it lane by lane.
struct TakeToGeneric : OpConversionPattern<TakeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TakeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    int64_t dim = op.getDimension();
    int64_t indexRank = op.getIndices().getType().getRank();
    int64_t upper = op.getOperand().getType().getDimSize(dim) - 1;
    Value table = adaptor.getOperand();
    Value indices = adaptor.getIndices();
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), type, /*inputs=*/{}, /*inputMaps=*/{},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < type.getRank(); ++d)
            coords.push_back(linalg::IndexOp::create(b, loc, d));
          Value rawIndex = tensor::ExtractOp::create(
              b, loc, indices, ArrayRef(coords).slice(dim, indexRank));
          Value index = clampedIndex(b, loc, rawIndex, upper);
          return tensor::ExtractOp::create(
              b, loc, table, gatherCoordinates(coords, index, dim, indexRank));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// scatter_add -> a loop nest over the updates that adds each one at its
/// clamped index, in order. Where the operand has dimensions after the
/// scattered one, the loops walk the updates' rows and each adds a whole
/// row (an elementwise op the CPU pipeline vectorizes; an embedding's
/// gradient added element by element took 0.3 ms for 777 rows of 300).
struct ScatterAddToLoops : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t dim = op.getDimension();
    int64_t indexRank = op.getIndices().getType().getRank();
    int64_t upper = type.getDimSize(dim) - 1;
    ArrayRef<int64_t> row = type.getShape().drop_front(dim + 1);
    int64_t looped = dim + indexRank;
    SmallVector<Value> lbs, ubs, steps;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    ArrayRef<int64_t> updateShape = op.getUpdates().getType().getShape();
    for (int64_t size :
         updateShape.take_front(row.empty() ? updateShape.size() : looped)) {
      lbs.push_back(zero);
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, size));
      steps.push_back(one);
    }
    Value indices = adaptor.getIndices(), updates = adaptor.getUpdates();
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, adaptor.getOperand(),
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs,
            ValueRange acc) -> scf::ValueVector {
          Value rawIndex = tensor::ExtractOp::create(
              b, nestedLoc, indices, ivs.slice(dim, indexRank));
          Value index = clampedIndex(b, nestedLoc, rawIndex, upper);
          SmallVector<Value> target =
              gatherCoordinates(ivs, index, dim, indexRank);
          if (row.empty())
            return {addElement(b, nestedLoc, acc[0], target, updates, ivs)};
          return {addRow(b, nestedLoc, acc[0], target, updates, ivs, row)};
        });
    rewriter.replaceOp(op, nest.results);
    return success();
  }

  /// `acc` with updates[at] added at `target`.
  static Value addElement(OpBuilder &b, Location loc, Value acc,
                          ValueRange target, Value updates, ValueRange at) {
    Value old = tensor::ExtractOp::create(b, loc, acc, target);
    Value update = tensor::ExtractOp::create(b, loc, updates, at);
    Value sum = arithmetic<arith::AddFOp, arith::AddIOp>(b, loc, old, update);
    return tensor::InsertOp::create(b, loc, sum, acc, target);
  }

  /// `acc` with the row of `updates` at `at` (its leading coordinates)
  /// added to the row of `acc` at `target`: both rows of shape `row`.
  static Value addRow(OpBuilder &b, Location loc, Value acc, ValueRange target,
                      Value updates, ValueRange at, ArrayRef<int64_t> row) {
    auto rowOf = [&](Value tensor, ValueRange leading) {
      SmallVector<OpFoldResult> offsets(leading),
          sizes(leading.size(), b.getIndexAttr(1));
      for (int64_t size : row) {
        offsets.push_back(b.getIndexAttr(0));
        sizes.push_back(b.getIndexAttr(size));
      }
      SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
      auto type =
          RankedTensorType::get(row, getElementTypeOrSelf(tensor.getType()));
      return tensor::ExtractSliceOp::create(b, loc, type, tensor, offsets,
                                            sizes, strides);
    };
    tensor::ExtractSliceOp accRow = rowOf(acc, target);
    Value updateRow = rowOf(updates, at);
    auto identity = b.getMultiDimIdentityMap(row.size());
    SmallVector<utils::IteratorType> iterators(row.size(),
                                               utils::IteratorType::parallel);
    Value sum =
        linalg::GenericOp::create(
            b, loc, accRow.getType(), updateRow, accRow.getResult(),
            ArrayRef<AffineMap>{identity, identity}, iterators,
            [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
              linalg::YieldOp::create(nested, nestedLoc,
                                      arithmetic<arith::AddFOp, arith::AddIOp>(
                                          nested, nestedLoc, args[1], args[0]));
            })
            .getResult(0);
    return tensor::InsertSliceOp::create(
        b, loc, sum, acc, accRow.getMixedOffsets(), accRow.getMixedSizes(),
        accRow.getMixedStrides());
  }
};

} // namespace

void kiln::populateComputeToLinalgPatterns(RewritePatternSet &patterns,
                                           bool laneReductions,
                                           bool windowProducts) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ArgmaxToReductions, TakeToGeneric, ScatterAddToLoops>(context);
  patterns.add<DotGeneralToLinalg>(context, laneReductions, windowProducts);
  patterns.add<
      ReduceToLinalg<ReduceSumOp, arith::AddFOp, arith::AddIOp, Identity::Zero>,
      ReduceToLinalg<ReduceProdOp, arith::MulFOp, arith::MulIOp, Identity::One>,
      ReduceToLinalg<ReduceMaxOp, arith::MaximumFOp, arith::MaxSIOp,
                     Identity::Lowest>,
      ReduceToLinalg<ReduceMinOp, arith::MinimumFOp, arith::MinSIOp,
                     Identity::Highest>>(context, laneReductions);
}
