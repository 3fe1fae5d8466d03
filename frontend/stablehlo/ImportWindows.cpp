//===- ImportWindows.cpp - convolutions and windowed reductions -----------===//
//
// stablehlo.convolution (jax.lax.conv_general_dilated, flax's Conv),
// stablehlo.reduce_window (max and average pooling) and
// stablehlo.select_and_scatter (JAX's gradient of max pooling) in kiln's
// ops. Both
// read their input through windows: the input is padded (dilated by
// interior padding), and each position of the window is one strided
// kiln.slice of it, a "tap". A windowed reduction combines its taps
// elementwise; a convolution stacks them (im2col) and contracts them with
// the kernel in one kiln.dot_general, grouped by feature_group_count (one
// per phase of its output where it dilates its input, byPhases).
// Everything stays differentiable and batchable by kiln's own rules.
//
//===----------------------------------------------------------------------===//
#include "frontend/stablehlo/ImportPatterns.h"
#include "frontend/stablehlo/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::stablehlo_import;

namespace {

/// A window over every dimension of a tensor.
struct Window {
  SmallVector<int64_t> sizes, strides, dilations, low, high, interior;
};

int64_t product(ArrayRef<int64_t> values) {
  int64_t result = 1;
  for (int64_t v : values)
    result *= v;
  return result;
}

/// `attr`'s values, or `rank` copies of `fill` if it is absent.
SmallVector<int64_t> orFill(std::optional<ArrayRef<int64_t>> attr,
                            int64_t rank, int64_t fill) {
  return attr ? SmallVector<int64_t>(*attr) : SmallVector<int64_t>(rank, fill);
}

/// The size `size` of dimension `d` becomes padded and dilated by `w`.
int64_t paddedSize(const Window &w, size_t d, int64_t size) {
  int64_t dilated = size == 0 ? 0 : (size - 1) * (w.interior[d] + 1) + 1;
  return dilated + w.low[d] + w.high[d];
}

/// The window's positions along each dimension over `shape` padded and
/// dilated, or why there are none.
FailureOr<SmallVector<int64_t>> windowCounts(const Window &w,
                                             ArrayRef<int64_t> shape) {
  SmallVector<int64_t> counts;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t padded = paddedSize(w, d, shape[d]);
    int64_t span = (w.sizes[d] - 1) * w.dilations[d] + 1;
    if (w.sizes[d] < 1 || w.strides[d] < 1 || w.dilations[d] < 1 ||
        w.interior[d] < 0 || padded < span)
      return failure();
    counts.push_back((padded - span) / w.strides[d] + 1);
  }
  return counts;
}

/// What is wrong with a window's attributes for a tensor of `rank`, if
/// anything.
std::optional<std::string> checkWindow(const Window &w, int64_t rank) {
  for (const SmallVector<int64_t> *field :
       {&w.sizes, &w.strides, &w.dilations, &w.low, &w.high, &w.interior})
    if (int64_t(field->size()) != rank)
      return std::string("window attributes not one per dimension");
  return std::nullopt;
}

/// Fills `w.low` and `w.high` from StableHLO's `padding` ([rank, 2]) or
/// zeros.
bool readPadding(std::optional<DenseIntElementsAttr> padding, int64_t rank,
                 Window &w) {
  w.low.assign(rank, 0);
  w.high.assign(rank, 0);
  if (!padding)
    return true;
  if (padding->getType().getShape() != ArrayRef<int64_t>{rank, 2})
    return false;
  SmallVector<int64_t> values(padding->getValues<int64_t>());
  for (int64_t d = 0; d < rank; ++d) {
    w.low[d] = values[2 * d];
    w.high[d] = values[2 * d + 1];
  }
  return true;
}

/// `x` padded with `value` (a scalar tensor) as `w` says, then its taps:
/// for each position of the window (row-major), the strided slice of the
/// elements it covers at each of its `counts` positions.
SmallVector<Value> windowTaps(OpBuilder &b, Location loc, Value x, Value value,
                              const Window &w, ArrayRef<int64_t> counts) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (llvm::any_of(llvm::concat<const int64_t>(w.low, w.high, w.interior),
                   [](int64_t p) { return p != 0; }))
    x = kiln::PadOp::create(b, loc, x, value, b.getDenseI64ArrayAttr(w.low),
                            b.getDenseI64ArrayAttr(w.high),
                            b.getDenseI64ArrayAttr(w.interior));
  SmallVector<Value> taps;
  SmallVector<int64_t> offset(rank, 0);
  for (int64_t tap = 0, n = product(w.sizes); tap < n; ++tap) {
    SmallVector<int64_t> start, limit;
    for (int64_t d = 0; d < rank; ++d) {
      start.push_back(offset[d] * w.dilations[d]);
      limit.push_back(start.back() + (counts[d] - 1) * w.strides[d] + 1);
    }
    taps.push_back(kiln::SliceOp::create(
        b, loc, type.clone(counts), x, b.getDenseI64ArrayAttr(start),
        b.getDenseI64ArrayAttr(limit), b.getDenseI64ArrayAttr(w.strides)));
    // The next window position, the last dimension fastest.
    for (int64_t d = rank - 1; d >= 0 && ++offset[d] == w.sizes[d]; --d)
      offset[d] = 0;
  }
  return taps;
}

