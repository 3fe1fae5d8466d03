//===- EntryChecks.h - kiln-run --check-grads and --check-vmap --*- C++ -*-===//
//
// Checks of what the compiler derives from an entry (its derivatives, its
// batched version) against the entry itself: the source is compiled again
// with a function that applies the transformation to the entry, and both
// are run on the caller's arguments.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILNRUN_ENTRYCHECKS_H
#define KILN_TOOLS_KILNRUN_ENTRYCHECKS_H

#include "kiln/runtime.hpp"

#include <cstdint>
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

/// Checks kiln.vmap of `entry` (a function of the .mlir source at `path`)
/// on `args`, argument i batched along `inAxes[i]` (-1: not batched), the
/// results batched first: against a loop of calls of the entry on each
/// slice. Prints the worst difference per result; returns the exit status
/// (1 above the dtype's tolerance, or when the check cannot run).
int checkVmap(const std::string &path, const std::string &entry,
              kiln_module_t module, const std::vector<kiln_tensor_t> &args,
              const std::vector<int64_t> &inAxes,
              const CompileSource &compile);

namespace checks {

/// An entry's argument or result type.
struct TensorType {
  kiln_dtype_t dtype;
  std::vector<int64_t> shape;

  /// As MLIR writes it: tensor<2x3xf32>.
  std::string text() const;
};

bool isFloat(kiln_dtype_t dtype);

/// The argument and result types of `entry`.
void readSignature(kiln_module_t module, const std::string &entry,
                   std::vector<TensorType> &args,
                   std::vector<TensorType> &results);

/// A tensor's elements as doubles (booleans as 0 and 1).
std::vector<double> toDoubles(kiln_tensor_t tensor);

/// A tensor of `type` holding `values` rounded to its dtype (bf16 to
/// nearest even); null if it cannot be allocated.
Tensor fromDoubles(const TensorType &type, const std::vector<double> &values);

/// A tensor of `type` filled with zeros; null if it cannot be allocated.
Tensor zerosOf(const TensorType &type);

/// The source at `path` compiled with `functions` appended, in a temporary
/// folder under the same file name (diagnostics name the user's file); a
/// null module when it fails (reported, naming `flag`).
Module compileWithFunctions(const std::string &path,
                            const std::string &functions,
                            const CompileSource &compile,
                            const std::string &flag);

/// Calls `entry` of `module`; the results, or an empty vector (reported,
/// naming `flag`).
std::vector<Tensor> call(kiln_module_t module, const std::string &entry,
                         const std::vector<kiln_tensor_t> &args,
                         const std::string &flag);

/// "a, b, c" from `count` items.
std::string joined(size_t count, const std::function<std::string(size_t)> &item);

} // namespace checks
} // namespace kiln

#endif // KILN_TOOLS_KILNRUN_ENTRYCHECKS_H
