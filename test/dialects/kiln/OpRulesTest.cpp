//===- OpRulesTest.cpp - every kiln op has the rules DESIGN.md asks for ---===//
//
// Walks every registered kiln op (with every external model the compiler
// registers) and fails if one lacks an interface it must have. Exemptions
// are listed here, each with its reason; a new op either implements the
// rules or is added to a list below in review.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

/// Ops whose result type the operands do not determine, so they have no
/// shape inference: the type is given (constant, iota, convert's and
/// bitcast_convert's element type, reshape's and broadcast_in_dim's shapes,
/// dot_general's preferred element type, argmax's index type) or comes from
/// a region (cond, while).
const llvm::StringSet<> kNoTypeInference = {
    "kiln.constant",    "kiln.iota",       "kiln.convert",
    "kiln.bitcast_convert",
    "kiln.reshape",     "kiln.broadcast_in_dim", "kiln.dot_general",
    "kiln.argmax",      "kiln.cond",       "kiln.while",
    "kiln.yield"};

/// The ops linear in some operand, which reverse mode transposes (JAX's
/// deflinear and transpose rules); every other op is differentiated through
/// its JVP only.
const llvm::StringSet<> kLinear = {
    "kiln.add",          "kiln.sub",           "kiln.neg",
    "kiln.mul",          "kiln.div",           "kiln.dot_general",
    "kiln.reduce_sum",   "kiln.broadcast_in_dim", "kiln.reshape",
    "kiln.transpose",    "kiln.slice",         "kiln.dynamic_slice",
    "kiln.dynamic_update_slice", "kiln.concatenate", "kiln.pad",
    "kiln.reverse",      "kiln.select",        "kiln.convert",
    "kiln.take",         "kiln.scatter_add",   "kiln.cond",
    "kiln.while",        "kiln.sharding_constraint"};

/// Ops with regions, whose forward-mode and batching rules are
/// RegionJvpOpInterface and RegionBatchingOpInterface (the engines
/// differentiate and batch their regions for them).
const llvm::StringSet<> kRegionOps = {"kiln.cond", "kiln.while"};

/// Linear ops without a transpose rule: while, which reverse mode does not
/// differentiate because its trip count is known only once it has run (as
/// in JAX; kiln.scan is the differentiable loop), and cond, which the
/// reverse-mode engine splits into a forward and a backward cond itself.
const llvm::StringSet<> kNotTransposed = {"kiln.cond", "kiln.while"};

/// Declarations at module level, not computations: no value flows through
/// them, so no rule applies.
const llvm::StringSet<> kDeclarations = {"kiln.mesh"};

/// The ops of a partitioned program (collectives, axis_index): kiln-partition
/// makes them once the transformations have expanded and shardings have
/// propagated (the order of JAX's jit with shardings, and of GSPMD), so no
/// engine meets them; and their sizes depend on the mesh, which their
/// operands do not say. Their verifiers and lowerings are their rules.
const llvm::StringSet<> kPartitioned = {
    "kiln.all_reduce", "kiln.all_gather",         "kiln.reduce_scatter",
    "kiln.all_to_all", "kiln.collective_permute", "kiln.axis_index"};

/// Ops without operands: nothing they compute depends on a batch, so the
/// vmap engine copies them and they need no batching rule.
const llvm::StringSet<> kNoOperands = {"kiln.constant", "kiln.iota"};

class OpRulesTest : public ::testing::Test {
protected:
  OpRulesTest() {
    DialectRegistry registry;
    kiln::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadDialect<kiln::KilnDialect>();
    for (RegisteredOperationName op : context.getRegisteredOperations())
      if (op.getDialectNamespace() == "kiln")
        ops.push_back(op);
  }

  /// Whether `op` is a primitive: neither a transformation op nor the
  /// terminator of kiln's regions (whose rules are those of its parent).
  static bool isPrimitive(RegisteredOperationName op) {
    return !op.hasInterface<kiln::TransformOpInterface>() &&
           op.getStringRef() != "kiln.yield" &&
           !kDeclarations.contains(op.getStringRef()) &&
           !kPartitioned.contains(op.getStringRef());
  }

