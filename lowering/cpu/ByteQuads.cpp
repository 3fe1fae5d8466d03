//===- ByteQuads.cpp - int8 products as unsigned x signed byte quads ------===//
//
// AVX-512 VNNI's vpdpbusd multiplies 4 consecutive k steps of unsigned
// bytes by signed bytes and adds the 4 products to a 32-bit lane: 64
// multiply-adds an instruction, twice vpdpwssd's 16-bit pairs. There is no
// signed x signed byte instruction before AVX-VNNI-INT8, so one operand is
// read biased, x + 128 = x xor 0x80 as unsigned bytes, and the product
// corrected once, outside the k loop:
//  - matmuls bias B: A (B + 128) = A B + 128 rowsum(A), so the product
//    starts from C0 - 128 rowsum(A). With enough rows of A, or B a
//    transposed weight, B + 128 is packed first as [K / 4, N, 4], so that
//    16 columns' k quad is one 64-byte load; else B's quads are
//    interleaved in registers per register tile.
//  - matrix-vector products in lanes bias A: (A + 128) x = A x + 128
//    sum(x), one correction for every row; each row's 64 bytes and x's
//    are one vpdpbusd.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "lowering/linalg/LoweringUtils.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {
/// Whether `value` is the i8 constant -128 (0x80), or a splat of it.
bool isByteBias(Value value) {
  APInt bias;
  return matchPattern(value, m_ConstantInt(&bias)) && bias.getBitWidth() == 8 &&
         bias.isMinSignedValue();
}

/// `bytes` (an i8 or a vector of them) xor 0x80: B + 128 as unsigned bytes.
Value biased(OpBuilder &b, Location loc, Value bytes) {
  Type type = bytes.getType();
  TypedAttr bias = b.getIntegerAttr(b.getI8Type(), -128);
  if (auto vector = dyn_cast<VectorType>(type))
    bias = SplatElementsAttr::get(vector, bias);
  return arith::XOrIOp::create(b, loc, bytes,
                               arith::ConstantOp::create(b, loc, type, bias));
}

/// Whether `matches` accepts what `op`'s body yields, given the body (to
/// compare with its arguments).
bool yieldsOf(linalg::GenericOp op,
              llvm::function_ref<bool(Value, Block &)> matches) {
  Block &body = op.getRegion().front();
  return matches(body.getTerminator()->getOperand(0), body);
}

/// `tile` collapsed by `groups` of its dimensions (each contiguous).
Value collapsed(OpBuilder &b, Location loc, Value tile,
                ArrayRef<ReassociationIndices> groups) {
  return tensor::CollapseShapeOp::create(b, loc, tile, groups);
}

/// Groups [[0 ... rank - count], [rank - count + 1], ..., [rank - 1]]:
/// the leading dimensions (unit ones of a tile) folded into the first of
/// the last `count`.
SmallVector<ReassociationIndices> leadingFolded(int64_t rank, int64_t count) {
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t d = 0; d <= rank - count; ++d)
    groups.front().push_back(d);
  for (int64_t d = rank - count + 1; d < rank; ++d)
    groups.push_back({d});
  return groups;
}

/// Groups that fold the leading dimensions into the second-to-last and keep
/// the last two together: [.., a, b, c] as [.. a, b c].
SmallVector<ReassociationIndices> lastTwoJoined(int64_t rank) {
  SmallVector<ReassociationIndices> groups = leadingFolded(rank, 3);
  groups.pop_back();
  groups.back().push_back(rank - 1);
  return groups;
}

/// `tile`'s result written as `vector`, through the view `groups` collapse
/// it to, then expanded back.
Value writeCollapsed(OpBuilder &b, Location loc, Value vector, Value tile,
                     ArrayRef<ReassociationIndices> groups) {
  Value written =
      kiln::writeAll(b, loc, vector, collapsed(b, loc, tile, groups));
  return tensor::ExpandShapeOp::create(b, loc, tile.getType(), written,
                                       groups);
}

/// `value`'s type (a scalar or a vector's) with elements of `element`.
Type withElement(Value value, Type element) {
  if (auto vector = dyn_cast<VectorType>(value.getType()))
    return vector.clone(element);
  return element;
}

/// sext(a) and zext(b xor 0x80), as i32: the factors of a biased product.
std::pair<Value, Value> biasedFactors(OpBuilder &b, Location loc, Value a,
                                      Value bBytes) {
  Type i32 = b.getI32Type();
  return {arith::ExtSIOp::create(b, loc, withElement(a, i32), a),
          arith::ExtUIOp::create(b, loc, withElement(bBytes, i32),
                                 biased(b, loc, bBytes))};
}

