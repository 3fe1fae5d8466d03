//===- DotPairs.cpp - register tiles on dot products of k pairs -----------===//
//
// A register tile over one or two k steps becomes AVX-512 dot products of
// the k pairs: bf16 x bf16 -> f32 on AVX-512 BF16 (x86vector.avx512.dot,
// vdpbf16ps), int8 or int16 x the same -> i32 on AVX-512 VNNI (vpdpwssd,
// the bytes sign-extended to 16 bits). Each instruction multiplies 16
// pairs and adds both products to 16 32-bit lanes, twice the work of an
// f32 FMA and four times that of an i32 multiply and add. The pairs are
// consecutive k steps: A's pair is one 32-bit word broadcast to every
// lane, B's two rows are interleaved in registers, so neither operand
// needs a packed copy in memory. And the x86vector dialect's lowering to
// LLVM intrinsics, for convert-to-llvm.
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
/// 32-bit lanes of the widest dot product that `columns` (at most 16) fits
/// in: vdpbf16ps and vpdpwssd work on 4, 8 or 16 lanes.
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

/// The dot product instruction of one kind of pairs: its pair element type
/// (bf16, or i16 for integers) and the instruction on `lanes` 32-bit lanes:
/// sum + the dot products of the pairs of `lhs` and `rhs` (2 x lanes each).
struct PairDot {
  Type pairElement;
  std::function<Value(PatternRewriter &, Location, Value sum, Value lhs,
                      Value rhs)>
      emit;
};

/// C + A B for A: vector<M x K x T>, B: vector<K x N x T> (K of 1 or 2),
/// C: vector<M x N x 32-bit>, as `dot`'s products of the k pairs, 16
/// columns at a time; an odd step pairs with zero, and columns past the
/// last 16 run on 4 or 8 lanes padded with zeros.
Value emitDots(PatternRewriter &rewriter, Location loc, Value lhs, Value rhs,
               Value acc, const PairDot &dot) {
  auto lhsType = cast<VectorType>(lhs.getType());
  int64_t rows = lhsType.getDimSize(0), steps = lhsType.getDimSize(1);
  int64_t columns = cast<VectorType>(acc.getType()).getDimSize(1);
  Type i16 = rewriter.getI16Type(), i32 = rewriter.getI32Type();
  Type pairElement = dot.pairElement;

  // B's rows k and k + 1 (or zeros), interleaved, per block of columns.
  // The bits move as i16 (LLVM cannot legalize shuffles of odd-sized bf16
  // vectors); bytes are sign-extended to them.
  auto bits = [&](Value vector) -> Value {
    auto type = cast<VectorType>(vector.getType());
    auto wide = VectorType::get(type.getShape(), i16);
    if (type.getElementType().isInteger(8))
      return arith::ExtSIOp::create(rewriter, loc, wide, vector);
    if (type.getElementType() == i16)
      return vector;
    return vector::BitCastOp::create(rewriter, loc, wide, vector);
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
        rewriter, loc, VectorType::get({2 * lanes}, pairElement),
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
          rewriter, loc, VectorType::get({2 * lanes}, pairElement),
          vector::BroadcastOp::create(rewriter, loc,
                                      VectorType::get({lanes}, i32), word));
      Value sum = padded(rewriter, loc,
                         slice(rewriter, loc, accRow, column, width), lanes);
      Value product = dot.emit(rewriter, loc, sum, lhsPair, rhsPair);
      if (lanes != width)
        product = slice(rewriter, loc, product, 0, width);
      accRow = placed(rewriter, loc, product, accRow, column);
    }
    result = vector::InsertOp::create(rewriter, loc, accRow, result, row);
  }
  return result;
}

/// The pairs a dot product instruction multiplies: bf16 into f32, or int8
/// / int16 into i32.
enum class PairKind { Bf16, Int };

