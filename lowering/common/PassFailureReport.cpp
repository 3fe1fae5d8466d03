//===- PassFailureReport.cpp - name the pass that failed ------------------===//
#include "Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"

#include <atomic>

using namespace mlir;

namespace {
/// Reports a pass failure that came without an error (some upstream passes
/// fail silently), naming the pass and the op it ran on, so that a failing
/// pipeline never exits without saying why.
class PassFailureReport : public PassInstrumentation {
public:
  explicit PassFailureReport(MLIRContext *context) : context(context) {
    handler = context->getDiagEngine().registerHandler([this](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        errors.fetch_add(1);
      return failure(); // Let the next handler print it.
    });
  }
  ~PassFailureReport() override {
    context->getDiagEngine().eraseHandler(handler);
  }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    if (errors.load() == 0)
      op->emitError() << "pass '" << pass->getArgument()
                      << "' failed on this '" << op->getName()
                      << "' without saying why";
  }

private:
  MLIRContext *context;
  DiagnosticEngine::HandlerID handler;
  std::atomic<int> errors{0};
};
} // namespace

void kiln::addPassFailureReport(PassManager &pm) {
  pm.addInstrumentation(std::make_unique<PassFailureReport>(pm.getContext()));
}
