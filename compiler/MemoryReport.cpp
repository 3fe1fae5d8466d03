//===- MemoryReport.cpp - the peak memory of a program's entries ----------===//
#include "MemoryReport.h"
#include "lowering/common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <tuple>

using namespace mlir;
using namespace kiln;

namespace {

/// The bytes of a buffer of `type`, as the LLVM lowering allocates them
/// (booleans take a byte), or 0 if its shape is dynamic.
uint64_t typeBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return 0;
  Type element = memref.getElementType();
  uint64_t bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  return uint64_t(memref.getNumElements()) * std::max<uint64_t>(1, bits / 8);
}

/// "file:line:col" of the first file location in `loc`, or its printed form.
std::string describe(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return text;
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// A buffer held at some point of the walk: the value an alloc defined (null
/// for one a loop carries from iteration to iteration), its type's bytes
/// and what the report shows.
struct Held {
  Value buffer;
  uint64_t typeBytes = 0;
  PeakBuffer shown;
};

/// The walk through one function: what it holds now and at its peak so far,
/// counted from its start (less than nothing once it frees arguments its
/// callers handed it), and which of its arguments it frees.
struct State {
  int64_t current = 0, peak = 0;
  std::vector<Held> held, atPeak;
  llvm::SmallSetVector<unsigned, 4> freedArgs;

  /// Notes that `extra` more bytes (`extraHeld`) are held for a moment.
  void touch(int64_t extra, ArrayRef<Held> extraHeld) {
    if (current + extra <= peak)
      return;
    peak = current + extra;
    atPeak = held;
    atPeak.insert(atPeak.end(), extraHeld.begin(), extraHeld.end());
  }

  void hold(Held buffer) {
    current += buffer.shown.bytes;
    held.push_back(std::move(buffer));
    touch(0, {});
  }

  /// Releases the buffer `root` is (an alloc's result), or else one of the
  /// size of its type: a buffer carried by a loop or returned by a branch.
  void release(Value root) {
    auto it = llvm::find_if(held, [&](const Held &h) { return h.buffer == root; });
    if (it == held.end()) {
      uint64_t bytes = typeBytes(root.getType());
      auto carried = llvm::find_if(llvm::reverse(held), [&](const Held &h) {
        return h.typeBytes == bytes;
      });
      if (carried == held.rend())
        return;
      it = std::next(carried).base();
    }
    current -= it->shown.bytes;
    held.erase(it);
  }
};

/// What walking a function from nothing gives: its peak and the buffers
/// then, the bytes it still holds when it returns (less the arguments it
/// frees), and which arguments it frees (kiln-free-in-callees).
struct Summary {
  int64_t peak = 0, net = 0;
  std::vector<Held> atPeak;
  SmallVector<unsigned> freedArgs;
};

class MemoryWalker {
public:
  explicit MemoryWalker(ModuleOp module) : symbols(module) {}

  const Summary &summarize(func::FuncOp fn) {
    if (auto it = summaries.find(fn); it != summaries.end())
      return it->second;
    State state;
    walk(fn.getBody(), state);
    // Looked up again: the walk summarizes the callees, which grows the map.
    return summaries[fn] = {state.peak, state.current, state.atPeak,
                            state.freedArgs.takeVector()};
  }

private:
  void walk(Region &region, State &state) {
    for (Block &block : region)
      for (Operation &op : block)
        walk(op, state);
  }

  void walk(Operation &op, State &state) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      return allocate(alloc, state);
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
      return free(viewedBuffer(dealloc.getMemref()), state);
    if (auto call = dyn_cast<func::CallOp>(op))
      return callFunction(call, state);
    if (op.getNumRegions() == 0)
      return;
    if (isa<scf::IfOp, scf::IndexSwitchOp>(op))
      return takeOneRegion(op, state);
    // A loop, walked once in its steady state: it holds the buffers it
    // carries from one iteration to the next throughout.
    for (Value result : op.getResults())
      if (uint64_t bytes = typeBytes(result.getType()))
        state.hold({Value(), bytes,
                    {"carried by the loop at " + describe(op.getLoc()),
                     typeText(result.getType()), bytes}});
    for (Region &region : op.getRegions())
      walk(region, state);
  }

  void allocate(memref::AllocOp alloc, State &state) {
    uint64_t bytes = typeBytes(alloc.getType()), allocated = bytes;
    // The lowering rounds an aligned allocation's size up to its alignment.
    if (std::optional<uint64_t> alignment = alloc.getAlignment())
      allocated = (bytes + *alignment - 1) / *alignment * *alignment;
    state.hold({alloc.getResult(), bytes,
                {describe(alloc.getLoc()), typeText(alloc.getType()),
                 allocated}});
  }

  /// Frees `root`: an argument of the function walked, handed to it by its
  /// callers, or a buffer it holds.
  void free(Value root, State &state) {
    auto argument = dyn_cast<BlockArgument>(root);
    if (argument && argument.getOwner()->isEntryBlock() &&
        isa<func::FuncOp>(argument.getOwner()->getParentOp())) {
      state.current -= int64_t(typeBytes(root.getType()));
      state.freedArgs.insert(argument.getArgNumber());
      return;
    }
    state.release(root);
  }

  void callFunction(func::CallOp call, State &state) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!callee || callee.isExternal())
      return;
    const Summary &summary = summarize(callee);
    state.touch(summary.peak, summary.atPeak);
    state.current += summary.net;
    // The callee counted the arguments it frees by their types' bytes; the
    // caller forgets them as it holds them.
    for (unsigned i : summary.freedArgs) {
      Value root = viewedBuffer(call.getOperand(i));
      state.current += int64_t(typeBytes(root.getType()));
      free(root, state);
    }
  }

  /// An op that runs one of its regions: the one that peaks highest for the
  /// peak, the one that holds most at its end for what follows. A
  /// conditional deallocation (an scf.if without else) counts as taken.
  void takeOneRegion(Operation &op, State &state) {
    State after = state;
    bool first = true;
    for (Region &region : op.getRegions()) {
      if (region.empty())
        continue;
      State branch = state;
      walk(region, branch);
      if (branch.peak > state.peak || (first && branch.peak == state.peak)) {
        state.peak = branch.peak;
        state.atPeak = branch.atPeak;
      }
      if (first || branch.current > after.current)
        after = std::move(branch);
      first = false;
    }
    after.peak = state.peak;
    after.atPeak = state.atPeak;
    state = std::move(after);
  }

  SymbolTable symbols;
  llvm::DenseMap<Operation *, Summary> summaries;
};

} // namespace

