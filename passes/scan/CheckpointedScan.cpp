//===- CheckpointedScan.cpp - scans with a checkpoint budget --------------===//
#include "CheckpointedScan.h"

#include "kiln/KilnDialect.h"
#include "passes/grad/RuleBuilders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseSet.h"

#include <map>

using namespace mlir;
using namespace kiln;

/// The fewest steps per level whose `levels`-th power reaches `length`.
static int64_t stepsFor(int64_t length, int64_t levels) {
  auto reaches = [&](int64_t steps) {
    int64_t covered = 1;
    for (int64_t i = 0; i < levels && covered < length; ++i)
      covered *= steps;
    return covered >= length;
  };
  int64_t steps = 1;
  while (!reaches(steps))
    ++steps;
  return steps;
}

FailureOr<ScanNesting> kiln::nestingFor(int64_t length, int64_t budget) {
  for (int64_t levels = 1; levels <= 64; ++levels) {
    int64_t steps = stepsFor(length, levels);
    if (levels * steps <= budget)
      return ScanNesting{levels, steps};
    if (steps <= 2)
      break;
  }
  return failure();
}

int64_t kiln::smallestBudget(int64_t length) {
  int64_t best = std::max<int64_t>(length, 1);
  for (int64_t levels = 2, steps = length; steps > 2; ++levels) {
    steps = stepsFor(length, levels);
    best = std::min(best, levels * steps);
  }
  return best;
}

namespace {

/// `type` with its leading `count` dimensions replaced by `shape`.
RankedTensorType withLeading(RankedTensorType type, unsigned count,
                             ArrayRef<int64_t> shape) {
  SmallVector<int64_t> dims(shape);
  llvm::append_range(dims, type.getShape().drop_front(count));
  return type.clone(dims);
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

/// Builds the nested segments of one scan.
class Nester {
public:
  Nester(SymbolTable &symbols, ScanOp scan, ScanNesting nesting)
      : symbols(symbols), scan(scan), nesting(nesting),
        body(symbols.lookup<func::FuncOp>(scan.getCallee())),
        numCarry(scan.getNumCarry()) {
    Operation *terminator = body.getBody().front().getTerminator();
    for (unsigned i = 0; i < numCarry; ++i)
      if (terminator->getOperand(i) == body.getArgument(i))
        invariant.insert(i);
  }

  /// The function running `length` steps at `level` (1: a plain scan of
  /// the body): (carries..., xs of `length` rows) -> (carries..., ys).
  func::FuncOp segment(int64_t length, int64_t level) {
    func::FuncOp &fn = segments[{length, level}];
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
    fn = func::FuncOp::create(
        b, loc,
        (body.getName() + "_segment_" + std::to_string(length) + "_" +
         std::to_string(level))
            .str(),
        b.getFunctionType(inputs, outputs));
    fn.setPrivate();
    symbols.insert(fn);
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    SmallVector<Value> returned =
        level == 1 ? plainScan(b, loc, entry->getArguments(), length)
                   : nested(b, loc, entry->getArguments(), length, level);
    func::ReturnOp::create(b, loc, returned);
    return fn;
  }

private:
  /// kiln.scan of the body over all of `operands`' rows.
  SmallVector<Value> plainScan(OpBuilder &b, Location loc, ValueRange operands,
                               int64_t length) {
    SmallVector<Type> types(
        body.getResultTypes().take_front(numCarry));
    for (Type y : body.getResultTypes().drop_front(numCarry))
      types.push_back(stacked(y, length));
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("callee", SymbolRefAttr::get(body)),
        b.getNamedAttr("num_carry", b.getI64IntegerAttr(numCarry)),
        b.getNamedAttr("length", b.getI64IntegerAttr(length)),
        b.getNamedAttr("unroll", b.getI64IntegerAttr(scan.getUnroll()))};
    return ScanOp::create(b, loc, types, operands, attrs)->getResults();
  }

  /// kiln.checkpoint of `fn` on `operands`.
  SmallVector<Value> checkpointed(OpBuilder &b, Location loc, func::FuncOp fn,
                                  ValueRange operands) {
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("callee", SymbolRefAttr::get(fn))};
    return CheckpointOp::create(b, loc, fn.getResultTypes(), operands, attrs)
        ->getResults();
  }

