/*===- abi.h - what the Kiln compiler and runtime agree on --------*- C -*-===*
 *
 * The names and numbers compiled code and the runtime share. The compiler
 * (lowering/common, compiler/) emits them; the runtime (runtime/) looks them
 * up. Change one side only together with the other.
 *
 * An artifact is a shared object exporting, for each entry NAME:
 *   void KILN_ENTRY_PREFIX NAME(void **args)
 *       args[i] points to the memref descriptor of argument i, then of each
 *       result (an out-parameter the caller allocates);
 *   const int64_t KILN_SIGNATURE_PREFIX NAME[]
 *       {length, #args, #results, then per tensor: dtype, rank, dims...};
 * and once, the NUL-terminated manifest text KILN_MANIFEST_SYMBOL (see
 * kiln/manifest.hpp). Its undefined symbols are the runtime's: MLIR's
 * generic allocation functions (_mlir_memref_to_llvm_alloc, ...) and LLVM
 * OpenMP's entry points (__kmpc_fork_call, ...) for parallel loops, which
 * the runtime links and configures before each call.
 *
 *===----------------------------------------------------------------------===*/
#ifndef KILN_ABI_H
#define KILN_ABI_H

/* The packed entry: calls the entry with its descriptors from an array. */
#define KILN_ENTRY_PREFIX "kiln_entry_"
/* The signature compiled beside an entry's code. */
#define KILN_SIGNATURE_PREFIX "kiln_signature_"
/* The artifact's manifest: its entries and their signatures, as text. */
#define KILN_MANIFEST_SYMBOL "kiln_manifest"
/* The alignment in bytes of every buffer the runtime passes to an entry
 * (a cache line), which the compiler may assume of entry arguments. */
#define KILN_BUFFER_ALIGNMENT 64

/* Partitioned code (kiln-partition) runs once per device of its mesh and
 * calls the runtime at each collective:
 *   int64_t kiln_rt_axis_index(AXES)
 *   void kiln_rt_all_reduce(AXES, KIND, DTYPE, in, out, count)
 *   void kiln_rt_reduce_scatter(AXES, KIND, DTYPE, in, out, count)
 *       (in holds count elements per device of the group)
 *   void kiln_rt_all_gather(AXES, in, out, bytes)
 *   void kiln_rt_all_to_all(AXES, in, out, blockBytes)
 *   void kiln_rt_fetch(AXES, source, in, out, bytes)
 *       (source: a place in the group, or -1 for zeros)
 * on contiguous buffers, all as int64_t. AXES packs the mesh axes of the
 * group, major to minor: their count in the low 4 bits, then 4 bits per
 * axis index. DTYPE is a kiln_dtype_t, KIND one of: */
#define KILN_REDUCE_SUM 0
#define KILN_REDUCE_PROD 1
#define KILN_REDUCE_MAX 2
#define KILN_REDUCE_MIN 3

#endif /* KILN_ABI_H */