/// Whether `op` is a row-major matmul, batched or not, of i8 x i8 into i32
/// with signed casts (the form kiln's dot_general lowers to).
bool isSignedByteMatmul(linalg::LinalgOp op) {
  auto cast = [&]() -> std::optional<linalg::TypeFn> {
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation()))
      return matmul.getCast();
    if (auto batch = dyn_cast<linalg::BatchMatmulOp>(op.getOperation()))
      return batch.getCast();
    return std::nullopt;
  }();
  auto element = [&](unsigned operand) {
    return getElementTypeOrSelf(op->getOperand(operand).getType());
  };
  return cast == linalg::TypeFn::cast_signed && op.hasPureTensorSemantics() &&
         !op.hasDynamicShape() &&
         (isRowMajorMatmul(op.getIndexingMaps()) ||
          isRowMajorBatchMatmul(op.getIndexingMaps())) &&
         element(0).isInteger(8) && element(1).isInteger(8) &&
         element(2).isInteger(32);
}

/// 128 rowsum(A) for A: [B,] M x K of i8, as [B,] M of i32.
Value scaledRowSums(OpBuilder &b, Location loc, Value a) {
  auto type = cast<RankedTensorType>(a.getType());
  unsigned rank = type.getRank();
  Type i32 = b.getI32Type();
  auto rowType = RankedTensorType::get(type.getShape().drop_back(), i32);
  Value zeros = kiln::filledTensor(b, loc, rowType,
                                   kiln::scalarConstant(b, loc, i32, 0));
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<utils::IteratorType> iterators(rank - 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value sums =
      linalg::GenericOp::create(
          b, loc, rowType, a, zeros,
          ArrayRef<AffineMap>{identity, identity.dropResult(rank - 1)},
          iterators,
          [&](OpBuilder &b, Location loc, ValueRange args) {
            Value wide = arith::ExtSIOp::create(b, loc, i32, args[0]);
            linalg::YieldOp::create(
                b, loc, ValueRange{arith::AddIOp::create(b, loc, args[1], wide)});
          })
          .getResult(0);
  AffineMap rows = b.getMultiDimIdentityMap(rank - 1);
  return kiln::buildParallelGeneric(
      b, loc, rowType, sums, rows,
      [](OpBuilder &b, Location loc, ValueRange args) -> Value {
        return arith::ShLIOp::create(
            b, loc, args[0],
            kiln::scalarConstant(b, loc, args[0].getType(), 7));
      });
}

/// `init` - `corrections` broadcast along its last dimension: where `init`
/// is a fill, from the fill's value (one pass over the result, as the fill).
Value correctedStart(OpBuilder &b, Location loc, Value init,
                     Value corrections) {
  auto type = cast<RankedTensorType>(init.getType());
  unsigned rank = type.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap row = identity.dropResult(rank - 1);
  Value start = init;
  AffineMap startMap = identity;
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    start = fill.getInputs()[0];
    startMap = kiln::scalarMap(b.getContext(), rank);
  }
  return kiln::buildParallelGeneric(
      b, loc, type, ValueRange{start, corrections},
      ArrayRef<AffineMap>{startMap, row},
      [](OpBuilder &b, Location loc, ValueRange args) -> Value {
        return arith::SubIOp::create(b, loc, args[0], args[1]);
      });
}

/// Rows of A from which B is packed: the packing costs about as much as
/// interleaving B's quads in registers for 16 rows of A.
constexpr int64_t kPackedMinRows = 32;

/// `value` with dimension `dim` (a multiple of 4) split into its k quads.
Value splitQuads(OpBuilder &b, Location loc, Value value, unsigned dim) {
  return kiln::splitDim(b, loc, value, dim, 4);
}

/// B + 128 (B xor 0x80) packed for vpdpbusd as [batch..., K / 4, N, 4]:
/// column n's k steps 4q ... 4q + 3 at [q, n], so that 16 columns' quads
/// are 64 consecutive bytes. From `source` = B [batch..., K, N], or B^T
/// [batch..., N, K] when `transposed`; K a multiple of 4.
Value packQuads(OpBuilder &b, Location loc, Value source, bool transposed) {
  auto type = cast<RankedTensorType>(source.getType());
  unsigned rank = type.getRank(), batch = rank - 2;
  int64_t k = type.getDimSize(transposed ? rank - 1 : rank - 2);
  int64_t n = type.getDimSize(transposed ? rank - 2 : rank - 1);
  SmallVector<int64_t> shape(type.getShape().take_front(batch));
  shape.append({k / 4, n, 4});
  SmallVector<AffineExpr> dims = kiln::loopDims(b.getContext(), batch + 3);
  AffineExpr q = dims[batch], column = dims[batch + 1], step = dims[batch + 2];
  SmallVector<AffineExpr> read(ArrayRef(dims).take_front(batch));
  if (transposed)
    read.append({column, q, step});
  else
    read.append({q, step, column});
  return kiln::buildParallelGeneric(
      b, loc, type.clone(shape),
      splitQuads(b, loc, source, transposed ? rank - 1 : rank - 2),
      AffineMap::get(batch + 3, 0, read, b.getContext()),
      [](OpBuilder &b, Location loc, ValueRange args) {
        return biased(b, loc, args[0]);
      });
}

