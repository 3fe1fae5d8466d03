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

/// Whether threads may run the iterations of `loop`: it is not inside a
/// loop already run by threads, and nothing in it allocates heap memory
/// (whose failure jumps out of the call on the calling thread) or calls a
/// function (which may).
bool mayRunOnThreads(scf::ForallOp loop) {
  if (loop->getParentOfType<omp::ParallelOp>())
    return false;
  WalkResult found = loop.getBody()->walk([](Operation *op) {
    return isa<memref::AllocOp, memref::ReallocOp, CallOpInterface>(op)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return !found.wasInterrupted();
}

/// Replaces the bufferized `loop` by an OpenMP parallel region whose threads
/// share its iterations (a static schedule: contiguous blocks of them).
void lowerToOpenMP(RewriterBase &rewriter, scf::ForallOp loop) {
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
      if (mayRunOnThreads(loop)) {
        lowerToOpenMP(rewriter, loop);
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
