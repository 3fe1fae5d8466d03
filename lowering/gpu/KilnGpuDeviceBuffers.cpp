//===- KilnGpuDeviceBuffers.cpp - kiln-gpu-device-buffers -----------------===//
#include "Passes.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNGPUDEVICEBUFFERS
#include "lowering/gpu/Passes.h.inc"
} // namespace kiln

namespace {
/// Whether `op` runs on the host (not inside a kernel).
bool onHost(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

/// The allocations and deallocations of `function`'s host code on the
/// device.
void allocateOnDevice(func::FuncOp function, IRRewriter &rewriter) {
  function.walk([&](memref::AllocOp alloc) {
    if (!onHost(alloc))
      return;
    rewriter.setInsertionPoint(alloc);
    rewriter.replaceOpWithNewOp<gpu::AllocOp>(
        alloc, alloc.getType(), /*asyncToken=*/Type(),
        /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
        alloc.getSymbolOperands(), /*hostShared=*/false);
  });
  function.walk([&](memref::DeallocOp dealloc) {
    if (!onHost(dealloc))
      return;
    rewriter.setInsertionPoint(dealloc);
    rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
        dealloc, /*asyncToken=*/Type(), /*asyncDependencies=*/ValueRange(),
        dealloc.getMemref());
  });
}

/// Copies every constant `function` uses to the device at its start and
/// frees the copies before each return.
void copyConstantsToDevice(func::FuncOp function, IRRewriter &rewriter) {
  SmallVector<memref::GetGlobalOp> constants;
  function.walk([&](memref::GetGlobalOp global) {
    if (onHost(global))
      constants.push_back(global);
  });
  if (constants.empty())
    return;
  Block &entry = function.getBody().front();
  SmallVector<Value> copies;
  for (memref::GetGlobalOp global : constants) {
    Location loc = global.getLoc();
    rewriter.setInsertionPointToStart(&entry);
    auto device = gpu::AllocOp::create(rewriter, loc, global.getType(),
                                       Type(), ValueRange(), ValueRange(),
                                       ValueRange(), false);
    global->moveAfter(device);
    rewriter.setInsertionPointAfter(global);
    gpu::MemcpyOp::create(rewriter, loc, TypeRange(), ValueRange(),
                          device.getMemref(), global.getResult());
    rewriter.replaceAllUsesExcept(global.getResult(), device.getMemref(),
                                  global->getNextNode());
    copies.push_back(device.getMemref());
  }
  function.walk([&](func::ReturnOp ret) {
    rewriter.setInsertionPoint(ret);
    for (Value copy : copies)
      gpu::DeallocOp::create(rewriter, ret.getLoc(), Type(), ValueRange(),
                             copy);
  });
}

struct KilnGpuDeviceBuffersPass
    : kiln::impl::KilnGpuDeviceBuffersBase<KilnGpuDeviceBuffersPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      allocateOnDevice(function, rewriter);
      copyConstantsToDevice(function, rewriter);
    }
  }
};
} // namespace