//===----------------------------------------------------------------------===//
// reduce_window
//===----------------------------------------------------------------------===//

/// The window of a reduce_window, if its attributes are consistent.
std::optional<Window> windowOf(shlo::ReduceWindowOp op, int64_t rank) {
  Window w;
  w.sizes = SmallVector<int64_t>(op.getWindowDimensions());
  w.strides = orFill(op.getWindowStrides(), rank, 1);
  w.dilations = orFill(op.getWindowDilations(), rank, 1);
  w.interior = orFill(op.getBaseDilations(), rank, 1);
  for (int64_t &dilation : w.interior)
    dilation -= 1;
  if (!readPadding(op.getPadding(), rank, w) || checkWindow(w, rank))
    return std::nullopt;
  return w;
}

/// Why a reduce_window cannot be imported, if it cannot.
std::optional<std::string> checkReduceWindow(shlo::ReduceWindowOp op) {
  auto type = op.getInputs().size() == 1
                  ? dyn_cast<RankedTensorType>(op.getInputs()[0].getType())
                  : RankedTensorType();
  Operation *body = op.getInputs().size() == 1 ? appliedOp(op.getBody())
                                               : nullptr;
  if (!type || !body || !combinerOf(body, isBoolTensor(type)) ||
      op.getInitValues()[0].getType() != type.clone(ArrayRef<int64_t>{}))
    return std::string("Kiln imports windowed reductions of one tensor whose "
                       "body applies add, multiply, maximum or minimum (or, "
                       "and of booleans)");
  std::optional<Window> w = windowOf(op, type.getRank());
  if (!w)
    return std::string("window attributes not one per dimension");
  FailureOr<SmallVector<int64_t>> counts = windowCounts(*w, type.getShape());
  if (failed(counts) ||
      op.getResult(0).getType() != type.clone(ArrayRef<int64_t>(*counts)))
    return std::string("a window that does not give the result's shape");
  return std::nullopt;
}

/// Pads with the init value, combines the taps, and folds the init value
/// in once unless it is the identity.
struct ReduceWindow : OpConversionPattern<shlo::ReduceWindowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::ReduceWindowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (checkReduceWindow(op))
      return rewriter.notifyMatchFailure(op, "unsupported reduce_window");
    Location loc = op.getLoc();
    Value x = adaptor.getInputs()[0], init = adaptor.getInitValues()[0];
    auto type = cast<RankedTensorType>(x.getType());
    auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
    Combiner combiner =
        *combinerOf(appliedOp(op.getBody()), isBoolTensor(type));
    Window w = *windowOf(op, type.getRank());
    SmallVector<Value> taps = windowTaps(rewriter, loc, x, init, w,
                                         resultType.getShape());
    Value initEverywhere = kiln::BroadcastInDimOp::create(
        rewriter, loc, resultType, init, rewriter.getDenseI64ArrayAttr({}),
        Value());
    Value result = taps.empty() ? initEverywhere : taps.front();
    for (Value tap : ArrayRef<Value>(taps).drop_front())
      result = combiner.combine(rewriter, loc, result, tap);
    Attribute constant;
    if (!taps.empty() && (!matchPattern(init, m_Constant(&constant)) ||
                          !combiner.isIdentity(constant)))
      result = combiner.combine(rewriter, loc, result, initEverywhere);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// select_and_scatter
//===----------------------------------------------------------------------===//

/// The window of a select_and_scatter (no dilations).
std::optional<Window> windowOf(shlo::SelectAndScatterOp op, int64_t rank) {
  Window w;
  w.sizes = orFill(op.getWindowDimensions(), rank, 1);
  w.strides = orFill(op.getWindowStrides(), rank, 1);
  w.dilations.assign(rank, 1);
  w.interior.assign(rank, 0);
  if (!readPadding(op.getPadding(), rank, w) || checkWindow(w, rank))
    return std::nullopt;
  return w;
}

/// The comparison a select_and_scatter's select body makes of its
/// arguments in order, if that is all it does (JAX's: GE for max pooling,
/// LE for min pooling).
std::optional<kiln::ComparisonDirection>
selectDirection(shlo::SelectAndScatterOp op) {
  auto compare = dyn_cast_or_null<shlo::CompareOp>(appliedOp(op.getSelect()));
  if (!compare)
    return std::nullopt;
  return kiln::symbolizeComparisonDirection(
      shlo::stringifyEnum(compare.getComparisonDirection()));
}

/// Why a select_and_scatter cannot be imported, if it cannot.
std::optional<std::string> checkSelectAndScatter(shlo::SelectAndScatterOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getOperand().getType());
  auto source = dyn_cast<RankedTensorType>(op.getSource().getType());
  Operation *scatter = appliedOp(op.getScatter());
  if (!type || !source || !selectDirection(op) || !scatter ||
      !isa<shlo::AddOp>(scatter) || isBoolTensor(type) ||
      source.getElementType() != type.getElementType() ||
      op.getInitValue().getType() != type.clone(ArrayRef<int64_t>{}) ||
      op.getType() != type)
    return std::string("Kiln imports selections by one comparison of the "
                       "two values and scatters that add, of numbers");
  std::optional<Window> w = windowOf(op, type.getRank());
  if (!w)
    return std::string("window attributes not one per dimension");
  FailureOr<SmallVector<int64_t>> counts = windowCounts(*w, type.getShape());
  if (failed(counts) || ArrayRef<int64_t>(*counts) != source.getShape())
    return std::string("a window that does not give the source's shape");
  return std::nullopt;
}

