//===- DotPairs.cpp - register tiles on dot products of k pairs -----------===//
//
// A register tile over a few k steps becomes AVX-512 dot products of them:
// bf16 x bf16 -> f32 pairs on AVX-512 BF16 (x86vector.avx512.dot,
// vdpbf16ps), int8 or int16 x the same -> i32 pairs on AVX-512 VNNI
// (vpdpwssd, bytes sign-extended to 16 bits), and biased int8 products
// (ByteQuads.cpp) as quads of unsigned x signed bytes (vpdpbusd). Each
// instruction adds the products of 2 or 4 k steps to 16 32-bit lanes: twice
// (pairs) or four times (quads) the work of an f32 FMA. Without VNNI, AVX2's
// vpmaddwd multiplies the same int pairs into 8 lanes, and an add sums them:
// twice the products of a vpmulld on 32-bit lanes. The steps are
// consecutive: A's steps are one 32-bit word broadcast to every lane, B's
// rows are interleaved in registers, or read as they are where B is packed
// into panels of pairs (kiln::packMatmulPanels). And the x86vector
// dialect's lowering to LLVM intrinsics, for convert-to-llvm.
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
/// 32-bit lanes of the narrowest dot product that `columns` (at most 16)
/// fits in: the instructions work on 4, 8 or 16 lanes.
int64_t dotLanes(int64_t columns) {
  return std::max<int64_t>(4, llvm::PowerOf2Ceil(columns));
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

/// A dot product instruction: each 32-bit lane adds the products of
/// `group` consecutive k steps (2 or 4), whose elements the operands hold
/// as `element` (bf16, i16 or i8), on at most `lanes` lanes (16, or 8 on
/// AVX2). `emit` returns sum + the lanes' dot products of `broadcast` (A's
/// steps, the same in every lane) and `rows` (B's, a column per lane).
struct LaneDot {
  Type element;
  int64_t group, lanes;
  std::function<Value(PatternRewriter &, Location, Value sum, Value broadcast,
                      Value rows)>
      emit;
};

/// `vector` as integers of `bits` bits: bytes of wider steps sign-extended,
/// floats bitcast (LLVM cannot legalize shuffles of odd-sized bf16
/// vectors).
Value asStepBits(PatternRewriter &rewriter, Location loc, Value vector,
                 int64_t bits) {
  auto type = cast<VectorType>(vector.getType());
  Type element = type.getElementType();
  auto wide = type.clone(rewriter.getIntegerType(bits));
  if (element.getIntOrFloatBitWidth() < bits)
    return arith::ExtSIOp::create(rewriter, loc, wide, vector);
  if (element == wide.getElementType())
    return vector;
  return vector::BitCastOp::create(rewriter, loc, wide, vector);
}

/// B: vector<K x N x T> (K at most the dot's group) as `dot`'s operand per
/// block of its lanes' columns: rows k, ..., k + group - 1 (zeros past K)
/// interleaved, so that lane j holds the steps of column j, in order;
/// columns past the last block on fewer lanes padded with zeros.
SmallVector<Value> interleavedGroups(PatternRewriter &rewriter, Location loc,
                                     Value rhs, const LaneDot &dot) {
  auto type = cast<VectorType>(rhs.getType());
  int64_t steps = type.getDimSize(0), columns = type.getDimSize(1);
  int64_t bits = 32 / dot.group;
  SmallVector<Value> rows;
  for (int64_t step = 0; step < dot.group; ++step)
    rows.push_back(
        step < steps
            ? asStepBits(rewriter, loc,
                         vector::ExtractOp::create(rewriter, loc, rhs, step),
                         bits)
            : arith::ConstantOp::create(
                  rewriter, loc,
                  rewriter.getZeroAttr(VectorType::get(
                      {columns}, rewriter.getIntegerType(bits))))
                  .getResult());
  SmallVector<Value> groups;
  for (int64_t column = 0; column < columns; column += dot.lanes) {
    int64_t width = std::min(dot.lanes, columns - column);
    int64_t lanes = dotLanes(width);
    SmallVector<Value> blocks;
    for (Value row : rows)
      blocks.push_back(
          padded(rewriter, loc, slice(rewriter, loc, row, column, width),
                 lanes));
    groups.push_back(vector::BitCastOp::create(
        rewriter, loc, VectorType::get({dot.group * lanes}, dot.element),
        kiln::interleaveRows(rewriter, loc, blocks)));
  }
  return groups;
}

/// `vector` (of shape [..., L, G]: bytes, pairs) as one row of L G
/// elements: the value it was shape-cast from, when it was.
Value flatRow(PatternRewriter &rewriter, Location loc, Value vector) {
  auto type = cast<VectorType>(vector.getType());
  if (auto cast = vector.getDefiningOp<vector::ShapeCastOp>();
      cast && cast.getSourceVectorType().getRank() == 1)
    return cast.getSource();
  return vector::ShapeCastOp::create(
      rewriter, loc,
      VectorType::get({type.getNumElements()}, type.getElementType()), vector);
}

/// B packed as vector<N x G x T> (column n's group of k steps in row n:
/// int8 quads, bf16 pairs) as `dot`'s operand per block of its lanes'
/// columns: the rows as they are.
SmallVector<Value> packedGroups(PatternRewriter &rewriter, Location loc,
                                Value packed, const LaneDot &dot) {
  auto type = cast<VectorType>(packed.getType());
  int64_t columns = type.getDimSize(0), group = type.getDimSize(1);
  // Slices of one row: LLVM shuffles 2-D slices of [N, G] element by
  // element.
  Value row = flatRow(rewriter, loc, packed);
  SmallVector<Value> groups;
  for (int64_t column = 0; column < columns; column += dot.lanes) {
    int64_t width = std::min(dot.lanes, columns - column);
    groups.push_back(padded(
        rewriter, loc, slice(rewriter, loc, row, column * group, width * group),
        group * dotLanes(width)));
  }
  return groups;
}

/// C + A B for A: vector<M x K x T> (K at most the dot's group), B as
/// `groups` (one dot operand per block of the dot's lanes), C: vector<M x N x
/// 32-bit>, as `dot`'s products of the k steps; A's missing steps are
/// zeros.
Value emitDots(PatternRewriter &rewriter, Location loc, Value lhs,
               ArrayRef<Value> groups, Value acc, const LaneDot &dot) {
  int64_t rows = cast<VectorType>(lhs.getType()).getDimSize(0);
  int64_t columns = cast<VectorType>(acc.getType()).getDimSize(1);
  Type i32 = rewriter.getI32Type();
  Value result = acc;
  for (int64_t row = 0; row < rows; ++row) {
    // A's steps (row, k), ..., (row, k + group - 1) as one 32-bit word in
    // every lane.
    Value steps = padded(
        rewriter, loc,
        asStepBits(rewriter, loc,
                   vector::ExtractOp::create(rewriter, loc, lhs, row),
                   32 / dot.group),
        dot.group);
    Value word = vector::BitCastOp::create(rewriter, loc,
                                           VectorType::get({1}, i32), steps);
    Value accRow = vector::ExtractOp::create(rewriter, loc, result, row);
    for (auto [block, group] : llvm::enumerate(groups)) {
      int64_t column = block * dot.lanes;
      int64_t width = std::min(dot.lanes, columns - column);
      int64_t lanes = dotLanes(width);
      Value broadcast = vector::BitCastOp::create(
          rewriter, loc, VectorType::get({dot.group * lanes}, dot.element),
          vector::BroadcastOp::create(rewriter, loc,
                                      VectorType::get({lanes}, i32), word));
      Value sum = padded(rewriter, loc,
                         slice(rewriter, loc, accRow, column, width), lanes);
      Value product = dot.emit(rewriter, loc, sum, broadcast, group);
      if (lanes != width)
        product = slice(rewriter, loc, product, 0, width);
      accRow = placed(rewriter, loc, product, accRow, column);
    }
    result = vector::InsertOp::create(rewriter, loc, accRow, result, row);
  }
  return result;
}

/// The pairs a dot product instruction multiplies: bf16 into f32, or int8
/// / int16 into i32 on VNNI or on AVX2.
enum class PairKind { Bf16, Int, IntAvx2 };

/// A VNNI instruction on `lanes` 32-bit lanes, through its LLVM intrinsic
/// (the x86vector dialect has no op for it).
Value vnni(PatternRewriter &rewriter, Location loc, StringRef name, Value sum,
           Value first, Value second) {
  int64_t bits = 32 * cast<VectorType>(sum.getType()).getNumElements();
  return LLVM::CallIntrinsicOp::create(
             rewriter, loc, sum.getType(),
             rewriter.getStringAttr("llvm.x86.avx512." + name.str() + "." +
                                    std::to_string(bits)),
             ValueRange{sum, first, second})
      .getResult(0);
}

/// sum + vpmaddwd(first, second): 16-bit pairs' products summed into
/// 32-bit lanes (AVX2's on 8 lanes, SSE2's on 4), then added. The one sum
/// a lane cannot hold, (-2^15)^2 twice, wraps as i32 arithmetic does.
Value maddPairs(PatternRewriter &rewriter, Location loc, Value sum, Value first,
                Value second) {
  int64_t lanes = cast<VectorType>(sum.getType()).getNumElements();
  Value products =
      LLVM::CallIntrinsicOp::create(
          rewriter, loc, sum.getType(),
          rewriter.getStringAttr(lanes == 8 ? "llvm.x86.avx2.pmadd.wd"
                                            : "llvm.x86.sse2.pmadd.wd"),
          ValueRange{first, second})
          .getResult(0);
  return arith::AddIOp::create(rewriter, loc, sum, products);
}

/// The dot product instruction of `kind`'s pairs: vdpbf16ps, vpdpwssd or
/// vpmaddwd.
LaneDot pairDot(MLIRContext *context, PairKind kind) {
  if (kind == PairKind::Bf16)
    return {BFloat16Type::get(context), 2, 16,
            [](PatternRewriter &rewriter, Location loc, Value sum, Value lhs,
               Value rhs) -> Value {
              return x86vector::DotBF16Op::create(rewriter, loc,
                                                  sum.getType(), sum, lhs, rhs);
            }};
  if (kind == PairKind::IntAvx2)
    return {IntegerType::get(context, 16), 2, 8, maddPairs};
  return {IntegerType::get(context, 16), 2, 16,
          [](PatternRewriter &rewriter, Location loc, Value sum, Value lhs,
             Value rhs) -> Value {
            return vnni(rewriter, loc, "vpdpwssd", sum, lhs, rhs);
          }};
}

/// Whether `maps` are those of A B^T: A [M, K], B [N, K], C [M, N].
bool isTransposedRhsMatmul(ArrayAttr maps) {
  MLIRContext *context = maps.getContext();
  AffineExpr m, n, k;
  bindDims(context, m, n, k);
  SmallVector<AffineMap> expected = AffineMap::inferFromExprList(
      ArrayRef<ArrayRef<AffineExpr>>{{m, k}, {n, k}, {m, n}}, context);
  return llvm::equal(maps.getAsValueRange<AffineMapAttr>(), expected);
}

/// A vector.contract of `kind`'s pairs that is a row-major matmul over one
/// or two k steps, or a batch of one of them, as emitDots; or A times the
/// rows of a panel of B packed in pairs ([N, 2], kiln::packMatmulPanels),
/// whose rows are the dot's operands as they are.
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
    bool packed = isTransposedRhsMatmul(contract.getIndexingMaps()) &&
                  lhsType.getShape().back() == dot.group;
    if (contract.getKind() != vector::CombiningKind::ADD || !accType ||
        !(batched || packed || isRowMajorMatmul(contract.getIndexingMaps())) ||
        !kiln::multipliesInPairs(
            lhsType.getElementType(), contract.getRhsType().getElementType(),
            accType.getElementType(), kind == PairKind::Bf16,
            kind != PairKind::Bf16) ||
        lhsType.getShape().back() > dot.group ||
        isa<vector::MaskOp>(contract->getParentOp()) || lhsType.isScalable())
      return failure();
    Location loc = contract.getLoc();
    auto unbatched = [&](Value value) -> Value {
      return batched ? vector::ExtractOp::create(rewriter, loc, value, 0)
                           .getResult()
                     : value;
    };
    Value rhs = unbatched(contract.getRhs());
    Value result = emitDots(rewriter, loc, unbatched(contract.getLhs()),
                            packed ? packedGroups(rewriter, loc, rhs, dot)
                                   : interleavedGroups(rewriter, loc, rhs, dot),
                            unbatched(contract.getAcc()), dot);
    if (batched)
      result = vector::BroadcastOp::create(rewriter, loc, accType, result);
    rewriter.replaceOp(contract, result);
    return success();
  }

  PairKind kind;
  LaneDot dot;
};

