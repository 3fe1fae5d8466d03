//===- Passes.td - mapping to the gpu dialect ---------------*- tablegen -*-===//
#ifndef KILN_LOWERING_GPU_PASSES_TD
#define KILN_LOWERING_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnGpuMapParallelLoops : Pass<"kiln-gpu-map-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Map each outermost scf.parallel to blocks and threads";
  let description = [{
    Every outermost `scf.parallel` (one per linalg op after
    `convert-linalg-to-parallel-loops`) is collapsed to one dimension,
    row-major, so that neighbouring threads touch neighbouring elements of
    the innermost dimension (coalesced accesses) whatever the rank, and
    tiled by `block-size`: the tile loop goes to block x, the loop inside a
    tile to thread x. `convert-parallel-loops-to-gpu` then makes
    `gpu.launch` ops. A nest of `scf.parallel` loops is reported (Kiln's
    linalg lowering makes one loop per op).

    Example:

    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c1000, %c300) step (%c1, %c1)
    // becomes one loop over 300000 elements, tiled by 256, mapped
    // {block_x} and {thread_x}
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::affine::AffineDialect"
  ];
}

def KilnGpuLaunchHostCode : Pass<"kiln-gpu-launch-host-code", "::mlir::ModuleOp"> {
  let summary = "Run the memory accesses left in host code in one-thread kernels";
  let description = [{
    After mapping, what reads or writes buffers outside a `gpu.launch` is
    scalar code: rank-0 ops, reductions to a scalar, the predicates of
    `scf.if` and `scf.while`. Buffers live on the device, so in every block
    of host code each maximal run of such accesses (with the pure ops that
    compute from them) moves into a `gpu.launch` of one thread. A scalar
    the host needs afterwards (a loop's condition) is stored to a device
    buffer in the kernel and copied back with `gpu.memcpy`.

    Example:

    ```mlir
    %v = memref.load %a[] : memref<f32>
    %c = arith.cmpf olt, %v, %w : f32
    scf.condition(%c) ...
    // becomes
    gpu.launch blocks(...) in (1, 1, 1) threads(...) in (1, 1, 1) {
      ... memref.store %c, %scratch[] : memref<i1> ...
    }
    gpu.memcpy %host, %scratch : memref<i1>, memref<i1>
    %c2 = memref.load %host[] : memref<i1>
    scf.condition(%c2) ...
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect"
  ];
}

def KilnGpuDeviceBuffers : Pass<"kiln-gpu-device-buffers", "::mlir::ModuleOp"> {
  let summary = "Allocate host code's buffers on the device";
  let description = [{
    Host code's `memref.alloc` and `memref.dealloc` become `gpu.alloc` and
    `gpu.dealloc`; each constant (`memref.get_global`) is copied to a
    device buffer at the start of the function that uses it and freed
    before it returns. `gpu-async-region` then orders them on one stream
    with the kernel launches.

    Example:

    ```mlir
    %0 = memref.get_global @c : memref<4xf32>
    // becomes, at the function's start
    %0 = gpu.alloc () : memref<4xf32>
    %g = memref.get_global @c : memref<4xf32>
    gpu.memcpy %0, %g : memref<4xf32>, memref<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect"
  ];
}

#endif // KILN_LOWERING_GPU_PASSES_TD
