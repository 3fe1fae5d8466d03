//===- KilnComputePartsInPlace.cpp - the kiln-compute-parts-in-place pass -===//
#include "Passes.h"

#include "mlir/Interfaces/SubsetOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNCOMPUTEPARTSINPLACE
#include "lowering/common/Passes.h.inc"
} // namespace kiln

namespace {
struct KilnComputePartsInPlacePass
    : kiln::impl::KilnComputePartsInPlaceBase<KilnComputePartsInPlacePass> {
  void runOnOperation() override {
    Operation *module = getOperation();
    // The analysis bufferization runs (buildBufferizationPipeline's
    // options): arguments are read-only but where donated.
    bufferization::OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.allowReturnAllocsFromLoops = true;
    bufferization::OneShotAnalysisState state(module, options);
    if (failed(bufferization::analyzeModuleOp(module, state)))
      return signalPassFailure();
    // Only insert_slice: a materialize_in_destination into a donated
    // argument must stay free to be copied.
    auto intoSlices = [](RewriterBase &rewriter,
                         SubsetInsertionOpInterface insertion,
                         tensor::EmptyOp empty, Operation *user) -> Value {
      if (!isa<tensor::InsertSliceOp>(insertion.getOperation()))
        return Value();
      return bufferization::buildSubsetExtraction(rewriter, insertion, empty,
                                                  user);
    };
    IRRewriter rewriter(&getContext());
    if (failed(bufferization::eliminateEmptyTensors(rewriter, module, state,
                                                    intoSlices)))
      signalPassFailure();
  }
};
} // namespace