/// start + A B for A [batch..., M, K] and B packed by packQuads: a generic
/// over (batch..., m, n, q, j) of sext(A[m, 4q + j]) zext(packed[q, n, j]).
Value packedProduct(OpBuilder &b, Location loc, Value a, Value packed,
                    Value start) {
  auto type = cast<RankedTensorType>(a.getType());
  unsigned batch = type.getRank() - 2;
  SmallVector<AffineExpr> dims = kiln::loopDims(b.getContext(), batch + 4);
  AffineExpr m = dims[batch], n = dims[batch + 1], q = dims[batch + 2],
             j = dims[batch + 3];
  ArrayRef<AffineExpr> batchDims = ArrayRef(dims).take_front(batch);
  auto map = [&](ArrayRef<AffineExpr> inner) {
    SmallVector<AffineExpr> results(batchDims);
    results.append(inner.begin(), inner.end());
    return AffineMap::get(batch + 4, 0, results, b.getContext());
  };
  SmallVector<utils::IteratorType> iterators(batch + 2,
                                             utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  Type i32 = b.getI32Type();
  return linalg::GenericOp::create(
             b, loc, start.getType(),
             ValueRange{splitQuads(b, loc, a, batch + 1), packed}, start,
             ArrayRef<AffineMap>{map({m, q, j}), map({q, n, j}), map({m, n})},
             iterators,
             [&](OpBuilder &b, Location loc, ValueRange args) {
               Value product = arith::MulIOp::create(
                   b, loc, arith::ExtSIOp::create(b, loc, i32, args[0]),
                   arith::ExtUIOp::create(b, loc, i32, args[1]));
               linalg::YieldOp::create(
                   b, loc,
                   ValueRange{arith::AddIOp::create(b, loc, args[2], product)});
             })
      .getResult(0);
}

/// start + A B as a biased product (B's quads interleaved in registers).
Value biasedProduct(OpBuilder &b, Location loc, linalg::LinalgOp matmul,
                    Value a, Value bBytes, Value start) {
  return linalg::GenericOp::create(
             b, loc, start.getType(), ValueRange{a, bBytes}, start,
             matmul.getIndexingMapsArray(), matmul.getIteratorTypesArray(),
             [](OpBuilder &b, Location loc, ValueRange args) {
               auto [lhs, rhs] = biasedFactors(b, loc, args[0], args[1]);
               Value product = arith::MulIOp::create(b, loc, lhs, rhs);
               linalg::YieldOp::create(
                   b, loc,
                   ValueRange{arith::AddIOp::create(b, loc, args[2], product)});
             })
      .getResult(0);
}

/// Whether `transpose` swaps its input's last two dimensions only.
bool swapsLastTwo(linalg::TransposeOp transpose) {
  ArrayRef<int64_t> permutation = transpose.getPermutation();
  int64_t rank = permutation.size();
  for (int64_t d = 0; d < rank - 2; ++d)
    if (permutation[d] != d)
      return false;
  return permutation[rank - 2] == rank - 1 && permutation[rank - 1] == rank - 2;
}

/// `matmul` (isSignedByteMatmul) computed from its corrected start: with
/// enough rows of A, or where B is a transpose (a weight stored [N, K]),
/// by packedProduct (the transpose read as the packing's source: its quads
/// are 32-bit words to transpose), K padded with zeros to whole quads (a
/// zero of A adds nothing, whatever B's step holds: no second product over
/// C for K's last steps); else as a biased product.
void biasByteMatmul(RewriterBase &rewriter, linalg::LinalgOp matmul) {
  Location loc = matmul.getLoc();
  rewriter.setInsertionPoint(matmul);
  Value a = matmul->getOperand(0), b = matmul->getOperand(1);
  Value start = correctedStart(rewriter, loc, matmul->getOperand(2),
                               scaledRowSums(rewriter, loc, a));
  SmallVector<int64_t> ranges = matmul.getStaticLoopRanges();
  unsigned batch = ranges.size() - 3;
  int64_t m = ranges[batch], k = ranges.back();
  auto transpose = b.getDefiningOp<linalg::TransposeOp>();
  bool transposed = transpose && swapsLastTwo(transpose);
  if (!transposed && m < kPackedMinRows) {
    rewriter.replaceOp(matmul,
                       biasedProduct(rewriter, loc, matmul, a, b, start));
    return;
  }
  Value source = transposed ? transpose.getInput() : b;
  if (int64_t quads = llvm::alignTo(k, 4); quads != k) {
    a = kiln::zeroPadded(rewriter, loc, a, batch + 1, quads);
    source = kiln::zeroPadded(rewriter, loc, source,
                              transposed ? batch + 1 : batch, quads);
  }
  Value packed = packQuads(rewriter, loc, source, transposed);
  rewriter.replaceOp(matmul, packedProduct(rewriter, loc, a, packed, start));
}

/// Of `value` = sext(a), a of i8 (a scalar or a vector); else null.
Value signedBytes(Value value) {
  auto ext = value.getDefiningOp<arith::ExtSIOp>();
  return ext && getElementTypeOrSelf(ext.getIn().getType()).isInteger(8)
             ? ext.getIn()
             : Value();
}

/// Of `value` = zext(b xor 0x80), b of i8, the xor (b + 128 as unsigned
/// bytes); else null.
arith::XOrIOp biasedBytes(Value value) {
  auto ext = value.getDefiningOp<arith::ExtUIOp>();
  auto xorOp = ext ? ext.getIn().getDefiningOp<arith::XOrIOp>() : nullptr;
  return xorOp && getElementTypeOrSelf(xorOp.getType()).isInteger(8) &&
                 isByteBias(xorOp.getRhs())
             ? xorOp
             : nullptr;
}
/// Whether `op` is a matrix-vector product in lanes of int8 into i32, as
/// kiln's dot_general lowers y = A x: partial[m, l] = sum over g of
/// sext(A[m, g, l]) sext(x[g, l]) (each row's L lanes summed after).
bool isByteLaneProduct(linalg::GenericOp op) {
  MLIRContext *context = op.getContext();
  AffineExpr m, g, l;
  bindDims(context, m, g, l);
  SmallVector<AffineMap> expected = AffineMap::inferFromExprList(
      ArrayRef<ArrayRef<AffineExpr>>{{m, g, l}, {g, l}, {m, l}}, context);
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getIndexingMapsArray() != expected ||
      !llvm::equal(op.getIteratorTypesArray(),
                   ArrayRef<utils::IteratorType>{
                       utils::IteratorType::parallel,
                       utils::IteratorType::reduction,
                       utils::IteratorType::parallel}) ||
      op.hasDynamicShape() || op.getStaticLoopRanges().back() % 4 != 0 ||
      !getElementTypeOrSelf(op.getResultTypes()[0]).isInteger(32))
    return false;
  Block &body = op.getRegion().front();
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  Value product = add.getLhs() == body.getArgument(2) ? add.getRhs()
                                                      : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulIOp>();
  return mul &&
         (add.getLhs() == body.getArgument(2) ||
          add.getRhs() == body.getArgument(2)) &&
         signedBytes(mul.getLhs()) == body.getArgument(0) &&
         signedBytes(mul.getRhs()) == body.getArgument(1);
}

