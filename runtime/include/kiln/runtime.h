/*===- kiln/runtime.h - the Kiln runtime C API ---------------------------===*
 *
 * Load a compiled Kiln module (or compile a .mlir source in process), list
 * its entry points, and call them on host tensors.
 *
 * Conventions:
 * - Every fallible function returns a kiln_status_t: NULL on success, or a
 *   status carrying a message that the caller frees with kiln_status_free.
 * - Handles (kiln_tensor_t, kiln_module_t) are opaque and owned by the
 *   caller, who frees them with the matching *_free function.
 * - Thread safety: a module may be called from several threads at once; a
 *   tensor may be read from several threads but not written while it is
 *   read. Freeing a handle while another thread uses it is undefined.
 * - The core (tensors, .npy/.npz, loading artifacts, calls) links no
 *   compiler; kiln_module_compile lives in the separate kiln_runtime_jit
 *   library, which links MLIR and LLVM.
 *
 *===----------------------------------------------------------------------===*/
#ifndef KILN_RUNTIME_H
#define KILN_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-- Status -----------------------------------------------------------===*/

typedef struct kiln_status *kiln_status_t;

/* The message of a failed status. */
const char *kiln_status_message(kiln_status_t status);
/* Frees a status; NULL is allowed. */
void kiln_status_free(kiln_status_t status);

/*===-- Tensors ----------------------------------------------------------===*/

/* In C++ the enum has int as its fixed type, so that any int a caller
 * passes is a value of it (reported as invalid rather than undefined). */
typedef enum kiln_dtype
#ifdef __cplusplus
    : int
#endif
{
  KILN_F32 = 0,
  KILN_F64 = 1,
  KILN_F16 = 2,
  KILN_BF16 = 3,
  KILN_I1 = 4, /* one byte per element, 0 or 1, as numpy's bool */
  KILN_I32 = 5,
  KILN_I64 = 6,
  KILN_I8 = 7,
  KILN_I16 = 8,
} kiln_dtype_t;

/* The name of a dtype ("f32", ...), or "invalid". */
const char *kiln_dtype_name(kiln_dtype_t dtype);
/* Bytes per element of a dtype, or 0 for an invalid one. */
size_t kiln_dtype_size(kiln_dtype_t dtype);

/* Where tensors live and entries run (in C++ of fixed type int, as
 * kiln_dtype_t). */
typedef enum kiln_device
#ifdef __cplusplus
    : int
#endif
{
  KILN_DEVICE_CPU = 0,
  /* An NVIDIA GPU through the CUDA driver (libcuda.so.1, loaded at run
   * time); device $KILN_CUDA_DEVICE, else 0. */
  KILN_DEVICE_CUDA = 1,
} kiln_device_t;

/* "cpu", "cuda", or "invalid". */
const char *kiln_device_name(kiln_device_t device);
/* NULL if `device` can be used here; else a status saying why not (for
 * CUDA: no driver, no device). */
kiln_status_t kiln_device_check(kiln_device_t device);

typedef struct kiln_tensor *kiln_tensor_t;

/* Creates a host tensor of `dtype` and `shape` (`rank` entries, each >= 0).
 * If `data` is non-NULL it must hold exactly `byte_length` bytes, the
 * tensor's size, which are copied; if NULL the tensor is zero-filled and
 * `byte_length` is ignored. */
kiln_status_t kiln_tensor_create(kiln_dtype_t dtype, int64_t rank,
                                 const int64_t *shape, const void *data,
                                 size_t byte_length, kiln_tensor_t *out);
void kiln_tensor_free(kiln_tensor_t tensor);
/* The accessors below return a neutral value for a NULL tensor: dtype -1
 * (named "invalid"), rank -1, NULL shape and data, 0 bytes. */
kiln_dtype_t kiln_tensor_dtype(kiln_tensor_t tensor);
int64_t kiln_tensor_rank(kiln_tensor_t tensor);
/* The shape (kiln_tensor_rank entries); valid while the tensor lives. */
const int64_t *kiln_tensor_shape(kiln_tensor_t tensor);
/* The elements in row-major order, 64-byte aligned; NULL for a tensor that
 * is not in host memory (copy it to KILN_DEVICE_CPU first) or whose
 * asynchronous call failed. For a result of kiln_jit_call_async it waits
 * until the call has written it, and for an argument of such calls until
 * they have read it. */
