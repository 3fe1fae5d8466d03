//===- Passes.h - entries, wrappers and contract checks ---------*- C++ -*-===//
//
// What every host's pipeline shares: preparing public functions as entries,
// the packed entry wrappers and signatures the runtime calls (its ABI), the
// contract check ending each stage, the pipeline halves every target
// shares, and naming the pass that failed.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_COMMON_PASSES_H
#define KILN_LOWERING_COMMON_PASSES_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class OpPassManager;
class PassManager;
} // namespace mlir

namespace kiln {

#define GEN_PASS_DECL
#include "lowering/common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/common/Passes.h.inc"

/// The last op of `block` that uses `buffer` (an alloc's result or an
/// argument) or a view of it, other than `ignored`; null if none does.
/// Fails if the buffer may escape (through an op that yields it, returns
/// another memref that may alias it, or takes its address) or is used
/// outside `block`.
mlir::FailureOr<mlir::Operation *>
lastUseInBlock(mlir::Value buffer, mlir::Block *block,
               mlir::Operation *ignored);

/// The buffer `value` views: the value behind its casts, views and strided
/// metadata (an alloc's result or an argument). kiln-free-after-last-use
/// and the memory report follow buffers through it.
mlir::Value viewedBuffer(mlir::Value value);

/// The attribute kiln-prepare-entries puts on each entry: its signature as
/// the runtime encodes it ({length, #args, #results, then per tensor:
/// kiln_dtype_t, rank, dims...}), which kiln-emit-entry-wrappers turns into
/// the global `kiln_signature_NAME`.
inline constexpr llvm::StringLiteral kEntrySignatureAttrName =
    "kiln.entry_signature";

/// The attribute kiln-prepare-entries puts on each entry: the alignment in
/// bytes (KILN_BUFFER_ALIGNMENT) of every buffer the runtime passes it, its
/// arguments and the out-parameters its results become.
inline constexpr llvm::StringLiteral kEntryAlignmentAttrName =
    "kiln.buffer_alignment";

/// Set by kiln-prepare-entries on an entry that reuses donated buffers:
/// for each result, the argument whose buffer it is written into, or -1.
inline constexpr llvm::StringLiteral kDonatedBuffersAttrName =
    "kiln.donated_buffers";

/// The runtime's dtype code (kiln_dtype_t) of a tensor element type, or -1
/// if the runtime has none for it.
int64_t runtimeDtypeCode(mlir::Type type);

/// For each result of entry `fn`, the argument whose buffer it reuses, or
/// -1: in argument order, each argument marked kiln.donate is given the
/// first result of its type that no earlier one took (as JAX matches
/// donated buffers).
llvm::SmallVector<int64_t> donatedBuffers(mlir::func::FuncOp fn);

/// One line per argument `fn` donates: which result reuses its buffer, or
/// why none does (kiln-compile --report=donation, the jit's log).
std::vector<std::string> donationReport(mlir::func::FuncOp fn);

/// The front half every target shares: transformations expanded, entries
/// prepared, kiln lowered to linalg on tensors (checked), canonicalized and,
/// with `fuseElementwise`, elementwise chains fused.
void buildKilnToLinalgPipeline(mlir::OpPassManager &pm, bool fuseElementwise,
                               bool laneReductions, bool windowProducts);

/// Bufferization as every target's runtime ABI wants it: buffers at function
/// boundaries with identity layouts, every result in its own buffer and
/// promoted to an out-parameter the caller allocates, deallocations placed,
/// and copies as linalg.copy.
void buildBufferizationPipeline(mlir::OpPassManager &pm);

/// Makes every pass failure in `pm` report the pass and the op it ran on.
void addPassFailureReport(mlir::PassManager &pm);

} // namespace kiln

#endif // KILN_LOWERING_COMMON_PASSES_H