/// The sum of `lanes` (a byte lane product's result) as its only reader
/// computes it: a linalg.reduce adding along dimension 1; else null.
linalg::ReduceOp laneSum(Value lanes) {
  if (!lanes.hasOneUse())
    return {};
  auto reduce = dyn_cast<linalg::ReduceOp>(*lanes.getUsers().begin());
  if (!reduce || reduce.getDimensions() != ArrayRef<int64_t>{1} ||
      reduce.getInputs().size() != 1)
    return {};
  Block &body = reduce.getRegion().front();
  return body.getTerminator()->getOperand(0).getDefiningOp<arith::AddIOp>()
             ? reduce
             : linalg::ReduceOp();
}

/// init + A x for A as [M, G, L] and x as [G, L] (L a multiple of 4), by
/// vpdpbusd's quads: q[m, l] = sum over g, j of zext(A[m, g, 4l + j] xor
/// 0x80) sext(x[g, 4l + j]) (isByteLaneQuads), the rows of q summed, minus
/// 128 sum(x): A + 128 is the unsigned operand, so the correction is one
/// sum of x for every row.
Value laneQuadSums(OpBuilder &b, Location loc, Value a, Value x, Value init) {
  auto aType = cast<RankedTensorType>(a.getType());
  int64_t m = aType.getDimSize(0), groups = aType.getDimSize(1),
          width = aType.getDimSize(2);
  MLIRContext *context = b.getContext();
  Type i32 = b.getI32Type();
  auto qType = RankedTensorType::get({m, width / 4}, i32);
  Value zeros =
      kiln::filledTensor(b, loc, qType, kiln::scalarConstant(b, loc, i32, 0));
  AffineExpr dm, dg, dl, dj;
  bindDims(context, dm, dg, dl, dj);
  SmallVector<AffineMap> maps = AffineMap::inferFromExprList(
      ArrayRef<ArrayRef<AffineExpr>>{{dm, dg, dl, dj}, {dg, dl, dj}, {dm, dl}},
      context);
  using utils::IteratorType;
  Value quads =
      linalg::GenericOp::create(
          b, loc, qType,
          ValueRange{splitQuads(b, loc, a, 2), splitQuads(b, loc, x, 1)},
          zeros, maps,
          ArrayRef<IteratorType>{IteratorType::parallel,
                                 IteratorType::reduction,
                                 IteratorType::parallel,
                                 IteratorType::reduction},
          [&](OpBuilder &b, Location loc, ValueRange args) {
            Value lhs =
                arith::ExtUIOp::create(b, loc, i32, biased(b, loc, args[0]));
            Value rhs = arith::ExtSIOp::create(b, loc, i32, args[1]);
            Value product = arith::MulIOp::create(b, loc, lhs, rhs);
            linalg::YieldOp::create(
                b, loc,
                ValueRange{arith::AddIOp::create(b, loc, args[2], product)});
          })
          .getResult(0);
  Value rows =
      linalg::ReduceOp::create(
          b, loc, quads, init, ArrayRef<int64_t>{1},
          [](OpBuilder &b, Location loc, ValueRange args) {
            linalg::YieldOp::create(
                b, loc,
                ValueRange{arith::AddIOp::create(b, loc, args[0], args[1])});
          })
          .getResult(0);
  // 128 sum(x), as one row: [1].
  Value scaledSum = scaledRowSums(
      b, loc,
      kiln::reshapeTensor(
          b, loc, x,
          RankedTensorType::get({1, groups * width}, b.getI8Type())));
  AffineExpr row;
  bindDims(context, row);
  return kiln::buildParallelGeneric(
      b, loc, cast<RankedTensorType>(rows.getType()),
      ValueRange{rows, scaledSum},
      ArrayRef<AffineMap>{
          AffineMap::get(1, 0, {row}, context),
          AffineMap::get(1, 0, {b.getAffineConstantExpr(0)}, context)},
      [](OpBuilder &b, Location loc, ValueRange args) -> Value {
        return arith::SubIOp::create(b, loc, args[0], args[1]);
      });
}