void *kiln_tensor_data(kiln_tensor_t tensor);
/* Waits until the asynchronous call that writes `tensor` (a result of
 * kiln_jit_call_async) has finished; its error, with the message the
 * synchronous call gives, if it failed. NULL at once for other tensors. */
kiln_status_t kiln_tensor_wait(kiln_tensor_t tensor);
/* Where the tensor's elements live (KILN_DEVICE_CPU for NULL). */
kiln_device_t kiln_tensor_device(kiln_tensor_t tensor);
/* A copy of `tensor` on `device` (host <-> GPU, or a plain copy). Device
 * tensors stay there between calls of modules that run on that device. */
kiln_status_t kiln_tensor_copy_to(kiln_tensor_t tensor, kiln_device_t device,
                                  kiln_tensor_t *out);
size_t kiln_tensor_byte_length(kiln_tensor_t tensor);

/*===-- .npy / .npz files ------------------------------------------------===*/

/* Reads a .npy file. Untrusted input is safe: no pickles, bounded header,
 * checked shapes and sizes. Unsigned arrays (uint8 to uint64) read as the
 * signed ints of the same bits (KILN_I8 ... KILN_I64). */
kiln_status_t kiln_npy_read(const char *path, kiln_tensor_t *out);
kiln_status_t kiln_npy_write(const char *path, kiln_tensor_t tensor);

/* Reads every array of a .npz file (stored or deflated members); two
 * members with one array name are rejected. Bools are read as 0 or 1. On success
 * `*names` and `*tensors` are arrays of `*count` entries, freed together with
 * kiln_npz_free. */
kiln_status_t kiln_npz_read(const char *path, size_t *count, char ***names,
                            kiln_tensor_t **tensors);
void kiln_npz_free(size_t count, char **names, kiln_tensor_t *tensors);
/* Reads the block of shape `shape` at `offsets` (`rank` entries each) of
 * the array `name` of a .npz file, holding only the block in memory (one
 * device's part of a checkpoint): a stored member (np.savez) is read at
 * the block's runs only, so its CRC-32, which covers the rest, is not
 * checked; a compressed one (np.savez_compressed) is inflated through once
 * and checked. */
kiln_status_t kiln_npz_read_block(const char *path, const char *name,
                                  size_t rank, const int64_t *offsets,
                                  const int64_t *shape, kiln_tensor_t *out);
/* Writes `count` arrays as a .npz file; `compress` deflates the members.
 * Names must be distinct, non-empty and free of '/' and '\\'. */
kiln_status_t kiln_npz_write(const char *path, size_t count,
                             const char *const *names,
                             const kiln_tensor_t *tensors, int compress);

/*===-- Modules ----------------------------------------------------------===*/

typedef struct kiln_module *kiln_module_t;

/* Loads an artifact written by kiln-compile. */
kiln_status_t kiln_module_load(const char *path, kiln_module_t *out);
/* Compiles a .mlir source file in process (kiln_runtime_jit library). */
kiln_status_t kiln_module_compile(const char *path, kiln_module_t *out);
/* The same for `device` (kiln_runtime_jit library): for CUDA, for the chip
 * $KILN_CUDA_CHIP names, else sm_90. */
kiln_status_t kiln_module_compile_for(const char *path, kiln_device_t device,
                                      kiln_module_t *out);
void kiln_module_free(kiln_module_t module);
/* Where the module's entries run: their arguments must be on that device,
 * and kiln_module_call puts the results there (KILN_DEVICE_CPU for NULL). */
kiln_device_t kiln_module_device(kiln_module_t module);

/* The in-process CPU devices a partitioned module's entries run on (one
 * thread each; kiln-partition): the devices of its mesh, else 1. */
int64_t kiln_module_device_count(kiln_module_t module);
/* A partitioned module's mesh: its number of axes (0 if it is not
 * partitioned), and axis `axis`'s name (NULL if none) and size. */
size_t kiln_module_mesh_rank(kiln_module_t module);
const char *kiln_module_mesh_axis(kiln_module_t module, size_t axis,
                                  int64_t *size);
/* The mesh axes (indices, major to minor) over which dimension `dim` of
 * argument `index` of `entry` (of result `index` if `is_result`) is split
 * across devices, in `*axes`: their count, or -1 if there is no such
 * tensor or dimension. Valid while the module lives. */
int64_t kiln_module_entry_split(kiln_module_t module, const char *entry,
                                int is_result, size_t index, size_t dim,
                                const int64_t **axes);

