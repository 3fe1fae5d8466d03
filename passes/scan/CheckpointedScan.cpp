//===- CheckpointedScan.cpp - scans with a checkpoint budget --------------===//
#include "CheckpointedScan.h"

#include "kiln/KilnDialect.h"
#include "passes/grad/RuleBuilders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <limits>
#include <map>

using namespace mlir;
using namespace kiln;

namespace {

/// More sweeps would run each step forward over 33 times and grow the
/// program (it has about carries x sweeps segments).
constexpr int64_t kMaxSweeps = 32;

/// Griewank's binomial number C(carries + sweeps, carries): the most steps
/// `carries` stored carries reverse in `sweeps` sweeps; saturates.
int64_t binomial(int64_t carries, int64_t sweeps) {
  int64_t result = 1;
  for (int64_t k = 1; k <= sweeps; ++k) {
    if (result > std::numeric_limits<int64_t>::max() / (carries + k))
      return std::numeric_limits<int64_t>::max();
    result = result * (carries + k) / k; // C(c + k - 1, k - 1) (c + k) / k
  }
  return result;
}

/// The fewest sweeps r for which binomial(carries, r) reaches `length`, or
/// kMaxSweeps + 1 if more than kMaxSweeps are needed.
int64_t sweepsFor(int64_t length, int64_t carries) {
  int64_t sweeps = 0;
  while (sweeps <= kMaxSweeps && binomial(carries, sweeps) < length)
    ++sweeps;
  return sweeps;
}

/// How many of `length` > 1 steps, reversed with `carries` >= 1 stored
/// carries, run before the second carry is stored: the smallest m in
/// Griewank's optimal range (the rest needs at most r sweeps with one carry
/// fewer, the first m at most r - 1), which keeps most segments binomial.
int64_t firstSegment(int64_t length, int64_t carries) {
  if (carries == 1)
    return length - 1;
  int64_t sweeps = sweepsFor(length, carries);
  return std::max({length - binomial(carries - 1, sweeps),
                   sweeps >= 2 ? binomial(carries, sweeps - 2) : 1,
                   int64_t(1)});
}

/// The smallest budget that reverses `length` steps within kMaxSweeps.
int64_t smallestBudget(int64_t length) {
  int64_t carries = 1;
  while (binomial(carries, kMaxSweeps) < length)
    ++carries;
  return carries;
}

/// `type` stacked `rows` times on a new dimension 0.
RankedTensorType stacked(Type type, int64_t rows) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> dims = {rows};
  llvm::append_range(dims, tensor.getShape());
  return tensor.clone(dims);
}

/// Rows [begin, end) of `x` along dimension 0.
Value rows(OpBuilder &b, Location loc, Value x, int64_t begin, int64_t end) {
  RankedTensorType type = tensorType(x);
  SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()),
      strides(type.getRank(), 1);
  start[0] = begin;
  limit[0] = end;
  return SliceOp::create(b, loc, x, start, limit, strides);
}

/// Builds the segments of one scan's binomial schedule.
class Revolver {
public:
  Revolver(SymbolTable &symbols, ScanOp scan)
      : symbols(symbols), scan(scan),
        body(symbols.lookup<func::FuncOp>(scan.getCallee())),
        numCarry(scan.getNumCarry()) {
    Operation *terminator = body.getBody().front().getTerminator();
    for (unsigned i = 0; i < numCarry; ++i)
      if (terminator->getOperand(i) == body.getArgument(i))
        invariant.insert(i);
  }