std::vector<EntryMemory> kiln::analyzeMemory(ModuleOp module) {
  MemoryWalker walker(module);
  std::vector<EntryMemory> entries;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    const Summary &summary = walker.summarize(fn);
    EntryMemory entry{fn.getName().str(), uint64_t(summary.peak), {}};
    for (const Held &held : summary.atPeak)
      entry.atPeak.push_back(held.shown);
    llvm::sort(entry.atPeak, [](const PeakBuffer &a, const PeakBuffer &b) {
      return std::tie(b.bytes, a.location, a.type) <
             std::tie(a.bytes, b.location, b.type);
    });
    entries.push_back(std::move(entry));
  }
  return entries;
}

void kiln::printMemoryReport(const std::vector<EntryMemory> &entries,
                             llvm::raw_ostream &os) {
  constexpr size_t kShown = 10;
  for (const EntryMemory &entry : entries) {
    os << entry.entry << ": peak " << entry.peakBytes << " bytes ("
       << llvm::format("%.3f", double(entry.peakBytes) / (1 << 20))
       << " MiB) of intermediate buffers, " << entry.atPeak.size()
       << " buffers at the peak\n";
    for (size_t i = 0; i < entry.atPeak.size() && i < kShown; ++i) {
      const PeakBuffer &buffer = entry.atPeak[i];
      os << "  " << llvm::format("%12llu", (unsigned long long)buffer.bytes)
         << " bytes  " << buffer.type << "  " << buffer.location << "\n";
    }
    if (entry.atPeak.size() > kShown)
      os << "  ... and " << entry.atPeak.size() - kShown
         << " smaller buffers\n";
  }
}
