//===- Passes.h - the CPU schedule and kiln-to-cpu-pipeline -----*- C++ -*-===//
//
// Tiling and vectorization for the host CPU, the vector and math lowerings
// LLVM compiles well, and the pipeline from kiln to the LLVM dialect.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_CPU_PASSES_H
#define KILN_LOWERING_CPU_PASSES_H

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
class DialectRegistry;
class RewriterBase;
class RewritePatternSet;
} // namespace mlir

namespace kiln {

#define GEN_PASS_DECL
#include "lowering/cpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/cpu/Passes.h.inc"

/// f32 math.sin and math.cos as polynomials after a range reduction that is
/// exact over the whole f32 range (used by kiln-approximate-math).
void populateSinCosApproximationPatterns(mlir::RewritePatternSet &patterns);

/// f64 math.exp, math.log and math.atan as fdlibm's algorithms in vector
/// arithmetic, f64 math.tanh through exp, and math.powf of f32, f16 and bf16 as
/// exp(y log|x|) in f64 (used by kiln-approximate-math).
void populateF64MathApproximationPatterns(mlir::RewritePatternSet &patterns);

/// arith.remf of f64, f32, f16 and bf16 as exact arithmetic in f64 where
/// |x / y| < 2^52 and y is finite, libm's fmod elsewhere (used by
/// kiln-approximate-math).
void populateFloatRemainderPatterns(mlir::RewritePatternSet &patterns);

/// bf16 x bf16 -> f32 register tiles (vector.contract over one or two k
/// steps) as AVX-512 BF16 dot products of k pairs (x86vector.avx512.dot).
void populateBf16DotPairPatterns(mlir::RewritePatternSet &patterns);

/// int8 or int16 x the same -> i32 register tiles (vector.contract over one
/// or two k steps) as AVX-512 VNNI dot products of k pairs (vpdpwssd), and
/// biased int8 ones (byteQuadOperands, up to four k steps) as its dot
/// products of k quads (vpdpbusd).
void populateIntDotPairPatterns(mlir::RewritePatternSet &patterns);

/// int8 or int16 x the same -> i32 register tiles (vector.contract over one
/// or two k steps) as AVX2's vpmaddwd on k pairs (bytes sign-extended to 16
/// bits) and adds: the CPUs without VNNI.
void populateIntMaddPairPatterns(mlir::RewritePatternSet &patterns);

/// Whether a product of `lhs` x `rhs` elements accumulating in `acc`
/// multiplies k pairs: bf16 into f32 with `bf16Pairs`, int8 or int16 into
/// i32 with `intPairs` (the register tiles kiln-tile-and-vectorize makes
/// and the ones kiln-lower-vectors lowers to dot products).
bool multipliesInPairs(mlir::Type lhs, mlir::Type rhs, mlir::Type acc,
                       bool bf16Pairs, bool intPairs);

/// Whether `op` is the biased int8 product biasByteProducts makes:
/// C + sext(A) zext(B xor 0x80), a row-major matmul, batched or not.
bool isByteQuadProduct(mlir::linalg::LinalgOp op);

/// Rewrites each int8 x int8 -> i32 matmul under `root` with at least 4 k
/// steps as a product of A by B + 128 (unsigned bytes, for VNNI's
/// vpdpbusd) starting from C0 - 128 rowsum(A), so that it computes A B:
/// with enough rows (or B a transpose), B + 128 is packed first
/// (isQuadPack) and the product reads the packed quads
/// (isPackedQuadProduct).
void biasByteProducts(mlir::RewriterBase &rewriter, mlir::Operation *root);

/// Whether `op` packs B + 128 for vpdpbusd: [batch..., K / 4, N, 4] from B
/// [batch..., K, N] or, isTransposedQuadPack, from B^T [batch..., N, K].
bool isQuadPack(mlir::linalg::LinalgOp op);
bool isTransposedQuadPack(mlir::linalg::LinalgOp op);

/// Whether `op` is C + A B of int8 A [batch..., M, K / 4, 4] and B packed by
/// a quad pack: a generic over (batch..., m, n, q, j).
bool isPackedQuadProduct(mlir::linalg::LinalgOp op);

/// Replaces `tile`, a tile of a quad pack (16 columns, and 16 quads of a
/// transpose), by vector code: B's 4 rows interleaved, or B^T's quads
/// transposed as 32-bit words.
void vectorizeQuadPack(mlir::RewriterBase &rewriter,
                       mlir::linalg::LinalgOp tile);

/// Replaces `tile`, a register tile of a packed quad product (one quad),
/// by a vector.contract of sext(A) [M, 4] and zext(packed) [N, 4].
void vectorizePackedQuads(mlir::RewriterBase &rewriter,
                          mlir::linalg::LinalgOp tile);

/// Replaces `tile`, a register tile of a biased product (at most 4 k
/// steps), by a vector.contract of its factors: sext(A) and zext(B xor
/// 0x80), which kiln-lower-vectors lowers to vpdpbusd.
void vectorizeByteQuads(mlir::RewriterBase &rewriter,
                        mlir::linalg::LinalgOp tile);

/// Whether `op` is a matrix-vector product of int8 in lanes of k quads
/// (biasByteProducts' form of kiln's lane products): q[m, l] += zext(A[m,
/// g, l, j] xor 0x80) sext(x[g, l, j]) over (m, g, l, j).
bool isByteLaneQuads(mlir::linalg::LinalgOp op);

/// Replaces `tile`, a tile of rows of a byte lane quad product (one group),
/// by a vector.contract of zext(A + 128) [rows, L, 4] and sext(x) [L, 4]
/// into [rows, L], which kiln-lower-vectors lowers to a vpdpbusd per row
/// and 16 lanes.
void vectorizeLaneQuads(mlir::RewriterBase &rewriter,
                        mlir::linalg::LinalgOp tile);

/// Of a contraction of sext(A) by zext(B), int8 A and B (B + 128, or
/// packed B + 128): A and B's bytes; else nothing.
std::optional<std::pair<mlir::Value, mlir::Value>>
byteQuadOperands(mlir::vector::ContractionOp contract);

/// A transfer of all of the statically shaped tensor `tile` as one vector
/// of its shape.
mlir::Value readAll(mlir::OpBuilder &builder, mlir::Location loc,
                    mlir::Value tile);

/// `vector` written over all of `tile` (of its shape); the written tensor.
mlir::Value writeAll(mlir::OpBuilder &builder, mlir::Location loc,
                     mlir::Value vector, mlir::Value tile);

/// The 1-D vectors `rows` (a power of two of them, of one type) interleaved
/// into one: element j of each row in turn, for each j.
mlir::Value interleaveRows(mlir::OpBuilder &builder, mlir::Location loc,
                           llvm::ArrayRef<mlir::Value> rows);

/// Whether `op` is a linalg.matmul or linalg.batch_matmul with the default
/// indexing maps, on tensors.
bool isPlainMatmul(mlir::linalg::LinalgOp op);

/// Rows of an AMX tile of A and C, and k pairs of one of A and B (16 x 32
/// bf16, 64-byte rows; C 16 x 16 f32): kiln-tile-and-vectorize gives AMX
/// register tiles whole multiples of them, kiln-lower-amx-tiles loads them.
constexpr int64_t kAmxTileRows = 16, kAmxTilePairs = 16;

/// Rows of A from which B is packed: the packing copies B once, which 32
/// rows of products amortize. On an AMD Zen 3, one thread, packed from 32
/// rows: 64 x 1024 x 1024 2.06 -> 1.71 ms, 116 x 676 x 509 1.14 -> 0.92,
/// 127 x 256 x 2048 2.06 -> 1.49, 40 x 128 x 2048 0.36 -> 0.27; 24 rows
/// (24 x 1024 x 1024, 24 x 512 x 2048) ran the same packed or not.
constexpr int64_t kPanelMinRows = 32;

/// Rows of A from which a bf16 product on AMX tiles packs B (and pads it
/// into whole panels): a row of AMX tiles. Its products run several times
/// as fast as on vdpbf16ps (64 x 1024 x 1024: 1.8 -> 0.3 ms with the copy).
constexpr int64_t kAmxPanelMinRows = 16;

/// Whether packing B of an f32 product of `m` rows, `n` columns and `k`
/// steps into panels pays: from kPanelMinRows rows, where B's rows are a
/// multiple of 2 KiB apart or B is over half of L2.
bool f32PanelsPay(int64_t m, int64_t n, int64_t k);

/// The k steps per group of panels into which kiln-tile-and-vectorize
/// packs B of the matmul `op` (packMatmulPanels), or 0 where it does not:
/// 1 for f32 whose B rows are a multiple of 2 KiB apart, 2 for bf16 into
/// f32 on `bf16Pairs` (vdpbf16ps) and int16 into int32 on `intPairs`
/// (vpmaddwd, vpdpwssd) with an even K; with enough rows of A to pay for
/// the copy (from kAmxPanelMinRows where bf16 products multiply `amx`
/// tiles).
int64_t panelGroup(mlir::linalg::LinalgOp op, int64_t width, bool bf16Pairs,
                   bool intPairs, bool amx = false);

/// The input of the transpose of its last two dimensions that computes
/// `value`, where nothing else reads it (x W^T's W: a product's B^T, which
/// its reader can read itself), else null.
mlir::Value lastTwoTransposeInput(mlir::Value value);

/// Replaces the matmul `matmul` (batched or not) by a product of A and B
/// packed into panels of `width` columns, their k steps in groups of
/// `group`: [batch..., N / width, K, width] (f32) or [batch..., N / width,
/// K / 2, width, 2] (bf16 or int16 pairs), a generic over (batch..., j, m, c,
/// k) or (batch..., j, m, c, q, p) into the result viewed as [batch..., M, N /
/// width, width]; returns it. `panels`, when given, are B's, packed
/// before.
mlir::linalg::LinalgOp packMatmulPanels(mlir::RewriterBase &rewriter,
                                        mlir::linalg::LinalgOp matmul,
                                        int64_t width, int64_t group,
                                        mlir::Value panels = {});

/// Where `matmul` is a block of a product computed in the fused loop `loop`
/// (an epilogue's), and panelGroup's rules hold for the whole operands the
/// block slices: packs the whole B once before the loop (`packed` maps the
/// B already packed before loops of a block to their panels) and makes the
/// block a product of its columns' panels (packMatmulPanels). Returns
/// whether it did.
using PackedSources =
    llvm::DenseMap<std::pair<mlir::Value, mlir::Block *>, mlir::Value>;
bool packBlockPanels(mlir::RewriterBase &rewriter,
                     mlir::linalg::LinalgOp matmul, mlir::Operation *loop,
                     int64_t width, bool bf16Pairs, bool intPairs,
                     PackedSources &packed);

/// The group of k steps of `op`, a product of A and B's panels made by
/// packMatmulPanels (1 or 2), or 0 where it is none.
int64_t panelProductGroup(mlir::linalg::LinalgOp op);

/// The group of k steps of `op` where it packs B into panels
/// (packMatmulPanels: 1, or 2 for pairs), else 0.
int64_t panelPackGroup(mlir::linalg::LinalgOp op);

/// Whether `op` packs B's rows into panels of single k steps
/// (packMatmulPanels with a group of 1, B not a transpose).
bool isRowPanelPack(mlir::linalg::LinalgOp op);

/// Whether `op` packs bf16 or int16 B into panels of pairs (packMatmulPanels
/// with a group of 2).
bool isPairPack(mlir::linalg::LinalgOp op);

/// Replaces `tile`, a tile of a pair pack (two rows of one panel), by
/// vector code: the rows interleaved.
void vectorizePairPack(mlir::RewriterBase &rewriter,
                       mlir::linalg::LinalgOp tile);

/// Bytes an ns that an op streaming its tensors (elementwise, a copy) is
/// estimated to read and write on one thread: kiln-tile-and-vectorize and
/// kiln-vectorize-copies weigh such ops against `parallel-work` by it.
constexpr double kStreamingBytesPerNs = 20;

/// The bytes of a statically shaped tensor or buffer of `type` (an element
/// that is not an integer or float, an index, counted as 8).
inline int64_t storageBytes(mlir::ShapedType type) {
  mlir::Type element = type.getElementType();
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
  return type.getNumElements() * llvm::divideCeil(bits, 8);
}

/// The most bytes of buffers one thread's iterations of a parallel loop may
/// hold on its stack (libomp's threads have 4 MiB): kiln-lower-foralls runs
/// a loop whose body allocates more on one thread, so
/// kiln-tile-and-vectorize computes no larger part of an input per chunk.
constexpr int64_t kThreadBufferBytes = 1 << 20;

/// The statically shaped `value` as a tensor of its dimensions `dims`
/// (ascending): a rank-reducing slice of all of it (the others are 1).
mlir::Value keepingDims(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value, llvm::ArrayRef<unsigned> dims);

/// `tile` replaced by the rank-reduced `result` of its computation (its
/// init as keepingDims views it), inserted into all of its init.
void replaceTile(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp tile,
                 mlir::Value result);

/// `value` as a matrix: keepingDims of `rows` and `columns`.
inline mlir::Value asMatrix(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value value, unsigned rows,
                            unsigned columns) {
  return keepingDims(b, loc, value, {rows, columns});
}

/// Replaces `tile`, a register tile of an f32 panel product (one panel,
/// unit batch), by a linalg.matmul of its rows of A by the panel's rows;
/// returns it.
mlir::linalg::LinalgOp panelTileAsMatmul(mlir::RewriterBase &rewriter,
                                         mlir::linalg::LinalgOp tile);

/// Replaces `tile`, a register tile of a bf16 panel product in pairs (one
/// pair of k steps), by a vector.contract of A [m, 2] by the panel's pairs
/// [c, 2], read as one row (kiln-lower-vectors: vdpbf16ps on slices of
/// it).
void vectorizePanelPairs(mlir::RewriterBase &rewriter,
                         mlir::linalg::LinalgOp tile);

/// The attribute kiln-tile-and-vectorize marks a bf16 panel product's
/// register tile with for kiln-lower-amx-tiles to compute on AMX tiles.
constexpr llvm::StringLiteral kAmxTileAttr = "kiln.amx_tile";

/// Lets convert-to-llvm lower the x86vector dialect to LLVM intrinsics.
void registerX86VectorToLLVMInterface(mlir::DialectRegistry &registry);

/// The stages of kiln-to-cpu-pipeline, each ending in IR one can print.
enum class CpuStage {
  /// linalg, tensor, arith, math and scf on tensors, elementwise ops fused.
  Linalg,
  /// Bufferized: loops over memrefs, results as out-parameters.
  Loops,
  /// The LLVM dialect with the runtime's entry wrappers.
  LLVM,
};

/// Options of kiln-to-cpu-pipeline: the stage to stop after, optional
/// passes, and the target description the CPU schedule is made for (the
/// defaults suit x86-64 with AVX-512 or AVX2 and 1-2 MiB of L2 per core).
struct KilnToCpuPipelineOptions
    : public mlir::PassPipelineOptions<KilnToCpuPipelineOptions> {
  Option<CpuStage> stopAfter{
      *this, "stop-after", llvm::cl::desc("The last stage to run"),
      llvm::cl::init(CpuStage::LLVM),
      llvm::cl::values(
          clEnumValN(CpuStage::Linalg, "linalg", "linalg on tensors"),
          clEnumValN(CpuStage::Loops, "loops", "loops over memrefs"),
          clEnumValN(CpuStage::LLVM, "llvm", "the LLVM dialect"))};
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse chains of elementwise ops into one loop nest"),
      llvm::cl::init(true)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Use polynomial approximations for transcendental "
                     "functions instead of libm calls"),
      llvm::cl::init(true)};
  // The target description.
  Option<bool> avx512Bf16{
      *this, "avx512-bf16",
      llvm::cl::desc("The CPU has AVX-512 BF16 (vdpbf16ps): bf16 matmuls "
                     "accumulating in f32 use its dot products"),
      llvm::cl::init(false)};
  Option<bool> avx512Vnni{
      *this, "avx512-vnni",
      llvm::cl::desc("The CPU has AVX-512 VNNI (vpdpwssd): int8 and int16 "
                     "matmuls accumulating in i32 use its dot products"),
      llvm::cl::init(false)};
  Option<bool> avx2{
      *this, "avx2",
      llvm::cl::desc("The CPU has AVX2 (vpmaddwd): without avx512-vnni, int8 "
                     "and int16 matmuls accumulating in i32 multiply k pairs "
                     "on it"),
      llvm::cl::init(false)};
  Option<bool> amxBf16{
      *this, "amx-bf16",
      llvm::cl::desc("The CPU has AMX tiles with bf16 (tdpbf16ps) and the "
                     "process may use them: bf16 matmuls accumulating in "
                     "f32 multiply AMX tiles"),
      llvm::cl::init(false)};
  Option<int64_t> vectorBytes{
      *this, "vector-bytes",
      llvm::cl::desc("Bytes of one of the CPU's vector registers (64 on "
                     "AVX-512, 32 on AVX2): how many results a reduction's "
                     "rows carry in registers"),
      llvm::cl::init(64)};
  Option<int64_t> vectorRegisters{
      *this, "vector-registers",
      llvm::cl::desc("How many vector registers the CPU has (32 on AVX-512, "
                     "16 on AVX2): whether a running max or min carries "
                     "magnitudes beside its keys"),
      llvm::cl::init(32)};
  Option<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("Elements per vector row of an elementwise op"),
      llvm::cl::init(64)};
  Option<int64_t> registerTileM{
      *this, "register-tile-m",
      llvm::cl::desc("Rows of a matmul's accumulator kept in registers"),
      llvm::cl::init(8)};
  Option<int64_t> registerTileN{
      *this, "register-tile-n",
      llvm::cl::desc("Columns of a matmul's accumulator kept in registers"),
      llvm::cl::init(32)};
  Option<int64_t> cacheTileM{
      *this, "cache-tile-m",
      llvm::cl::desc("Rows of A per matmul cache tile"), llvm::cl::init(64)};
  Option<int64_t> cacheTileN{
      *this, "cache-tile-n",
      llvm::cl::desc("Columns of B per matmul cache tile"),
      llvm::cl::init(256)};
  Option<int64_t> cacheTileK{
      *this, "cache-tile-k",
      llvm::cl::desc("Reduction steps per matmul cache tile"),
      llvm::cl::init(256)};
  Option<int64_t> parallelWork{
      *this, "parallel-work",
      llvm::cl::desc("Estimated ns on one thread from which an op runs in "
                     "chunks that threads share (0: never)"),
      llvm::cl::init(150000)};
  Option<bool> packPanels{
      *this, "pack-panels",
      llvm::cl::desc("f32 matmuls whose B rows are a multiple of 2 KiB "
                     "apart, and bf16 ones on dot product pairs, pack B "
                     "into panels of a register tile's columns first"),
      llvm::cl::init(true)};
  Option<int64_t> streamingBytes{
      *this, "streaming-bytes",
      llvm::cl::desc("Buffers of at least this many bytes are written with "
                     "non-temporal stores"),
      llvm::cl::init(int64_t(32) << 20)};
};

/// Lowers a module of kiln functions to the LLVM dialect. Each public
/// function is an entry: `_mlir_ciface_NAME` takes a descriptor pointer per
/// argument, then per result (an out-parameter the caller allocates), and
/// `kiln_entry_NAME(void **)` takes those pointers as an array.
void buildKilnToCpuPipeline(mlir::OpPassManager &pm,
                            const KilnToCpuPipelineOptions &options);

/// Registers kiln-to-cpu-pipeline.
void registerKilnToCpuPipeline();

} // namespace kiln

#endif // KILN_LOWERING_CPU_PASSES_H