/// A contraction of sext(A) by zext(B), int8, as emitDots' vpdpbusd, which
/// multiplies B's unsigned bytes by A's signed ones: B as [K, N] over at
/// most four k steps (the register tiles of kiln::biasByteProducts' biased
/// products, whose quads are interleaved in registers), or packed as
/// [N, 4] (their packed products', whose quads are B's rows).
struct ContractToByteQuads : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ContractionOp contract,
                                PatternRewriter &rewriter) const override {
    std::optional<std::pair<Value, Value>> bytes =
        kiln::byteQuadOperands(contract);
    auto accType = dyn_cast<VectorType>(contract.getAccType());
    int64_t steps = contract.getLhsType().getShape().back();
    bool packed = isTransposedRhsMatmul(contract.getIndexingMaps());
    if (!bytes || contract.getKind() != vector::CombiningKind::ADD ||
        !accType || !accType.getElementType().isInteger(32) ||
        !(packed || isRowMajorMatmul(contract.getIndexingMaps())) ||
        (packed ? steps != 4 : steps > 4) ||
        isa<vector::MaskOp>(contract->getParentOp()) || accType.isScalable())
      return failure();
    LaneDot quads{IntegerType::get(getContext(), 8), 4, 16,
                  [](PatternRewriter &rewriter, Location loc, Value sum,
                     Value signedA, Value unsignedB) -> Value {
                    return vnni(rewriter, loc, "vpdpbusd", sum, unsignedB,
                                signedA);
                  }};
    Location loc = contract.getLoc();
    SmallVector<Value> groups =
        packed ? packedGroups(rewriter, loc, bytes->second, quads)
               : interleavedGroups(rewriter, loc, bytes->second, quads);
    rewriter.replaceOp(contract, emitDots(rewriter, loc, bytes->first, groups,
                                          contract.getAcc(), quads));
    return success();
  }
};

