//===- Passes.td - entries, wrappers and contract checks -*- tablegen -*-===//
#ifndef KILN_LOWERING_COMMON_PASSES_TD
#define KILN_LOWERING_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnCheckContract : Pass<"kiln-check-contract", "::mlir::ModuleOp"> {
  let summary = "Fail, naming the op, if an op outside a stage's dialects is left";
  let description = [{
    The check at each pipeline boundary: every op must belong to one of
    `allowed-dialects`. The first op that does not is reported at its
    location with the stage's name, e.g.

    ```
    error: 'kiln.grad' was left unlowered by convert-kiln-to-linalg:
    kiln-expand-transforms does not expand this transformation yet (it
    expands kiln.jvp)
    ```
  }];
  let options = [
    ListOption<"allowedDialects", "allowed-dialects", "std::string",
               "Dialects whose ops may remain after the stage">,
    Option<"stage", "stage", "std::string", "\"lowering\"",
           "The stage named in the diagnostic">
  ];
}

def KilnCheckTensorSizes : Pass<"kiln-check-tensor-sizes", "::mlir::ModuleOp"> {
  let summary = "Fail, at the op or function that has one, on a tensor too large to hold";
  let description = [{
    Resource limits are errors, not crashes: every tensor type in the
    module (op results, region arguments, the arguments and results of
    function signatures, declarations included) must take fewer than 2^63
    bytes, since code computes byte offsets in 64 bits, and at most
    `max-bytes`. The compiler runs it first with `max-bytes` set to the
    memory of the machine it compiles on, so that a program whose tensors
    could never be allocated is refused with a location instead of failing
    in `malloc` at run time; kiln-opt and the source parser run it with the
    64-bit limit alone. Each such type is reported, e.g.

    ```
    error: argument #0 of @f has type 'tensor<9223372036854775807x2xf32>',
    of 2^63 bytes or more: no machine can hold it
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "uint64_t",
           "(uint64_t(1) << 63) - 1",
           "The largest tensor allowed, in bytes">,
    Option<"limitReason", "limit-reason", "std::string",
           "\"the limit given to kiln-check-tensor-sizes\"",
           "What the limit is, for the diagnostic">
  ];
}

def KilnPrepareEntries : Pass<"kiln-prepare-entries", "::mlir::ModuleOp"> {
  let summary = "Mark public functions as entry points: read-only arguments, C interface";
  let description = [{
    Runs before bufferization. Each public `func.func` with a body is an
    entry point the runtime calls: its arguments belong to the caller, so
    they are marked `bufferization.writable = false` (bufferization copies
    instead of writing into them), and it gets `llvm.emit_c_interface`, so
    that the LLVM lowering emits `_mlir_ciface_NAME`, taking each memref as a
    pointer to its descriptor. An argument marked `kiln.donate` gives its
    buffer to the first result of its type that no earlier donated argument
    took (as JAX matches donations): it becomes writable, the result is
    materialized in it (`bufferization.materialize_in_destination`:
    computed in place where bufferization can, else copied there after the
    argument's last read), and `kiln.donated_buffers` records, per result,
    the argument it reuses (-1: none); the runtime then passes the
    argument's buffer as that result's out-parameter and hands it over.
    The marks themselves are dropped, and so is `kiln.static`, which only
    the runtime's jit reads (compiled ahead of time, a static argument is
    an ordinary one). A function that reaches itself through calls
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

def KilnInlineSingleCalls
    : Pass<"kiln-inline-single-calls", "::mlir::ModuleOp"> {
  let summary = "Inline private straight-line functions called from one place";
  let description = [{
    A private function of straight-line code (no calls, loops or branches)
    whose symbol's only use is one `func.call` in the body of another
    function is inlined there and erased, so the functions the
    transformations generate (a `value_and_grad`'s gradient, a `vmap`'s
    batched body) fuse with their caller: the optimizer update after a
    gradient runs as the epilogue of the matmul that computes it instead
    of another pass over memory. The program never grows (functions
    called from several places stay calls), a scan's body stays a function
    that runs per step, and functions with calls or loops keep their
    frames, in which remat and checkpointed scans free each segment's
    buffers before the next one runs.

    Example:

    ```mlir
    func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = kiln.exp %x : tensor<4xf32>
      return %y : tensor<4xf32>
    }
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %z = kiln.neg %y : tensor<4xf32>
      return %z : tensor<4xf32>
    }
    // becomes
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = kiln.exp %x : tensor<4xf32>
      %z = kiln.neg %y : tensor<4xf32>
      return %z : tensor<4xf32>
    }
    ```
  }];
}

def KilnLowerCollectives
    : Pass<"kiln-lower-collectives", "::mlir::ModuleOp"> {
  let summary = "Make the collectives calls of the runtime's in-process devices";
  let description = [{
    Each collective of a partitioned program (kiln-partition) becomes a call
    of the runtime (kiln/abi.h: `kiln_rt_all_reduce`, ...) on contiguous
    buffers: the operand's buffer (`bufferization.to_buffer`) and a new
    one for the result (`bufferization.to_tensor`), with the mesh axes of
    its group packed in an i64. The blocks the devices exchange are first
    brought to the front by a `kiln.reshape` and a `kiln.transpose`;
    `kiln.axis_index` asks the runtime for the device's place.

    Example:

    ```mlir
    %y = kiln.all_reduce sum %x over @mesh ["model"] : tensor<4x32xf32>
    // becomes
    %in = bufferization.to_buffer %x read_only : ...
    %out = memref.alloc() {alignment = 64 : i64} : memref<4x32xf32>
    func.call @kiln_rt_all_reduce(%axes, %kind, %dtype, %inAddress,
                                  %outAddress, %count) : (...) -> ()
    %y = bufferization.to_tensor %out restrict writable : ...
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"];
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

