//===- DialectTest.cpp - the kiln dialect's C++ API -----------------------===//
//
// Builders infer result types, builders fold, and the shared shape helpers
// handle the edges (overflow, empty lists) that textual tests cannot reach.
//
//===----------------------------------------------------------------------===//
#include "kiln/TypeInference.h"
#include "kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>
#include <limits>

using namespace mlir;

namespace {

class KilnDialectTest : public ::testing::Test {
protected:
  KilnDialectTest() : builder(&context) {
    context.loadDialect<kiln::KilnDialect, func::FuncDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A value of `type` produced by a constant splat of zero.
  Value zeros(RankedTensorType type) {
    return kiln::ConstantOp::create(builder, builder.getUnknownLoc(), type,
                                    cast<ElementsAttr>(builder.getZeroAttr(type)));
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(KilnDialectTest, TransposeBuilderInfersResultType) {
  auto type = RankedTensorType::get({2, 3, 5}, builder.getF32Type());
  auto op = kiln::TransposeOp::create(builder, builder.getUnknownLoc(),
                                      zeros(type), ArrayRef<int64_t>{2, 0, 1});
  EXPECT_EQ(op.getType(),
            RankedTensorType::get({5, 2, 3}, builder.getF32Type()));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(KilnDialectTest, SliceBuilderRoundsPartialStridesUp) {
  auto type = RankedTensorType::get({10}, builder.getI32Type());
  auto op = kiln::SliceOp::create(builder, builder.getUnknownLoc(), zeros(type),
                                  ArrayRef<int64_t>{1}, ArrayRef<int64_t>{8},
                                  ArrayRef<int64_t>{3});
  // Elements 1, 4 and 7.
  EXPECT_EQ(op.getType().getShape(), ArrayRef<int64_t>{3});
}

TEST_F(KilnDialectTest, ReduceBuilderDropsReducedDimensions) {
  auto type = RankedTensorType::get({4, 6, 8}, builder.getF64Type());
  auto op = kiln::ReduceSumOp::create(builder, builder.getUnknownLoc(),
                                      zeros(type), ArrayRef<int64_t>{0, 2});
  EXPECT_EQ(op.getType().getShape(), ArrayRef<int64_t>{6});
}

TEST_F(KilnDialectTest, CreateOrFoldAddsConstants) {
  auto type = RankedTensorType::get({4}, builder.getI32Type());
  Location loc = builder.getUnknownLoc();
  auto splat = [&](int32_t value) -> Value {
    return kiln::ConstantOp::create(
        builder, loc, type,
        DenseElementsAttr::get(type, builder.getI32IntegerAttr(value)));
  };
  Value two = splat(2), three = splat(3);
  Value sum = builder.createOrFold<kiln::AddOp>(loc, two, three);
  auto constant = sum.getDefiningOp<kiln::ConstantOp>();
  ASSERT_TRUE(constant);
  auto value = cast<DenseIntElementsAttr>(constant.getValue());
  EXPECT_EQ(value.getSplatValue<APInt>().getSExtValue(), 5);
}

TEST(KilnShapeHelpers, CheckedNumElementsDetectsOverflow) {
  int64_t big = std::numeric_limits<int64_t>::max() / 2 + 1;
  EXPECT_EQ(kiln::checkedNumElements({3, 4}), 12);
  EXPECT_EQ(kiln::checkedNumElements({}), 1);
  EXPECT_EQ(kiln::checkedNumElements({0, big}), 0);
  EXPECT_EQ(kiln::checkedNumElements({2, big}), std::nullopt);
}

TEST(KilnShapeHelpers, TakeShapeReplacesTheDimensionByTheIndices) {
  EXPECT_EQ(kiln::takeShape({10, 4}, {2, 3}, 0),
            (SmallVector<int64_t>{2, 3, 4}));
  EXPECT_EQ(kiln::takeShape({10, 4}, {}, 1), (SmallVector<int64_t>{10}));
}

TEST(KilnShapeHelpers, DropDimensions) {
  EXPECT_EQ(kiln::dropDimensions({2, 3, 4}, {1}), (SmallVector<int64_t>{2, 4}));
  EXPECT_EQ(kiln::dropDimensions({2, 3}, {}), (SmallVector<int64_t>{2, 3}));
}

} // namespace