/// Each window selects, over its taps in order and skipping padding, the
/// first element the comparison does not keep the previous choice over;
/// the source's value for the window is added at that element: a tap's
/// selected values placed back by padding (the transpose of its strided
/// slice), summed over the taps.
struct SelectAndScatter : OpConversionPattern<shlo::SelectAndScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::SelectAndScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (checkSelectAndScatter(op))
      return rewriter.notifyMatchFailure(op, "unsupported select_and_scatter");
    Location loc = op.getLoc();
    Value x = adaptor.getOperand(), source = adaptor.getSource();
    auto type = cast<RankedTensorType>(x.getType());
    auto sourceType = cast<RankedTensorType>(source.getType());
    auto positions = sourceType.clone(rewriter.getI64Type());
    Window w = *windowOf(op, type.getRank());
    ArrayRef<int64_t> counts = sourceType.getShape();
    auto constant = [&](RankedTensorType t, Attribute value) {
      return splat(rewriter, loc, t, value);
    };
    Value scalarZero = constant(type.clone(ArrayRef<int64_t>{}),
                                rewriter.getZeroAttr(type.getElementType()));
    Value inside = constant(type.clone(rewriter.getI1Type()),
                            rewriter.getBoolAttr(true));
    SmallVector<Value> values =
        windowTaps(rewriter, loc, x, scalarZero, w, counts);
    SmallVector<Value> valid = windowTaps(
        rewriter, loc, inside,
        constant(RankedTensorType::get({}, rewriter.getI1Type()),
                 rewriter.getBoolAttr(false)),
        w, counts);
    kiln::ComparisonDirection keeps = *selectDirection(op);
    auto tapIndex = [&](int64_t t) {
      return constant(positions, rewriter.getI64IntegerAttr(t));
    };
    Value best = values.front(), found = valid.front(), chosen = tapIndex(0);
    for (size_t t = 1; t < values.size(); ++t) {
      Value kept =
          kiln::CompareOp::create(rewriter, loc, keeps, best, values[t]);
      Value take = kiln::AndOp::create(
          rewriter, loc, valid[t],
          kiln::OrOp::create(rewriter, loc,
                             kiln::NotOp::create(rewriter, loc, found),
                             kiln::NotOp::create(rewriter, loc, kept)));
      best = kiln::SelectOp::create(rewriter, loc, sourceType, take,
                                    values[t], best);
      chosen = kiln::SelectOp::create(rewriter, loc, positions, take,
                                      tapIndex(t), chosen);
      found = kiln::OrOp::create(rewriter, loc, found, valid[t]);
    }
    Value zeros = constant(sourceType, rewriter.getZeroAttr(
                                           type.getElementType()));
    Value result;
    SmallVector<int64_t> offset(type.getRank(), 0);
    for (size_t t = 0; t < values.size(); ++t) {
      Value mine = kiln::AndOp::create(
          rewriter, loc, found,
          kiln::CompareOp::create(rewriter, loc,
                                  kiln::ComparisonDirection::EQ, chosen,
                                  tapIndex(t)));
      Value part = kiln::SelectOp::create(rewriter, loc, sourceType, mine,
                                          source, zeros);
      // Back where the tap read them from: the tap's start, the stride
      // between, in the unpadded operand.
      SmallVector<int64_t> low, high, interior;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        low.push_back(offset[d] - w.low[d]);
        interior.push_back(w.strides[d] - 1);
        high.push_back(type.getDimSize(d) - low.back() -
                       (counts[d] - 1) * w.strides[d] - 1);
      }
      Value placed = kiln::PadOp::create(
          rewriter, loc, type, part, scalarZero,
          rewriter.getDenseI64ArrayAttr(low),
          rewriter.getDenseI64ArrayAttr(high),
          rewriter.getDenseI64ArrayAttr(interior));
      result = result ? kiln::AddOp::create(rewriter, loc, result, placed)
                      : placed;
      for (int64_t d = type.getRank() - 1; d >= 0 && ++offset[d] == w.sizes[d];
           --d)
        offset[d] = 0;
    }
    // The init value is where the sums start, unless it is 0.
    Combiner add = *combinerOf(appliedOp(op.getScatter()), false);
    Attribute init;
    if (!matchPattern(adaptor.getInitValue(), m_Constant(&init)) ||
        !add.isIdentity(init))
      result = add.combine(
          rewriter, loc, result,
          kiln::BroadcastInDimOp::create(rewriter, loc, type,
                                         adaptor.getInitValue(),
                                         rewriter.getDenseI64ArrayAttr({}),
                                         Value()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// convolution
//===----------------------------------------------------------------------===//

/// A convolution's layouts as permutations: `input` lists the input's
/// dimensions as [batch, spatial..., feature], `kernel` the kernel's as
/// [spatial..., input feature, output feature], `output` the output's as
/// [batch, spatial..., feature].
struct ConvLayouts {
  SmallVector<int64_t> input, kernel, output;
};

ConvLayouts layoutsOf(shlo::ConvDimensionNumbersAttr dims) {
  ConvLayouts l;
  l.input.push_back(dims.getInputBatchDimension());
  llvm::append_range(l.input, dims.getInputSpatialDimensions());
  l.input.push_back(dims.getInputFeatureDimension());
  llvm::append_range(l.kernel, dims.getKernelSpatialDimensions());
  l.kernel.push_back(dims.getKernelInputFeatureDimension());
  l.kernel.push_back(dims.getKernelOutputFeatureDimension());
  l.output.push_back(dims.getOutputBatchDimension());
  llvm::append_range(l.output, dims.getOutputSpatialDimensions());
  l.output.push_back(dims.getOutputFeatureDimension());
  return l;
}

bool isPermutation(ArrayRef<int64_t> perm) {
  SmallVector<bool> seen(perm.size(), false);
  return llvm::all_of(perm, [&](int64_t d) {
    return d >= 0 && d < int64_t(perm.size()) && !seen[d] &&
           (seen[d] = true);
  });
}

/// `shape` permuted: its dimensions in the order `perm` lists them.
SmallVector<int64_t> permuted(ArrayRef<int64_t> shape,
                              ArrayRef<int64_t> perm) {
  SmallVector<int64_t> result;
  for (int64_t d : perm)
    result.push_back(shape[d]);
  return result;
}

/// The window over the input in [batch, spatial..., feature] order.
std::optional<Window> windowOf(shlo::ConvolutionOp op, ArrayRef<int64_t> kernel,
                               int64_t spatial) {
  Window w;
  auto full = [&](SmallVector<int64_t> inner, int64_t edge) {
    inner.insert(inner.begin(), edge);
    inner.push_back(edge);
    return inner;
  };
  w.sizes = full(SmallVector<int64_t>(kernel.take_front(spatial)), 1);
  w.strides = full(orFill(op.getWindowStrides(), spatial, 1), 1);
  w.dilations = full(orFill(op.getRhsDilation(), spatial, 1), 1);
  w.interior = full(orFill(op.getLhsDilation(), spatial, 1), 1);
  for (int64_t &dilation : w.interior)
    dilation -= 1;
  Window spatialPadding;
  if (!readPadding(op.getPadding(), spatial, spatialPadding))
    return std::nullopt;
  w.low = full(spatialPadding.low, 0);
  w.high = full(spatialPadding.high, 0);
  if (checkWindow(w, spatial + 2) ||
      (op.getWindowReversal() &&
       int64_t(op.getWindowReversal()->size()) != spatial))
    return std::nullopt;
  return w;
}

/// Why a convolution cannot be imported, if it cannot.
std::optional<std::string> checkConvolution(shlo::ConvolutionOp op) {
  auto input = dyn_cast<RankedTensorType>(op.getLhs().getType());
  auto kernel = dyn_cast<RankedTensorType>(op.getRhs().getType());
  auto output = dyn_cast<RankedTensorType>(op.getType());
  ConvLayouts l = layoutsOf(op.getDimensionNumbers());
  int64_t spatial = int64_t(l.input.size()) - 2;
  if (!input || !kernel || !output ||
      input.getElementType() != kernel.getElementType() ||
      input.getElementType() != output.getElementType())
    return std::string("Kiln imports convolutions of ranked tensors of one "
                       "element type");
  if (input.getRank() != spatial + 2 || kernel.getRank() != spatial + 2 ||
      output.getRank() != spatial + 2 || !isPermutation(l.input) ||
      !isPermutation(l.kernel) || !isPermutation(l.output))
    return std::string("layouts that are not one dimension each of the "
                       "operands' and result's");
  SmallVector<int64_t> x = permuted(input.getShape(), l.input);
  SmallVector<int64_t> k = permuted(kernel.getShape(), l.kernel);
  int64_t groups = op.getFeatureGroupCount();
  int64_t batchGroups = op.getBatchGroupCount();
  int64_t features = x.back(), outputs = k.back();
  if (groups < 1 || features % groups || outputs % groups ||
      features / groups != k[spatial])
    return std::string("feature groups that do not divide the features");
  if (batchGroups < 1 || (batchGroups > 1 && groups > 1) ||
      x.front() % batchGroups || outputs % batchGroups)
    return std::string("batch groups that do not divide the batch and the "
                       "outputs, or with feature groups");
  std::optional<Window> w = windowOf(op, k, spatial);
  if (!w)
    return std::string("window attributes not one per spatial dimension");
  FailureOr<SmallVector<int64_t>> counts = windowCounts(*w, x);
  if (failed(counts))
    return std::string("a window larger than the padded input");
  (*counts).back() = outputs;
  (*counts).front() /= batchGroups;
  if (permuted(output.getShape(), l.output) != *counts)
    return std::string("a window that does not give the result's shape");
  return std::nullopt;
}

Value transpose(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(x.getType());
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return x;
  return kiln::TransposeOp::create(
      b, loc, type.clone(permuted(type.getShape(), perm)), x,
      b.getDenseI64ArrayAttr(perm));
}

Value reshape(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(x.getType());
  return kiln::ReshapeOp::create(b, loc, type.clone(shape), x);
}

/// A result in [batch, output spatial..., feature] order, in the
/// convolution's output layout.
Value toResultLayout(OpBuilder &b, Location loc, Value result,
                     const ConvLayouts &l) {
  SmallVector<int64_t> toResult(l.output.size());
  for (auto [from, to] : llvm::enumerate(l.output))
    toResult[to] = from;
  return transpose(b, loc, result, toResult);
}

/// A depthwise convolution (one input feature per group, `multiplier`
/// outputs each): the sum over the window of each tap times its kernel
/// row, elementwise (a contraction of 1 feature per group would be a
/// product of tiny matrices), in [batch, output spatial..., outputs]
/// order. The features stay
/// the innermost dimension, which the loops vectorize along: the sum is
/// [batch, output spatial..., features] for one output per feature (the
/// common case), else [batch, output spatial..., multiplier, features],
/// transposed to put each feature's outputs together at the end.
Value depthwise(OpBuilder &b, Location loc, ArrayRef<Value> taps,
                Value kernel) {
  auto tapType = cast<RankedTensorType>(taps.front().getType());
  int64_t rank = tapType.getRank();
  int64_t features = tapType.getShape().back();
  auto kernelType = cast<RankedTensorType>(kernel.getType());
  int64_t multiplier = kernelType.getShape().back() / features;
  int64_t window = int64_t(taps.size());
  // Kernel rows: [window, multiplier, features].
  Value rows =
      multiplier == 1
          ? reshape(b, loc, kernel, {window, 1, features})
          : transpose(b, loc,
                      reshape(b, loc, kernel, {window, features, multiplier}),
                      {0, 2, 1});
  SmallVector<int64_t> shape(tapType.getShape());
  SmallVector<int64_t> tapDims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<int64_t> rowShape = {features}, rowDims = {rank - 1};
  if (multiplier > 1) {
    shape.insert(shape.end() - 1, multiplier);
    tapDims.back() = rank;
    rowShape = {multiplier, features};
    rowDims = {rank - 1, rank};
  }
  auto type = tapType.clone(shape);
  Value sum;
  for (int64_t t = 0; t < window; ++t) {
    Value tap = taps[t];
    Value row = reshape(
        b, loc,
        kiln::SliceOp::create(b, loc, rows,
                              b.getDenseI64ArrayAttr({t, 0, 0}),
                              b.getDenseI64ArrayAttr({t + 1, multiplier,
                                                      features}),
                              b.getDenseI64ArrayAttr({1, 1, 1})),
        rowShape);
    if (multiplier > 1)
      tap = kiln::BroadcastInDimOp::create(b, loc, type, tap,
                                           b.getDenseI64ArrayAttr(tapDims),
                                           Value());
    Value term = kiln::MulOp::create(
        b, loc, tap,
        kiln::BroadcastInDimOp::create(b, loc, type, row,
                                       b.getDenseI64ArrayAttr(rowDims),
                                       Value()));
    sum = sum ? kiln::AddOp::create(b, loc, sum, term) : term;
  }
  if (multiplier > 1) {
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank + 1));
    std::swap(perm[rank - 1], perm[rank]);
    SmallVector<int64_t> flat(tapType.getShape());
    flat.back() = features * multiplier;
    sum = reshape(b, loc, transpose(b, loc, sum, perm), flat);
  }
  return sum;
}

