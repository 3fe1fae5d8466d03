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

def KilnGpuTileMatmuls : Pass<"kiln-gpu-tile-matmuls", "::mlir::func::FuncOp"> {
  let summary = "Launch tiled kernels for linalg contractions, staging tiles in workgroup memory";
  let description = [{
    A linalg contraction on buffers with one m, n and k loop (and at most
    one batch loop, mapped to block z), whatever its operands' layouts
    (`linalg.matmul`, `batch_matmul`, transposed operands as generics),
    becomes a kernel of 16x16-thread blocks, each computing a tile of
    (16 `thread-rows`) x (16 `thread-columns`) outputs: for every step of
    16 along k the block stages the A and B tiles in workgroup memory
    (zero past the operands' edges, so any size works), then each thread
    folds them into its `thread-rows` x `thread-columns` outputs held in
    registers with the op's own payload (contracted to fma), and finally
    writes the outputs inside the result.

    With `tensor-cores`, a contraction of bf16 operands accumulated in f32
    runs on tensor cores instead: blocks of four warps compute 64x64 tiles
    with `nvvm.mma.sync` m16n8k16, the tiles staged in workgroup memory as
    packed bf16 pairs.

    Example:

    ```mlir
    linalg.matmul ins(%a, %b : memref<1000x300xf32>, memref<300x500xf32>)
                  outs(%c : memref<1000x500xf32>)
    // becomes gpu.launch blocks in (8, 16, 1) threads in (256, 1, 1)
    //   workgroup(memref<64x16xf32, 3>, memref<16x64xf32, 3>)
    ```
  }];
  let options = [
    Option<"threadRows", "thread-rows", "int64_t", "4",
           "Output rows per thread">,
    Option<"threadColumns", "thread-columns", "int64_t", "4",
           "Output columns per thread">,
    Option<"tensorCores", "tensor-cores", "bool", "true",
           "Run bf16 products accumulated in f32 on tensor cores "
           "(mma.sync, sm_80 and later)">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::affine::AffineDialect",
    "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect"
  ];
}

def KilnGpuMapReductions : Pass<"kiln-gpu-map-reductions", "::mlir::func::FuncOp"> {
  let summary = "Launch kernels for linalg reductions: warps for rows, a thread per output otherwise";
  let description = [{
    A linalg op on buffers with reduction loops becomes kernels here (the
    rest becomes parallel loops later):

    - When its innermost loop is a reduction and its one output combines
      with a known associative op (`arith.addf`, `maximumf`, `addi`, ...),
      a group of 32 to 256 threads reduces each output: the lanes stride
      over the reduced elements (coalesced for rows), combine as a tree of
      `gpu.shuffle xor`, and the warps of a group through workgroup memory.
      When the outputs are too few to fill the GPU, each output's elements
      are split over several groups whose partial results a second kernel
      combines.
    - Otherwise (a reduction over leading dimensions, a contraction, an
      argmax) one thread computes each output: an `scf.parallel` over the
      output's elements whose body keeps the accumulators in registers
      over the reduced elements, mapped to blocks and threads later.

    Example:

    ```mlir
    linalg.reduce ins(%x : memref<4096x4096xf32>) outs(%y : memref<4096xf32>)
        dimensions = [1] (%in: f32, %acc: f32) { arith.addf ... }
    // becomes a gpu.launch of 4096 blocks of 256 threads, one row each
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::affine::AffineDialect",
    "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect"
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
