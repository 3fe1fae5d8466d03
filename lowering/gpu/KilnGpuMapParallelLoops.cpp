//===- KilnGpuMapParallelLoops.cpp - kiln-gpu-map-parallel-loops ----------===//
#include "Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNGPUMAPPARALLELLOOPS
#include "lowering/gpu/Passes.h.inc"
} // namespace kiln

namespace {
/// Maps the one dimension of `loop` to `processor`.
LogicalResult mapLoop(scf::ParallelOp loop, gpu::Processor processor) {
  MLIRContext *context = loop.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  return gpu::setMappingAttr(
      loop, {gpu::ParallelLoopDimMappingAttr::get(context, processor,
                                                   identity, identity)});
}

struct KilnGpuMapParallelLoopsPass
    : kiln::impl::KilnGpuMapParallelLoopsBase<KilnGpuMapParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        outermost.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : outermost)
      if (failed(mapToBlocksAndThreads(rewriter, loop)))
        return signalPassFailure();
  }

  LogicalResult mapToBlocksAndThreads(IRRewriter &rewriter,
                                      scf::ParallelOp loop) {
    // Kiln's linalg lowering makes one loop per op; a nest would need its
    // inner loops made sequential, which convert-parallel-loops-to-gpu
    // does not do under the bounds check tiling adds.
    WalkResult nested = loop.getBody()->walk([](scf::ParallelOp inner) {
      inner.emitOpError("is nested in another scf.parallel, which "
                        "kiln-gpu-map-parallel-loops does not map yet");
      return WalkResult::interrupt();
    });
    if (nested.wasInterrupted())
      return failure();
    if (loop.getNumLoops() > 1) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0);
      // The collapsed loop replaces `loop`, after the bounds it computes.
      Operation *before = loop->getPrevNode();
      Block *block = loop->getBlock();
      collapseParallelLoops(rewriter, loop, {all});
      Operation *next = before ? before->getNextNode() : &block->front();
      while (!isa<scf::ParallelOp>(next))
        next = next->getNextNode();
      loop = cast<scf::ParallelOp>(next);
    }
    auto [blocks, threads] =
        scf::tileParallelLoop(loop, {blockSize}, /*noMinMaxBounds=*/true);
    if (failed(mapLoop(blocks, gpu::Processor::BlockX)) ||
        failed(mapLoop(threads, gpu::Processor::ThreadX)))
      return blocks.emitOpError("cannot be mapped to blocks and threads");
    return success();
  }
};
} // namespace