/// Lanes of a matrix-vector product on quads: 16 32-bit lanes of 4 bytes.
constexpr int64_t kQuadLanes = 64;

/// Whether `matmul` (isSignedByteMatmul) is a matrix-vector product [M, K]
/// x [K, 1] (x W^T of one row, swapped) with at least two groups of lanes.
bool isByteMatrixVector(linalg::LinalgOp matmul) {
  SmallVector<int64_t> ranges = matmul.getStaticLoopRanges();
  return ranges.size() == 3 && ranges[1] == 1 &&
         ranges[2] >= 2 * kQuadLanes;
}

/// `matmul` (isByteMatrixVector) as laneQuadSums over the whole groups of
/// lanes of K, then the steps past them as a biased product.
void matrixVectorQuads(RewriterBase &rewriter, linalg::LinalgOp matmul) {
  Location loc = matmul.getLoc();
  rewriter.setInsertionPoint(matmul);
  Value a = matmul->getOperand(0), x = matmul->getOperand(1),
        init = matmul->getOperand(2);
  SmallVector<int64_t> ranges = matmul.getStaticLoopRanges();
  int64_t m = ranges[0], k = ranges[2], whole = k - k % kQuadLanes;
  auto tensorOf = [&](ArrayRef<int64_t> shape, Value of) {
    return RankedTensorType::get(
        shape, cast<RankedTensorType>(of.getType()).getElementType());
  };
  Value lanes = kiln::splitDim(rewriter, loc,
                               kiln::sliceAlong(rewriter, loc, a, 1, 0, whole),
                               1, kQuadLanes);
  Value vector = kiln::reshapeTensor(
      rewriter, loc, kiln::sliceAlong(rewriter, loc, x, 0, 0, whole),
      tensorOf({whole / kQuadLanes, kQuadLanes}, x));
  Value sums = laneQuadSums(rewriter, loc, lanes, vector,
                            kiln::reshapeTensor(rewriter, loc, init,
                                                tensorOf({m}, init)));
  Value result = kiln::reshapeTensor(rewriter, loc, sums,
                                     cast<RankedTensorType>(init.getType()));
  if (whole != k) {
    Value rest = kiln::sliceAlong(rewriter, loc, a, 1, whole, k - whole);
    result =
        biasedProduct(rewriter, loc, matmul, rest,
                      kiln::sliceAlong(rewriter, loc, x, 0, whole, k - whole),
                      correctedStart(rewriter, loc, result,
                                     scaledRowSums(rewriter, loc, rest)));
  }
  rewriter.replaceOp(matmul, result);
}

/// A byte lane product and the sum of its lanes (laneSum) as laneQuadSums.
void quadLanes(RewriterBase &rewriter, linalg::GenericOp lanes,
               linalg::ReduceOp sum) {
  rewriter.setInsertionPoint(sum);
  Value sums = laneQuadSums(rewriter, lanes.getLoc(), lanes.getDpsInputs()[0],
                            lanes.getDpsInputs()[1], sum.getInits()[0]);
  rewriter.replaceOp(sum, sums);
  rewriter.eraseOp(lanes);
}

} // namespace