/// A convolution's groups: of its features or of its batch (not both).
struct ConvGroups {
  int64_t features, batch;
};

/// The convolution of `x` [batch, spatial..., feature] with the kernel `k`
/// [spatial..., input feature, output feature] through the window `w`, in
/// [batch, output spatial..., output feature] order: the taps of [batch,
/// output spatial..., feature] are stacked into patches [batch, output
/// spatial..., window, feature], which the kernel in [window, input
/// feature, output feature] order contracts, per group (depthwise, see
/// above). However few the features, the patches stay pixel-major: on CPUs
/// the product of a window of several positions reads the padded input in
/// place (kiln::isWindowProduct), and that of one position is the input's
/// (strided) rows. Until 2026-11-29, fewer than 4 features, or fewer than 8
/// into fewer than 32 outputs, took their taps feature-major ([feature,
/// batch, spatial...], the product's columns the pixels, its result
/// transposed back): through 1 x 1 windows, 1.1-20x slower (16 x 28 x 28
/// x 1 -> 64: 0.22-0.25 ms, 0.56 on two threads; pixel-major 0.037; 3 -> 3
/// features on 8 x 64 x 64 1.15x faster feature-major).
Value convolve(OpBuilder &b, Location loc, Value x, Value k, const Window &w,
               ConvGroups groups, kiln::PrecisionAttr precision) {
  auto inputType = cast<RankedTensorType>(x.getType());
  auto kernelType = cast<RankedTensorType>(k.getType());
  int64_t spatial = inputType.getRank() - 2;
  SmallVector<int64_t> counts = *windowCounts(w, inputType.getShape());
  Value zero = splat(b, loc, inputType.clone(ArrayRef<int64_t>{}),
                     b.getZeroAttr(inputType.getElementType()));
  ArrayRef<int64_t> kernelShape = kernelType.getShape();
  int64_t perGroupIn = kernelShape[spatial];
  int64_t outputs = kernelShape[spatial + 1];
  if (groups.features > 1 && perGroupIn == 1)
    return depthwise(b, loc, windowTaps(b, loc, x, zero, w, counts), k);
  // Patches [batch, output spatial..., window, feature].
  SmallVector<int64_t> tapShape(counts);
  tapShape.insert(tapShape.end() - 1, 1);
  SmallVector<Value> taps;
  for (Value tap : windowTaps(b, loc, x, zero, w, counts))
    taps.push_back(reshape(b, loc, tap, tapShape));
  int64_t window = int64_t(taps.size());
  SmallVector<int64_t> patchShape(tapShape);
  patchShape[spatial + 1] = window;
  Value patches = taps.size() == 1
                      ? taps.front()
                      : Value(kiln::ConcatenateOp::create(
                            b, loc, inputType.clone(patchShape), taps,
                            b.getI64IntegerAttr(spatial + 1)));
  bool byBatch = groups.batch > 1;
  int64_t count = byBatch ? groups.batch : groups.features;
  SmallVector<int64_t> resultShape(counts);
  resultShape.back() = outputs;
  if (byBatch)
    resultShape.front() /= count;
  auto contract = [&](Value lhs, Value rhs, ArrayRef<int64_t> lhsBatch,
                      ArrayRef<int64_t> rhsBatch, ArrayRef<int64_t> lhsContract,
                      ArrayRef<int64_t> rhsContract,
                      ArrayRef<int64_t> shape) -> Value {
    return kiln::DotGeneralOp::create(b, loc, inputType.clone(shape), lhs, rhs,
                                      lhsBatch, rhsBatch, lhsContract,
                                      rhsContract, precision);
  };
  if (count == 1)
    return contract(patches, reshape(b, loc, k, {window, perGroupIn, outputs}),
                    {}, {}, {spatial + 1, spatial + 2}, {0, 1}, resultShape);
  // Feature groups split the features into [groups, per group], batch
  // groups the batch (the kernel gradient of a grouped convolution); the
  // kernel's outputs split the same way, and the groups are a batch
  // dimension of the product, [groups, batch, output spatial..., per
  // group], moved next to the per group outputs.
  SmallVector<int64_t> groupedPatches(patchShape);
  int64_t groupDim;
  SmallVector<int64_t> contracted;
  if (byBatch) {
    groupedPatches.front() /= count;
    groupedPatches.insert(groupedPatches.begin(), count);
    groupDim = 0;
    contracted = {spatial + 2, spatial + 3};
  } else {
    groupedPatches.back() = perGroupIn;
    groupedPatches.insert(groupedPatches.end() - 1, count);
    groupDim = spatial + 2;
    contracted = {spatial + 1, spatial + 3};
  }
  patches = reshape(b, loc, patches, groupedPatches);
  k = reshape(b, loc, k, {window, perGroupIn, count, outputs / count});
  SmallVector<int64_t> productShape = {count};
  productShape.append(resultShape.begin(), resultShape.end() - 1);
  productShape.push_back(outputs / count);
  Value product =
      contract(patches, k, {groupDim}, {2}, contracted, {0, 1}, productShape);
  SmallVector<int64_t> groupsLast;
  for (int64_t d = 1; d <= spatial + 1; ++d)
    groupsLast.push_back(d);
  groupsLast.push_back(0);
  groupsLast.push_back(spatial + 2);
  return reshape(b, loc, transpose(b, loc, product, groupsLast), resultShape);
}

