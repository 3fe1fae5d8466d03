//===- Scan.cpp - scans as loops ------------------------------------------===//
//
// JAX's lax.scan at the IR level: the body is called once per step from one
// kiln.while, on the slice of each x at the step's position, and each y it
// returns is written into its stacked result at that position. Steps are
// counted in i64; a step reads and writes position `length - 1 - step` when
// the scan is reversed. Being a loop of calls, the scan is differentiated
// forward and batched by the rules of while and call.
//
//===----------------------------------------------------------------------===//
#include "Scan.h"
#include "kiln/KilnDialect.h"
#include "passes/grad/RuleBuilders.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace kiln;

namespace {

/// The steps of one scan.
struct ScanSteps {
  func::FuncOp body;
  unsigned numCarry;
  int64_t length;
  bool reverse;

  /// Emits step `step` (a scalar i64 tensor): the body called on `carries`
  /// and the slices of `xs` at the step's position, its ys written into
  /// `ys` there. Updates `carries` and `ys`.
  void emit(OpBuilder &b, Location loc, Value step, ValueRange xs,
            SmallVectorImpl<Value> &carries, SmallVectorImpl<Value> &ys) {
    Value position =
        reverse ? SubOp::create(b, loc, indexConstant(b, loc, length - 1), step)
                      .getResult()
                : step;
    SmallVector<Value> operands(carries.begin(), carries.end());
    for (auto [x, type] : llvm::zip_equal(
             xs, body.getArgumentTypes().drop_front(numCarry)))
      operands.push_back(readRow(b, loc, x, position, type));
    auto call = func::CallOp::create(b, loc, body, operands);
    // A carry the body returns unchanged stays the same value, so that the
    // loop shows it invariant.
    Operation *returned = body.getBody().front().getTerminator();
    for (unsigned j = 0; j < numCarry; ++j)
      if (returned->getOperand(j) != body.getArgument(j))
        carries[j] = call.getResult(j);
    for (auto [j, stacked] : llvm::enumerate(ys))
      stacked = writeRow(b, loc, stacked, call.getResult(numCarry + j),
                         position);
  }
};

/// Gives `block` one argument of each of `types`.
SmallVector<Value> addArguments(Block &block, TypeRange types, Location loc) {
  SmallVector<Value> args;
  for (Type type : types)
    args.push_back(block.addArgument(type, loc));
  return args;
}

} // namespace

FailureOr<func::FuncOp> ScanBuilder::getOrBuild(func::FuncOp body,
                                                int64_t numCarry,
                                                int64_t length, bool reverse,
                                                int64_t unroll, Location loc) {
  std::string key = body.getName().str() + "/" + std::to_string(numCarry) +
                    "/" + std::to_string(length) + "/" +
                    std::to_string(reverse) + "/" + std::to_string(unroll);
  if (func::FuncOp done = built[key])
    return done;
  auto stacked = [&](TypeRange types) {
    SmallVector<Type> result;
    for (Type type : types)
      result.push_back(stackedType(type, length));
    return result;
  };
  TypeRange args = body.getArgumentTypes(), results = body.getResultTypes();
  SmallVector<Type> inputs(args.take_front(numCarry)),
      outputs(results.take_front(numCarry));
  llvm::append_range(inputs, stacked(args.drop_front(numCarry)));
  llvm::append_range(outputs, stacked(results.drop_front(numCarry)));
  OpBuilder b(body);
  b.setInsertionPointAfter(body);
  auto scan = func::FuncOp::create(b, loc, (body.getName() + "_scan").str(),
                                   b.getFunctionType(inputs, outputs));
  scan.setPrivate();
  symbols.insert(scan); // Renames it if the name is taken.
  Block *entry = scan.addEntryBlock();
  b.setInsertionPointToStart(entry);

  ScanSteps steps{body, unsigned(numCarry), length, reverse};
  ValueRange xs = entry->getArguments().drop_front(numCarry);
  SmallVector<Value> carries(entry->getArguments().take_front(numCarry)), ys;
  for (Type type : ArrayRef(outputs).drop_front(numCarry))
    ys.push_back(zeros(b, loc, type));

  int64_t trips = length / unroll, done = 0;
  if (trips > 1) {
    // One loop of `trips` trips, each `unroll` steps.
    SmallVector<Value> operands = {indexConstant(b, loc, 0)};
    llvm::append_range(operands, carries);
    llvm::append_range(operands, ys);
    auto loop = WhileOp::create(b, loc, operands);
    loop->setAttr(kScanLoopAttr, b.getI64IntegerAttr(trips));
    TypeRange carried = ValueRange(operands).getTypes();
    Block *condition = new Block(), *trip = new Block();
    loop.getCond().push_back(condition);
    loop.getBody().push_back(trip);
    OpBuilder inner = OpBuilder::atBlockEnd(condition);
    SmallVector<Value> condArgs = addArguments(*condition, carried, loc);
    YieldOp::create(inner, loc,
                    CompareOp::create(inner, loc, ComparisonDirection::LT,
                                      condArgs[0],
                                      indexConstant(inner, loc, trips))
                        .getResult());
    inner.setInsertionPointToEnd(trip);
    SmallVector<Value> tripArgs = addArguments(*trip, carried, loc);
    SmallVector<Value> tripCarries(ArrayRef(tripArgs).slice(1, numCarry));
    SmallVector<Value> tripYs(ArrayRef(tripArgs).drop_front(1 + numCarry));
    Value first = MulOp::create(inner, loc, tripArgs[0],
                                indexConstant(inner, loc, unroll));
    for (int64_t u = 0; u < unroll; ++u)
      steps.emit(inner, loc,
                 AddOp::create(inner, loc, first, indexConstant(inner, loc, u)),
                 xs, tripCarries, tripYs);
    SmallVector<Value> next = {AddOp::create(inner, loc, tripArgs[0],
                                             indexConstant(inner, loc, 1))};
    llvm::append_range(next, tripCarries);
    llvm::append_range(next, tripYs);
    YieldOp::create(inner, loc, next);
    carries.assign(loop.getResults().begin() + 1,
                   loop.getResults().begin() + 1 + numCarry);
    ys.assign(loop.getResults().begin() + 1 + numCarry, loop.getResults().end());
    done = trips * unroll;
  }
  // The steps the loop leaves (all of them when it would run once or not
  // at all), in straight-line code.
  for (int64_t step = done; step < length; ++step)
    steps.emit(b, loc, indexConstant(b, loc, step), xs, carries, ys);
  SmallVector<Value> returned(carries);
  llvm::append_range(returned, ys);
  func::ReturnOp::create(b, loc, returned);
  if (failed(tidy(scan)))
    return failure();
  return built[key] = scan;
}
