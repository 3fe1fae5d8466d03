//===- CheckpointedScan.h - scans with a checkpoint budget ------*- C++ -*-===//
//
// A kiln.scan with `checkpoints = C` below its length L runs Griewank's
// binomial checkpointing (treeverse/revolve; Griewank and Walther,
// "Algorithm 799: revolve", ACM TOMS 26(1), 2000) written as ordinary
// functions: the segment of L steps with C carries is a
// nothing_saveable kiln.checkpoint of its first m steps (with C carries)
// followed by a call of the other L - m steps (with C - 1). Reverse mode
// then stores at most C carries at once and, with r the fewest sweeps for
// which the binomial number C(C + r, C) reaches L, runs
// r L - C(C + r, C + 1) + L steps forward: the fewest any schedule with C
// stored carries needs.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_SCAN_CHECKPOINTEDSCAN_H
#define KILN_PASSES_SCAN_CHECKPOINTEDSCAN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln {

/// Rewrites every kiln.scan in `module` whose `checkpoints` budget is below
/// its length into calls of new private functions `BODY_revolve_LEN_C`
/// (the segment of LEN steps with C carries) that the transformations then
/// expand as any other. A budget that needs more sweeps than 32
/// is an error at the scan that names the smallest one that does not.
mlir::LogicalResult nestCheckpointedScans(mlir::ModuleOp module,
                                          mlir::SymbolTable &symbols);

} // namespace kiln

#endif // KILN_PASSES_SCAN_CHECKPOINTEDSCAN_H