/* Where device `device`'s part of argument `index` of `entry` (of result
 * `index` if `is_result`) lies in the whole tensor: its rank (-1 if there
 * is no such tensor or device), with `offsets` and `shape` (NULL, or room
 * for the rank) filled. An unpartitioned entry's parts are whole. */
int64_t kiln_module_entry_part(kiln_module_t module, const char *entry,
                               int is_result, size_t index, int64_t device,
                               int64_t *offsets, int64_t *shape);

/* The entry points, in the order of the source (none for a NULL module). */
size_t kiln_module_entry_count(kiln_module_t module);
const char *kiln_module_entry_name(kiln_module_t module, size_t index);
/* The signature of an entry, e.g. "(f32[4,8], i32[]) -> (f32[4])";
 * NULL if there is no such entry. Valid while the module lives. */
const char *kiln_module_entry_signature(kiln_module_t module,
                                        const char *entry);

/* The number of arguments or results of an entry, or -1 if there is no such
 * entry. */
int64_t kiln_module_entry_num_args(kiln_module_t module, const char *entry);
int64_t kiln_module_entry_num_results(kiln_module_t module, const char *entry);
/* The dtype and shape (`*rank` entries, valid while the module lives) of
 * argument or result `index` of an entry. */
kiln_status_t kiln_module_entry_arg(kiln_module_t module, const char *entry,
                                    size_t index, kiln_dtype_t *dtype,
                                    int64_t *rank, const int64_t **shape);
kiln_status_t kiln_module_entry_result(kiln_module_t module, const char *entry,
                                       size_t index, kiln_dtype_t *dtype,
                                       int64_t *rank, const int64_t **shape);

/* Calls `entry` on `num_args` tensors. Every argument is checked (count,
 * dtype, rank, each dimension, byte length) and a mismatch is reported
 * naming the argument, e.g. "arg1 dimension 0: expected 4, got 3". On
 * success `results` (room for `num_results` handles, which must equal the
 * entry's result count) receives new tensors the caller frees.
 * An argument the entry donates (kiln.donate, see
 * kiln_module_entry_result_donor) gives its buffer to its result: after
 * the call (even a failed one) it is empty, and any use of it is an error
 * naming it; it must not also be passed as another argument. */
kiln_status_t kiln_module_call(kiln_module_t module, const char *entry,
                               size_t num_args, const kiln_tensor_t *args,
                               size_t num_results, kiln_tensor_t *results);

/* Like kiln_module_call, but writes the results into `results`, existing
 * tensors of the result types (checked like the arguments and named
 * "result0", ...; their old elements are not read, so a boolean result's
 * bytes may be anything), which the caller keeps owning: no allocation per
 * call. A result must not alias an argument. */
kiln_status_t kiln_module_call_into(kiln_module_t module, const char *entry,
                                    size_t num_args, const kiln_tensor_t *args,
                                    size_t num_results,
                                    const kiln_tensor_t *results);

/*===-- Processes: one device of a mesh per process ----------------------===*/

/* How the processes of a multi-process run exchange buffers, each running
 * one device of a partitioned module's mesh (MPI ranks: kiln/mpi.h). Each
 * function exchanges among the devices `group[0..size)` (device numbers,
 * row-major over the mesh, in group order, this process's among them), is
 * called by every member in the same order, moves `bytes` per member, and
 * returns 0 on success. */
typedef struct kiln_transport {
  void *context;
  /* This process's device. */
  int64_t device;
  /* Member g receives block g (`bytes` long) of every member's `in`, in
   * group order in `out`. */
  int (*all_to_all)(void *context, const int64_t *group, int64_t size,
                    const void *in, void *out, int64_t bytes);
  /* Every member receives every member's `in`, in group order in `out`. */
  int (*all_gather)(void *context, const int64_t *group, int64_t size,
                    const void *in, void *out, int64_t bytes);
  /* This member receives in `out` the `in` of the member at place `source`
   * of the group (each member names its own; -1: none). */
  int (*fetch)(void *context, const int64_t *group, int64_t size,
               int64_t source, const void *in, void *out, int64_t bytes);
} kiln_transport_t;

