//===- PassFailureReportTest.cpp - naming the pass that failed ------------===//
//
// A pass that fails without a diagnostic is still reported, by name.
//
//===----------------------------------------------------------------------===//
#include "lowering/common/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

/// Fails without saying why.
struct SilentFailure
    : PassWrapper<SilentFailure, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SilentFailure)
  StringRef getArgument() const override { return "silent-failure"; }
  void runOnOperation() override { signalPassFailure(); }
};

/// Fails with an error of its own.
struct LoudFailure : PassWrapper<LoudFailure, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LoudFailure)
  StringRef getArgument() const override { return "loud-failure"; }
  void runOnOperation() override {
    getOperation()->emitError("loud");
    signalPassFailure();
  }
};

/// The errors of running `pass` with the failure report.
std::vector<std::string> errorsOf(std::unique_ptr<Pass> pass) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(UnknownLoc::get(&context));
  std::vector<std::string> errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    errors.push_back(d.str());
    return success();
  });
  PassManager pm(&context);
  kiln::addPassFailureReport(pm);
  pm.addPass(std::move(pass));
  EXPECT_TRUE(failed(pm.run(*module)));
  return errors;
}

TEST(PassFailureReport, NamesAPassThatFailsSilently) {
  std::vector<std::string> errors = errorsOf(std::make_unique<SilentFailure>());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "pass 'silent-failure' failed on this "
                       "'builtin.module' without saying why");
}

TEST(PassFailureReport, AddsNothingToAPassThatReportsItsError) {
  std::vector<std::string> errors = errorsOf(std::make_unique<LoudFailure>());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "loud");
}

} // namespace
