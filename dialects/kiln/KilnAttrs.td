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

// Shardy's TensorShardingAttr, flattened: the mesh, each dimension's axes
// (major to minor) and whether it is open, and the explicitly replicated
// axes.
def Kiln_ShardingAttr : AttrDef<Kiln_Dialect, "Sharding"> {
  let mnemonic = "sharding";
  let summary = "how a tensor is laid out over a mesh";
  // A string: the syntax's closing `}]` would end a code block.
  let description = "`#kiln.sharding<@mesh, [{\"data\"}, {\"model\", "
    "\"expert\"}, {}, {?}], replicated={\"pipe\"}>`: " # [{
    one entry per tensor dimension, listing the mesh axes it is split over,
    major to minor (none: the dimension is whole on every device); a `?`
    marks a dimension open (propagation may shard it further; closed
    dimensions keep exactly these axes). Axes in `replicated` are
    explicitly not used. No axis may appear twice. Where a sharding meets
    a tensor, its mesh must exist and have those axes, its rank must be the
    tensor's, and each dimension's size must divide among its axes'
    devices.
  }];
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$mesh,
                        "::mlir::ArrayAttr":$dims,
                        "::mlir::DenseBoolArrayAttr":$open,
                        "::mlir::ArrayAttr":$replicated);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The axes dimension `dim` is split over, major to minor.
    ::llvm::SmallVector<::llvm::StringRef> getAxes(int64_t dim) const;
    /// Checks this sharding against `type`, the type of the value that
    /// `user` (an op of the module holding the mesh) gives it; `emit`
    /// reports errors there.
    ::mlir::LogicalResult
    verifyFor(::mlir::Operation *user, ::mlir::Type type,
              ::llvm::function_ref<::mlir::InFlightDiagnostic()> emit) const;
    /// This sharding with a whole (unsharded, closed) dimension inserted
    /// at `dim`: that of a value batched there (vmap).
    ShardingAttr withWholeDimension(int64_t dim) const;
  }];
}

#endif // KILN_ATTRS_TD