/// Whether a convolution with no groups (`groups`) takes its window `w`
/// over its input `input` ([batch, spatial..., feature]), not padded
/// (cropped at the end, as JAX's gradient of a strided convolution may),
/// at one position, unreversed (`reversed`): JAX's kernel gradient of a 1x1
/// convolution, whose input is the images and whose window the output
/// gradient's pixels (dilated by the stride of a strided one).
bool atOnePosition(const Window &w, ArrayRef<int64_t> input, ConvGroups groups,
                   bool reversed) {
  FailureOr<SmallVector<int64_t>> counts = windowCounts(w, input);
  if (failed(counts) || groups.features != 1 || groups.batch != 1 || reversed)
    return false;
  for (size_t d = 1; d + 1 < input.size(); ++d)
    if ((*counts)[d] != 1 || w.low[d] != 0 || w.high[d] > 0 ||
        w.interior[d] != 0)
      return false;
  return true;
}

/// A convolution that takes its window at one position (atOnePosition)
/// into `type`, in its output layout (`l`), as the product it is of the
/// input `lhs` (its strided slice under the window where the window is
/// dilated, as a strided 1x1 convolution's kernel gradient's, or shorter)
/// and the kernel `rhs`, both in their own layouts, contracting their
/// spatial dimensions and features: [batch, output feature], reshaped
/// (transposed first where the output has its features before its batch;
/// its spatial dimensions are 1). The patches would be the input in
/// [batch, pixels x features] order, a transpose of it (8 x 28 x 28 x 256
/// for a 1x1 layer's kernel gradient), where the product transposes the
/// smaller of its operands (the output gradient) and its result.
Value onePositionProduct(OpBuilder &b, Location loc, Value lhs, Value rhs,
                         const Window &w, RankedTensorType type,
                         const ConvLayouts &l, kiln::PrecisionAttr precision) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t spatial = lhsType.getRank() - 2;
  SmallVector<int64_t> start(lhsType.getRank(), 0), limit(lhsType.getShape()),
      steps(lhsType.getRank(), 1), shape(lhsType.getShape());
  for (int64_t d = 1; d <= spatial; ++d) {
    limit[l.input[d]] = (w.sizes[d] - 1) * w.dilations[d] + 1;
    steps[l.input[d]] = w.dilations[d];
    shape[l.input[d]] = w.sizes[d];
  }
  if (limit != lhsType.getShape() ||
      llvm::any_of(steps, [](int64_t step) { return step != 1; })) {
    lhsType = lhsType.clone(shape);
    lhs = kiln::SliceOp::create(
        b, loc, lhsType, lhs, b.getDenseI64ArrayAttr(start),
        b.getDenseI64ArrayAttr(limit), b.getDenseI64ArrayAttr(steps));
  }
  // Spatial dimension d and the features of the input pair with those of
  // the kernel, in the input's order (contiguous, in the common layouts).
  SmallVector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t d = 0; d <= spatial; ++d)
    pairs.push_back({l.input[d + 1], l.kernel[d]});
  llvm::sort(pairs);
  SmallVector<int64_t> lhsContract, rhsContract;
  for (auto [lhsDim, rhsDim] : pairs) {
    lhsContract.push_back(lhsDim);
    rhsContract.push_back(rhsDim);
  }
  int64_t batch = lhsType.getDimSize(l.input.front());
  int64_t outputs = rhsType.getDimSize(l.kernel.back());
  Value product = kiln::DotGeneralOp::create(
      b, loc, lhsType.clone({batch, outputs}), lhs, rhs, {}, {}, lhsContract,
      rhsContract, precision);
  if (l.output.back() < l.output.front())
    product = transpose(b, loc, product, {1, 0});
  return reshape(b, loc, product, type.getShape());
}