  /// The body of the function running `length` steps at `level` > 1: a
  /// scan over the segments of `inner` steps one level down, each
  /// checkpointed, then the remaining steps as one shorter segment.
  SmallVector<Value> nested(OpBuilder &b, Location loc, ValueRange args,
                            int64_t length, int64_t level) {
    int64_t inner = 1;
    for (int64_t i = 1; i < level; ++i)
      inner *= nesting.steps;
    int64_t count = length / inner, rest = length % inner;
    SmallVector<Value> carries(args.take_front(numCarry));
    ValueRange xs = args.drop_front(numCarry);
    SmallVector<SmallVector<Value>> ys(body.getNumResults() - numCarry);
    if (count > 0) {
      func::FuncOp step = segmentStep(inner, level - 1);
      SmallVector<Value> operands(carries);
      for (Value x : xs) {
        Value whole = rest ? rows(b, loc, x, 0, count * inner) : x;
        operands.push_back(ReshapeOp::create(
            b, loc, withLeading(tensorType(x), 1, {count, inner}), whole));
      }
      SmallVector<Type> types(step.getResultTypes().take_front(numCarry));
      for (Type y : step.getResultTypes().drop_front(numCarry))
        types.push_back(stacked(y, count));
      SmallVector<NamedAttribute> attrs = {
          b.getNamedAttr("callee", SymbolRefAttr::get(step)),
          b.getNamedAttr("num_carry", b.getI64IntegerAttr(numCarry)),
          b.getNamedAttr("length", b.getI64IntegerAttr(count))};
      Operation *outer = ScanOp::create(b, loc, types, operands, attrs);
      carries.assign(outer->result_begin(), outer->result_begin() + numCarry);
      for (auto [k, y] : llvm::enumerate(outer->getResults().drop_front(numCarry)))
        ys[k].push_back(ReshapeOp::create(
            b, loc, withLeading(tensorType(y), 2, {count * inner}), y));
    }
    if (rest > 0) {
      SmallVector<Value> operands(carries);
      for (Value x : xs)
        operands.push_back(rows(b, loc, x, length - rest, length));
      SmallVector<Value> results =
          checkpointed(b, loc, segment(rest, level - 1), operands);
      carries.assign(results.begin(), results.begin() + numCarry);
      for (auto [k, y] : llvm::enumerate(ArrayRef(results).drop_front(numCarry)))
        ys[k].push_back(y);
    }
    SmallVector<Value> returned(carries);
    for (ArrayRef<Value> parts : ys)
      returned.push_back(parts.size() == 1
                             ? parts.front()
                             : ConcatenateOp::create(b, loc, parts, 0));
    return returned;
  }

  /// The body of a scan over segments of `length` steps at `level`: one
  /// segment, checkpointed.
  func::FuncOp segmentStep(int64_t length, int64_t level) {
    func::FuncOp &fn = steps[{length, level}];
    if (fn)
      return fn;
    func::FuncOp target = segment(length, level);
    OpBuilder b(target);
    b.setInsertionPointAfter(target);
    fn = func::FuncOp::create(b, scan.getLoc(),
                              (target.getName() + "_checkpointed").str(),
                              target.getFunctionType());
    fn.setPrivate();
    symbols.insert(fn);
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    SmallVector<Value> results =
        checkpointed(b, scan.getLoc(), target, entry->getArguments());
    // A carry the body returns unchanged is returned as it came, so that
    // the outer loop sees it is invariant and does not stack it per trip.
    for (unsigned i : invariant)
      results[i] = entry->getArgument(i);
    func::ReturnOp::create(b, scan.getLoc(), results);
    return fn;
  }

  SymbolTable &symbols;
  ScanOp scan;
  ScanNesting nesting;
  func::FuncOp body;
  unsigned numCarry;
  /// The carries the body returns as it gets them.
  llvm::SmallDenseSet<unsigned> invariant;
  std::map<std::pair<int64_t, int64_t>, func::FuncOp> segments, steps;
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
    FailureOr<ScanNesting> nesting = nestingFor(length, budget);
    if (failed(nesting))
      return scan.emitOpError("checkpoints = ")
             << budget << " is too few for length " << length
             << ": nested checkpointing stores at least "
             << smallestBudget(length) << " carries";
    Location loc = scan.getLoc();
    OpBuilder b(scan);
    unsigned numCarry = scan.getNumCarry();
    SmallVector<Value> operands(scan.getOperands());
    // A reversed scan is the forward scan of the reversed slices, its ys
    // reversed back.
    if (scan.getReverse())
      for (Value &x : MutableArrayRef(operands).drop_front(numCarry))
        x = ReverseOp::create(b, loc, x, ArrayRef<int64_t>{0});
    Nester nester(symbols, scan, *nesting);
    auto results = func::CallOp::create(
        b, loc, nester.segment(length, nesting->levels), operands);
    SmallVector<Value> replaced(results.getResults());
    if (scan.getReverse())
      for (Value &y : MutableArrayRef(replaced).drop_front(numCarry))
        y = ReverseOp::create(b, loc, y, ArrayRef<int64_t>{0});
    scan.replaceAllUsesWith(replaced);
    scan.erase();
  }
  return success();
}
