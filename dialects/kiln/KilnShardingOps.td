//===- KilnShardingOps.td - meshes and sharding constraints -*- tablegen -*-===//
#ifndef KILN_SHARDING_OPS_TD
#define KILN_SHARDING_OPS_TD

include "KilnDialect.td"
include "KilnAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kiln_MeshOp : Kiln_Op<"mesh", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "a named grid of devices";
  let description = [{
    Declares a mesh: named axes, each with its number of devices, as JAX's
    `Mesh` (and Shardy's `sdy.mesh`). Shardings name a mesh by symbol; a
    module may hold several.

    Example:

    ```mlir
    kiln.mesh @mesh ["data"=2, "model"=4]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axis_names,
                       DenseI64ArrayAttr:$axis_sizes);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of devices along `axis`, or nullopt if it is none.
    std::optional<int64_t> getAxisSize(::llvm::StringRef axis);
  }];
}

def Kiln_ShardingConstraintOp : Kiln_Op<"sharding_constraint", [Pure,
    SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "its operand, laid out as `sharding` says";
  let description = [{
    Returns its operand unchanged and asks that it be laid out as
    `sharding` says there, as `jax.lax.with_sharding_constraint` (or, with
    a `#kiln.logical` naming written `logical<["batch", "embed"]>`, Flax's
    `with_logical_constraint`, until kiln-resolve-logical-axes applies the
    module's rules): the
    partitioner gives the value that layout, and propagation starts from it.
    On one device it is the identity.

  }] # "\n\nExample:\n\n```mlir\n%y = kiln.sharding_constraint %x "
    "<@mesh, [{\"data\"}, {}]> : tensor<8x4xf32>\n```\n";
  let arguments = (ins Kiln_Tensor:$operand,
                       AnyAttrOf<[Kiln_ShardingAttr, Kiln_LogicalAttr]>:$sharding);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$operand custom<ShardingBody>($sharding) attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // KILN_SHARDING_OPS_TD
