//===- manifest.hpp - the entries an artifact describes ---------*- C++ -*-===//
//
// The manifest the compiler embeds in an artifact and the runtime reads: the
// entries and their signatures. Plain C++17, shared by the compiler library
// and the runtime core (which defines these functions).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_MANIFEST_HPP
#define KILN_MANIFEST_HPP

#include "kiln/abi.h"
#include "kiln/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::runtime {

/// The dtype and shape of one argument or result of an entry.
struct TensorSpec {
  kiln_dtype_t dtype;
  std::vector<int64_t> shape;
};

/// An entry point's name and signature.
struct EntrySignature {
  std::string name;
  std::vector<TensorSpec> args, results;
  /// For each result, the argument (kiln.donate) whose buffer the code
  /// writes it into and the runtime hands over, or -1; empty if none.
  std::vector<int64_t> donors;
  /// For an entry partitioned over the manifest's mesh (kiln-partition):
  /// per argument, then per result, the mesh axes (indices into
  /// Manifest::meshSizes, major to minor) each dimension is split over.
  /// `args` and `results` are then the whole tensors callers pass and get;
  /// each device's code takes its parts. Empty if not partitioned.
  std::vector<std::vector<std::vector<int64_t>>> parts;
  /// "(f32[4,8], i32[]) -> (f32[4])".
  std::string text;
};

/// What a compiled module holds: its entries, in source order.
struct Manifest {
  std::vector<EntrySignature> entries;
  /// Where the entries run: "cpu", or "cuda" (their buffers are device
  /// memory) for the GPU `chip` ("sm_90").
  std::string device = "cpu";
  std::string chip;
  /// The host CPU features its code was compiled for, as LLVM names them
  /// ("avx512f"), those of cpuFeaturesTheRuntimeChecks() only.
  std::vector<std::string> cpuFeatures;
  /// The device mesh partitioned entries run on: its axes and their sizes
  /// (one in-process device per element of the grid); empty if none.
  std::vector<std::string> meshAxes;
  std::vector<int64_t> meshSizes;
};

/// The spec of one device's part of `whole`, split over `parts` (per
/// dimension, axes of `meshSizes`); `whole` itself if `parts` is empty.
TensorSpec partSpec(const TensorSpec &whole,
                    const std::vector<std::vector<int64_t>> &parts,
                    const std::vector<int64_t> &meshSizes);

/// The x86 features whose absence the runtime can detect (with cpuid),
/// from SSE4.2 to AVX-512 and AMX, as LLVM names them.
const std::vector<std::string> &cpuFeaturesTheRuntimeChecks();
/// Which of `required` (LLVM names) `hasFeature` says the CPU lacks.
std::vector<std::string>
missingCpuFeatures(const std::vector<std::string> &required,
                   bool (*hasFeature)(const std::string &));
/// Whether this CPU has the feature `name` of cpuFeaturesTheRuntimeChecks().
bool hostHasCpuFeature(const std::string &name);
/// Asks the kernel to let this process use AMX tile data (Linux's
/// ARCH_REQ_XCOMP_PERM; without it, the first AMX instruction kills the
/// process): empty on success, else why it cannot.
std::string requestAmxTiles();

/// The manifest as the text kiln-compile embeds in an artifact.
std::string serializeManifest(const Manifest &manifest);
/// Parses serializeManifest's text, rejecting anything malformed.
kiln_status_t parseManifest(const std::string &text, Manifest &manifest);
/// The text of one tensor's spec: "f32[4,8]".
std::string specText(const TensorSpec &spec);
/// The signature text of an entry.
std::string signatureText(const EntrySignature &entry);

/// The symbol of an entry's packed form.
std::string entrySymbol(const std::string &name);

/// The symbol of the signature compiled beside an entry's code (see
/// encodeSignature).
std::string signatureSymbol(const std::string &name);

/// An entry's signature as the compiler emits it beside the code:
/// {length, #args, #results, then per tensor: dtype, rank, dims...}, of
/// each device's parts for a partitioned entry over a mesh of `meshSizes`.
std::vector<int64_t> encodeSignature(const EntrySignature &entry,
                                     const std::vector<int64_t> &meshSizes);

} // namespace kiln::runtime

#endif // KILN_MANIFEST_HPP
