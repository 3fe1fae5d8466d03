/*===- kiln/mpi.h - a partitioned module's devices as MPI ranks ----------===*
 *
 * The kiln_runtime_mpi library (built where MPI is found; Open MPI from
 * Debian) gives each rank of MPI_COMM_WORLD a transport for
 * kiln_module_call_device: rank r runs device r of the module's mesh, and
 * the devices' collectives are MPI's (MPI_Alltoall, MPI_Allgather, and
 * point-to-point for fetches) on a communicator per group of ranks, made
 * when the group first meets (MPI_Comm_create_group) and kept.
 *
 *===----------------------------------------------------------------------===*/
#ifndef KILN_MPI_H
#define KILN_MPI_H

#include "kiln/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Initializes MPI (once per process) and gives this rank's transport,
 * valid until kiln_mpi_finalize. */
kiln_status_t kiln_mpi_transport(const kiln_transport_t **out);
/* The number of ranks, once initialized (else 0). */
int64_t kiln_mpi_size(void);
/* Ends every rank's process with `code` (MPI_Abort): a rank whose call
 * failed calls it, since its peers would wait at their next collective. */
void kiln_mpi_abort(int code);
/* Frees the communicators and finalizes MPI; every rank calls it last. */
void kiln_mpi_finalize(void);

#ifdef __cplusplus
}
#endif

#endif /* KILN_MPI_H */
