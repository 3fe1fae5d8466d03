//===- KilnAttrs.td - attributes of the kiln dialect -------*- tablegen -*-===//
//
// The dialect's attributes: the enum attributes of ops today; the sharding
// attributes (meshes, per-value shardings) join them here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATTRS_TD
#define KILN_ATTRS_TD

include "KilnDialect.td"
include "KilnEnums.td"

// Written `#kiln<comparison_direction LT>` in generic form, `LT` inside ops.
def Kiln_ComparisonDirectionAttr
    : EnumAttr<Kiln_Dialect, Kiln_ComparisonDirection, "comparison_direction">;

def Kiln_PrecisionAttr : EnumAttr<Kiln_Dialect, Kiln_Precision, "precision">;

def Kiln_RematPolicyAttr : EnumAttr<Kiln_Dialect, Kiln_RematPolicy, "remat_policy">;

#endif // KILN_ATTRS_TD
