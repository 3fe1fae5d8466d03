//===- Passes.td - the CPU schedule and code generation --*- tablegen -*-===//
#ifndef KILN_LOWERING_CPU_PASSES_TD
#define KILN_LOWERING_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnApproximateMath : Pass<"kiln-approximate-math"> {
  let summary = "Replace transcendental math ops with polynomial approximations";
  let description = [{
    Rewrites `math.exp`, `math.tanh`, `math.log`, `math.sin`, ... on f32
    (scalars and vectors) into arithmetic with MLIR's polynomial
    approximations, so that loops over them vectorize instead of calling
    scalar libm functions. f16 and bf16 math is computed in f32. f32 `sin`
    and `cos` reduce their argument exactly; f64 `exp`, `log`, `tanh`, `atan`,
    `sin` and `cos` are Kiln's own (fdlibm's and Cephes' algorithms; `sin`
    and `cos` from 2^20 on are libm's), `powf` of f32, f16 and bf16 is
    computed as exp(y log|x|) in f64, and `arith.remf` exactly in f64
    (libm's fmod where |x / y| reaches 2^52).

    Example:

    ```mlir
    %y = math.tanh %x : vector<16xf32>
    // becomes a clamped rational polynomial in %x of arith ops
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
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

def KilnExpandArith : Pass<"kiln-expand-arith"> {
  let summary = "Expand the arith ops LLVM has no instruction for, keeping "
                "float maximum and minimum";
  let description = [{
    Upstream's `arith-expand` without its expansion of `arith.maximumf` and
    `arith.minimumf`: ceil and floor divisions become truncating ones and
    fixups, bf16 conversions and scaling extensions and truncations become
    integer arithmetic, and float maxima and minima stay for the LLVM
    conversion (`llvm.maximum`, `llvm.minimum`), which keeps their order of
    -0 below +0; upstream's compare and select returns the second operand
    for -0 and +0, which made `kiln.max(+0, -0)` -0 in compiled code.

    Example:

    ```mlir
    %q = arith.floordivsi %a, %b : i32
    // becomes arith.divsi and a correction where the signs differ
    %m = arith.maximumf %x, %y : vector<8xf32>
    // stays
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def KilnTileAndVectorize : Pass<"kiln-tile-and-vectorize"> {
  let summary = "Tile linalg ops on tensors for the CPU and vectorize the tiles";
  let description = [{
    The CPU schedule, on tensors before bufferization:

    - all-parallel ops (fused elementwise chains, fills, broadcasts,
      transposes) and `linalg.reduce` are tiled to one row of up to
      `vector-width` elements along the innermost dimension (a width that
      divides it; where only short ones do, an all-parallel op is split
      into the multiple of `vector-width` below and the rest) and each tile
      becomes vector code (a reduction's tiles accumulate into its result
      in order, in a loop marked for LLVM to keep rolled: unrolled, the
      scheduler reorders the loads of many steps, which slowed streaming
      misaligned rows; matmuls' loops keep LLVM's unrolling);
    - `linalg.matmul` and `linalg.batch_matmul` (one batch at a time)
      accumulating in f32 (from f32, bf16 or f16) or in f64, i32 or i64
      (from its own type) is tiled for the caches (by default 64 x 256 x
      256) and then into register tiles (by default 8 x 32; half as many
      columns for 64-bit elements; fewer rows than a tile take as many more
      columns) over single k steps, each a `vector.contract`, which
      kiln-lower-vectors turns into FMAs on an accumulator kept in
      registers. No tile is partial: M, N and K split at their last whole
      cache tile, M and N at their last whole register tile, and each part
      is tiled on its own (K's rest accumulating onto the first part's
      result); fewer columns than a register tile that are not a power of
      two are padded with zeros to one (32 rows or more) or split into
      power-of-two widths (bf16 and f16 need whole tiles). With
      `bf16-dot-pairs`, bf16 x bf16 -> f32 register tiles cover two k steps
      (an odd K's last step runs alone) and may be of any shape:
      kiln-lower-vectors turns them into dot products of k pairs;
    - an all-parallel op on 32-bit elements that reads an operand along
      another loop than it writes (a transpose) runs in 16 x 16 blocks over
      those two loops, rows and columns past the last block as rows.

    Other ops are left for the loop lowering.

    First, where `parallel-work` is positive, a vector-matrix product (an
    f32 or f64 matmul, or a bf16 or f16 one into f32, of fewer rows than a
    register tile by a B of 4 MiB or more whose rows are wider than a
    cache tile) splits K into P pieces
    (the largest divisor of K up to 8 that leaves 64 steps a piece): a
    batch matmul of [P, M, K / P] (A's pieces, gathered by a transpose
    where M > 1) by B's rows as [P, K / P, N], whose partial products a
    `linalg.reduce` adds into the product's output. Threads share the
    batch, each chunk reading whole rows of B, one block of memory; chunks
    of columns would read each row in pieces, pages apart.

    Then fusion that follows the data: an all-parallel op computed from a
    row reduction, and not itself read by a reduction other than a matmul
    (a normalization's last step, attention's probabilities), is tiled by
    blocks of rows (its loops but the last; one index of each outer row
    loop and, of the first whose index fits 64 KiB, as many as fit 64 KiB
    and divide it, at least 8 where 8 fit: a layer norm's [batch,
    sequence, hidden] takes blocks of one batch's sequence) and the
    producers each block
    needs are computed in the loop (`scf.forall` when the chain is
    estimated at `parallel-work` ns or more, else `scf.for`): a layer norm
    reads its input once per use in a block, not once per op. A row
    reduction that ends such a chain (the sum of a matrix-vector product's
    lanes, a row sum; not a matmul) is tiled the same way, one row a
    block, so that the lanes it sums stay in registers. Matmuls,
    producers each block needs whole (a column sum), and costly producers
    (with math ops) that two ops of the chain read stay outside: they
    would be computed again in every block. The exception is a product
    the chain reads, an f32 matmul or batch matmul whose B per batch holds
    at most 256 KiB and that nothing else reads, where blocks have 8 rows
    or more (not a reduction's single rows): each block computes its
    rows of it (attention's scores of a block of queries), which the chain
    then reads from cache, instead of the whole product written to memory
    and read back; what the product reads stays outside.

    Next, matmul epilogues: an all-parallel op that reads a matmul's result
    element for element, as its only reader (a bias add and an
    activation), is tiled by blocks of the product (columns by up to a
    cache tile, or all of them where A is a transpose the blocks compute
    and B fits 1 MiB, so that each transposes its rows once; rows by up to
    4 cache tiles, or 1 where that makes fewer
    blocks than threads would want chunks; multiples of the register tile
    that divide the dimension, else all of it), and each block of the
    product is zeroed and computed over all of K in the loop, in a buffer
    of its own, just before the epilogue reads it from cache. Products of
    fewer columns than a register tile stay whole. With `pack-panels`, an
    f32 product whose whole panels split off (below: N not a multiple of
    32, ...) splits there first, with its epilogue, so that the blocks of
    the whole panels read B packed; the columns after them are a product
    and an epilogue of their own.

    Then, with `pack-panels`, an f32 matmul whose B rows are a multiple
    of 2 KiB apart (rows that fall in the same cache sets) or whose B is
    over 512 KiB (half of L2: unpacked, a register tile walks down K
    through rows the hardware does not prefetch far), or whose N is not a
    multiple of 32 (its whole panels' columns then split off into a
    product that packs, the rest a narrow product of its own, where K is
    at least 64 and B is no transpose that chunks of columns compute: one
    within 1 MiB, or of a product of no more rows than columns; where B
    is small and its rows not 2 KiB apart, from 128 rows), and that has
    at least 32 rows packs B once into panels of a register tile's
    columns, [N / 32, K, 32], row by row of B across its panels (a B that
    is a transpose nothing else reads, x W^T, straight from B^T's rows,
    in 16 x 16 blocks transposed in registers),
    and becomes a product over (batch, panel, m, column,
    k) scheduled like a batch matmul of one panel at a time (row blocks
    outermost; K tiles of `cache-tile-k` steps, whose panel part stays in
    L1 while the block's rows pass it, the first split off to start from
    zeros in registers; of bf16 pairs, of as many panel rows as a cache
    tile of B holds);
    with `bf16-dot-pairs`, a bf16 x bf16 -> f32 matmul of at least 32 rows
    and an even K packs B's pairs of rows interleaved, [N / 32, K / 2, 32,
    2], as vdpbf16ps reads them, and each register tile reads a panel's
    pair of rows as one row. A matmul computed block by block in an
    epilogue's loop has its whole B packed once before the loop (the rules
    apply to the whole product), and each block reads its columns' panels.

    Then window products (convert-kiln-to-linalg's window-products: a
    convolution contracted from its padded input read at stride * output +
    dilation * window position) run by output lines, one image and outer
    output row at a time; each line sums, window position by position, the
    matmul of its pixels (every stride-th) with the kernel there, tiled
    like any matmul, or, of fewer than 16 features or where the kernel fits
    a cache tile of B (`cache-tile-k` x `cache-tile-n`), runs in register
    tiles of 8 pixels that each sum the whole window before they are
    stored.
    With at least 16 batch rows and more of them than an output line's
    pixels, fewer than 16 (JAX's kernel gradients), output pixels each sum
    window row by window row the matmul of the whole batch's rows, or,
    where the window is dilated (a strided layer's kernel gradient), run
    in register tiles of the batch that sum the window, in blocks of its
    outer window rows whose part of the kernel fits a cache tile of B
    (`cache-tile-k` x `cache-tile-n`), the block loop outermost. Threads
    share the images (of one image, its rows; by pixels, the batch) of a
    product estimated at `parallel-work` ns or more.

    Then, an op estimated to take at least `parallel-work` ns on one
    thread (an f32 matmul at 200 GFLOP/s times the share of its vectors'
    lanes its columns fill, or as a reduction where it reads more bytes
    than that, a reduction at 80 GB/s of its tensors, other ops at 20
    GB/s), or 40% of that for an op that runs right after chunks threads
    shared with at most ~30 us of estimated work between (their threads
    wake in ~12 us, not ~75; matmuls are all split into chunks before any
    is tiled, so that a piece sees the chunks before it), is split along
    one parallel loop into
    chunks run by an `scf.forall`, for threads to share
    (kiln-lower-foralls): batch, then rows, then columns, whichever first
    has enough whole cache tiles, register tiles or vector rows for a chunk
    per `parallel-work / 2` ns, else the one with the most (of the chunk
    counts from that target, the fewest that 1 and 2 threads, and at half
    the weight 4, share most evenly, granules past the last whole chunk
    left over, each chunk
    costing the time to stream the inputs it reads whole from memory
    where they are over 1 MiB), except that a
    matmul whose B alone is a transpose only it reads (x W^T) splits
    columns first where they are enough, and a batch matmul of at most 8
    rows per batch (vector-matrix products, the pieces of K above) its
    batch from 2 of them. A matmul's rows chunk by whole
    cache tiles, or by 32 rows where M is not an even number of them (each
    chunk reads all of B); a product of packed panels may chunk its panels,
    8 at a time, each chunk packing its own and reading all of A: f32 ones
    do unless A is a transpose that chunks of rows compute part by part
    (then B is packed before them), in chunks of 8 panels where there are
    enough of them, else of fewer; bf16 ones where A is at most 512 KiB.
    Rows past the last whole
    chunk are distributed again, along another loop where that pays, else
    run after it. Each chunk is then tiled as above. Matmuls are scheduled
    first: one that starts from a fill (its zeros) and whose chunks or
    cache tiles run over all of K fills each chunk's rows or each tile's
    block in the loop, in vector rows, right before accumulating in it (in
    cache), instead of the whole output first in a pass over memory;
    where a cache tile runs over all of K, each of its register tiles
    writes its own start as one vector right before its K loop, which its
    accumulators start from (kiln-lower-vectors forwards it: no zeros
    stored and loaded back); pieces split off fill their own part.
    Likewise a transpose that only a chunked matmul reads, and of which
    each chunk reads a part (a weight gradient's X^T by rows, x W^T's W^T
    by columns), is computed by each chunk for its part, on the chunk's
    thread.

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
           "Elements per vector row of an elementwise op or reduction">,
    Option<"registerTileM", "register-tile-m", "int64_t", "8",
           "Rows of a matmul's accumulator kept in registers">,
    Option<"registerTileN", "register-tile-n", "int64_t", "32",
           "Columns of a matmul's accumulator kept in registers">,
    Option<"cacheTileM", "cache-tile-m", "int64_t", "64",
           "Rows of A per matmul cache tile">,
    Option<"cacheTileN", "cache-tile-n", "int64_t", "256",
           "Columns of B per matmul cache tile">,
    Option<"cacheTileK", "cache-tile-k", "int64_t", "256",
           "Reduction steps per matmul cache tile">,
    Option<"parallelWork", "parallel-work", "int64_t", "150000",
           "Estimated ns on one thread from which an op runs in chunks "
           "that threads share (0: never)">,
    Option<"packPanels", "pack-panels", "bool", "true",
           "f32 matmuls whose B rows are a multiple of 2 KiB apart, and "
           "bf16 ones on dot product pairs, pack B into panels of a "
           "register tile's columns first">,
    Option<"bf16DotPairs", "bf16-dot-pairs", "bool", "false",
           "bf16 x bf16 -> f32 matmuls take register tiles of two k steps "
           "(pairs for vdpbf16ps, see kiln-lower-vectors) and any shape">,
    Option<"intDotPairs", "int-dot-pairs", "bool", "false",
           "int8 and int16 matmuls into i32 take register tiles of two k "
           "steps (pairs for vpdpwssd or vpmaddwd, see kiln-lower-vectors)">,
    Option<"byteQuads", "byte-quads", "bool", "false",
           "int8 matmuls into i32 of four k steps or more multiply B + 128 "
           "in quads of unsigned by signed bytes (vpdpbusd, see "
           "kiln-lower-vectors; the CPU must have avx512vnni)">,
    Option<"amxBf16", "amx-bf16", "bool", "false",
           "bf16 x bf16 -> f32 products packed in pairs (bf16-dot-pairs) "
           "take register tiles of 32 x 32 AMX tiles over a cache tile's k "
           "pairs, marked for kiln-lower-amx-tiles (the CPU must have "
           "amx-bf16)">,
    Option<"vectorBytes", "vector-bytes", "int64_t", "64",
           "Bytes of one of the target's vector registers (64 on AVX-512, "
           "32 on AVX2): a reduction's rows carry at most 16 of them of "
           "results">
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::vector::VectorDialect"
  ];
}

def KilnVectorizeCopies : Pass<"kiln-vectorize-copies"> {
  let summary = "Copy buffers by rows of vectors";
  let description = [{
    The copies bufferization leaves (a pad's or a concatenation's input
    placed into its result, a dynamic_update_slice's update, a loop's
    carried buffer) are `linalg.copy` ops on memrefs, which the loop
    lowering turns into scalar loads and stores that LLVM does not
    vectorize (the buffers may alias). Each copy between statically shaped
    memrefs whose innermost dimension is contiguous in both and longer
    than one element becomes loops over its rows, each row copied by
    vectors of up to `vector-width` elements (the widest power of two no
    longer than the row) and one masked vector for the rest.
    Consecutive copies into the same rows of one buffer that none of them
    reads, with only views between them (a concatenation's inputs along
    its last dimension), run in one nest of loops over those rows, each
    row of every copy in turn, so that each row of the result is written
    in one pass. A copy (or such a group) estimated at `parallel-work` ns
    or more (at 20 GB/s of the bytes it reads and writes), in no
    scf.forall, runs its outermost loop as an scf.forall for threads to
    share (a convolution's padded input: 6.4 MB). The memrefs
    are indexed as they are: a view of a buffer would keep
    kiln-lower-vectors from hoisting a matmul's accumulators out of their
    loop over it. Vectors of i1 move a tensor of i1's bytes
    (kiln-bool-vectors-as-bytes).

    Example:

    ```mlir
    linalg.copy ins(%a : memref<8x100xf32>)
                outs(%b : memref<8x100xf32, strided<[128, 1]>>)
    // becomes
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c64 step %c64 {
        %v = vector.load %a[%i, %j] : memref<8x100xf32>, vector<64xf32>
        vector.store %v, %b[%i, %j] : ..., vector<64xf32>
      }
      %t = vector.maskedload %a[%i, %c64], %mask36, %zeros : ...
      vector.maskedstore %b[%i, %c64], %mask36, %t : ...
    }
    ```
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", "64",
           "Elements per vector of a row">,
    Option<"parallelWork", "parallel-work", "int64_t", "150000",
           "Estimated ns (at 20 GB/s of the bytes a copy reads and writes) "
           "from which a copy in no scf.forall runs its outermost loop as "
           "an scf.forall, for threads to share; 0: never">,
  ];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def KilnStoreNarrowFloatBits : Pass<"kiln-store-narrow-float-bits"> {
  let summary = "Store vectors of bf16 or f16 made from integer bits as those bits";
  let description = [{
    An `llvm.store` of a vector of bf16 or f16 that an `llvm.bitcast` made
    from a vector of integers stores the integers instead (the same bytes).
    Rounding to bf16 ends in a select of NaN's bits as i16 and a bitcast;
    LLVM's InstCombine turns a select feeding a bf16 store into a select of
    `<N x bfloat>`, which the x86 backend scalarizes on CPUs without
    AVX-512 BF16 (f32 -> bf16 of 2048 x 2048 ran 4.15 ms on an AMD Zen 3,
    a compare per element). Runs after the pipeline's last
    canonicalization, which folds the `llvm.array` the conversion to LLVM
    wraps the vector in between the bitcast and the store.

    Example:

    ```mlir
    %b = llvm.bitcast %bits : vector<64xi16> to vector<64xbf16>
    llvm.store %b, %p : vector<64xbf16>, !llvm.ptr
    // becomes
    llvm.store %bits, %p : vector<64xi16>, !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def KilnBoolVectorsAsBytes : Pass<"kiln-bool-vectors-as-bytes"> {
  let summary = "Load and store vectors of i1 as vectors of bytes";
  let description = [{
    A tensor of i1 holds one byte per element (as numpy's bool), but LLVM
    stores `<N x i1>` as N packed bits. Every load and store in the LLVM
    dialect of a vector of i1 (plain, masked, gathered or scattered; masks
    themselves stay bits) moves a vector of i8 instead, widened with
    `llvm.zext` before a store and narrowed with `llvm.trunc` after a load,
    so that vectorized code reads and writes boolean tensors as their
    bytes. Scalar i1 accesses already read and write a byte.

    Example:

    ```mlir
    %m = llvm.load %p : !llvm.ptr -> vector<64xi1>
    // becomes
    %b = llvm.load %p : !llvm.ptr -> vector<64xi8>
    %m = llvm.trunc %b : vector<64xi8> to vector<64xi1>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def KilnLowerForalls : Pass<"kiln-lower-foralls"> {
  let summary = "Run outermost scf.forall loops on threads where that is safe";
  let description = [{
    On memrefs: an outermost `scf.forall` whose body neither allocates heap
    memory nor calls a function becomes an OpenMP worksharing loop in a
    parallel region: a static schedule (each thread a contiguous block of
    iterations) and no barrier but the region's end, since each barrier
    costs a wake-up of sleeping threads (the runtime sets the thread count
    and keeps threads blocking, not spinning, between loops). Each thread
    gets the same iterations in every loop of the same shape, and keeps
    their data in its cache from one op (or call) to the next: a dynamic
    schedule measured the same on matmuls and 7-9% slower on layer norms
    and softmax on 2 threads. Any other `scf.forall` becomes an `scf.for`
    running its iterations in order: a failed allocation abandons the call
    by a jump that must not cross threads, and a nested one runs inside a
    thread already.

    Example:

    ```mlir
    scf.forall (%i) in (4) {
      %rows = memref.subview %c[%i * 64, 0] [64, 256] [1, 1] ...
      ...
    }
    // becomes
    omp.parallel {
      omp.wsloop nowait {
        omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
          ...
          omp.yield
        }
      }
      omp.terminator
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::omp::OpenMPDialect", "::mlir::scf::SCFDialect"
  ];
}

def KilnLowerAmxTiles : Pass<"kiln-lower-amx-tiles"> {
  let summary = "Compute the register tiles marked for AMX on AMX tiles";
  let description = [{
    On memrefs, after bufferization: each `linalg.generic` that
    `kiln-tile-and-vectorize` marked `kiln.amx_tile` (a register tile of a
    bf16 product packed in pairs: A [rows, pairs, 2], one panel of B
    [1, pairs, 32, 2], C [rows, 1, 32] in f32, rows 16 or 32, pairs a
    multiple of 16) becomes AMX code: C's 16 x 16 tiles loaded, a loop over
    the pairs 16 at a time that loads A's 16 x 32 tiles and the panel's
    (whose rows of 16 columns' pairs are the layout `tdpbf16ps` reads) and
    multiplies them into C's tiles, which stay in tile registers across the
    loop, then C's tiles stored. LLVM configures the tile registers
    (`ldtilecfg`) and releases them. A marked op whose operands are not laid
    out that way (not expected) stays for the loop lowering, unmarked.

    Example:

    ```mlir
    linalg.generic {kiln.amx_tile, ...}
        ins(%a, %panel : memref<32x64x2xbf16, ...>, memref<1x64x32x2xbf16, ...>)
        outs(%c : memref<32x1x32xf32, ...>)
    // becomes
    %c00 = amx.tile_load %c[%c0, %c0, %c0], %n : ... into !amx.tile<16x16xf32>
    ...
    %r:4 = scf.for %q = %c0 to %c64 step %c16 iter_args(...) {
      %a0 = amx.tile_load %a[%c0, %q, %c0], %k : ... into !amx.tile<16x32xbf16>
      ...
      %t = amx.tile_mulf %a0, %b0, %acc00 : ...
    }
    amx.tile_store %c[%c0, %c0, %c0], %r#0, %n : ...
    ```
  }];
  let dependentDialects = [
    "::mlir::amx::AMXDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def KilnHoistLoopBuffers : Pass<"kiln-hoist-loop-buffers"> {
  let summary = "Allocate the buffers an scf.for allocates and frees in each iteration once";
  let description = [{
    On memrefs: a statically shaped `memref.alloc` in an `scf.for` body,
    freed by a `memref.dealloc` in the same body, moves before the loop and
    its dealloc after it, inner loops first. The buffer holds nothing one
    iteration leaves for the next, and the iterations run in order, so one
    buffer serves them all: a block of fused rows that runs on one thread
    (rows fusion's `scf.for`, or a chunked loop `kiln-lower-foralls` left in
    order) no longer calls the allocator twice a row (a 300 x 777
    matrix-vector product one row at a time: 0.056 -> 0.011 ms). Threaded
    loops have no such buffers left: `kiln-lower-foralls` made them stack
    buffers per thread. Buffers move smallest first while those moved out
    of a loop total at most `max-bytes` (64 KiB): buffers whose lives in
    the body are disjoint are all live at once outside it, so a body of
    large ones (a sort network's steps on a chunk of rows, a new buffer a
    step: 33 MiB for 8 rows of 8192) would no longer reuse the memory, hot
    in cache, that the allocator hands back, and the allocator's cost is
    small beside filling a large buffer.

    Example:

    ```mlir
    scf.for %i = %c0 to %c300 step %c1 {
      %partial = memref.alloc() : memref<1x64xf32>
      ...
      memref.dealloc %partial : memref<1x64xf32>
    }
    // becomes
    %partial = memref.alloc() : memref<1x64xf32>
    scf.for %i = %c0 to %c300 step %c1 {
      ...
    }
    memref.dealloc %partial : memref<1x64xf32>
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", "64 * 1024",
           "The most bytes of buffers moved out of one loop">
  ];
}

def KilnCarryExtremaAsKeys : Pass<"kiln-carry-extrema-as-keys"> {
  let summary = "Carry an scf.for's running float maximum or minimum as integer keys";
  let description = [{
    An `arith.maximumf` or `arith.minimumf` of vectors of f32 or f64 that
    takes an `scf.for`'s iter_arg (which nothing else reads) and whose
    result the loop yields back into it (a max or min reduction's running
    vector) is carried as integers: the elements' bits as keys that order
    like the floats (negative values' magnitude bits flipped, so -0 is
    below +0), taken with `arith.maxsi` or `arith.minsi`, and, for vectors
    where keys and magnitudes take at most half of the target's vector
    registers (`vector-registers` of `vector-bytes`: vectors of up to 512
    bytes on AVX-512, 128 on AVX2), the largest magnitude's bits seen
    (`arith.maxui` of the bits without their sign), which is a NaN's
    exactly where one was seen; a wider vector selects for a NaN the key
    that wins (the largest for a maximum, the smallest for a minimum, whose
    floats are NaNs). After the loop, the result is the keys' floats (NaN where the
    magnitudes say so): the maximum and minimum as `arith.maximumf` and
    `arith.minimumf` define them. Those float ops become compares and
    selects (blends) in a chain through the carried vector (with upstream's
    `arith-expand`, before `kiln-expand-arith` kept them for LLVM's
    intrinsics, which take as many): a `reduce_max` over 6.4M f32 ran at 25 GB/s, half its
    `reduce_sum`'s speed; integer max and min are one instruction each.

    Example:

    ```mlir
    %m = scf.for %i = %c0 to %c49 step %c1 iter_args(%acc = %init) -> (vector<64xf32>) {
      %x = vector.load %row[%i, %c0] : memref<49x64xf32>, vector<64xf32>
      %next = arith.maximumf %acc, %x : vector<64xf32>
      scf.yield %next : vector<64xf32>
    }
    // becomes a loop that also carries (key(%init), bits(%init) & 0x7fffffff)
    // and yields (arith.maxsi of the keys, arith.maxui of the magnitudes);
    // %m is the floats of the keys, NaN where the magnitudes passed +inf's.
    ```
  }];
  let options = [
    Option<"vectorBytes", "vector-bytes", "int64_t", "64",
           "Bytes of one of the target's vector registers (64 on AVX-512, "
           "32 on AVX2)">,
    Option<"vectorRegisters", "vector-registers", "int64_t", "32",
           "How many vector registers the target has (32 on AVX-512, 16 "
           "on AVX2)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def KilnLowerVectors : Pass<"kiln-lower-vectors"> {
  let summary = "Lower vector ops after bufferization to what LLVM compiles well";
  let description = [{
    On memrefs: folds subviews into the loads and stores that use them, so
    that loop-invariant vector transfers (matmul accumulators) are hoisted
    out of their loops (also where the accumulator's buffer, an allocation,
    has a view elsewhere, as a product read back through a reshape has, if
    the loop touches that buffer through nothing else); a read of what a
    write just stored takes the stored vector, and a write that a later one
    overwrites with nothing reading between goes (a register tile starting
    from its zeros keeps them in registers); then lowers `vector.contract` to outer products and
    FMAs (with `bf16-dot-pairs`, a bf16 x bf16 -> f32 contraction over one
    or two k steps becomes `x86vector.avx512.dot` (vdpbf16ps) on A's k pair
    broadcast and B's two rows interleaved, 16 columns at a time; the
    instruction treats denormal inputs and results as zero, like oneDNN's
    bf16 kernels; with `int-dot-pairs`, int8 and int16 -> i32 ones become
    VNNI's vpdpwssd the same way, bytes sign-extended to 16 bits; with
    `int-madd-pairs` instead, AVX2's vpmaddwd and an add, 8 columns at a
    time), unrolls n-D vector transfers into 1-D ones and those into vector
    loads and stores. Stores of whole aligned cache lines into buffers of
    `streaming-bytes` (32 MiB) or more are non-temporal, so that streaming
    loops do not read the lines they overwrite (entry arguments are 64-byte aligned: the runtime's
    buffers are).

    Example:

    ```mlir
    %c = vector.contract {...} %a, %b, %acc
        : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    // becomes broadcasts and vector.fma on vector<32xf32> rows
    ```
  }];
  let options = [
    Option<"streamingBytes", "streaming-bytes", "int64_t", "int64_t(32) << 20",
           "Buffers of at least this many bytes are written with "
           "non-temporal stores">,
    Option<"bf16DotPairs", "bf16-dot-pairs", "bool", "false",
           "Lower bf16 x bf16 -> f32 contractions over one or two k steps "
           "to AVX-512 BF16 dot products (the CPU must have avx512bf16)">,
    Option<"intDotPairs", "int-dot-pairs", "bool", "false",
           "Lower int8 and int16 -> i32 contractions over one or two k "
           "steps to AVX-512 VNNI dot products (the CPU must have "
           "avx512vnni)">,
    Option<"intMaddPairs", "int-madd-pairs", "bool", "false",
           "Lower int8 and int16 -> i32 contractions over one or two k "
           "steps to AVX2's vpmaddwd and adds, where int-dot-pairs is off "
           "(the CPU must have avx2)">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
    "::mlir::x86vector::X86VectorDialect", "::mlir::LLVM::LLVMDialect"
  ];
}

#endif // KILN_LOWERING_CPU_PASSES_TD