/// Whether `w` dilates its input (a transposed convolution; JAX's input
/// gradient of a strided one) at unit strides and window dilations, which
/// byPhases decomposes.
bool dilatesInputOnly(const Window &w) {
  return llvm::any_of(w.interior, [](int64_t i) { return i > 0; }) &&
         llvm::all_of(w.strides, [](int64_t s) { return s == 1; }) &&
         llvm::all_of(w.dilations, [](int64_t d) { return d == 1; });
}

/// A convolution (as convolve) whose input `w` dilates by s (dilatesInputOnly)
/// as the convolutions of the undilated input that its output's phases
/// are: along each spatial dimension, the outputs y = s q + r of one phase
/// r read only the window positions j = (low - r) mod s, that + s, ...,
/// which meet consecutive input elements, so each phase is an ordinary
/// convolution with those positions of the kernel (a strided slice), and
/// the phases are interleaved. The dilated input's zeros, all but one in
/// s^n of its elements, are never multiplied (a 3 x 3 stride 2 layer's
/// input gradient computed 4 times its products).
Value byPhases(OpBuilder &b, Location loc, Value x, Value k, const Window &w,
               ConvGroups groups, kiln::PrecisionAttr precision) {
  auto inputType = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> input = inputType.getShape();
  int64_t rank = inputType.getRank(), spatial = rank - 2;
  ArrayRef<int64_t> kernelShape =
      cast<RankedTensorType>(k.getType()).getShape();
  int64_t outputs = kernelShape.back();
  SmallVector<int64_t> counts = *windowCounts(w, input);
  counts.front() /= groups.batch;
  // Each phase's outputs, padded to as many as the first phase's
  // (ceil(count / s)), in [batch, q1, 1, q2, 1, ..., output] order.
  SmallVector<int64_t> most = {counts.front()}, interleaved = most;
  for (int64_t d = 1; d <= spatial; ++d) {
    int64_t s = w.interior[d] + 1;
    most.push_back((counts[d] + s - 1) / s);
    interleaved.append({most.back(), 1});
  }
  most.push_back(outputs);
  interleaved.push_back(outputs);
  SmallVector<Value> phases;
  SmallVector<int64_t> phase(rank, 0);
  do {
    Window sub{SmallVector<int64_t>(rank, 1), SmallVector<int64_t>(rank, 1),
               SmallVector<int64_t>(rank, 1), SmallVector<int64_t>(rank, 0),
               SmallVector<int64_t>(rank, 0), SmallVector<int64_t>(rank, 0)};
    SmallVector<int64_t> start(kernelShape.size(), 0), limit(kernelShape),
        steps(kernelShape.size(), 1), shape = most;
    bool empty = false;
    for (int64_t d = 1; d <= spatial; ++d) {
      int64_t s = w.interior[d] + 1, r = phase[d];
      int64_t first = ((w.low[d] - r) % s + s) % s;
      int64_t taps = first < w.sizes[d] ? (w.sizes[d] - first + s - 1) / s : 0;
      int64_t outs = r < counts[d] ? (counts[d] - r + s - 1) / s : 0;
      // The first position meets input element offset + q.
      int64_t offset = (r + first - w.low[d]) / s;
      empty |= taps == 0 || outs == 0;
      sub.sizes[d] = taps;
      sub.low[d] = -offset;
      sub.high[d] = outs + offset + taps - 1 - input[d];
      start[d - 1] = first;
      limit[d - 1] = first + (taps - 1) * s + 1;
      steps[d - 1] = s;
      shape[d] = outs;
    }
    Value result;
    if (empty) {
      result = splat(b, loc, inputType.clone(most),
                     b.getZeroAttr(inputType.getElementType()));
    } else {
      Value taps = kiln::SliceOp::create(
          b, loc, k, b.getDenseI64ArrayAttr(start),
          b.getDenseI64ArrayAttr(limit), b.getDenseI64ArrayAttr(steps));
      result = convolve(b, loc, x, taps, sub, groups, precision);
      SmallVector<int64_t> zeros(rank, 0), high(rank, 0);
      for (int64_t d = 1; d <= spatial; ++d)
        high[d] = most[d] - shape[d];
      if (high != zeros)
        result = kiln::PadOp::create(
            b, loc, result,
            splat(b, loc, inputType.clone(ArrayRef<int64_t>{}),
                  b.getZeroAttr(inputType.getElementType())),
            b.getDenseI64ArrayAttr(zeros), b.getDenseI64ArrayAttr(high),
            b.getDenseI64ArrayAttr(zeros));
    }
    phases.push_back(reshape(b, loc, result, interleaved));
    // The next phase, the last dimension's fastest.
    int64_t d = spatial;
    while (d >= 1 && ++phase[d] == w.interior[d] + 1)
      phase[d--] = 0;
    if (d < 1)
      break;
  } while (true);
  // Interleave: the phases of the last dimension side by side, then those
  // of the one before, ...
  for (int64_t d = spatial; d >= 1; --d) {
    int64_t s = w.interior[d] + 1;
    interleaved[2 * d] = s;
    SmallVector<Value> joined;
    for (size_t i = 0; i < phases.size(); i += s)
      joined.push_back(kiln::ConcatenateOp::create(
          b, loc, inputType.clone(interleaved),
          ArrayRef<Value>(phases).slice(i, s), b.getI64IntegerAttr(2 * d)));
    phases = joined;
  }
  SmallVector<int64_t> whole = {counts.front()};
  for (int64_t d = 1; d <= spatial; ++d)
    whole.push_back(most[d] * (w.interior[d] + 1));
  whole.push_back(outputs);
  Value result = reshape(b, loc, phases.front(), whole);
  SmallVector<int64_t> limit(counts);
  limit.back() = outputs;
  if (limit == whole)
    return result;
  return kiln::SliceOp::create(
      b, loc, result, b.getDenseI64ArrayAttr(SmallVector<int64_t>(rank, 0)),
      b.getDenseI64ArrayAttr(limit),
      b.getDenseI64ArrayAttr(SmallVector<int64_t>(rank, 1)));
}