/// Whether `maps` are a lane product's: lhs [R, L, 4], rhs [L, 4], acc
/// [R, L], the quads' steps reduced.
bool isLaneQuadProduct(ArrayAttr maps) {
  MLIRContext *context = maps.getContext();
  AffineExpr r, l, j;
  bindDims(context, r, l, j);
  SmallVector<AffineMap> expected = AffineMap::inferFromExprList(
      ArrayRef<ArrayRef<AffineExpr>>{{r, l, j}, {l, j}, {r, l}}, context);
  return llvm::equal(maps.getAsValueRange<AffineMapAttr>(), expected);
}

/// A lane product of zext(A) [R, L, 4] by sext(x) [L, 4] into [R, L] of
/// i32 (kiln::vectorizeLaneQuads' tiles of int8 matrix-vector products) as
/// vpdpbusd on each row's bytes and x's, 16 lanes an instruction (4 or 8
/// for fewer).
struct ContractToLaneQuads : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ContractionOp contract,
                                PatternRewriter &rewriter) const override {
    auto unsignedA = contract.getLhs().getDefiningOp<arith::ExtUIOp>();
    auto signedX = contract.getRhs().getDefiningOp<arith::ExtSIOp>();
    auto accType = dyn_cast<VectorType>(contract.getAccType());
    if (!unsignedA || !signedX || !accType ||
        contract.getKind() != vector::CombiningKind::ADD ||
        !isLaneQuadProduct(contract.getIndexingMaps()) ||
        !getElementTypeOrSelf(unsignedA.getIn().getType()).isInteger(8) ||
        !getElementTypeOrSelf(signedX.getIn().getType()).isInteger(8) ||
        !accType.getElementType().isInteger(32) ||
        contract.getRhsType().getDimSize(1) != 4 ||
        isa<vector::MaskOp>(contract->getParentOp()) || accType.isScalable())
      return failure();
    int64_t rows = accType.getDimSize(0), lanes = accType.getDimSize(1);
    if (lanes % 16 != 0 && lanes != 4 && lanes != 8)
      return failure();
    Location loc = contract.getLoc();
    // A's rows of bytes: those A was shape-cast from, when it was.
    Value a = unsignedA.getIn();
    auto source = a.getDefiningOp<vector::ShapeCastOp>();
    bool flatRows = source && source.getSourceVectorType().getRank() == 2;
    Value x = flatRow(rewriter, loc, signedX.getIn());
    Value result = contract.getAcc();
    for (int64_t row = 0; row < rows; ++row) {
      Value bytes =
          flatRows ? vector::ExtractOp::create(rewriter, loc,
                                               source.getSource(), row)
                         .getResult()
                   : flatRow(rewriter, loc,
                             vector::ExtractOp::create(rewriter, loc, a, row));
      Value accRow = vector::ExtractOp::create(rewriter, loc, result, row);
      for (int64_t lane = 0; lane < lanes; lane += 16) {
        int64_t width = std::min<int64_t>(16, lanes - lane);
        Value sum = vnni(rewriter, loc, "vpdpbusd",
                         slice(rewriter, loc, accRow, lane, width),
                         slice(rewriter, loc, bytes, 4 * lane, 4 * width),
                         slice(rewriter, loc, x, 4 * lane, 4 * width));
        accRow = placed(rewriter, loc, sum, accRow, lane);
      }
      result = vector::InsertOp::create(rewriter, loc, accRow, result, row);
    }
    rewriter.replaceOp(contract, result);
    return success();
  }
};

} // namespace

