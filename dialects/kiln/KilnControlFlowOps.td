//===- KilnControlFlowOps.td - cond, while and yield -------*- tablegen -*-===//
#ifndef KILN_CONTROL_FLOW_OPS_TD
#define KILN_CONTROL_FLOW_OPS_TD

include "KilnDialect.td"
include "KilnInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kiln_CondOp : Kiln_Op<"cond", [RecursiveMemoryEffects,
    NoRegionArguments, DeclareOpInterfaceMethods<Kiln_ShapeSpecializationOpInterface>]> {
  let summary = "run one of two regions on a scalar predicate";
  let description = [{
    Runs `true_branch` if `pred` is true and `false_branch` otherwise, and
    returns what that region yields, as `jax.lax.cond`. Both regions yield
    values of the result types; they use values from the enclosing scope
    directly.

    Example:

    ```mlir
    %r = kiln.cond %p -> (tensor<f32>) {
      kiln.yield %a : tensor<f32>
    } else {
      kiln.yield %b : tensor<f32>
    }
    ```
  }];
  let arguments = (ins Kiln_ScalarPred:$pred);
  let results = (outs Variadic<Kiln_Tensor>:$results);
  let regions = (region SizedRegion<1>:$true_branch,
                        SizedRegion<1>:$false_branch);
  let assemblyFormat = [{
    $pred (`->` `(` type($results)^ `)`)? $true_branch `else` $false_branch
    attr-dict
  }];
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
}

def Kiln_WhileOp : Kiln_Op<"while", [RecursiveMemoryEffects,
    InferTypeOpAdaptor, DeclareOpInterfaceMethods<Kiln_ShapeSpecializationOpInterface,
    ["specializeRegionArguments"]>]> {
  let summary = "loop while a condition region yields true";
  let description = [{
    Starts with the operands as the loop-carried values; while `cond` (given
    the carried values) yields true, replaces them with what `body` (given
    the carried values) yields; returns the final carried values, as
    `jax.lax.while_loop`. Both regions take one argument per operand; `cond`
    yields one `tensor<i1>`, `body` yields values of the operands' types.

    Example:

    ```mlir
    %n = kiln.while (%zero) : tensor<i32> cond {
    ^bb0(%i: tensor<i32>):
      %p = kiln.compare LT, %i, %ten : tensor<i32>
      kiln.yield %p : tensor<i1>
    } do {
    ^bb0(%i: tensor<i32>):
      %j = kiln.add %i, %one : tensor<i32>
      kiln.yield %j : tensor<i32>
    }
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$operands);
  let results = (outs Variadic<Kiln_Tensor>:$results);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $operands `)` attr-dict `:` type($operands) `cond` $cond `do` $body
  }];
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
}

def Kiln_YieldOp : Kiln_Op<"yield", [Pure, Terminator,
    ParentOneOf<["CondOp", "WhileOp"]>]> {
  let summary = "end a region of `kiln.cond` or `kiln.while`";
  let description = [{
    Returns `values` from the region to its parent op, which checks their
    types.

    Example:

    ```mlir
    kiln.yield %x, %y : tensor<f32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // KILN_CONTROL_FLOW_OPS_TD
