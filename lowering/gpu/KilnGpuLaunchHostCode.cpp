//===- KilnGpuLaunchHostCode.cpp - kiln-gpu-launch-host-code --------------===//
//
// Host code must not touch device buffers. What still loads or stores
// outside a kernel after mapping (scalar code) runs in a one-thread kernel;
// values the host needs come back through a device scratch buffer.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNGPULAUNCHHOSTCODE
#include "lowering/gpu/Passes.h.inc"
} // namespace kiln

namespace {
/// How an op of host code takes part in a one-thread kernel.
enum class Role {
  /// Reads or writes buffer elements: must run on the device.
  Access,
  /// Computes from its operands alone: joins a kernel when it uses a
  /// value computed there.
  Pure,
  /// Makes a view of a buffer (a dynamic_slice's subview): stays on the
  /// host, which needs the view; scalars it takes from a kernel (offsets)
  /// come back to the host.
  View,
  /// Anything else (allocations, launches, control flow around launches,
  /// terminators): stays on the host and ends a kernel.
  Host,
};

bool isAccess(Operation *op) {
  return isa<memref::LoadOp, memref::StoreOp>(op);
}

Role roleOf(Operation *op) {
  if (isa<gpu::LaunchOp>(op) || op->hasTrait<OpTrait::IsTerminator>())
    return Role::Host;
  if (isAccess(op))
    return Role::Access;
  if (op->getNumRegions() == 0 && isMemoryEffectFree(op))
    return llvm::any_of(op->getResultTypes(), llvm::IsaPred<MemRefType>)
               ? Role::View
               : Role::Pure;
  if (op->getNumRegions() == 0)
    return Role::Host;
  bool launches = false, accesses = false, hostEffects = false;
  op->walk([&](Operation *nested) {
    launches |= isa<gpu::LaunchOp>(nested);
    accesses |= isAccess(nested);
    hostEffects |= isa<memref::AllocOp, memref::DeallocOp,
                       memref::AllocaOp>(nested);
  });
  if (launches || hostEffects || !accesses)
    return Role::Host;
  return Role::Access;
}

/// Moves `ops` (in order, from one block) into a one-thread gpu.launch
/// placed after the last of them; scalars used after it come back through
/// a device scratch buffer and a host copy.
LogicalResult launchOnOneThread(ArrayRef<Operation *> ops) {
  Operation *last = ops.back();
  OpBuilder builder(last->getContext());
  builder.setInsertionPointAfter(last);
  Location loc = ops.front()->getLoc();
  llvm::SetVector<Value> escaping;
  llvm::SmallPtrSet<Operation *, 16> inKernel(ops.begin(), ops.end());
  for (Operation *op : ops)
    for (Value result : op->getResults())
      for (OpOperand &use : result.getUses())
        if (!inKernel.contains(use.getOwner()))
          escaping.insert(result);
  SmallVector<Value> scratch;
  for (Value value : escaping) {
    if (!value.getType().isIntOrIndexOrFloat())
      return ops.front()->emitOpError("computes a ")
             << value.getType()
             << " that host code uses; only scalars can leave a kernel";
    scratch.push_back(memref::AllocOp::create(
        builder, loc, MemRefType::get({}, value.getType())));
  }
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto launch = gpu::LaunchOp::create(builder, loc, one, one, one, one, one,
                                      one);
  Block &body = launch.getBody().front();
  OpBuilder inside = OpBuilder::atBlockEnd(&body);
  auto terminator = gpu::TerminatorOp::create(inside, loc);
  for (Operation *op : ops)
    op->moveBefore(terminator);
  inside.setInsertionPoint(terminator);
  for (auto [value, buffer] : llvm::zip(escaping, scratch))
    memref::StoreOp::create(inside, loc, value, buffer);
  builder.setInsertionPointAfter(launch);
  for (auto [escaped, buffer] : llvm::zip(escaping, scratch)) {
    Value value = escaped;
    // At the function's start: in a loop, an alloca would grow the stack
    // every iteration.
    Block &entry = launch->getParentOfType<func::FuncOp>().getBody().front();
    OpBuilder atEntry = OpBuilder::atBlockBegin(&entry);
    Value host = memref::AllocaOp::create(
        atEntry, loc, cast<MemRefType>(buffer.getType()));
    gpu::MemcpyOp::create(builder, loc, TypeRange(), ValueRange(), host,
                          buffer);
    Value copy = memref::LoadOp::create(builder, loc, host);
    memref::DeallocOp::create(builder, loc, buffer);
    value.replaceUsesWithIf(copy, [&](OpOperand &use) {
      return !launch->isProperAncestor(use.getOwner());
    });
  }
  return success();
}

/// Groups the ops of `block` into runs that must run on the device and
/// launches each; recurses into the regions of ops that stay on the host.
LogicalResult launchHostCode(Block &block) {
  SmallVector<Operation *> run;
  llvm::SmallPtrSet<Operation *, 16> inRun;
  auto flush = [&]() -> LogicalResult {
    LogicalResult result = success();
    if (!run.empty())
      result = launchOnOneThread(run);
    run.clear();
    inRun.clear();
    return result;
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    Role role = roleOf(&op);
    bool usesRun = llvm::any_of(op.getOperands(), [&](Value operand) {
      return inRun.contains(operand.getDefiningOp());
    });
    if (role == Role::Access || (role == Role::Pure && usesRun)) {
      run.push_back(&op);
      inRun.insert(&op);
      continue;
    }
    if (role == Role::Pure)
      continue;
    if (role == Role::View) {
      if (usesRun && failed(flush()))
        return failure();
      continue;
    }
    if (failed(flush()))
      return failure();
    if (isa<gpu::LaunchOp>(op))
      continue;
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        if (failed(launchHostCode(nested)))
          return failure();
  }
  return flush();
}

struct KilnGpuLaunchHostCodePass
    : kiln::impl::KilnGpuLaunchHostCodeBase<KilnGpuLaunchHostCodePass> {
  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>())
      for (Block &block : function.getBody())
        if (failed(launchHostCode(block)))
          return signalPassFailure();
  }
};
} // namespace