  /// The primitives that lack `Interface`, if any primitive has it: an
  /// engine implements its rules for every op it applies to, or for none
  /// yet (before its issue lands). `applies` selects the ops it applies to.
  template <typename Interface>
  std::vector<std::string>
  missing(llvm::function_ref<bool(RegisteredOperationName)> applies) {
    std::vector<std::string> lacking;
    bool anyHas = false;
    for (RegisteredOperationName op : ops) {
      if (!isPrimitive(op) || !applies(op))
        continue;
      if (op.hasInterface<Interface>())
        anyHas = true;
      else
        lacking.push_back(op.getStringRef().str());
    }
    return anyHas ? lacking : std::vector<std::string>();
  }

  MLIRContext context;
  std::vector<RegisteredOperationName> ops;
};

TEST_F(OpRulesTest, TheDialectHasItsOps) {
  // Guards the walks below against an empty registry.
  EXPECT_GT(ops.size(), 60u);
}

TEST_F(OpRulesTest, PrimitivesInferTheirTypes) {
  for (RegisteredOperationName op : ops)
    if (isPrimitive(op) && !kNoTypeInference.contains(op.getStringRef()))
      EXPECT_TRUE(op.hasInterface<InferTypeOpInterface>())
          << op.getStringRef().str() << " has no shape inference";
}

TEST_F(OpRulesTest, TransformationOpsNameTheirCallee) {
  int transforms = 0;
  for (RegisteredOperationName op : ops) {
    if (!op.hasInterface<kiln::TransformOpInterface>())
      continue;
    ++transforms;
    EXPECT_TRUE(op.hasInterface<SymbolUserOpInterface>())
        << op.getStringRef().str() << " does not verify its callee";
  }
  EXPECT_GE(transforms, 8);
}

TEST_F(OpRulesTest, EveryPrimitiveHasEachRuleOnceItsEngineExists) {
  auto all = [](RegisteredOperationName) { return true; };
  auto withoutRegions = [](RegisteredOperationName op) {
    return !kRegionOps.contains(op.getStringRef());
  };
  auto withRegions = [](RegisteredOperationName op) {
    return kRegionOps.contains(op.getStringRef());
  };
  auto linear = [](RegisteredOperationName op) {
    return kLinear.contains(op.getStringRef()) &&
           !kNotTransposed.contains(op.getStringRef());
  };
  EXPECT_EQ(missing<kiln::JvpOpInterface>(withoutRegions),
            std::vector<std::string>());
  EXPECT_EQ(missing<kiln::RegionJvpOpInterface>(withRegions),
            std::vector<std::string>());
  EXPECT_EQ(missing<kiln::TransposeOpInterface>(linear),
            std::vector<std::string>());
  auto batchable = [](RegisteredOperationName op) {
    return !kRegionOps.contains(op.getStringRef()) &&
           !kNoOperands.contains(op.getStringRef());
  };
  EXPECT_EQ(missing<kiln::BatchingOpInterface>(batchable),
            std::vector<std::string>());
  EXPECT_EQ(missing<kiln::RegionBatchingOpInterface>(withRegions),
            std::vector<std::string>());
  EXPECT_EQ(missing<kiln::ShardingRuleOpInterface>(all),
            std::vector<std::string>());
  EXPECT_EQ(missing<kiln::RematCostOpInterface>(all),
            std::vector<std::string>());
  EXPECT_EQ(missing<kiln::EvaluateOpInterface>(all),
            std::vector<std::string>());
}

TEST_F(OpRulesTest, TheLinearListNamesRealOps) {
  llvm::StringSet<> names;
  for (RegisteredOperationName op : ops)
    names.insert(op.getStringRef());
  for (const auto &entry : kLinear)
    EXPECT_TRUE(names.contains(entry.getKey())) << entry.getKey().str();
  for (const auto &list : {kNoTypeInference, kRegionOps, kNotTransposed,
                           kNoOperands, kDeclarations, kPartitioned})
    for (const auto &entry : list)
      EXPECT_TRUE(names.contains(entry.getKey())) << entry.getKey().str();
}

} // namespace