Value kiln::interleaveRows(OpBuilder &builder, Location loc,
                           ArrayRef<Value> rows) {
  // Pairwise, then the pairs as elements twice as wide, until one vector
  // holds every row.
  SmallVector<Value> level(rows);
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i < level.size(); i += 2) {
      Value both =
          vector::InterleaveOp::create(builder, loc, level[i], level[i + 1]);
      if (level.size() > 2) {
        auto type = cast<VectorType>(both.getType());
        both = vector::BitCastOp::create(
            builder, loc,
            VectorType::get({type.getNumElements() / 2},
                            builder.getIntegerType(
                                2 * type.getElementTypeBitWidth())),
            both);
      }
      next.push_back(both);
    }
    level = std::move(next);
  }
  return level.front();
}

namespace {
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
  patterns.add<ContractToByteQuads, ContractToLaneQuads>(
      patterns.getContext());
}

void kiln::populateIntMaddPairPatterns(RewritePatternSet &patterns) {
  patterns.add<ContractToPairDots>(patterns.getContext(), PairKind::IntAvx2);
}

void kiln::registerX86VectorToLLVMInterface(DialectRegistry &registry) {
  registry.addExtension(
      +[](MLIRContext *, x86vector::X86VectorDialect *dialect) {
        dialect->addInterfaces<X86VectorToLLVM>();
      });
}
