//===- Passes.td - the kiln lowering passes ----------------*- tablegen -*-===//
#ifndef KILN_LOWERING_PASSES_TD
#define KILN_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertKilnToLinalg : Pass<"convert-kiln-to-linalg"> {
  let summary = "Lower kiln primitive ops to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites every primitive kiln op into upstream ops on tensors, split by
    op family: elementwise ops become linalg.generic, data movement becomes
    tensor slices and linalg ops, `dot_general` becomes `linalg.matmul`,
    `linalg.batch_matmul` or a contraction, reductions `linalg.reduce`,
    `cond` and `while` become `scf.if` and `scf.while`. Transformation ops
    (`kiln.grad`, ...) are left in place for the contract check to report.

    Example:

    ```mlir
    %y = kiln.exp %x : tensor<4xf32>
    // becomes
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def KilnCheckContract : Pass<"kiln-check-contract", "::mlir::ModuleOp"> {
  let summary = "Fail, naming the op, if an op outside a stage's dialects is left";
  let description = [{
    The check at each pipeline boundary: every op must belong to one of
    `allowed-dialects`. The first op that does not is reported at its
    location with the stage's name, e.g.

    ```
    error: 'kiln.grad' was left unlowered by kiln-to-linalg: transformation
    ops must be expanded first, which Kiln does not do yet
    ```
  }];
  let options = [
    ListOption<"allowedDialects", "allowed-dialects", "std::string",
               "Dialects whose ops may remain after the stage">,
    Option<"stage", "stage", "std::string", "\"lowering\"",
           "The stage named in the diagnostic">
  ];
}

def KilnFuseElementwise : Pass<"kiln-fuse-elementwise"> {
  let summary = "Fuse chains of elementwise linalg ops into bounded loop bodies";
  let description = [{
    linalg's elementwise fusion (producers with one use are merged into
    their consumers, splat constants folded in), with the fused body
    bounded by `max-body-ops`: fusing copies the producer's body, so
    unbounded fusion of a chain of n ops costs O(n^2) compile time. A longer
    chain becomes several loops, each over `max-body-ops` ops.

    Example:

    ```mlir
    %e = linalg.generic ... ins(%x) { math.exp } -> tensor<8xf32>
    %t = linalg.generic ... ins(%e) { math.tanh } -> tensor<8xf32>
    // becomes one linalg.generic computing tanh(exp(x))
    ```
  }];
  let options = [
    Option<"maxBodyOps", "max-body-ops", "int64_t", "256",
           "The most ops a fused body may hold">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def KilnApproximateMath : Pass<"kiln-approximate-math"> {
  let summary = "Replace transcendental math ops with polynomial approximations";
  let description = [{
    Rewrites `math.exp`, `math.tanh`, `math.log`, `math.sin`, ... on f32
    (scalars and vectors) into arithmetic with MLIR's polynomial
    approximations, so that loops over them vectorize instead of calling
    scalar libm functions. f16 and bf16 math is computed in f32.

    Example:

    ```mlir
    %y = math.tanh %x : vector<16xf32>
    // becomes a clamped rational polynomial in %x of arith ops
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def KilnWidenNarrowMath : Pass<"kiln-widen-narrow-math"> {
  let summary = "Compute math ops on bf16 and f16 in f32, select their bits";
  let description = [{
    Every math op (abs, copysign, floor, ceil, sqrt, ...) whose operands and
    result are bf16 or f16, scalar or vector, becomes the same op on f32
    between `arith.extf` and `arith.truncf`. That is exact for these ops
    (f32 has more than twice the bits), and LLVM cannot legalize some
    odd-sized vectors of bf16 ("soft promote"). Arithmetic is widened the
    same way by upstream's arith-emulate-unsupported-floats; a select of
    such vectors selects their bits as i16.

    Example:

    ```mlir
    %y = math.absf %x : vector<17xbf16>
    // becomes
    %w = arith.extf %x : vector<17xbf16> to vector<17xf32>
    %a = math.absf %w : vector<17xf32>
    %y = arith.truncf %a : vector<17xf32> to vector<17xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def KilnPrepareEntries : Pass<"kiln-prepare-entries", "::mlir::ModuleOp"> {
  let summary = "Mark public functions as entry points: read-only arguments, C interface";
  let description = [{
    Runs before bufferization. Each public `func.func` with a body is an
    entry point the runtime calls: its arguments belong to the caller, so
    they are marked `bufferization.writable = false` (bufferization copies
    instead of writing into them), and it gets `llvm.emit_c_interface`, so
    that the LLVM lowering emits `_mlir_ciface_NAME`, taking each memref as a
    pointer to its descriptor. A function that reaches itself through calls
    or transformation ops is reported at its location: recursion cannot be
    compiled.

    Example:

    ```mlir
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32>
    // becomes
    func.func @f(%a: tensor<4xf32> {bufferization.writable = false})
        -> tensor<4xf32> attributes {llvm.emit_c_interface}
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def KilnEmitEntryWrappers : Pass<"kiln-emit-entry-wrappers", "::mlir::ModuleOp"> {
  let summary = "Give each C interface a packed entry the runtime calls";
  let description = [{
    For every `_mlir_ciface_NAME` in the LLVM dialect, adds
    `kiln_entry_NAME(ptr %args)`, which loads one descriptor pointer per
    argument (then per result out-parameter) from the array `%args`, calls
    `_mlir_ciface_NAME` with them, and ends with a full fence, so that the
    results of streaming stores are visible to other threads once the call
    returns. The runtime calls every entry this one way, whatever its
    signature.

    Example:

    ```mlir
    llvm.func @_mlir_ciface_f(%a: !llvm.ptr, %out: !llvm.ptr)
    // gains
    llvm.func @kiln_entry_f(%args: !llvm.ptr) {
      %p0 = llvm.getelementptr %args[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
      %a = llvm.load %p0 : !llvm.ptr -> !llvm.ptr
      ...
      llvm.call @_mlir_ciface_f(%a, %out) : (!llvm.ptr, !llvm.ptr) -> ()
      llvm.fence seq_cst
      llvm.return
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def KilnCopyRepeatedResults
    : Pass<"kiln-copy-repeated-results", "::mlir::ModuleOp"> {
  let summary = "Give a buffer returned more than once a copy per extra result";
  let description = [{
    Runs after bufferization, before results become out-parameters. A
    function may return one value several times (`return %h, %h`, common in
    scan bodies, or two results that canonicalization folded into one);
    every result must own its buffer, so each repetition after the first
    returns a fresh copy.

    Example:

    ```mlir
    return %m, %m : memref<4xf32>, memref<4xf32>
    // becomes
    %c = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    memref.copy %m, %c : memref<4xf32> to memref<4xf32>
    return %m, %c : memref<4xf32>, memref<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def KilnCopiesToLinalg : Pass<"kiln-copies-to-linalg"> {
  let summary = "Rewrite memref.copy as linalg.copy";
  let description = [{
    Bufferization copies strided views with `memref.copy`, which the LLVM
    lowering turns into calls of `memrefCopy` from MLIR's C runner
    library. Compiled Kiln code needs nothing from outside but the
    runtime's allocation functions, so the copies become `linalg.copy`,
    which lowers to loops like any other linalg op.

    Example:

    ```mlir
    memref.copy %a, %b : memref<2xf32, strided<[2]>> to memref<2xf32>
    // becomes
    linalg.copy ins(%a : memref<2xf32, strided<[2]>>) outs(%b : memref<2xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def KilnTileAndVectorize : Pass<"kiln-tile-and-vectorize"> {
  let summary = "Tile linalg ops on tensors for the CPU and vectorize the tiles";
  let description = [{
    The CPU schedule, on tensors before bufferization:

    - all-parallel ops (fused elementwise chains, fills, broadcasts,
      transposes) and `linalg.reduce` are tiled to one row of up to
      `vector-width` elements along the innermost dimension (a width that
      divides it) and each tile becomes vector code (a reduction's tiles
      accumulate into its result in order);
    - `linalg.matmul` and `linalg.batch_matmul` (one batch at a time)
      accumulating in f32 (from f32, bf16 or f16) whose M is a multiple of
      8 and N of 32 is tiled
      for the caches (64 x 256 x 256 where those divide) and then into 8 x 32
      register tiles over single k steps, each a `vector.contract`, which
      kiln-lower-vectors turns into FMAs on an accumulator kept in registers.

    Other ops are left for the loop lowering.

    Example:

    ```mlir
    %y = linalg.generic ... ins(%x : tensor<1024xf32>) ... -> tensor<1024xf32>
    // becomes
    %y = scf.for %i = %c0 to %c1024 step %c64 iter_args(%acc = %init) {
      %v = vector.transfer_read %x[%i] ... : tensor<1024xf32>, vector<64xf32>
      ...
      vector.transfer_write %r, %acc[%i] : vector<64xf32>, tensor<1024xf32>
    }
    ```
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", "64",
           "Elements per vector tile of an elementwise op">
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def KilnLowerVectors : Pass<"kiln-lower-vectors"> {
  let summary = "Lower vector ops after bufferization to what LLVM compiles well";
  let description = [{
    On memrefs: folds subviews into the loads and stores that use them, so
    that loop-invariant vector transfers (matmul accumulators) are hoisted
    out of their loops, then lowers `vector.contract` to outer products and
    FMAs, unrolls n-D vector transfers into 1-D ones and those into vector
    loads and stores. Stores of whole aligned cache lines into buffers of
    32 MiB or more are non-temporal, so that streaming loops do not read the
    lines they overwrite (entry arguments are 64-byte aligned: the runtime's
    buffers are).

    Example:

    ```mlir
    %c = vector.contract {...} %a, %b, %acc
        : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    // becomes broadcasts and vector.fma on vector<32xf32> rows
    ```
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // KILN_LOWERING_PASSES_TD