/* Calls `entry` of a partitioned module as device `transport->device` of
 * its mesh, while every other device's process makes the same call: like
 * kiln_module_call on whole tensors, each process cutting its parts of the
 * arguments, or on this device's parts of them (kiln_module_entry_part:
 * read with kiln_npz_read_block, no process holds a whole argument);
 * every process receives the whole results (gathered through the
 * transport). The processes' results equal those of kiln_module_call
 * with in-process devices, bit for bit. A failed transport fails the call
 * on this process only: the caller ends the others (MPI_Abort). */
kiln_status_t kiln_module_call_device(kiln_module_t module, const char *entry,
                                      const kiln_transport_t *transport,
                                      size_t num_args,
                                      const kiln_tensor_t *args,
                                      size_t num_results,
                                      kiln_tensor_t *results);

/*===-- jit: compile on first call, cached -------------------------------===*/

/* A .mlir source whose entries are compiled when first asked for, each once
 * per signature, through a compile cache (kiln_runtime_jit library, CPU
 * only). A compiled entry is keyed by the canonical IR of the entry and
 * every function it reaches (comments, formatting and functions it does
 * not reach do not count), its name, its argument dtypes and shapes, the
 * compile options, the host CPU and its features, and the Kiln build. The
 * cache lives in memory (shared by every jit of the process) and on disk:
 * one zlib-compressed, checksummed entry per key, written atomically, so
 * that processes may share the folder; a corrupt, truncated or foreign
 * entry is reported, replaced and never run. */
typedef struct kiln_jit *kiln_jit_t;

typedef struct kiln_jit_options {
  /* The disk cache's folder (created if missing): NULL for the default,
   * $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln;
   * "" for none (the memory cache only). */
  const char *cache_dir;
  /* Called with one line for each compile, load from disk, corrupt entry,
   * cache miss (saying how the key differs from the closest entry the
   * cache holds) and donated argument (which result reuses its buffer, or
   * why none does); NULL for none. */
  void (*log)(void *user, const char *line);
  void *log_user;
  /* kiln-to-cpu-pipeline options for every compile, space-separated
   * ("approximate-math=false cache-tile-k=128"; kiln-opt --help lists
   * them); NULL for the defaults. Each option's value is part of the cache
   * key, so a miss names the option that changed. */
  const char *cpu_options;
} kiln_jit_options_t;

/* Parses and verifies the source at `path`; `options` may be NULL (the
 * defaults, no log). */
kiln_status_t kiln_jit_create(const char *path,
                              const kiln_jit_options_t *options,
                              kiln_jit_t *out);
void kiln_jit_free(kiln_jit_t jit);

/* The module holding `entry` compiled for arguments like `args` (their
 * dtypes and shapes, and the values of its static arguments; `num_args` 0
 * and `args` NULL are allowed for an entry without static arguments or
 * dynamic dimensions, as the source fixes every argument's type), compiled
 * or found in the cache. An entry whose arguments have dynamic dimensions
 * (tensor<?x784xf32>) is specialized for the shapes of `args`: each new
 * shape compiles it again, as jax.jit retraces, and the log says which
 * argument's shape changed. The jit owns the module: it lives as long as
 * the jit. */
kiln_status_t kiln_jit_module(kiln_jit_t jit, const char *entry,
                              size_t num_args, const kiln_tensor_t *args,
                              kiln_module_t *module);

/* The number of arguments of `entry` as the source declares it (static ones
 * included), or -1 if the source has no such entry. */
int64_t kiln_jit_entry_num_args(kiln_jit_t jit, const char *entry);
/* The dtype and shape (`*rank` entries, valid while the jit lives; -1 for a
 * dynamic dimension, whose size each call gives) of argument `index` of
 * `entry` as the source declares it, and whether it is
 * static (kiln.static: its value is baked into the code, and each value
 * compiles the entry anew). */
kiln_status_t kiln_jit_entry_arg(kiln_jit_t jit, const char *entry,
                                 size_t index, kiln_dtype_t *dtype,
                                 int64_t *rank, const int64_t **shape,
                                 int *is_static);

/* The number of results of `entry` as the source declares it, or -1 if
 * the source has no such entry. */
int64_t kiln_jit_entry_num_results(kiln_jit_t jit, const char *entry);

/* Runs `entry` on `args` with Kiln's reference interpreter instead of
 * compiled code: plain C++ over the elements, op by op, following each
 * op's documented semantics (floats computed in double and rounded to
 * their dtype after each op, sums accumulated in double), with no lowering
 * or code generation involved. For checking compiled results and telling
 * a miscompile from a wrong program; much slower than kiln_jit_call.
 * Checks the arguments as a call does; `num_results` must be the entry's
 * count, and `results` receive new host tensors. */