  /// The function reversing `length` steps with `carries` stored carries:
  /// (carries..., xs of `length` rows) -> (carries..., ys).
  func::FuncOp segment(int64_t length, int64_t carries) {
    if (length == 1) // One step needs no carry stored: one function.
      carries = 0;
    func::FuncOp &fn = segments[{length, carries}];
    if (fn)
      return fn;
    Location loc = scan.getLoc();
    TypeRange args = body.getArgumentTypes(), results = body.getResultTypes();
    SmallVector<Type> inputs(args.take_front(numCarry)),
        outputs(results.take_front(numCarry));
    for (Type x : args.drop_front(numCarry))
      inputs.push_back(stacked(x, length));
    for (Type y : results.drop_front(numCarry))
      outputs.push_back(stacked(y, length));
    OpBuilder b(body);
    b.setInsertionPointAfter(body);
    fn = func::FuncOp::create(b, loc,
                              (body.getName() + "_revolve_" +
                               std::to_string(length) + "_" +
                               std::to_string(carries))
                                  .str(),
                              b.getFunctionType(inputs, outputs));
    fn.setPrivate();
    symbols.insert(fn);
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    SmallVector<Value> returned =
        length == 1 ? step(b, loc, entry->getArguments())
                    : chain(b, loc, entry->getArguments(), length, carries);
    // A carry the body returns unchanged is returned as it came, so that
    // no segment stores or copies it.
    for (unsigned i : invariant)
      returned[i] = entry->getArgument(i);
    func::ReturnOp::create(b, loc, returned);
    return fn;
  }

private:
  /// The body on the single rows of `operands`' xs, as a scan of length 1.
  SmallVector<Value> step(OpBuilder &b, Location loc, ValueRange operands) {
    SmallVector<Type> types(body.getResultTypes().take_front(numCarry));
    for (Type y : body.getResultTypes().drop_front(numCarry))
      types.push_back(stacked(y, 1));
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("callee", SymbolRefAttr::get(body)),
        b.getNamedAttr("num_carry", b.getI64IntegerAttr(numCarry)),
        b.getNamedAttr("length", b.getI64IntegerAttr(1))};
    return ScanOp::create(b, loc, types, operands, attrs)->getResults();
  }

  /// The segment of `length` > 1 steps: its first m steps checkpointed
  /// with `carries`, then the rest with one carry fewer, unrolled into a
  /// chain here (not a call per part), so that reverse mode holds one
  /// cotangent of the carries at a time along it, not one per part.
  SmallVector<Value> chain(OpBuilder &b, Location loc, ValueRange args,
                           int64_t length, int64_t carries) {
    ValueRange xs = args.drop_front(numCarry);
    SmallVector<Value> state(args.take_front(numCarry));
    SmallVector<SmallVector<Value>> ys(body.getNumResults() - numCarry);
    auto ran = [&](ValueRange results) {
      state.assign(results.begin(), results.begin() + numCarry);
      for (unsigned i : invariant)
        state[i] = args[i];
      for (auto [parts, y] : llvm::zip_equal(ys, results.drop_front(numCarry)))
        parts.push_back(y);
    };
    auto operandsFor = [&](int64_t begin, int64_t end) {
      SmallVector<Value> operands(state);
      for (Value x : xs)
        operands.push_back(rows(b, loc, x, begin, end));
      return operands;
    };
    int64_t begin = 0;
    // The schedule leaves one step once no carry is left to store.
    for (; length - begin > 1; --carries) {
      int64_t first = firstSegment(length - begin, carries);
      func::FuncOp head = segment(first, carries);
      ran(CheckpointOp::create(
              b, loc, head.getResultTypes(), operandsFor(begin, begin + first),
              {b.getNamedAttr("callee", SymbolRefAttr::get(head))})
              ->getResults());
      begin += first;
    }
    ran(step(b, loc, operandsFor(begin, length)));
    SmallVector<Value> returned(state);
    for (ArrayRef<Value> parts : ys)
      returned.push_back(ConcatenateOp::create(b, loc, parts, 0));
    return returned;
  }

  SymbolTable &symbols;
  ScanOp scan;
  func::FuncOp body;
  unsigned numCarry;
  /// The carries the body returns as it gets them.
  llvm::SmallDenseSet<unsigned> invariant;
  std::map<std::pair<int64_t, int64_t>, func::FuncOp> segments;
};

} // namespace

LogicalResult kiln::nestCheckpointedScans(ModuleOp module,
                                          SymbolTable &symbols) {
  SmallVector<ScanOp> scans;
  module.walk([&](ScanOp scan) {
    if (scan.getCheckpoints() > 0 &&
        int64_t(scan.getCheckpoints()) < int64_t(scan.getLength()))
      scans.push_back(scan);
  });
  for (ScanOp scan : scans) {
    int64_t length = scan.getLength(), budget = scan.getCheckpoints();
    if (sweepsFor(length, budget) > kMaxSweeps)
      return scan.emitOpError("checkpoints = ")
             << budget << " is too few for length " << length
             << ": the binomial schedule would sweep the steps over "
             << kMaxSweeps << " times; give at least "
             << smallestBudget(length);
    Location loc = scan.getLoc();
    OpBuilder b(scan);
    unsigned numCarry = scan.getNumCarry();
    SmallVector<Value> operands(scan.getOperands());
    // A reversed scan is the forward scan of the reversed slices, its ys
    // reversed back.
    if (scan.getReverse())
      for (Value &x : MutableArrayRef(operands).drop_front(numCarry))
        x = ReverseOp::create(b, loc, x, ArrayRef<int64_t>{0});
    auto results = func::CallOp::create(
        b, loc, Revolver(symbols, scan).segment(length, budget), operands);
    SmallVector<Value> replaced(results.getResults());
    if (scan.getReverse())
      for (Value &y : MutableArrayRef(replaced).drop_front(numCarry))
        y = ReverseOp::create(b, loc, y, ArrayRef<int64_t>{0});
    scan.replaceAllUsesWith(replaced);
    scan.erase();
  }
  return success();
}
