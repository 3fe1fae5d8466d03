//===- MemoryReport.h - the peak memory of a program's entries --*- C++ -*-===//
//
// kiln-compile --report=memory: for each entry of a program lowered to
// bufferized loops (Stage::Loops), the most bytes of intermediate buffers
// it holds at once and the buffers that make up that peak, found by
// walking its allocations and deallocations in program order. What the
// runtime measures for a call (kiln_last_call_peak_bytes) agrees within the
// margin README.md states: a loop is walked once, in its steady state, and a
// conditional deallocation counts as taken.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_MEMORYREPORT_H
#define KILN_COMPILER_MEMORYREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// One buffer live at an entry's peak.
struct PeakBuffer {
  /// Where it is allocated (the op it was bufferized from), and its type.
  std::string location, type;
  uint64_t bytes = 0;
};

/// An entry's peak: its bytes and the buffers live then, largest first.
struct EntryMemory {
  std::string entry;
  uint64_t peakBytes = 0;
  std::vector<PeakBuffer> atPeak;
};

/// The peak memory of each public function of `module`, a program lowered
/// to bufferized loops.
std::vector<EntryMemory> analyzeMemory(mlir::ModuleOp module);

/// Prints `entries` for people: each entry's peak and its largest buffers.
void printMemoryReport(const std::vector<EntryMemory> &entries,
                       llvm::raw_ostream &os);

} // namespace kiln

#endif // KILN_COMPILER_MEMORYREPORT_H
