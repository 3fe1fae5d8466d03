//===- Bf16DotPairs.cpp - bf16 register tiles on vdpbf16ps ----------------===//
//
// A bf16 x bf16 -> f32 register tile over one or two k steps becomes
// AVX-512 BF16 dot products (x86vector.avx512.dot, vdpbf16ps): each
// instruction multiplies 16 pairs of bf16 and adds both products to 16 f32
// lanes, twice the work of an f32 FMA. The pairs are consecutive k steps:
// A's pair is one 32-bit word broadcast to every lane, B's two rows are
// interleaved in registers, so neither operand needs a packed copy in
// memory. And the x86vector dialect's lowering to LLVM intrinsics, for
// convert-to-llvm.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Conversion/ConvertToLLVM/ToLLVMInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Dialect/X86Vector/Transforms.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {
/// f32 lanes of the widest dot product that `columns` (at most 16) fits
/// in: vdpbf16ps works on 4, 8 or 16 lanes.
int64_t dotLanes(int64_t columns) {
  return columns <= 4 ? 4 : columns <= 8 ? 8 : 16;
}

/// Elements [offset, offset + size) of the 1-D `vector`.
Value slice(PatternRewriter &rewriter, Location loc, Value vector,
            int64_t offset, int64_t size) {
  return vector::ExtractStridedSliceOp::create(
      rewriter, loc, vector, ArrayRef<int64_t>{offset},
      ArrayRef<int64_t>{size}, ArrayRef<int64_t>{1});
}

/// The 1-D `into` with `part` written from `offset` on.
Value placed(PatternRewriter &rewriter, Location loc, Value part, Value into,
             int64_t offset) {
  return vector::InsertStridedSliceOp::create(
      rewriter, loc, part, into, ArrayRef<int64_t>{offset},
      ArrayRef<int64_t>{1});
}

/// `vector` (1-D) widened with zeros to `lanes` elements.
Value padded(PatternRewriter &rewriter, Location loc, Value vector,
             int64_t lanes) {
  auto type = cast<VectorType>(vector.getType());
  if (type.getNumElements() == lanes)
    return vector;
  Value zeros = arith::ConstantOp::create(
      rewriter, loc,
      rewriter.getZeroAttr(VectorType::get({lanes}, type.getElementType())));
  return placed(rewriter, loc, vector, zeros, 0);
}

/// C + A B for A: vector<M x K x bf16>, B: vector<K x N x bf16> (K of 1 or
/// 2), C: vector<M x N x f32>, as dot products of the k pairs, 16 columns at
/// a time; an odd step pairs with zero, and columns past the last 16 run on
/// 4 or 8 lanes padded with zeros.
Value emitDots(PatternRewriter &rewriter, Location loc, Value lhs, Value rhs,
               Value acc) {
  auto lhsType = cast<VectorType>(lhs.getType());
  int64_t rows = lhsType.getDimSize(0), steps = lhsType.getDimSize(1);
  int64_t columns = cast<VectorType>(acc.getType()).getDimSize(1);
  Type bf16 = rewriter.getBF16Type(), i16 = rewriter.getI16Type(),
       i32 = rewriter.getI32Type();

  // B's rows k and k + 1 (or zeros), interleaved, per block of columns.
  // The bits move as i16: LLVM cannot legalize shuffles of odd-sized bf16
  // vectors.
  auto bits = [&](Value vector) -> Value {
    auto type = cast<VectorType>(vector.getType());
    return vector::BitCastOp::create(
        rewriter, loc, VectorType::get(type.getShape(), i16), vector);
  };
  Value rhsRows[2] = {
      bits(vector::ExtractOp::create(rewriter, loc, rhs, 0)),
      steps == 2 ? bits(vector::ExtractOp::create(rewriter, loc, rhs, 1))
                 : arith::ConstantOp::create(
                       rewriter, loc,
                       rewriter.getZeroAttr(VectorType::get({columns}, i16)))
                       .getResult()};
  SmallVector<Value> rhsPairs;
  for (int64_t column = 0; column < columns; column += 16) {
    int64_t width = std::min<int64_t>(16, columns - column);
    int64_t lanes = dotLanes(width);
    Value halves[2];
    for (int step = 0; step < 2; ++step)
      halves[step] = padded(
          rewriter, loc, slice(rewriter, loc, rhsRows[step], column, width),
          lanes);
    rhsPairs.push_back(vector::BitCastOp::create(
        rewriter, loc, VectorType::get({2 * lanes}, bf16),
        vector::InterleaveOp::create(rewriter, loc, halves[0], halves[1])));
  }

  Value result = acc;
  for (int64_t row = 0; row < rows; ++row) {
    // A's pair (row, k), (row, k + 1) as one 32-bit word in every lane.
    Value pair = padded(
        rewriter, loc, bits(vector::ExtractOp::create(rewriter, loc, lhs, row)),
        2);
    Value word = vector::BitCastOp::create(rewriter, loc,
                                           VectorType::get({1}, i32), pair);
    Value accRow = vector::ExtractOp::create(rewriter, loc, result, row);
    for (auto [block, rhsPair] : llvm::enumerate(rhsPairs)) {
      int64_t column = block * 16;
      int64_t width = std::min<int64_t>(16, columns - column);
      int64_t lanes = dotLanes(width);
      Value lhsPair = vector::BitCastOp::create(
          rewriter, loc, VectorType::get({2 * lanes}, bf16),
          vector::BroadcastOp::create(rewriter, loc,
                                      VectorType::get({lanes}, i32), word));
      Value sum = padded(rewriter, loc,
                         slice(rewriter, loc, accRow, column, width), lanes);
      Value dot = x86vector::DotBF16Op::create(rewriter, loc, sum.getType(),
                                               sum, lhsPair, rhsPair);
      if (lanes != width)
        dot = slice(rewriter, loc, dot, 0, width);
      accRow = placed(rewriter, loc, dot, accRow, column);
    }
    result = vector::InsertOp::create(rewriter, loc, accRow, result, row);
  }
  return result;
}

