//===- CallReport.h - how often each function of an entry runs --*- C++ -*-===//
//
// kiln-compile --report=calls: for each entry of a program lowered to
// bufferized loops (Stage::Loops), how many times each function runs in one
// call of the entry: the calls in loops with constant trip counts times
// their trips, through the call graph. It shows what a transformation
// recomputes: the forward half of a scan's body runs once per step, and
// more under remat or a checkpoint budget.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CALLREPORT_H
#define KILN_COMPILER_CALLREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// How many times a function runs in one call of an entry. Inexact where a
/// call sits in a conditional (counted as taken) or a loop whose trip count
/// is not a constant (counted as one trip).
struct FunctionRuns {
  std::string function;
  uint64_t runs = 0;
  bool exact = true;
};

/// The functions an entry runs, by name.
struct EntryCalls {
  std::string entry;
  std::vector<FunctionRuns> functions;
};

/// The functions each public function of `module`, a program lowered to
/// bufferized loops, runs.
std::vector<EntryCalls> countCalls(mlir::ModuleOp module);

/// Prints `entries` for people, one line per function.
void printCallReport(const std::vector<EntryCalls> &entries,
                     llvm::raw_ostream &os);

} // namespace kiln

#endif // KILN_COMPILER_CALLREPORT_H
