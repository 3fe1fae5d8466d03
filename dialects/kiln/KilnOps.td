//===- KilnOps.td - every op of the kiln dialect -----------*- tablegen -*-===//
#ifndef KILN_OPS_TD
#define KILN_OPS_TD

include "KilnDialect.td"
include "KilnAttrs.td"
include "KilnInterfaces.td"
include "KilnElementwiseOps.td"
include "KilnDataMovementOps.td"
include "KilnComputeOps.td"
include "KilnControlFlowOps.td"
include "KilnTransformOps.td"
include "KilnShardingOps.td"

#endif // KILN_OPS_TD
