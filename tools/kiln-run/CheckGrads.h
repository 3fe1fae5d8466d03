//===- CheckGrads.h - kiln-run --check-grads --------------------*- C++ -*-===//
#ifndef KILN_TOOLS_KILNRUN_CHECKGRADS_H
#define KILN_TOOLS_KILNRUN_CHECKGRADS_H

#include "kiln/runtime.h"

#include <functional>
#include <string>
#include <vector>

namespace kiln {

/// Compiles the .mlir source at a path into a module (or says why not).
using CompileSource =
    std::function<kiln_status_t(const std::string &path, kiln_module_t *)>;

/// Checks the derivatives of `entry`, a function of the .mlir source at
/// `path` whose first result is a float scalar, at `args` (as JAX's
/// check_grads): for each float argument, kiln.jvp against central finite
/// differences along random directions (evaluated in f64, with a step for
/// the argument's dtype), and kiln.vjp against kiln.jvp by the dot-product
/// test. Prints the worst error per argument; returns the exit status (1
/// when an error exceeds the dtype's tolerance or the check cannot run).
int checkGradients(const std::string &path, const std::string &entry,
                   kiln_module_t module,
                   const std::vector<kiln_tensor_t> &args,
                   const CompileSource &compile);

} // namespace kiln

#endif // KILN_TOOLS_KILNRUN_CHECKGRADS_H