def KilnComputePartsInPlace
    : Pass<"kiln-compute-parts-in-place", "::mlir::ModuleOp"> {
  let summary = "Compute the parts of a larger tensor in its buffer, not copy them there";
  let description = [{
    Runs before bufferization. A value inserted into a larger tensor (the
    parts of a concatenation, a pad's interior) is computed into a new
    buffer by the op that makes it, then copied into the larger one; where
    that op starts from an empty tensor, the empty tensor becomes the
    slice of the larger tensor it is inserted at, so bufferization writes
    it there in place. This is MLIR's empty tensor elimination restricted to
    `tensor.insert_slice`: a result materialized into a donated argument is
    left to bufferization, which copies it where writing in place would
    overwrite what the computation still reads.

    Example:

    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %a = linalg.generic ... outs(%e : tensor<4xf32>)
    %r = tensor.insert_slice %a into %t[4] [4] [1]
    // becomes
    %s = tensor.extract_slice %t[4] [4] [1]
    %a = linalg.generic ... outs(%s : tensor<4xf32>)
    %r = tensor.insert_slice %a into %t[4] [4] [1]
    ```
  }];
  // The bufferization dialect brings the ops' bufferization models.
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::tensor::TensorDialect"];
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

def KilnWriteResultsInPlace
    : Pass<"kiln-write-results-in-place", "::mlir::ModuleOp"> {
  let summary = "Compute a result into its out-parameter instead of copying it there";
  let description = [{
    Runs after `buffer-results-to-out-params`, whose `hoist-static-allocs`
    writes a result into its out-parameter only where the function
    allocates it itself: a result a call computes (into a buffer the
    caller allocates for the callee's out-parameter) is still copied. In a
    chain of calls passing results up (the forward halves of nested
    checkpoints), every level would hold its own copy. Where a function
    copies a buffer it allocated, at the buffer's last use, into an
    out-parameter nothing else uses, the buffer becomes the out-parameter.
    So does one it copies through reshapes (`memref.expand_shape`,
    `memref.collapse_shape`: a convolution's product [N*H*W, C] returned as
    [N, H, W, C]), the out-parameter seen through the inverse reshapes.
    An entry's copy of a donated argument into the out-parameter of the
    result that reuses it (`kiln.donated_buffers`) is dropped: the runtime
    passes the argument's buffer as that out-parameter.

    Example:

    ```mlir
    func.func private @f(%x: memref<4xf32>, %out: memref<4xf32>) {
      %a = memref.alloc() : memref<4xf32>
      call @g(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
      memref.copy %a, %out : memref<4xf32> to memref<4xf32>
      return
    }
    // becomes
    func.func private @f(%x: memref<4xf32>, %out: memref<4xf32>) {
      call @g(%x, %out) : (memref<4xf32>, memref<4xf32>) -> ()
      return
    }
    ```
  }];
}

def KilnFreeAfterLastUse : Pass<"kiln-free-after-last-use"> {
  let summary = "Free each buffer right after its last use";
  let description = [{
    Runs after the buffer deallocation pipeline, which frees a block's
    buffers at the block's end: every intermediate of a function would live
    until it returns, and a gradient would hold all of its forward values
    and backward temporaries at once. An unconditional `memref.dealloc` of a
    buffer allocated in the same block moves up to just after the last op
    of the block that uses the buffer or a view of it. A buffer that
    escapes (yielded, returned, selected among others, its address taken)
    is left as it is.

    Example:

    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
    linalg.negf ins(%a : memref<4xf32>) outs(%y : memref<4xf32>)
    %b = memref.alloc() : memref<4xf32>
    ...
    memref.dealloc %a : memref<4xf32>
    // becomes
    linalg.negf ins(%a : memref<4xf32>) outs(%y : memref<4xf32>)
    memref.dealloc %a : memref<4xf32>
    %b = memref.alloc() : memref<4xf32>
    ```
  }];
}

def KilnFreeInCallees : Pass<"kiln-free-in-callees", "::mlir::ModuleOp"> {
  let summary = "Let a private function free the arguments its callers free after calling it";
  let description = [{
    Runs after kiln-free-after-last-use. A caller frees a buffer after its
    last use, and if that use is a call, the buffer lives through the whole
    callee: a backward half holds all of its residuals until it returns,
    and in a gradient of nested checkpoints every level's residuals would
    be held while the level below recomputes its own. Where every caller of
    a private function frees the buffer it passes as an argument right
    after the call (a buffer it allocated or was itself handed), the
    function frees the argument instead, right after its own last use of
    it; repeated until nothing changes, so a buffer is handed down the
    calls. The function's other arguments are left to their callers.

    Example:

    ```mlir
    func.func private @f(%r: memref<4xf32>, %out: memref<4xf32>) {
      linalg.exp ins(%r : memref<4xf32>) outs(%out : memref<4xf32>)
      %t = memref.alloc() : memref<4xf32>
      ...
    }
    %r = memref.alloc() : memref<4xf32>
    ...
    call @f(%r, %y) : (memref<4xf32>, memref<4xf32>) -> ()
    memref.dealloc %r : memref<4xf32>
    // becomes
    func.func private @f(%r: memref<4xf32>, %out: memref<4xf32>) {
      linalg.exp ins(%r : memref<4xf32>) outs(%out : memref<4xf32>)
      memref.dealloc %r : memref<4xf32>
      %t = memref.alloc() : memref<4xf32>
      ...
    }
    call @f(%r, %y) : (memref<4xf32>, memref<4xf32>) -> ()
    ```
  }];
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

#endif // KILN_LOWERING_COMMON_PASSES_TD
