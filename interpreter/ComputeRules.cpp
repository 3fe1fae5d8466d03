//===- ComputeRules.cpp - evaluating contractions, reductions, lookups ----===//
//
// Float sums and products accumulate in double and round once to the
// result type (the exact result, rounded, up to double's error), integer
// ones wrap; both visit elements in row-major order.
//
//===----------------------------------------------------------------------===//
#include "interpreter/Rules.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace kiln {
namespace {

/// The dimensions of a rank-`rank` operand in none of `lists`, in order.
SmallVector<int64_t> otherDims(int64_t rank,
                               std::initializer_list<ArrayRef<int64_t>> lists) {
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (llvm::none_of(lists, [&](ArrayRef<int64_t> list) {
          return llvm::is_contained(list, d);
        }))
      dims.push_back(d);
  return dims;
}

/// Calls `body` with each index of `operand` (and its flat position) and
/// the flat position in `result` it reduces into, `dims` removed.
void forEachReduced(
    const HostTensor &operand, const HostTensor &result, ArrayRef<int64_t> dims,
    llvm::function_ref<void(ArrayRef<int64_t> index, int64_t flat, int64_t into)>
        body) {
  SmallVector<int64_t> kept = otherDims(operand.shape().size(), {dims});
  SmallVector<int64_t> strides = result.strides(), to(kept.size());
  forEachIndex(operand.shape(), [&](ArrayRef<int64_t> index, int64_t flat) {
    for (auto [k, d] : llvm::enumerate(kept))
      to[k] = index[d];
    body(index, flat, flatIndex(to, strides));
  });
}

/// Sets every element of `result` from the accumulators of its kind.
void setAll(HostTensor &result, ArrayRef<double> floats,
            ArrayRef<int64_t> ints) {
  for (int64_t i = 0; i < result.size(); ++i) {
    if (result.isFloat())
      result.setFloat(i, floats[i]);
    else
      result.setInt(i, ints[i]);
  }
}

LogicalResult dotGeneral(Evaluation &evaluation) {
  auto op = cast<DotGeneralOp>(evaluation.getOp());
  ArrayRef<int64_t> lhsBatch = op.getLhsBatchingDimensions(),
                    rhsBatch = op.getRhsBatchingDimensions(),
                    lhsContract = op.getLhsContractingDimensions(),
                    rhsContract = op.getRhsContractingDimensions();
  const HostTensor &lhs = evaluation.operand(0), &rhs = evaluation.operand(1);
  HostTensor &result = evaluation.result(0);
  SmallVector<int64_t> lhsFree = otherDims(lhs.shape().size(),
                                           {lhsBatch, lhsContract}),
                       rhsFree = otherDims(rhs.shape().size(),
                                           {rhsBatch, rhsContract});
  SmallVector<int64_t> contractShape;
  for (int64_t d : lhsContract)
    contractShape.push_back(lhs.shape()[d]);
  SmallVector<int64_t> lhsStrides = lhs.strides(), rhsStrides = rhs.strides();
  SmallVector<int64_t> lhsIndex(lhs.shape().size()),
      rhsIndex(rhs.shape().size());
  size_t numBatch = lhsBatch.size(), numLhsFree = lhsFree.size();
  forEachIndex(result.shape(), [&](ArrayRef<int64_t> index, int64_t flat) {
    for (size_t k = 0; k < numBatch; ++k)
      lhsIndex[lhsBatch[k]] = rhsIndex[rhsBatch[k]] = index[k];
    for (auto [k, d] : llvm::enumerate(lhsFree))
      lhsIndex[d] = index[numBatch + k];
    for (auto [k, d] : llvm::enumerate(rhsFree))
      rhsIndex[d] = index[numBatch + numLhsFree + k];
    double floatSum = 0;
    uint64_t intSum = 0;
    auto accumulate = [&](ArrayRef<int64_t> contracted, int64_t) {
      for (auto [k, i] : llvm::enumerate(contracted))
        lhsIndex[lhsContract[k]] = rhsIndex[rhsContract[k]] = i;
      int64_t l = flatIndex(lhsIndex, lhsStrides),
              r = flatIndex(rhsIndex, rhsStrides);
      if (lhs.isFloat())
        floatSum += lhs.getFloat(l) * rhs.getFloat(r);
      else
        intSum += uint64_t(lhs.getInt(l)) * uint64_t(rhs.getInt(r));
    };
    forEachIndex(contractShape, accumulate);
    if (result.isFloat())
      result.setFloat(flat, floatSum);
    else
      result.setInt(flat, int64_t(intSum));
  });
  return success();
}

/// How a reduction combines elements (as doubles for floats, as wrapping
/// integers otherwise) and what it starts from.
struct Reduction {
  double floatInit;
  double (*combineFloats)(double, double);
  int64_t (*intInit)(Type);
  int64_t (*combineInts)(int64_t, int64_t);
};

int64_t zero(Type) { return 0; }
int64_t one(Type) { return 1; }
/// The smallest and largest values of the integer type.
int64_t lowest(Type type) {
  return wrapToInt(type, std::numeric_limits<int64_t>::min() >>
                             (64 - type.getIntOrFloatBitWidth()));
}
int64_t highest(Type type) { return ~lowest(type); }

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr Reduction kSum{0.0, floatAdd, zero, wrapAdd};
constexpr Reduction kProduct{1.0, floatMul, one, wrapMul};
constexpr Reduction kMax{-kInfinity, floatMax, lowest, intMax};
constexpr Reduction kMin{kInfinity, floatMin, highest, intMin};

/// The operand's elements combined over the op's `dimensions`.
template <const Reduction &how>
LogicalResult reduce(Evaluation &evaluation) {
  ArrayRef<int64_t> dims =
      cast<DenseI64ArrayAttr>(evaluation.getOp()->getAttr("dimensions"))
          .asArrayRef();
  const HostTensor &operand = evaluation.operand(0);
  HostTensor &result = evaluation.result(0);
  std::vector<double> floats(result.size(), how.floatInit);
  std::vector<int64_t> ints(result.size(), how.intInit(result.elementType()));
  forEachReduced(operand, result, dims, [&](ArrayRef<int64_t>, int64_t flat,
                                             int64_t i) {
    if (operand.isFloat())
      floats[i] = how.combineFloats(floats[i], operand.getFloat(flat));
    else
      ints[i] = how.combineInts(ints[i], operand.getInt(flat));
  });
  setAll(result, floats, ints);
  return success();
}

LogicalResult argmax(Evaluation &evaluation) {
  int64_t dim = cast<ArgmaxOp>(evaluation.getOp()).getDimension();
  const HostTensor &operand = evaluation.operand(0);
  HostTensor &result = evaluation.result(0);
  std::vector<double> best(result.size());
  forEachReduced(operand, result, {dim}, [&](ArrayRef<int64_t> index,
                                             int64_t flat, int64_t i) {
    double value = operand.asDouble(flat);
    // The first largest; a NaN is larger than anything but an earlier NaN.
    bool better = index[dim] == 0 ||
                  (!std::isnan(best[i]) &&
                   (std::isnan(value) || value > best[i]));
    if (better) {
      best[i] = value;
      result.setInt(i, index[dim]);
    }
  });
  return success();
}

/// The index of `indices` at `position`, clamped into a dimension of
/// `size`.
int64_t clampedIndex(const HostTensor &indices, ArrayRef<int64_t> position,
                     int64_t size) {
  return std::clamp<int64_t>(indices.getInt(flatIndex(position,
                                                      indices.strides())),
                             0, size - 1);
}

/// Calls `body` with each index of `sliced` (take's result, scatter_add's
/// updates) and the index of `operand` it stands for: the dimension
/// `dim` of `operand` replaced by `indices`' dimensions.
LogicalResult
forEachLookup(Evaluation &evaluation, const HostTensor &operand,
              const HostTensor &indices, const HostTensor &sliced,
              int64_t dim,
              llvm::function_ref<void(int64_t slicedFlat, int64_t operandFlat)>
                  body) {
  int64_t size = operand.shape()[dim];
  if (size == 0 && sliced.size() > 0)
    return evaluation.getOp()->emitOpError(
        "looks up elements along an empty dimension");
  size_t numIndexDims = indices.shape().size();
  SmallVector<int64_t> strides = operand.strides(), from;
  forEachIndex(sliced.shape(), [&](ArrayRef<int64_t> index, int64_t flat) {
    from.assign(index.begin(), index.begin() + dim);
    from.push_back(
        clampedIndex(indices, index.slice(dim, numIndexDims), size));
    from.append(index.begin() + dim + numIndexDims, index.end());
    body(flat, flatIndex(from, strides));
  });
  return success();
}

LogicalResult take(Evaluation &evaluation) {
  auto op = cast<TakeOp>(evaluation.getOp());
  const HostTensor &operand = evaluation.operand(0);
  HostTensor &result = evaluation.result(0);
  return forEachLookup(evaluation, operand, evaluation.operand(1), result,
                       op.getDimension(), [&](int64_t to, int64_t from) {
                         result.copyElement(to, operand, from);
                       });
}

LogicalResult scatterAdd(Evaluation &evaluation) {
  auto op = cast<ScatterAddOp>(evaluation.getOp());
  const HostTensor &operand = evaluation.operand(0),
                   &updates = evaluation.operand(2);
  HostTensor &result = evaluation.result(0);
  std::vector<double> floats(result.size());
  std::vector<int64_t> ints(result.size());
  for (int64_t i = 0; i < operand.size(); ++i) {
    if (operand.isFloat())
      floats[i] = operand.getFloat(i);
    else
      ints[i] = operand.getInt(i);
  }
  if (failed(forEachLookup(evaluation, operand, evaluation.operand(1), updates,
                           op.getDimension(), [&](int64_t from, int64_t to) {
                             if (operand.isFloat())
                               floats[to] += updates.getFloat(from);
                             else
                               ints[to] = wrapAdd(ints[to],
                                                  updates.getInt(from));
                           })))
    return failure();
  setAll(result, floats, ints);
  return success();
}

} // namespace

void attachComputeRules(MLIRContext *context) {
  attachRule<dotGeneral, DotGeneralOp>(context);
  attachRule<reduce<kSum>, ReduceSumOp>(context);
  attachRule<reduce<kProduct>, ReduceProdOp>(context);
  attachRule<reduce<kMax>, ReduceMaxOp>(context);
  attachRule<reduce<kMin>, ReduceMinOp>(context);
  attachRule<argmax, ArgmaxOp>(context);
  attachRule<take, TakeOp>(context);
  attachRule<scatterAdd, ScatterAddOp>(context);
}

} // namespace kiln
