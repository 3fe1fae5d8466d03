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

#endif // KILN_PASSES_SHARDING_PASSES_TD