bool kiln::isByteQuadProduct(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 ||
      !(isRowMajorMatmul(generic.getIndexingMaps()) ||
        isRowMajorBatchMatmul(generic.getIndexingMaps())) ||
      !getElementTypeOrSelf(generic.getResultTypes()[0]).isInteger(32))
    return false;
  return yieldsOf(generic, [](Value value, Block &body) {
    auto add = value.getDefiningOp<arith::AddIOp>();
    auto mul = add ? add.getRhs().getDefiningOp<arith::MulIOp>() : nullptr;
    arith::XOrIOp bias = mul ? biasedBytes(mul.getRhs()) : nullptr;
    return bias && add.getLhs() == body.getArgument(2) &&
           signedBytes(mul.getLhs()) == body.getArgument(0) &&
           bias.getLhs() == body.getArgument(1);
  });
}

void kiln::biasByteProducts(RewriterBase &rewriter, Operation *root) {
  SmallVector<linalg::LinalgOp> matmuls;
  root->walk([&](linalg::LinalgOp op) {
    // Fewer than 4 k steps fill no quad: they stay k pairs.
    if (isSignedByteMatmul(op) && op.getStaticLoopRanges().back() >= 4)
      matmuls.push_back(op);
  });
  for (linalg::LinalgOp matmul : matmuls)
    if (isByteMatrixVector(matmul))
      matrixVectorQuads(rewriter, matmul);
    else
      biasByteMatmul(rewriter, matmul);
  SmallVector<std::pair<linalg::GenericOp, linalg::ReduceOp>> products;
  root->walk([&](linalg::GenericOp op) {
    if (isByteLaneProduct(op))
      if (linalg::ReduceOp sum = laneSum(op->getResult(0)))
        products.push_back({op, sum});
  });
  for (auto [lanes, sum] : products)
    quadLanes(rewriter, lanes, sum);
}

void kiln::vectorizeByteQuads(RewriterBase &rewriter, linalg::LinalgOp tile) {
  // Tiles that do not divide the op (tile sizes the user set) are left to
  // the loop lowering.
  if (tile.hasDynamicShape())
    return;
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  // Each operand as its last two dimensions (a batch's leading 1 folded).
  Value init = tile.getDpsInitOperand(0)->get();
  SmallVector<ReassociationIndices> groups =
      leadingFolded(cast<RankedTensorType>(init.getType()).getRank(), 2);
  auto read = [&](Value tensor) {
    return kiln::readAll(rewriter, loc,
                         collapsed(rewriter, loc, tensor, groups));
  };
  auto [lhs, rhs] = biasedFactors(rewriter, loc, read(tile->getOperand(0)),
                                  read(tile->getOperand(1)));
  AffineExpr m, n, k;
  bindDims(rewriter.getContext(), m, n, k);
  Value sum = vector::ContractionOp::create(
      rewriter, loc, lhs, rhs, read(init),
      ArrayRef<ArrayRef<AffineExpr>>{{m, k}, {k, n}, {m, n}},
      ArrayRef<vector::IteratorType>{vector::IteratorType::parallel,
                                     vector::IteratorType::parallel,
                                     vector::IteratorType::reduction});
  rewriter.replaceOp(tile, writeCollapsed(rewriter, loc, sum, init, groups));
}

std::optional<std::pair<Value, Value>>
kiln::byteQuadOperands(vector::ContractionOp contract) {
  auto unsignedB = contract.getRhs().getDefiningOp<arith::ExtUIOp>();
  Value a = signedBytes(contract.getLhs());
  if (!a || !unsignedB ||
      !getElementTypeOrSelf(unsignedB.getIn().getType()).isInteger(8))
    return std::nullopt;
  return std::make_pair(a, unsignedB.getIn());
}

bool kiln::isQuadPack(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops() ||
      generic.getNumLoops() < 3 ||
      generic.getStaticLoopRanges().back() != 4 ||
      !getElementTypeOrSelf(generic.getResultTypes()[0]).isInteger(8) ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return false;
  return yieldsOf(generic, [](Value value, Block &body) {
    auto xorOp = value.getDefiningOp<arith::XOrIOp>();
    return xorOp && xorOp.getLhs() == body.getArgument(0) &&
           isByteBias(xorOp.getRhs());
  });
}

bool kiln::isTransposedQuadPack(linalg::LinalgOp op) {
  // B^T's quads: the source's innermost dimension is the quad's steps.
  AffineMap read = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  return read.getResults().back() ==
         getAffineDimExpr(op.getNumLoops() - 1, op.getContext());
}

