//===- LoweringUtils.cpp - helpers shared by the kiln lowerings -----------===//
#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

SmallVector<ReassociationIndices> allInOne(int64_t rank) {
  if (rank == 0)
    return {};
  return {llvm::to_vector(llvm::seq<int64_t>(rank))};
}

Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType type) {
  auto from = cast<RankedTensorType>(value.getType());
  if (from.getShape() == type.getShape())
    return value;
  auto flat = RankedTensorType::get({from.getNumElements()},
                                    from.getElementType());
  if (from.getRank() == 0)
    value = tensor::ExpandShapeOp::create(b, loc, flat, value, allInOne(0));
  else if (from.getRank() != 1)
    value = tensor::CollapseShapeOp::create(b, loc, flat, value,
                                            allInOne(from.getRank()));
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, value, allInOne(0));
  if (type.getRank() != 1)
    return tensor::ExpandShapeOp::create(b, loc, type, value,
                                         allInOne(type.getRank()));
  return value;
}

Value widen(OpBuilder &b, Location loc, Value x, Type type) {
  if (x.getType() == type)
    return x;
  if (isFloat(type))
    return arith::ExtFOp::create(b, loc, type, x);
  return arith::ExtSIOp::create(b, loc, type, x);
}

void yieldAccumulatedProduct(OpBuilder &b, Location loc, ValueRange args) {
  Value sum = args[2];
  Value lhs = widen(b, loc, args[0], sum.getType()),
        rhs = widen(b, loc, args[1], sum.getType());
  Value total = isFloat(sum.getType())
                    ? arith::AddFOp::create(
                          b, loc, sum, arith::MulFOp::create(b, loc, lhs, rhs))
                          .getResult()
                    : arith::AddIOp::create(
                          b, loc, sum, arith::MulIOp::create(b, loc, lhs, rhs))
                          .getResult();
  linalg::YieldOp::create(b, loc, ValueRange{total});
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   Value value) {
  return linalg::FillOp::create(b, loc, value, emptyTensor(b, loc, type))
      .getResult(0);
}

Value buildParallelGeneric(OpBuilder &b, Location loc,
                           RankedTensorType resultType, ValueRange inputs,
                           ArrayRef<AffineMap> inputMaps, ScalarBody body) {
  unsigned rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, emptyTensor(b, loc, resultType), maps,
      iterators, [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

AffineMap scalarMap(MLIRContext *context, unsigned rank) {
  return AffineMap::get(rank, 0, {}, context);
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value extractScalar(OpBuilder &b, Location loc, Value scalarTensor) {
  return tensor::ExtractOp::create(b, loc, scalarTensor, ValueRange{});
}

Value clampedIndex(OpBuilder &b, Location loc, Value index, int64_t upper) {
  Value asIndex = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value top = arith::ConstantIndexOp::create(b, loc, upper);
  Value low = arith::MaxSIOp::create(b, loc, asIndex, zero);
  return arith::MinSIOp::create(b, loc, low, top);
}

Value splitDim(OpBuilder &b, Location loc, Value value, unsigned dim,
               int64_t inner) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  for (auto [d, extent] : llvm::enumerate(type.getShape())) {
    ReassociationIndices group{int64_t(shape.size())};
    if (d == dim) {
      shape.append({extent / inner, inner});
      group.push_back(shape.size() - 1);
    } else {
      shape.push_back(extent);
    }
    groups.push_back(group);
  }
  return tensor::ExpandShapeOp::create(b, loc, type.clone(shape), value,
                                       groups);
}

Value sliceAlong(OpBuilder &b, Location loc, Value value, unsigned dim,
                 int64_t offset, int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)), sizes,
      strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t extent : type.getShape())
    sizes.push_back(b.getIndexAttr(extent));
  offsets[dim] = b.getIndexAttr(offset);
  sizes[dim] = b.getIndexAttr(size);
  return tensor::ExtractSliceOp::create(b, loc, value, offsets, sizes, strides);
}

Value zeroPadded(OpBuilder &b, Location loc, Value value, unsigned dim,
                 int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  Value zeros = filledTensor(b, loc, type.clone(shape),
                             scalarConstant(b, loc, type.getElementType(), 0));
  MLIRContext *context = b.getContext();
  SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
  return tensor::InsertSliceOp::create(
      b, loc, value, zeros, getAsIndexOpFoldResult(context, offsets),
      getAsIndexOpFoldResult(context, type.getShape()),
      getAsIndexOpFoldResult(context, strides));
}

SmallVector<AffineExpr> loopDims(MLIRContext *context, unsigned count) {
  return llvm::map_to_vector(llvm::seq<unsigned>(count), [&](unsigned d) {
    return getAffineDimExpr(d, context);
  });
}

SmallVector<int64_t> lastTwoSwapped(int64_t rank) {
  SmallVector<int64_t> permutation =
      llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(permutation[rank - 2], permutation[rank - 1]);
  return permutation;
}

} // namespace kiln
