//===- CheckpointedScan.h - scans with a checkpoint budget ------*- C++ -*-===//
#ifndef KILN_PASSES_SCAN_CHECKPOINTEDSCAN_H
#define KILN_PASSES_SCAN_CHECKPOINTEDSCAN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln {

/// How a scan of `length` steps with at most `budget` stored carries nests:
/// `levels` scans deep, each running at most `steps` segments of the level
/// below (steps^levels >= length, levels * steps <= budget, levels as small
/// as can be). Its gradient stores at most levels * steps carries and runs
/// each step forward `levels` times (the primal pass, then once per
/// checkpointed level).
struct ScanNesting {
  int64_t levels = 1, steps = 0;
};

/// The nesting of a scan of `length` with `budget` stored carries, or
/// failure when even steps of 2 need more.
mlir::FailureOr<ScanNesting> nestingFor(int64_t length, int64_t budget);

/// The smallest budget nestingFor accepts for `length`.
int64_t smallestBudget(int64_t length);

/// Rewrites every kiln.scan in `module` whose `checkpoints` budget is below
/// its length into nested kiln.scans over segments of the slices, each
/// level's body a kiln.checkpoint of the level below (multi-level
/// checkpointing): new private functions `NAME_segment_LEN_LEVEL` that the
/// transformations then expand as any other. A budget too small for the
/// length is an error at the scan.
mlir::LogicalResult nestCheckpointedScans(mlir::ModuleOp module,
                                          mlir::SymbolTable &symbols);

} // namespace kiln

#endif // KILN_PASSES_SCAN_CHECKPOINTEDSCAN_H