/// A bf16 x bf16 -> f32 vector.contract that is a row-major matmul over one
/// or two k steps, or a batch of one of them, as emitDots.
struct ContractToBf16Dots : OpRewritePattern<vector::ContractionOp> {
  ContractToBf16Dots(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(vector::ContractionOp contract,
                                PatternRewriter &rewriter) const override {
    VectorType lhsType = contract.getLhsType();
    auto accType = dyn_cast<VectorType>(contract.getAccType());
    bool batched = isRowMajorBatchMatmul(contract.getIndexingMaps()) &&
                   lhsType.getDimSize(0) == 1;
    if (contract.getKind() != vector::CombiningKind::ADD || !accType ||
        !(batched || isRowMajorMatmul(contract.getIndexingMaps())) ||
        !lhsType.getElementType().isBF16() ||
        !contract.getRhsType().getElementType().isBF16() ||
        !accType.getElementType().isF32() ||
        lhsType.getShape().back() > 2 ||
        isa<vector::MaskOp>(contract->getParentOp()) || lhsType.isScalable())
      return failure();
    Location loc = contract.getLoc();
    auto unbatched = [&](Value value) -> Value {
      return batched ? vector::ExtractOp::create(rewriter, loc, value, 0)
                           .getResult()
                     : value;
    };
    Value result =
        emitDots(rewriter, loc, unbatched(contract.getLhs()),
                 unbatched(contract.getRhs()), unbatched(contract.getAcc()));
    if (batched)
      result = vector::BroadcastOp::create(rewriter, loc, accType, result);
    rewriter.replaceOp(contract, result);
    return success();
  }
};

/// convert-to-llvm for the x86vector dialect: its ops become calls of the
/// LLVM intrinsics they name.
struct X86VectorToLLVM : ConvertToLLVMPatternInterface {
  using ConvertToLLVMPatternInterface::ConvertToLLVMPatternInterface;
  void populateConvertToLLVMConversionPatterns(
      ConversionTarget &, LLVMTypeConverter &typeConverter,
      RewritePatternSet &patterns) const final {
    populateX86VectorLegalizeForLLVMExportPatterns(typeConverter, patterns);
  }
};
} // namespace

void kiln::populateBf16DotPairPatterns(RewritePatternSet &patterns) {
  patterns.add<ContractToBf16Dots>(patterns.getContext());
}

void kiln::registerX86VectorToLLVMInterface(DialectRegistry &registry) {
  registry.addExtension(
      +[](MLIRContext *, x86vector::X86VectorDialect *dialect) {
        dialect->addInterfaces<X86VectorToLLVM>();
      });
}
