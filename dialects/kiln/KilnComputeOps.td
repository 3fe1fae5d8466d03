//===- KilnComputeOps.td - contractions, reductions, gathers -*- tablegen -*-===//
#ifndef KILN_COMPUTE_OPS_TD
#define KILN_COMPUTE_OPS_TD

include "KilnDialect.td"
include "KilnAttrs.td"
include "KilnInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kiln_DotGeneralOp : Kiln_Op<"dot_general", [Pure,
    AllElementTypesMatch<["lhs", "rhs"]>, DeclareOpInterfaceMethods<Kiln_ShapeSpecializationOpInterface>]> {
  let summary = "generalized matrix product";
  let description = [{
    Contracts `lhs` with `rhs` over the paired contracting dimensions, with
    the paired batching dimensions kept in lockstep, as
    `jax.lax.dot_general`. The result's dimensions are the batch dimensions
    (in `lhs_batching_dimensions` order), then lhs's remaining dimensions,
    then rhs's remaining dimensions, each in order.

    The result element type is the operands' or a wider one of the same
    kind (JAX's `preferred_element_type`: bf16 × bf16 → f32, i32 × i32 →
    i64). `precision` (DEFAULT, HIGH, HIGHEST) is optional.

    Example:

    ```mlir
    // A batched matrix product.
    %c = kiln.dot_general %a, %b, batching = [0] x [0], contracting = [2] x [1]
        : (tensor<8x4x16xbf16>, tensor<8x16x32xbf16>) -> tensor<8x4x32xf32>
    // A plain matrix product; empty batching is left out.
    %d = kiln.dot_general %x, %y, contracting = [1] x [0], precision = HIGHEST
        : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$lhs, Kiln_NumericTensor:$rhs,
      DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$lhs_batching_dimensions,
      DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$rhs_batching_dimensions,
      DenseI64ArrayAttr:$lhs_contracting_dimensions,
      DenseI64ArrayAttr:$rhs_contracting_dimensions,
      OptionalAttr<Kiln_PrecisionAttr>:$precision);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,`
    custom<DotDimensions>($lhs_batching_dimensions, $rhs_batching_dimensions,
                          $lhs_contracting_dimensions,
                          $rhs_contracting_dimensions) (`,` `precision` `=` $precision^)?
    attr-dict `:` functional-type(operands, $result)
  }];
  let hasVerifier = 1;
}

class Kiln_ReduceOp<string mnemonic, string doc>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = doc # " over dimensions";
  let description = !strconcat(doc, " over the operand's `dimensions`, which",
      " are removed from the result, as `jax.lax.", mnemonic, "`. The",
      " dimensions are distinct and in range.\n\nExample:\n\n```mlir\n",
      "%y = kiln.", mnemonic, " %x, dims = [1] : (tensor<4x8xf32>) -> ",
      "tensor<4xf32>\n```");
  let arguments = (ins Kiln_NumericTensor:$operand,
                       DenseI64ArrayAttr:$dimensions);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $dimensions attr-dict `:`
    functional-type($operand, $result)
  }];
  let hasFolder = 1;
}

def Kiln_ReduceSumOp : Kiln_ReduceOp<"reduce_sum", "sum">;
def Kiln_ReduceProdOp : Kiln_ReduceOp<"reduce_prod", "product">;
def Kiln_ReduceMaxOp : Kiln_ReduceOp<"reduce_max",
    "maximum (NaN if any element is NaN)">;
def Kiln_ReduceMinOp : Kiln_ReduceOp<"reduce_min",
    "minimum (NaN if any element is NaN)">;

def Kiln_ArgmaxOp : Kiln_Op<"argmax", [Pure,
    DeclareOpInterfaceMethods<Kiln_ShapeSpecializationOpInterface>]> {
  let summary = "index of the largest element along one dimension";
  let description = [{
    Returns, for every position of the other dimensions, the index of the
    largest element along `dimension` (the first one on ties; a NaN counts as
    the largest), as `jax.lax.argmax`. The dimension is removed from the
    result, whose element type (i32 or i64) is the index type.

    Example:

    ```mlir
    %i = kiln.argmax %x, dim = 1 : (tensor<4x10xf32>) -> tensor<4xi32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$operand, I64Attr:$dimension);
  let results = (outs Kiln_TensorOf<[I32, I64]>:$result);
  let assemblyFormat = [{
    $operand `,` `dim` `=` $dimension attr-dict `:`
    functional-type($operand, $result)
  }];
  let hasVerifier = 1;
}

def Kiln_TakeOp : Kiln_Op<"take", [Pure, InferTypeOpAdaptor]> {
  let summary = "gather slices of a table by integer indices";
  let description = [{
    Takes the slices of `operand` at `indices` along `dimension`, as
    `jnp.take(operand, indices, axis=dimension, mode="clip")`: the result's
    shape is the operand's with `dimension` replaced by the indices' shape.
    Indices are clamped into range. This is an embedding lookup.

    Example:

    ```mlir
    %e = kiln.take %table[%ids], dim = 0
        : (tensor<1000x64xf32>, tensor<8x16xi32>) -> tensor<8x16x64xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, Kiln_IntTensor:$indices,
                       I64Attr:$dimension);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $indices `]` `,` `dim` `=` $dimension attr-dict `:`
    functional-type(operands, $result)
  }];
}

def Kiln_ScatterAddOp : Kiln_Op<"scatter_add", [Pure,
    AllTypesMatch<["operand", "result"]>,
    AllElementTypesMatch<["operand", "updates"]>,
    DeclareOpInterfaceMethods<Kiln_ShapeSpecializationOpInterface>]> {
  let summary = "add slices into a table at integer indices";
  let description = [{
    The transpose of `kiln.take`: adds each slice of `updates` into
    `operand` at the (clamped) index `indices` names along `dimension`;
    repeated indices accumulate. `updates` has the shape `kiln.take` would
    give for the same operand, indices and dimension.

    Example:

    ```mlir
    %t = kiln.scatter_add %table[%ids], %grads, dim = 0
        : (tensor<1000x64xf32>, tensor<8xi32>, tensor<8x64xf32>) -> tensor<1000x64xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$operand, Kiln_IntTensor:$indices,
                       Kiln_NumericTensor:$updates, I64Attr:$dimension);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `[` $indices `]` `,` $updates `,` `dim` `=` $dimension attr-dict
    `:` functional-type(operands, $result)
  }];
  let hasVerifier = 1;
}

#endif // KILN_COMPUTE_OPS_TD
