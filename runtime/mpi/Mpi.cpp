//===- Mpi.cpp - a transport between MPI ranks ----------------------------===//
//
// Each function runs on a communicator holding exactly its group's ranks,
// in group order, so MPI's collectives apply as they are. The runtime
// combines the blocks it receives itself (kiln/runtime.h): no MPI_Op is
// needed for bf16, f16 or Kiln's NaN-keeping max and min.
//
//===----------------------------------------------------------------------===//
#include "kiln/mpi.h"

#include "../Internal.h"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mpi.h>

namespace {

/// MPI's state in this process.
struct Ranks {
  kiln_transport_t transport{};
  /// A communicator per group of ranks met so far.
  std::map<std::vector<int64_t>, MPI_Comm> communicators;
};
Ranks *ranks = nullptr;

/// The communicator of `group` (world ranks, in group order), made by its
/// members at their first collective together; null if MPI fails.
MPI_Comm communicator(const int64_t *group, int64_t size) {
  std::vector<int64_t> key(group, group + size);
  auto found = ranks->communicators.find(key);
  if (found != ranks->communicators.end())
    return found->second;
  MPI_Group world, members;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> worldRanks(group, group + size);
  MPI_Group_incl(world, int(size), worldRanks.data(), &members);
  MPI_Comm made = MPI_COMM_NULL;
  int status = MPI_Comm_create_group(MPI_COMM_WORLD, members, 0, &made);
  MPI_Group_free(&members);
  MPI_Group_free(&world);
  if (status != MPI_SUCCESS || made == MPI_COMM_NULL)
    return MPI_COMM_NULL;
  MPI_Comm_set_errhandler(made, MPI_ERRORS_RETURN);
  ranks->communicators.emplace(std::move(key), made);
  return made;
}

/// MPI counts are ints: larger blocks fail rather than wrap.
bool fits(int64_t bytes) { return bytes >= 0 && bytes <= INT_MAX; }

/// An MPI collective of `bytes` per member (MPI_Alltoall, MPI_Allgather)
/// on the group's communicator.
template <int (*Collective)(const void *, int, MPI_Datatype, void *, int,
                            MPI_Datatype, MPI_Comm)>
int exchange(void *, const int64_t *group, int64_t size, const void *in,
             void *out, int64_t bytes) {
  MPI_Comm comm = communicator(group, size);
  if (comm == MPI_COMM_NULL || !fits(bytes))
    return 1;
  return Collective(in, int(bytes), MPI_BYTE, out, int(bytes), MPI_BYTE,
                    comm) != MPI_SUCCESS;
}

/// Each member learns who asks for its buffer (an all-gather of the
/// sources), then the buffers go point to point.
int fetch(void *, const int64_t *group, int64_t size, int64_t source,
          const void *in, void *out, int64_t bytes) {
  MPI_Comm comm = communicator(group, size);
  if (comm == MPI_COMM_NULL || !fits(bytes))
    return 1;
  int self;
  MPI_Comm_rank(comm, &self);
  std::vector<int64_t> sources(size);
  if (MPI_Allgather(&source, 1, MPI_INT64_T, sources.data(), 1, MPI_INT64_T,
                    comm) != MPI_SUCCESS)
    return 1;
  std::vector<MPI_Request> requests;
  for (int g = 0; g < int(size); ++g)
    if (sources[g] == self && g != self)
      MPI_Isend(in, int(bytes), MPI_BYTE, g, 0, comm,
                &requests.emplace_back());
  if (source == self)
    std::memcpy(out, in, bytes);
  else if (source >= 0)
    MPI_Irecv(out, int(bytes), MPI_BYTE, int(source), 0, comm,
              &requests.emplace_back());
  return MPI_Waitall(int(requests.size()), requests.data(),
                     MPI_STATUSES_IGNORE) != MPI_SUCCESS;
}

} // namespace

kiln_status_t kiln_mpi_transport(const kiln_transport_t **out) {
  if (!ranks) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    int provided = 0;
    if (!initialized &&
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) !=
            MPI_SUCCESS)
      return kiln::runtime::error("MPI: MPI_Init_thread failed");
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ranks = new Ranks();
    ranks->transport = {nullptr, rank, exchange<MPI_Alltoall>,
                        exchange<MPI_Allgather>, fetch};
  }
  *out = &ranks->transport;
  return nullptr;
}

int64_t kiln_mpi_size(void) {
  int size = 0;
  if (ranks)
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

void kiln_mpi_abort(int code) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    std::exit(code);
  MPI_Abort(MPI_COMM_WORLD, code);
}

void kiln_mpi_finalize(void) {
  if (!ranks)
    return;
  for (auto &[group, comm] : ranks->communicators)
    MPI_Comm_free(&comm);
  delete ranks;
  ranks = nullptr;
  MPI_Finalize();
}
