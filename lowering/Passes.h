//===- Passes.h - the kiln lowering passes and pipelines -------*- C++ -*-===//
#ifndef KILN_LOWERING_PASSES_H
#define KILN_LOWERING_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
class PassManager;
class RewritePatternSet;
} // namespace mlir

namespace kiln {

#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

/// The attribute kiln-prepare-entries puts on each entry: its signature as
/// the runtime encodes it ({length, #args, #results, then per tensor:
/// kiln_dtype_t, rank, dims...}), which kiln-emit-entry-wrappers turns into
/// the global `kiln_signature_NAME`.
inline constexpr llvm::StringLiteral kEntrySignatureAttrName =
    "kiln.entry_signature";

/// The runtime's dtype code (kiln_dtype_t) of a tensor element type, or -1
/// if the runtime has none for it.
int64_t runtimeDtypeCode(mlir::Type type);

/// Patterns lowering the kiln op families; together they lower every
/// primitive op.
void populateElementwiseToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateShapeToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateComputeToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateControlFlowToScfPatterns(mlir::RewritePatternSet &patterns);
/// All of the above.
void populateKilnToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// f32 math.sin and math.cos as polynomials after a range reduction that is
/// exact over the whole f32 range (used by kiln-approximate-math).
void populateSinCosApproximationPatterns(mlir::RewritePatternSet &patterns);

/// The stages of kiln-to-cpu-pipeline, each ending in IR one can print.
enum class CpuStage {
  /// linalg, tensor, arith, math and scf on tensors, elementwise ops fused.
  Linalg,
  /// Bufferized: loops over memrefs, results as out-parameters.
  Loops,
  /// The LLVM dialect with the runtime's entry wrappers.
  LLVM,
};

/// Options of kiln-to-cpu-pipeline.
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
};

/// Lowers a module of kiln functions to the LLVM dialect. Each public
/// function is an entry: `_mlir_ciface_NAME` takes a descriptor pointer per
/// argument, then per result (an out-parameter the caller allocates), and
/// `kiln_entry_NAME(void **)` takes those pointers as an array.
void buildKilnToCpuPipeline(mlir::OpPassManager &pm,
                            const KilnToCpuPipelineOptions &options);

/// Makes every pass failure in `pm` report the pass and the op it ran on.
void addPassFailureReport(mlir::PassManager &pm);

/// Registers the kiln dialect and everything the kiln pipelines use or
/// produce: dialects, external interface models, LLVM IR translations.
void registerKilnCompilerDialects(mlir::DialectRegistry &registry);

/// Registers the lowering passes and kiln-to-cpu-pipeline.
void registerKilnLoweringPassesAndPipelines();

} // namespace kiln

#endif // KILN_LOWERING_PASSES_H
