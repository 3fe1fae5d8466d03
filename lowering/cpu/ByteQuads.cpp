//===- ByteQuads.cpp - int8 products as unsigned x signed byte quads ------===//
//
// AVX-512 VNNI's vpdpbusd multiplies 4 consecutive k steps of unsigned
// bytes by signed bytes and adds the 4 products to a 32-bit lane: 64
// multiply-adds an instruction, twice vpdpwssd's 16-bit pairs. There is no
// signed x signed byte instruction before AVX-VNNI-INT8, so B is read
// biased: B + 128 is an unsigned byte (B xor 0x80), and
// A (B + 128) = A B + 128 rowsum(A). The correction costs M K, once: the
// product starts from C0 - 128 rowsum(A) instead of C0, so the k loop runs
// nothing but dot products. The xor is one instruction per 64 bytes of B's
// rows, shared by every row of A in the register tile.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "lowering/linalg/LoweringUtils.h"

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

/// `matmul` (isSignedByteMatmul) as a biased product from its corrected
/// start.
void biasByteMatmul(RewriterBase &rewriter, linalg::LinalgOp matmul) {
  Location loc = matmul.getLoc();
  rewriter.setInsertionPoint(matmul);
  Value a = matmul->getOperand(0), b = matmul->getOperand(1);
  Value start = correctedStart(rewriter, loc, matmul->getOperand(2),
                               scaledRowSums(rewriter, loc, a));
  auto product = linalg::GenericOp::create(
      rewriter, loc, start.getType(), ValueRange{a, b}, start,
      matmul.getIndexingMapsArray(), matmul.getIteratorTypesArray(),
      [](OpBuilder &b, Location loc, ValueRange args) {
        auto [lhs, rhs] = biasedFactors(b, loc, args[0], args[1]);
        Value product = arith::MulIOp::create(b, loc, lhs, rhs);
        linalg::YieldOp::create(
            b, loc, ValueRange{arith::AddIOp::create(b, loc, args[2], product)});
      });
  rewriter.replaceOp(matmul, product.getResults());
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
} // namespace

bool kiln::isByteQuadProduct(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 ||
      !(isRowMajorMatmul(generic.getIndexingMaps()) ||
        isRowMajorBatchMatmul(generic.getIndexingMaps())) ||
      !getElementTypeOrSelf(generic.getResultTypes()[0]).isInteger(32))
    return false;
  Block &body = generic.getRegion().front();
  Value yielded = body.getTerminator()->getOperand(0);
  auto add = yielded.getDefiningOp<arith::AddIOp>();
  auto mul = add ? add.getRhs().getDefiningOp<arith::MulIOp>() : nullptr;
  arith::XOrIOp bias = mul ? biasedBytes(mul.getRhs()) : nullptr;
  return bias && add.getLhs() == body.getArgument(2) &&
         signedBytes(mul.getLhs()) == body.getArgument(0) &&
         bias.getLhs() == body.getArgument(1);
}

void kiln::biasByteProducts(RewriterBase &rewriter, Operation *root) {
  SmallVector<linalg::LinalgOp> matmuls;
  root->walk([&](linalg::LinalgOp op) {
    // Fewer than 4 k steps fill no quad: they stay k pairs.
    if (isSignedByteMatmul(op) && op.getStaticLoopRanges().back() >= 4)
      matmuls.push_back(op);
  });
  for (linalg::LinalgOp matmul : matmuls)
    biasByteMatmul(rewriter, matmul);
}

void kiln::vectorizeByteQuads(RewriterBase &rewriter, linalg::LinalgOp tile) {
  Location loc = tile.getLoc();
  MLIRContext *context = rewriter.getContext();
  rewriter.setInsertionPoint(tile);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  // The operand's last two dimensions (a batch's leading 1 dropped).
  auto minor = [&](Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    return std::make_tuple(
        VectorType::get(type.getShape().take_back(2), type.getElementType()),
        SmallVector<Value>(type.getRank(), zero),
        AffineMap::getMinorIdentityMap(type.getRank(), 2, context));
  };
  auto read = [&](Value tensor) -> Value {
    auto [type, indices, map] = minor(tensor);
    return vector::TransferReadOp::create(rewriter, loc, type, tensor, indices,
                                          std::nullopt, map,
                                          ArrayRef<bool>{true, true});
  };
  Value init = tile.getDpsInitOperand(0)->get();
  auto [lhs, rhs] =
      biasedFactors(rewriter, loc, read(tile->getOperand(0)),
                    read(tile->getOperand(1)));
  AffineExpr m, n, k;
  bindDims(context, m, n, k);
  Value sum = vector::ContractionOp::create(
      rewriter, loc, lhs, rhs, read(init),
      ArrayRef<ArrayRef<AffineExpr>>{{m, k}, {k, n}, {m, n}},
      ArrayRef<vector::IteratorType>{vector::IteratorType::parallel,
                                     vector::IteratorType::parallel,
                                     vector::IteratorType::reduction});
  auto [type, indices, map] = minor(init);
  rewriter.replaceOp(tile, vector::TransferWriteOp::create(
                               rewriter, loc, sum, init, indices, map,
                               ArrayRef<bool>{true, true})
                               ->getResults());
}

std::optional<std::pair<Value, Value>>
kiln::byteQuadOperands(vector::ContractionOp contract) {
  Value a = signedBytes(contract.getLhs());
  arith::XOrIOp b = biasedBytes(contract.getRhs());
  if (!a || !b)
    return std::nullopt;
  return std::make_pair(a, b.getResult());
}