kiln_status_t kiln_jit_interpret(kiln_jit_t jit, const char *entry,
                                 size_t num_args, const kiln_tensor_t *args,
                                 size_t num_results, kiln_tensor_t *results);

/* kiln_jit_module, then kiln_module_call. After the first call of a
 * signature, a call costs a lookup more than kiln_module_call. */
kiln_status_t kiln_jit_call(kiln_jit_t jit, const char *entry,
                            size_t num_args, const kiln_tensor_t *args,
                            size_t num_results, kiln_tensor_t *results);

/* Enqueues a call of `entry` on the jit's worker thread and returns at once:
 * `results` (room for `num_results`) receive new tensors of the result
 * types, which the call writes later. Calls enqueued on one jit run one at
 * a time, in order, so a result can be the argument of the next call
 * before it is ready. Reading a result (kiln_tensor_data, kiln_tensor_wait,
 * a synchronous call, a copy or a file write) waits for it, and so does
 * overwriting an argument (kiln_tensor_data, kiln_module_call_into) for the
 * calls that read it; an argument or a result may be freed at once (the
 * last call using it frees it). The entry is
 * looked up (compiled if need be) and the arguments are checked before
 * this returns; an error inside the call surfaces when a result is read
 * (kiln_tensor_wait gives it), with the message the synchronous call
 * gives; a call whose argument comes from a failed call fails, naming it.
 * An entry that donates arguments (kiln.donate) consumes them at once: it
 * first waits for the calls that write or read them (so a step enqueued
 * with the weights the previous step computes waits for that step), then
 * hands their buffers to its results, as kiln_jit_call does.
 * Threads may enqueue on one jit at once. */
kiln_status_t kiln_jit_call_async(kiln_jit_t jit, const char *entry,
                                  size_t num_args, const kiln_tensor_t *args,
                                  size_t num_results, kiln_tensor_t *results);

/* What the jit's lookups found so far. */
typedef struct kiln_jit_stats {
  uint64_t compiled;       /* entries compiled */
  uint64_t disk_hits;      /* entries loaded from the disk cache */
  uint64_t memory_hits;    /* entries another jit of the process compiled */
  uint64_t corrupt;        /* disk entries found corrupt and replaced */
} kiln_jit_stats_t;
void kiln_jit_get_stats(kiln_jit_t jit, kiln_jit_stats_t *stats);

/* How many host tensor buffers the runtime has allocated since the process
 * started (tensors made, results of calls, files read, copies), and their
 * bytes; either pointer may be NULL. A result that reuses a donated
 * argument's buffer allocates none. */
void kiln_allocation_stats(uint64_t *tensors, uint64_t *bytes);

/* The argument whose buffer result `index` of `entry` reuses (kiln.donate),
 * or -1 (also for no such entry or result). */
int64_t kiln_module_entry_result_donor(kiln_module_t module, const char *entry,
                                       size_t index);

/* The most bytes of intermediate buffers the last successful call in this
 * thread held at once (arguments and results not included), as compiled
 * code allocated them. Calls running at the same time in other threads
 * share the count and may raise it. */
uint64_t kiln_last_call_peak_bytes(void);

/* The most bytes compiled code's intermediate buffers may hold at once, in
 * all the calls running (0, the default: as much as the system gives): an
 * allocation past it fails its call with "out of memory allocating a
 * buffer of N bytes (past the limit ...)", as one the system refuses does.
 * For sharing a machine, and for testing what a program does without the
 * memory it needs. */
void kiln_set_memory_limit(uint64_t bytes);
uint64_t kiln_memory_limit(void);

/* How many threads compiled code's parallel loops use (a pool of blocking
 * threads the process shares; an op too small to pay for them runs on the
 * calling thread): `count` >= 1, set for every call that starts after it
 * returns. The default is the number of CPUs this process may run on. */
kiln_status_t kiln_set_num_threads(int64_t count);
int64_t kiln_num_threads(void);

/* Compiled code's buffers are kept when freed for the next allocation of
 * the same size: large ones (64 KiB or more) up to 1 GiB in all (no page
 * faults on fresh memory), smaller ones by the thread that frees them, up
 * to 4 MiB each (no malloc bookkeeping). Frees the large buffers kept so
 * and the calling thread's small ones. */
void kiln_free_cached_buffers(void);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_H */
