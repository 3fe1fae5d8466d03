//===- Scan.h - scans as loops ---------------------------------*- C++ -*-===//
#ifndef KILN_PASSES_SCAN_SCAN_H
#define KILN_PASSES_SCAN_SCAN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

#include <functional>
#include <map>
#include <string>

namespace kiln {

/// Builds and remembers the functions that replace kiln.scan (JAX's
/// lax.scan): one loop whose trip runs the body `unroll` times, so that the
/// body is compiled once however long the scan is.
class ScanBuilder {
public:
  /// Simplifies a generated function before anything builds on it.
  using Tidy = std::function<mlir::LogicalResult(mlir::func::FuncOp)>;

  ScanBuilder(mlir::SymbolTable &symbols, Tidy tidy)
      : symbols(symbols), tidy(std::move(tidy)) {}

  /// The function `NAME_scan` with kiln.scan's operands and results
  /// (DESIGN.md's contract): the carries and the xs stacked on dimension
  /// 0, to the final carries and the ys stacked on dimension 0. A while
  /// loop runs `length / unroll` trips of `unroll` steps; the remaining
  /// steps follow it. `reverse` walks the slices from last to first. Built
  /// once per body and attributes, at `loc` (the first scan's).
  mlir::FailureOr<mlir::func::FuncOp>
  getOrBuild(mlir::func::FuncOp body, int64_t numCarry, int64_t length,
             bool reverse, int64_t unroll, mlir::Location loc);

private:
  mlir::SymbolTable &symbols;
  Tidy tidy;
  std::map<std::string, mlir::func::FuncOp> built;
};

} // namespace kiln

#endif // KILN_PASSES_SCAN_SCAN_H