bool kiln::isPackedQuadProduct(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() < 4 ||
      !getElementTypeOrSelf(generic.getResultTypes()[0]).isInteger(32))
    return false;
  unsigned batch = generic.getNumLoops() - 4;
  SmallVector<AffineExpr> dims = kiln::loopDims(op.getContext(), batch + 4);
  AffineExpr m = dims[batch], n = dims[batch + 1], q = dims[batch + 2],
             j = dims[batch + 3];
  auto map = [&](ArrayRef<AffineExpr> inner) {
    SmallVector<AffineExpr> results(ArrayRef(dims).take_front(batch));
    results.append(inner.begin(), inner.end());
    return AffineMap::get(batch + 4, 0, results, op.getContext());
  };
  SmallVector<AffineMap> expected = {map({m, q, j}), map({q, n, j}),
                                     map({m, n})};
  if (generic.getIndexingMapsArray() != expected ||
      generic.getStaticLoopRanges().back() != 4)
    return false;
  return yieldsOf(generic, [](Value value, Block &body) {
    auto add = value.getDefiningOp<arith::AddIOp>();
    auto mul = add ? add.getRhs().getDefiningOp<arith::MulIOp>() : nullptr;
    auto rhs = mul ? mul.getRhs().getDefiningOp<arith::ExtUIOp>() : nullptr;
    return rhs && add.getLhs() == body.getArgument(2) &&
           signedBytes(mul.getLhs()) == body.getArgument(0) &&
           rhs.getIn() == body.getArgument(1);
  });
}

void kiln::vectorizeQuadPack(RewriterBase &rewriter, linalg::LinalgOp tile) {
  // Tiles that do not divide the op (tile sizes the user set) are left to
  // the loop lowering.
  if (tile.hasDynamicShape())
    return;
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  Value source = tile->getOperand(0), init = tile->getOperand(1);
  int64_t rank = cast<RankedTensorType>(init.getType()).getRank();
  Value packed;
  if (isTransposedQuadPack(tile)) {
    // [n, q, 4] of B^T as rows of 32-bit quads, transposed to [q, n].
    SmallVector<ReassociationIndices> groups = lastTwoJoined(rank);
    Value rows =
        kiln::readAll(rewriter, loc, collapsed(rewriter, loc, source, groups));
    auto type = cast<VectorType>(rows.getType());
    int64_t n = type.getDimSize(0), q = type.getDimSize(1) / 4;
    Type i32 = rewriter.getI32Type();
    Value words = vector::BitCastOp::create(
        rewriter, loc, VectorType::get({n, q}, i32), rows);
    Value swapped = vector::TransposeOp::create(rewriter, loc, words,
                                                ArrayRef<int64_t>{1, 0});
    Value bytes = vector::BitCastOp::create(
        rewriter, loc, VectorType::get({q, 4 * n}, rewriter.getI8Type()),
        swapped);
    packed = writeCollapsed(rewriter, loc, biased(rewriter, loc, bytes), init,
                            groups);
  } else {
    // [q, 4, n] of B: the 4 rows interleaved, each column's quad in turn.
    Value rows =
        kiln::readAll(rewriter, loc,
                      collapsed(rewriter, loc, source, leadingFolded(rank, 2)));
    Value biasedRows = biased(rewriter, loc, rows);
    SmallVector<Value> steps;
    for (int64_t step = 0; step < 4; ++step)
      steps.push_back(
          vector::ExtractOp::create(rewriter, loc, biasedRows, step));
    int64_t n = cast<VectorType>(rows.getType()).getDimSize(1);
    Value quads = vector::BitCastOp::create(
        rewriter, loc, VectorType::get({4 * n}, rewriter.getI8Type()),
        kiln::interleaveRows(rewriter, loc, steps));
    packed = writeCollapsed(rewriter, loc, quads, init, kiln::allInOne(rank));
  }
  rewriter.replaceOp(tile, packed);
}

void kiln::vectorizePackedQuads(RewriterBase &rewriter,
                                linalg::LinalgOp tile) {
  // Tiles that do not divide the op (tile sizes the user set) are left to
  // the loop lowering.
  if (tile.hasDynamicShape())
    return;
  Location loc = tile.getLoc();
  MLIRContext *context = rewriter.getContext();
  rewriter.setInsertionPoint(tile);
  Value a = tile->getOperand(0), packed = tile->getOperand(1),
        init = tile->getOperand(2);
  int64_t rank = cast<RankedTensorType>(a.getType()).getRank();
  // A [.., m, 1, 4] as [m, 4]; the packed [.., 1, n, 4] as one row of
  // bytes, then [n, 4]; C [.., m, n] as [m, n].
  Value lhs = kiln::readAll(rewriter, loc,
                            collapsed(rewriter, loc, a, lastTwoJoined(rank)));
  Value row = kiln::readAll(
      rewriter, loc, collapsed(rewriter, loc, packed, kiln::allInOne(rank)));
  int64_t n = cast<RankedTensorType>(packed.getType()).getDimSize(rank - 2);
  Value rhs = vector::ShapeCastOp::create(
      rewriter, loc, VectorType::get({n, 4}, rewriter.getI8Type()), row);
  auto cGroups = leadingFolded(rank - 1, 2);
  Value acc =
      kiln::readAll(rewriter, loc, collapsed(rewriter, loc, init, cGroups));
  Type i32 = rewriter.getI32Type();
  AffineExpr m, nn, k;
  bindDims(context, m, nn, k);
  Value sum = vector::ContractionOp::create(
      rewriter, loc,
      arith::ExtSIOp::create(rewriter, loc,
                             cast<VectorType>(lhs.getType()).clone(i32), lhs),
      arith::ExtUIOp::create(rewriter, loc,
                             cast<VectorType>(rhs.getType()).clone(i32), rhs),
      acc, ArrayRef<ArrayRef<AffineExpr>>{{m, k}, {nn, k}, {m, nn}},
      ArrayRef<vector::IteratorType>{vector::IteratorType::parallel,
                                     vector::IteratorType::parallel,
                                     vector::IteratorType::reduction});
  rewriter.replaceOp(tile, writeCollapsed(rewriter, loc, sum, init, cGroups));
}

