//===- Passes.td - sharding of kiln programs ----------------*- tablegen -*-===//
#ifndef KILN_PASSES_SHARDING_PASSES_TD
#define KILN_PASSES_SHARDING_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnResolveLogicalAxes
    : Pass<"kiln-resolve-logical-axes", "::mlir::ModuleOp"> {
  let summary = "Turn logical axis names into shardings by the module's rules";
  let description = [{
    Flax's `logical_to_mesh_axes`: every `#kiln.logical` naming (on entry
    arguments and results, in `kiln.sharding_constraint`) becomes the
    `#kiln.sharding` over the mesh of the module's `kiln.axis_rules`. Each
    dimension takes the axis of the first rule for its role whose axis the
    tensor does not use yet; an unnamed dimension, a role without such a
    rule, or one mapped to `none`, is whole. The shardings are verified
    where they are given (a size that does not divide among its axes'
    devices is an error there).

    Example (`kiln.axis_rules = #kiln.axis_rules<@mesh, ["batch" -> "data",
    "embed" -> none]>`):
  }] # "\n```mlir\n%y = kiln.sharding_constraint %x logical<[\"batch\", "
    "\"embed\"]> : tensor<8x4xf32>\n// becomes\n%y = "
    "kiln.sharding_constraint %x <@mesh, [{\"data\"}, {}]> : "
    "tensor<8x4xf32>\n```\n";
}

def KilnPropagateSharding
    : Pass<"kiln-propagate-sharding", "::mlir::ModuleOp"> {
  let summary = "Give every value a sharding, from the user's annotations";
  let description = [{
    Shardy's propagation: the shardings of entry arguments and results
    (`kiln.sharding`) and of `kiln.sharding_constraint`s flow across every
    op by its sharding rule (ShardingRuleOpInterface: dimensions as
    factors that pass through, are reduced, or must be whole), into and
    out of `cond` and `while` regions and across calls, forward and
    backward. A dimension keeps the axes it gets first, in this order of
    priority: the annotations; ops that only pass dimensions through
    (elementwise ops, reshape, transpose, slices, ...); then every op
    (dots and reductions). Where two shardings of one factor meet, the one
    of better priority wins, then the earlier operand's (results last). A
    dimension no sharding reaches, or whose axes would not divide it, is
    whole.

    Writes each op's result shardings as `kiln.shardings` (one
    `#kiln.sharding` per result) and each function's argument and result
    shardings as `kiln.sharding` (a result the user annotated keeps its
    annotation, to which kiln-partition reshards). With `explain`, a remark
    at each value says where each dimension's axes came from: the
    annotation and the ops they crossed; and a remark at each op where
    shardings conflicted says which won.

    Example:
  }] # "\n```mlir\nfunc.func @f(%x: tensor<8x4xf32> {kiln.sharding = "
    "#kiln.sharding<@mesh, [{\"data\"}, {}]>}) -> tensor<8x4xf32> {\n"
    "  %y = kiln.tanh %x : tensor<8x4xf32>\n"
    "  // gets {kiln.shardings = [#kiln.sharding<@mesh, [{\"data\"}, {}]>]}\n"
    "  return %y : tensor<8x4xf32>\n}\n```\n";
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Say in remarks why each value has its sharding">
  ];
}

def KilnPartition : Pass<"kiln-partition", "::mlir::ModuleOp"> {
  let summary = "Make each function the program one device runs on its parts";
  let description = [{
    GSPMD's SPMD partitioner, after kiln-propagate-sharding: every value
    becomes one device's part of it (its type divided by its sharding's
    axes), every op computes on parts as its sharding rule lays them out,
    and collectives go where layouts change. An op's factors take the axes
    of its reduction factors from its first operand that splits them, then
    those of its results' shardings, then its operands'. A result split
    along a reduction factor is partial: `kiln.reduce_scatter` where its
    sharding splits a dimension further over those axes,
    `kiln.all_reduce` otherwise. A value changes layout by one
    `kiln.all_to_all` per axis moving from the minor end of one dimension
    to another, a `kiln.all_gather` per dimension losing axes, and a slice
    at the device's `kiln.axis_index` per dimension gaining axes. Each
    function's arguments and results say, as `kiln.part`, which layout
    they are a part of.

    A matmul `("data", "model") x ("model", none) -> ("data", none)` is one
    local matmul and one all_reduce over "model", as XLA's partitioner
    makes it; with the result split over "model", a reduce_scatter.
  }];
  let dependentDialects = ["::kiln::KilnDialect"];
}

#endif // KILN_PASSES_SHARDING_PASSES_TD
