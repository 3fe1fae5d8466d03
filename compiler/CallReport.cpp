//===- CallReport.cpp - how often each function of an entry runs ----------===//
#include "CallReport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace kiln;

namespace {

/// Runs of each function, keyed by the function, in order of first call.
struct Runs {
  uint64_t count = 0;
  bool exact = true;
};
using RunTable = llvm::MapVector<Operation *, Runs>;

/// Adds `times` x `table` to `into`.
void accumulate(RunTable &into, const RunTable &table, uint64_t times,
                bool exact) {
  for (const auto &[fn, runs] : table) {
    Runs &total = into[fn];
    total.count += runs.count * times;
    total.exact &= runs.exact && exact;
  }
}

class CallCounter {
public:
  explicit CallCounter(ModuleOp module) : symbols(module) {}

  /// The functions one call of `fn` runs, not counting `fn`.
  const RunTable &runsOf(func::FuncOp fn) {
    if (auto it = tables.find(fn); it != tables.end())
      return it->second;
    RunTable table;
    count(fn.getBody(), 1, true, table);
    // Looked up again: counting the callees grows the map.
    return tables[fn] = std::move(table);
  }

private:
  void count(Region &region, uint64_t times, bool exact, RunTable &table) {
    for (Block &block : region)
      for (Operation &op : block)
        count(op, times, exact, table);
  }

  void count(Operation &op, uint64_t times, bool exact, RunTable &table) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal())
        return;
      Runs &runs = table[callee];
      runs.count += times;
      runs.exact &= exact;
      return accumulate(table, runsOf(callee), times, exact);
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (trips)
        return count(loop.getRegion(), times * trips->getZExtValue(), exact,
                     table);
    }
    // A conditional is counted as taken; any other loop as one trip.
    for (Region &region : op.getRegions())
      count(region, times, /*exact=*/false, table);
  }

  SymbolTable symbols;
  llvm::DenseMap<Operation *, RunTable> tables;
};

} // namespace

std::vector<EntryCalls> kiln::countCalls(ModuleOp module) {
  CallCounter counter(module);
  std::vector<EntryCalls> entries;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    EntryCalls entry{fn.getName().str(), {}};
    for (const auto &[callee, runs] : counter.runsOf(fn))
      entry.functions.push_back(
          {cast<func::FuncOp>(callee).getName().str(), runs.count, runs.exact});
    entries.push_back(std::move(entry));
  }
  return entries;
}

void kiln::printCallReport(const std::vector<EntryCalls> &entries,
                           llvm::raw_ostream &os) {
  for (const EntryCalls &entry : entries) {
    os << entry.entry << ": " << entry.functions.size()
       << " functions run per call\n";
    for (const FunctionRuns &fn : entry.functions)
      os << "  " << llvm::format("%12llu", (unsigned long long)fn.runs)
         << (fn.exact ? "  " : "* ") << fn.function << "\n";
  }
  bool inexact = llvm::any_of(entries, [](const EntryCalls &entry) {
    return llvm::any_of(entry.functions,
                        [](const FunctionRuns &fn) { return !fn.exact; });
  });
  if (inexact)
    os << "* counting calls in conditionals as taken and loops without a "
          "constant trip count as one trip\n";
}
