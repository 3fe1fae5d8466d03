//===- KilnLowerForalls.cpp - the kiln-lower-foralls pass -----------------===//
#include "Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNLOWERFORALLS
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace {

/// The buffers allocated anywhere in `loop`'s body if threads may run its
/// iterations, else nullopt.
/// Threads may run them if `loop` is not inside a loop already run by
/// threads, calls no function (which may allocate: a failed allocation
/// jumps out of the call on the calling thread) and allocates only
/// statically shaped buffers, freed in the body, of at most
/// kiln::kThreadBufferBytes in all, which become per-thread stack buffers.
std::optional<SmallVector<memref::AllocOp>>
threadBuffers(scf::ForallOp loop) {
  if (loop->getParentOfType<omp::ParallelOp>())
    return std::nullopt;
  SmallVector<memref::AllocOp> buffers;
  int64_t bytes = 0;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (isa<memref::ReallocOp, CallOpInterface>(op))
      return WalkResult::interrupt();
    auto alloc = dyn_cast<memref::AllocOp>(op);
    if (!alloc)
      return WalkResult::advance();
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat() ||
        llvm::any_of(alloc->getUsers(), [&](Operation *user) {
          return isa<memref::DeallocOp>(user) &&
                 user->getBlock() != alloc->getBlock();
        }))
      return WalkResult::interrupt();
    bytes += kiln::storageBytes(type);
    buffers.push_back(alloc);
    return bytes <= kiln::kThreadBufferBytes ? WalkResult::advance()
                                             : WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return buffers;
}

/// Replaces the bufferized `loop` by an OpenMP parallel region whose threads
/// share its iterations (a static schedule: contiguous blocks of them);
/// `buffers`, allocated in its body, become stack buffers each thread
/// allocates once, before its iterations.
void lowerToOpenMP(RewriterBase &rewriter, scf::ForallOp loop,
                   ArrayRef<memref::AllocOp> buffers) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  omp::LoopNestOperands bounds;
  bounds.loopLowerBounds = getValueOrCreateConstantIndexOp(
      rewriter, loc, loop.getMixedLowerBound());
  bounds.loopUpperBounds = getValueOrCreateConstantIndexOp(
      rewriter, loc, loop.getMixedUpperBound());
  bounds.loopSteps =
      getValueOrCreateConstantIndexOp(rewriter, loc, loop.getMixedStep());

  auto parallel = omp::ParallelOp::create(rewriter, loc, omp::ParallelOperands{});
  rewriter.createBlock(&parallel.getRegion());
  for (memref::AllocOp alloc : buffers) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        rewriter.eraseOp(user);
    rewriter.replaceOp(alloc, memref::AllocaOp::create(
                                  rewriter, alloc.getLoc(), alloc.getType(),
                                  alloc.getAlignmentAttr()));
  }
  // No barrier after the loop: the end of the parallel region is one.
  omp::WsloopOperands schedule;
  schedule.nowait = rewriter.getUnitAttr();
  auto wsloop = omp::WsloopOp::create(rewriter, loc, schedule);
  omp::TerminatorOp::create(rewriter, loc);
  rewriter.createBlock(&wsloop.getRegion());
  auto nest = omp::LoopNestOp::create(rewriter, loc, bounds);
  rewriter.inlineRegionBefore(loop.getRegion(), nest.getRegion(),
                              nest.getRegion().begin());
  Operation *terminator = nest.getRegion().front().getTerminator();
  rewriter.setInsertionPoint(terminator);
  rewriter.replaceOpWithNewOp<omp::YieldOp>(terminator, ValueRange());
  rewriter.eraseOp(loop);
}

struct KilnLowerForallsPass
    : kiln::impl::KilnLowerForallsBase<KilnLowerForallsPass> {
  void runOnOperation() override {
    // Outermost first: whether a loop runs on threads depends on the loop
    // around it, lowered before it.
    SmallVector<scf::ForallOp> loops;
    getOperation()->walk<WalkOrder::PreOrder>(
        [&](scf::ForallOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForallOp loop : loops) {
      if (!loop.getOutputs().empty()) {
        loop.emitOpError("kiln-lower-foralls: expected a bufferized loop "
                         "(no shared outputs)");
        return signalPassFailure();
      }
      if (std::optional<SmallVector<memref::AllocOp>> buffers =
              threadBuffers(loop)) {
        lowerToOpenMP(rewriter, loop, *buffers);
        continue;
      }
      rewriter.setInsertionPoint(loop);
      if (failed(scf::forallToForLoop(rewriter, loop))) {
        loop.emitOpError("kiln-lower-foralls: cannot lower this loop");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