bool kiln::isByteLaneQuads(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() != 4 ||
      generic.getStaticLoopRanges().back() != 4 ||
      !getElementTypeOrSelf(generic.getResultTypes()[0]).isInteger(32))
    return false;
  MLIRContext *context = op.getContext();
  AffineExpr m, g, l, j;
  bindDims(context, m, g, l, j);
  SmallVector<AffineMap> expected = AffineMap::inferFromExprList(
      ArrayRef<ArrayRef<AffineExpr>>{{m, g, l, j}, {g, l, j}, {m, l}},
      context);
  if (generic.getIndexingMapsArray() != expected)
    return false;
  return yieldsOf(generic, [](Value value, Block &body) {
    auto add = value.getDefiningOp<arith::AddIOp>();
    auto mul = add ? add.getRhs().getDefiningOp<arith::MulIOp>() : nullptr;
    auto lhs = mul ? mul.getLhs().getDefiningOp<arith::ExtUIOp>() : nullptr;
    auto bias = lhs ? lhs.getIn().getDefiningOp<arith::XOrIOp>() : nullptr;
    return bias && add.getLhs() == body.getArgument(2) &&
           bias.getLhs() == body.getArgument(0) &&
           isByteBias(bias.getRhs()) &&
           signedBytes(mul.getRhs()) == body.getArgument(1);
  });
}

void kiln::vectorizeLaneQuads(RewriterBase &rewriter, linalg::LinalgOp tile) {
  if (tile.hasDynamicShape())
    return;
  Location loc = tile.getLoc();
  MLIRContext *context = rewriter.getContext();
  rewriter.setInsertionPoint(tile);
  Value a = tile->getOperand(0), x = tile->getOperand(1),
        init = tile->getOperand(2);
  // A [rows, 1, L, 4] as rows of 4L bytes, biased; x [1, L, 4] as 4L bytes.
  Value rows =
      biased(rewriter, loc,
             kiln::readAll(
                 rewriter, loc,
                 collapsed(rewriter, loc, a,
                           SmallVector<ReassociationIndices>{{0}, {1, 2, 3}})));
  Value bytes = kiln::readAll(rewriter, loc,
                              collapsed(rewriter, loc, x, kiln::allInOne(3)));
  auto accType = cast<RankedTensorType>(init.getType());
  int64_t count = accType.getDimSize(0), lanes = accType.getDimSize(1);
  Type i8 = rewriter.getI8Type(), i32 = rewriter.getI32Type();
  Value lhs = arith::ExtUIOp::create(
      rewriter, loc, VectorType::get({count, lanes, 4}, i32),
      vector::ShapeCastOp::create(
          rewriter, loc, VectorType::get({count, lanes, 4}, i8), rows));
  Value rhs = arith::ExtSIOp::create(
      rewriter, loc, VectorType::get({lanes, 4}, i32),
      vector::ShapeCastOp::create(rewriter, loc,
                                  VectorType::get({lanes, 4}, i8), bytes));
  AffineExpr r, l, j;
  bindDims(context, r, l, j);
  Value sum = vector::ContractionOp::create(
      rewriter, loc, lhs, rhs, kiln::readAll(rewriter, loc, init),
      ArrayRef<ArrayRef<AffineExpr>>{{r, l, j}, {l, j}, {r, l}},
      ArrayRef<vector::IteratorType>{vector::IteratorType::parallel,
                                     vector::IteratorType::parallel,
                                     vector::IteratorType::reduction});
  rewriter.replaceOp(tile, kiln::writeAll(rewriter, loc, sum, init));
}

Value kiln::readAll(OpBuilder &b, Location loc, Value tile) {
  auto type = cast<RankedTensorType>(tile.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return vector::TransferReadOp::create(
      b, loc, VectorType::get(type.getShape(), type.getElementType()), tile,
      SmallVector<Value>(type.getRank(), zero), std::nullopt,
      SmallVector<bool>(type.getRank(), true));
}

Value kiln::writeAll(OpBuilder &b, Location loc, Value vector, Value tile) {
  auto type = cast<RankedTensorType>(tile.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return vector::TransferWriteOp::create(
             b, loc, vector, tile, SmallVector<Value>(type.getRank(), zero),
             SmallVector<bool>(type.getRank(), true))
      ->getResult(0);
}