/// The dot product instruction of `kind`: vdpbf16ps, or VNNI's vpdpwssd
/// (through its LLVM intrinsic: the x86vector dialect has no op for it).
PairDot pairDot(MLIRContext *context, PairKind kind) {
  if (kind == PairKind::Bf16)
    return {BFloat16Type::get(context),
            [](PatternRewriter &rewriter, Location loc, Value sum, Value lhs,
               Value rhs) -> Value {
              return x86vector::DotBF16Op::create(rewriter, loc,
                                                  sum.getType(), sum, lhs, rhs);
            }};
  return {IntegerType::get(context, 16),
          [](PatternRewriter &rewriter, Location loc, Value sum, Value lhs,
             Value rhs) -> Value {
            int64_t bits =
                32 * cast<VectorType>(sum.getType()).getNumElements();
            std::string name =
                "llvm.x86.avx512.vpdpwssd." + std::to_string(bits);
            return LLVM::CallIntrinsicOp::create(
                       rewriter, loc, sum.getType(),
                       rewriter.getStringAttr(name),
                       ValueRange{sum, lhs, rhs})
                .getResult(0);
          }};
}

/// A vector.contract of `kind`'s pairs that is a row-major matmul over one
/// or two k steps, or a batch of one of them, as emitDots.
struct ContractToPairDots : OpRewritePattern<vector::ContractionOp> {
  ContractToPairDots(MLIRContext *context, PairKind kind)
      : OpRewritePattern(context, /*benefit=*/2), kind(kind),
        dot(pairDot(context, kind)) {}

  LogicalResult matchAndRewrite(vector::ContractionOp contract,
                                PatternRewriter &rewriter) const override {
    VectorType lhsType = contract.getLhsType();
    auto accType = dyn_cast<VectorType>(contract.getAccType());
    bool batched = isRowMajorBatchMatmul(contract.getIndexingMaps()) &&
                   lhsType.getDimSize(0) == 1;
    if (contract.getKind() != vector::CombiningKind::ADD || !accType ||
        !(batched || isRowMajorMatmul(contract.getIndexingMaps())) ||
        !kiln::multipliesInPairs(lhsType.getElementType(),
                                 contract.getRhsType().getElementType(),
                                 accType.getElementType(),
                                 kind == PairKind::Bf16,
                                 kind == PairKind::Int) ||
        lhsType.getShape().back() > 2 ||
        isa<vector::MaskOp>(contract->getParentOp()) || lhsType.isScalable())
      return failure();
    Location loc = contract.getLoc();
    auto unbatched = [&](Value value) -> Value {
      return batched ? vector::ExtractOp::create(rewriter, loc, value, 0)
                           .getResult()
                     : value;
    };
    Value result = emitDots(rewriter, loc, unbatched(contract.getLhs()),
                            unbatched(contract.getRhs()),
                            unbatched(contract.getAcc()), dot);
    if (batched)
      result = vector::BroadcastOp::create(rewriter, loc, accType, result);
    rewriter.replaceOp(contract, result);
    return success();
  }

  PairKind kind;
  PairDot dot;
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

bool kiln::multipliesInPairs(Type lhs, Type rhs, Type acc, bool bf16Pairs,
                             bool intPairs) {
  if (lhs != rhs)
    return false;
  return (bf16Pairs && lhs.isBF16() && acc.isF32()) ||
         (intPairs && (lhs.isInteger(8) || lhs.isInteger(16)) &&
          acc.isInteger(32));
}

void kiln::populateBf16DotPairPatterns(RewritePatternSet &patterns) {
  patterns.add<ContractToPairDots>(patterns.getContext(), PairKind::Bf16);
}

void kiln::populateIntDotPairPatterns(RewritePatternSet &patterns) {
  patterns.add<ContractToPairDots>(patterns.getContext(), PairKind::Int);
}

void kiln::registerX86VectorToLLVMInterface(DialectRegistry &registry) {
  registry.addExtension(
      +[](MLIRContext *, x86vector::X86VectorDialect *dialect) {
        dialect->addInterfaces<X86VectorToLLVM>();
      });
}
