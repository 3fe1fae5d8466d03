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

def Kiln_ReductionKindAttr
    : EnumAttr<Kiln_Dialect, Kiln_ReductionKind, "reduction_kind">;

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
    /// The closed sharding over `mesh` whose dimension d is split over
    /// `dims[d]`, major to minor, with no axis listed as replicated.
    static ShardingAttr getClosed(
        ::mlir::FlatSymbolRefAttr mesh,
        ::llvm::ArrayRef<::llvm::SmallVector<::mlir::StringAttr>> dims);
    /// This sharding with a whole (unsharded, closed) dimension inserted
    /// at `dim`: that of a value batched there (vmap).
    ShardingAttr withWholeDimension(int64_t dim) const;
  }];
}

// Flax's logical axis names, one per dimension ("" for none), resolved to
// mesh axes by the module's rules (kiln-resolve-logical-axes).
def Kiln_LogicalAttr : AttrDef<Kiln_Dialect, "Logical"> {
  let mnemonic = "logical";
  let summary = "a tensor's dimensions named by role";
  let description = [{
    Names each dimension of a tensor by its role (`"batch"`, `"embed"`,
    `""` for none), as Flax's logical partitioning does; the module's
    `kiln.axis_rules` say which mesh axes each role is split over, so a
    model names roles once and a mesh change touches only the rules.
  }];
  let parameters = (ins "::mlir::ArrayAttr":$names);
  let assemblyFormat = "`<` $names `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// This naming with an unnamed dimension inserted at `dim` (vmap).
    LogicalAttr withWholeDimension(int64_t dim) const;
  }];
}

// Flax's logical axis rules: ordered (role, mesh axis or none) pairs.
def Kiln_AxisRulesAttr : AttrDef<Kiln_Dialect, "AxisRules"> {
  let mnemonic = "axis_rules";
  let summary = "which mesh axes each logical role is split over";
  let description = [{
    `#kiln.axis_rules<@mesh, ["batch" -> "data", "hidden" -> "model",
    "embed" -> none]>`, the module attribute `kiln.axis_rules`: for each
    dimension of a `#kiln.logical` naming, the first rule for its role
    whose mesh axis the tensor does not use yet gives its axis (Flax's
    `logical_to_mesh_axes`); a role without such a rule, or with `none`,
    leaves the dimension whole.
  }];
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$mesh,
                        "::mlir::ArrayAttr":$roles,
                        "::mlir::ArrayAttr":$axes);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // KILN_ATTRS_TD
