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

//===----------------------------------------------------------------------===//
// Collectives: the ops of a partitioned program (kiln-partition), each run
// by every device of the mesh. The devices that differ only in `axes` form
// a group; a device's place in its group numbers the axes major to minor,
// in the order listed.
//===----------------------------------------------------------------------===//

// Every device runs the same collectives on values it computed alike, so
// they may be merged and dropped like pure ops (CSE) but never run where
// the program would not run them (no speculation: devices may disagree on
// a branch).
class Kiln_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [NoMemoryEffect])> {
  let hasVerifier = 1;
  code extraCollectiveDeclaration = [{
    /// The number of devices in each group (after the verifier has run).
    int64_t getGroupSize();
  }];
  let extraClassDeclaration = extraCollectiveDeclaration;
}

def Kiln_AllReduceOp : Kiln_CollectiveOp<"all_reduce",
    [SameOperandsAndResultType]> {
  let summary = "combine a value across each group of devices";
  let description = [{
    Every device of a group gets the sum (product, maximum, minimum) of its
    group's values, as `jax.lax.psum` (XLA's AllReduce).

    Example:

    ```mlir
    %y = kiln.all_reduce sum %x over @mesh ["model"] : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Kiln_ReductionKindAttr:$reduction, Kiln_Tensor:$operand,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $reduction $operand `over` $mesh $axes attr-dict `:` type($result)
  }];
}

def Kiln_AllGatherOp : Kiln_CollectiveOp<"all_gather"> {
  let summary = "concatenate each group's values along a dimension";
  let description = [{
    Every device of a group gets its group's values concatenated along
    `dim` in group order, as `jax.lax.all_gather(..., tiled=True)`.

    Example:

    ```mlir
    %y = kiln.all_gather %x over @mesh ["model"], dim = 1
        : (tensor<8x4xf32>) -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand `over` $mesh $axes `,` `dim` `=` $dim attr-dict `:`
    functional-type($operand, $result)
  }];
}

def Kiln_ReduceScatterOp : Kiln_CollectiveOp<"reduce_scatter"> {
  let summary = "combine each group's values and split the result among it";
  let description = [{
    The group's values combined (as `all_reduce`), split along `dim` into
    one part per device in group order; each device gets its part, as
    `jax.lax.psum_scatter(..., tiled=True)`.

    Example:

    ```mlir
    %y = kiln.reduce_scatter sum %x over @mesh ["model"], dim = 1
        : (tensor<8x16xf32>) -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Kiln_ReductionKindAttr:$reduction, Kiln_Tensor:$operand,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes,
                       I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $reduction $operand `over` $mesh $axes `,` `dim` `=` $dim attr-dict `:`
    functional-type($operand, $result)
  }];
}

def Kiln_AllToAllOp : Kiln_CollectiveOp<"all_to_all"> {
  let summary = "exchange parts of a value within each group";
  let description = [{
    Each device splits its value along `split_dim` into one part per
    device of its group and sends part k to the group's device k; it
    concatenates what it receives along `concat_dim` in group order, as
    `jax.lax.all_to_all(..., tiled=True)`: it moves a sharding from one
    dimension to another.

    Example:

    ```mlir
    %y = kiln.all_to_all %x over @mesh ["model"], split = 1, concat = 0
        : (tensor<8x16xf32>) -> tensor<32x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$split_dim,
                       I64Attr:$concat_dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand `over` $mesh $axes `,` `split` `=` $split_dim `,` `concat` `=`
    $concat_dim attr-dict `:` functional-type($operand, $result)
  }];
}

def Kiln_CollectivePermuteOp : Kiln_CollectiveOp<"collective_permute",
    [SameOperandsAndResultType]> {
  let summary = "send each device's value to another of its group";
  let description = [{
    For each (source, target) pair of `pairs` (places in the group), the
    target gets the source's value; a device that is no target gets
    zeros, as `jax.lax.ppermute`. Sources and targets are each distinct.

    Example (a ring over two devices):

    ```mlir
    %y = kiln.collective_permute %x over @mesh ["data"], pairs = [0, 1, 1, 0]
        : tensor<8xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, DenseI64ArrayAttr:$pairs);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand `over` $mesh $axes `,` `pairs` `=` $pairs attr-dict `:`
    type($result)
  }];
}

def Kiln_AxisIndexOp : Kiln_CollectiveOp<"axis_index"> {
  let summary = "this device's place in its group";
  let description = [{
    The place of the running device among the devices that differ from it
    only in `axes` (major to minor), as `jax.lax.axis_index`: how a
    partitioned program finds its part of a value.

    Example:

    ```mlir
    %i = kiln.axis_index over @mesh ["data", "model"] : tensor<i32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes);
  let results = (outs 0DTensorOf<[I32]>:$result);
  let assemblyFormat = "`over` $mesh $axes attr-dict `:` type($result)";
}

#endif // KILN_SHARDING_OPS_TD
