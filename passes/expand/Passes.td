//===- Passes.td - expansion of the transformation ops ---*- tablegen -*-===//
#ifndef KILN_PASSES_EXPAND_PASSES_TD
#define KILN_PASSES_EXPAND_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnExpandTransforms
    : Pass<"kiln-expand-transforms", "::mlir::ModuleOp"> {
  let summary = "Replace transformation ops by calls of generated functions";
  let description = [{
    Walks the call graph innermost-first: the functions a function calls or
    transforms are expanded before it, then each transformation op in it is
    replaced by a `func.call` of a generated private function (named after
    the callee and the transformation, built once per callee and kind), so
    the output is ordinary `kiln` IR that can be printed, tested and
    transformed again. Expands `kiln.jvp` (forward mode), `kiln.vjp`,
    `kiln.grad` and `kiln.value_and_grad` (reverse mode), `kiln.vmap`
    (batching) and `kiln.scan` (one loop of its body), through calls,
    `cond` and `while`; differentiation uses a `kiln.custom_vjp`'s rule and
    a `kiln.checkpoint`'s recomputation, and what is left of either becomes
    a call of its function. A function that reaches itself through calls
    or transformations is an error.

    Example:

    ```mlir
    %y, %ty = kiln.jvp @f(%x, %tx)
        : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    // becomes
    %y, %ty = call @f_jvp(%x, %tx)
        : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    // with
    func.func private @f_jvp(%x: tensor<4xf32>, %tx: tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>) {
      %y = kiln.exp %x : tensor<4xf32>
      %ty = kiln.mul %tx, %y : tensor<4xf32>
      return %y, %ty : tensor<4xf32>, tensor<4xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // KILN_PASSES_EXPAND_PASSES_TD