/// A convolution in kiln's ops: its operands in [batch, spatial...,
/// feature] and [spatial..., input feature, output feature] order
/// (transposes), the kernel reversed where the window is, then convolve
/// (byPhases where the input is dilated), and the result's layout.
struct Convolution : OpConversionPattern<shlo::ConvolutionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(shlo::ConvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (checkConvolution(op))
      return rewriter.notifyMatchFailure(op, "unsupported convolution");
    Location loc = op.getLoc();
    ConvLayouts l = layoutsOf(op.getDimensionNumbers());
    int64_t spatial = int64_t(l.input.size()) - 2;
    ConvGroups groups{int64_t(op.getFeatureGroupCount()),
                      int64_t(op.getBatchGroupCount())};
    kiln::PrecisionAttr precision =
        precisionOf(getContext(), op.getPrecisionConfig(), 0);
    Window w = *windowOf(
        op, permuted(op.getRhs().getType().getShape(), l.kernel), spatial);
    std::optional<ArrayRef<bool>> reversal = op.getWindowReversal();
    if (atOnePosition(w, permuted(op.getLhs().getType().getShape(), l.input),
                      groups,
                      reversal && llvm::is_contained(*reversal, true))) {
      rewriter.replaceOp(
          op, onePositionProduct(
                  rewriter, loc, adaptor.getLhs(), adaptor.getRhs(), w,
                  cast<RankedTensorType>(op.getType()), l, precision));
      return success();
    }
    Value x = transpose(rewriter, loc, adaptor.getLhs(), l.input);
    Value k = transpose(rewriter, loc, adaptor.getRhs(), l.kernel);
    if (reversal) {
      SmallVector<int64_t> reversed;
      for (auto [d, flag] : llvm::enumerate(*reversal))
        if (flag)
          reversed.push_back(d);
      if (!reversed.empty())
        k = kiln::ReverseOp::create(rewriter, loc, k,
                                    rewriter.getDenseI64ArrayAttr(reversed));
    }
    Value result = dilatesInputOnly(w)
                       ? byPhases(rewriter, loc, x, k, w, groups, precision)
                       : convolve(rewriter, loc, x, k, w, groups, precision);
    rewriter.replaceOp(op, toResultLayout(rewriter, loc, result, l));
    return success();
  }
};

} // namespace

namespace kiln::stablehlo_import {

void populateWindowPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceWindow, SelectAndScatter, Convolution>(
      patterns.getContext());
}

std::optional<std::string> unsupportedWindows(Operation *op) {
  std::optional<std::string> why;
  if (auto reduce = dyn_cast<shlo::ReduceWindowOp>(op))
    why = checkReduceWindow(reduce);
  else if (auto select = dyn_cast<shlo::SelectAndScatterOp>(op))
    why = checkSelectAndScatter(select);
  else if (auto conv = dyn_cast<shlo::ConvolutionOp>(op))
    why = checkConvolution(conv);
  if (!why)
    return std::nullopt;
  return op->getName().getStringRef().str() + ": " + *why;
}

} // namespace kiln::stablehlo_import
