//===- KernelBuilder.cpp - building kernels from linalg ops ---------------===//
#include "KernelBuilder.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

Value kiln::index(ImplicitLocOpBuilder &b, int64_t value) {
  return arith::ConstantIndexOp::create(b, value);
}

gpu::LaunchOp kiln::launchKernel(ImplicitLocOpBuilder &b,
                                 std::array<int64_t, 3> grid, int64_t threads,
                                 TypeRange workgroup) {
  Value one = index(b, 1);
  auto launch = gpu::LaunchOp::create(
      b, index(b, grid[0]), index(b, grid[1]), index(b, grid[2]),
      index(b, threads), one, one, /*dynamicSharedMemorySize=*/nullptr,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{}, workgroup);
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(b);
  b.setInsertionPointToStart(&body);
  return launch;
}

SmallVector<Value> kiln::delinearize(ImplicitLocOpBuilder &b, Value flat,
                                     ArrayRef<int64_t> sizes) {
  SmallVector<Value> coordinates(sizes.size());
  for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
    Value size = index(b, sizes[d]);
    coordinates[d] = d == 0 ? flat : arith::RemUIOp::create(b, flat, size);
    if (d > 0)
      flat = arith::DivUIOp::create(b, flat, size);
  }
  return coordinates;
}

SmallVector<Value> kiln::indicesAt(ImplicitLocOpBuilder &b, AffineMap map,
                                   ValueRange ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      indices.push_back(ivs[dim.getPosition()]);
    else
      indices.push_back(affine::AffineApplyOp::create(
          b, AffineMap::get(map.getNumDims(), 0, expr), ivs));
  }
  return indices;
}

SmallVector<Value> kiln::clonePayload(ImplicitLocOpBuilder &b,
                                      linalg::LinalgOp op, ValueRange ivs,
                                      ValueRange inputs,
                                      ValueRange accumulators) {
  IRMapping mapping;
  for (auto [arg, value] : llvm::zip(op.getRegionInputArgs(), inputs))
    if (value)
      mapping.map(arg, value);
  mapping.map(op.getRegionOutputArgs(), accumulators);
  for (Operation &inner : op.getBlock()->without_terminator()) {
    if (auto loopIndex = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(loopIndex.getResult(), ivs[loopIndex.getDim()]);
      continue;
    }
    Operation *copy = b.clone(inner, mapping);
    auto fastMath = dyn_cast<arith::ArithFastMathInterface>(copy);
    if (!fastMath)
      continue;
    arith::FastMathFlagsAttr flags = fastMath.getFastMathFlagsAttr();
    copy->setAttr(fastMath.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(
                      b.getContext(),
                      (flags ? flags.getValue() : arith::FastMathFlags::none) |
                          arith::FastMathFlags::contract));
  }
  SmallVector<Value> yielded;
  for (Value value : op.getBlock()->getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(value));
  return yielded;
}

SmallVector<Value> kiln::emitPayload(ImplicitLocOpBuilder &b,
                                     linalg::LinalgOp op, ValueRange ivs,
                                     ValueRange accumulators) {
  SmallVector<Value> inputs;
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(input);
    Value source = input->get();
    if (arg.use_empty() || !isa<MemRefType>(source.getType()))
      inputs.push_back(arg.use_empty() ? Value() : source);
    else
      inputs.push_back(memref::LoadOp::create(
          b, source, indicesAt(b, op.getMatchingIndexingMap(input), ivs)));
  }
  return clonePayload(b, op, ivs, inputs, accumulators);
}
