//===- KilnTransformOps.td - grad, vmap, scan, checkpoint --*- tablegen -*-===//
//
// Transformation ops name a func.func by symbol and take its operands. Each
// expands into an ordinary function; until then the verifier checks that the
// operands, results and attributes agree with the callee.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TRANSFORM_OPS_TD
#define KILN_TRANSFORM_OPS_TD

include "KilnDialect.td"
include "KilnAttrs.td"
include "KilnInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Kiln_TransformOp<string mnemonic, dag attributes>
    : Kiln_Op<mnemonic, [Pure, DeclareOpInterfaceMethods<Kiln_TransformOpInterface>,
                         DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let arguments = !con((ins FlatSymbolRefAttr:$callee,
                            Variadic<Kiln_Tensor>:$operands), attributes);
  let results = (outs Variadic<Kiln_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
}

def Kiln_GradOp : Kiln_TransformOp<"grad", (ins
    DefaultValuedAttr<DenseI64ArrayAttr, "{0}">:$argnums,
    DefaultValuedAttr<BoolAttr, "false">:$has_aux)> {
  let hasVerifier = 1;
  let summary = "gradient of a scalar function";
  let description = [{
    Returns the gradient of the callee's first result (a scalar float tensor)
    with respect to each argument in `argnums` (default `[0]`), each of that
    argument's type, as `jax.grad`. With `has_aux`, the callee's other
    results follow the gradients unchanged; without it the callee has one
    result.

    Example:

    ```mlir
    %gw, %gb = kiln.grad @loss(%w, %b, %x) {argnums = array<i64: 0, 1>}
        : (tensor<4x2xf32>, tensor<2xf32>, tensor<8x4xf32>) -> (tensor<4x2xf32>, tensor<2xf32>)
    ```
  }];
}

def Kiln_ValueAndGradOp : Kiln_TransformOp<"value_and_grad", (ins
    DefaultValuedAttr<DenseI64ArrayAttr, "{0}">:$argnums,
    DefaultValuedAttr<BoolAttr, "false">:$has_aux)> {
  let hasVerifier = 1;
  let summary = "value and gradient of a scalar function";
  let description = [{
    Returns the callee's results, then the gradient of its first result with
    respect to each argument in `argnums`, as `jax.value_and_grad`.
    `argnums` and `has_aux` mean what they mean for `kiln.grad`.

    Example:

    ```mlir
    %l, %gw = kiln.value_and_grad @loss(%w, %x)
        : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
    ```
  }];
}

def Kiln_JvpOp : Kiln_TransformOp<"jvp", (ins)> {
  let summary = "forward-mode derivative (Jacobian-vector product)";
  let description = [{
    Operands are the callee's primal arguments, then one tangent per primal
    (of the primal's type); results are the callee's results, then one
    tangent per result, as `jax.jvp`.

    Example:

    ```mlir
    %y, %ty = kiln.jvp @f(%x, %tx) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    ```
  }];
}

def Kiln_VjpOp : Kiln_TransformOp<"vjp", (ins
    OptionalAttr<DenseI64ArrayAttr>:$argnums)> {
  let hasVerifier = 1;
  let summary = "reverse-mode derivative (vector-Jacobian product)";
  let description = [{
    Operands are the callee's primal arguments, then one cotangent per callee
    result (of that result's type); results are the callee's results, then
    one cotangent per argument in `argnums` (default: every argument), as
    `jax.vjp` followed by a call of the returned function.

    Example:

    ```mlir
    %y, %cx = kiln.vjp @f(%x, %cy) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    ```
  }];
}

def Kiln_VmapOp : Kiln_TransformOp<"vmap", (ins DenseI64ArrayAttr:$in_axes,
    DenseI64ArrayAttr:$out_axes, OptionalAttr<I64Attr>:$axis_size)> {
  let hasVerifier = 1;
  let summary = "map a function over a batch dimension";
  let description = [{
    Applies the callee to every slice along the batch axis, as `jax.vmap`.
    `in_axes` has one entry per operand: the operand's batch dimension, or
    -1 for an operand passed unbatched to every call. `out_axes` has one
    entry per result: where the batch dimension goes, or -1 for a result
    that does not depend on the batch. All batched operands share the batch
    size; `axis_size` gives it when no operand is batched.

    Example:

    ```mlir
    %y = kiln.vmap @f(%xs, %w) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}
        : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
    ```
  }];
}

def Kiln_ScanOp : Kiln_TransformOp<"scan", (ins I64Attr:$num_carry,
    I64Attr:$length, DefaultValuedAttr<BoolAttr, "false">:$reverse,
    DefaultValuedAttr<I64Attr, "1">:$unroll,
    DefaultValuedAttr<I64Attr, "0">:$checkpoints)> {
  let hasVerifier = 1;
  let summary = "loop a function over the leading dimension of its inputs";
  let description = [{
    The callee maps `(carry..., x...)` to `(carry..., y...)`, with
    `num_carry` carries. Operands are the initial carries, then the xs
    stacked on dimension 0 (`length` slices); results are the final carries,
    then the ys stacked on dimension 0, as `jax.lax.scan`. `reverse` walks
    the slices from last to first; `unroll` (at least 1) is how many
    iterations one loop trip runs. `checkpoints` (0: no budget), when
    smaller than `length`, bounds the carries its gradient stores: the scan
    runs as nested scans of checkpointed segments (multi-level
    checkpointing), which store at most that many carries and recompute
    each step once per extra level.

    Example:

    ```mlir
    %c, %ys = kiln.scan @step(%c0, %xs) {num_carry = 1 : i64, length = 10 : i64}
        : (tensor<f32>, tensor<10x4xf32>) -> (tensor<f32>, tensor<10x4xf32>)
    ```
  }];
}

def Kiln_CheckpointOp : Kiln_TransformOp<"checkpoint", (ins
    DefaultValuedAttr<Kiln_RematPolicyAttr,
                      "::kiln::RematPolicy::nothing_saveable">:$policy,
    DefaultValuedAttr<StrArrayAttr, "{}">:$names)> {
  let hasVerifier = 1;
  let summary = "call a function whose intermediates are recomputed for grad";
  let description = [{
    Returns the callee's results; when differentiated, values inside the
    callee are recomputed in the backward pass unless `policy` saves them,
    as `jax.checkpoint`. The policies are `everything_saveable`,
    `nothing_saveable` (the default), `dots_saveable`,
    `dots_with_no_batch_dims_saveable` and `save_only_these_names`, which
    saves the values tagged by `kiln.checkpoint_name` with one of `names`.

    Example:

    ```mlir
    %y = kiln.checkpoint @block(%x) {policy = #kiln<remat_policy dots_saveable>}
        : (tensor<8x4xf32>) -> tensor<8x4xf32>
    ```
  }];
}

def Kiln_CustomVjpOp : Kiln_TransformOp<"custom_vjp", (ins
    FlatSymbolRefAttr:$fwd, FlatSymbolRefAttr:$bwd)> {
  let summary = "call a function whose reverse-mode derivative is given";
  let description = [{
    Calls the callee on the operands and returns its results, as a function
    decorated with `jax.custom_vjp`. Reverse mode (`kiln.vjp`, `kiln.grad`,
    `kiln.value_and_grad` of a function holding it) differentiates it with
    the user's rule instead of the callee's body: `fwd` takes the same
    operands and returns the callee's results, then residuals; `bwd` takes
    the residuals, then one cotangent per result, and returns one cotangent
    per operand. Forward mode (`kiln.jvp`) of it is an error, as in JAX.

    Example:

    ```mlir
    %y = kiln.custom_vjp @clip_grad(%x) {fwd = @clip_fwd, bwd = @clip_bwd}
        : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
}

def Kiln_CheckpointNameOp : Kiln_Op<"checkpoint_name", [Pure,
    SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "tag a value for a `save_only_these_names` remat policy";
  let description = [{
    Returns its operand unchanged; the tag `name` lets a `kiln.checkpoint`
    with policy `save_only_these_names` save it, as
    `jax.ad_checkpoint.checkpoint_name`. Differentiation and batching keep
    the tag on the primal value (its tangent is its operand's); it has no
    folder, so that simplification before a checkpoint expands keeps it;
    lowering replaces it by its operand.

    Example:

    ```mlir
    %h = kiln.checkpoint_name %x, "hidden" : tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, StrAttr:$name);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$operand `,` $name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // KILN_TRANSFORM_OPS_TD
