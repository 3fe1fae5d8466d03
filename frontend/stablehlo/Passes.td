//===- Passes.td - importing StableHLO ------------------------*- tablegen -*-===//
#ifndef KILN_FRONTEND_STABLEHLO_PASSES_TD
#define KILN_FRONTEND_STABLEHLO_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnImportStablehlo
    : Pass<"kiln-import-stablehlo", "::mlir::ModuleOp"> {
  let summary = "Turn the StableHLO ops of a JAX export into kiln ops";
  let description = [{
    Reads a module as `jax.export(jax.jit(f))(...).mlir_module()` prints it
    (Kiln's own definition of the ops, `frontend/stablehlo/StablehloOps.td`,
    parses both StableHLO's pretty and generic forms) and replaces every
    `stablehlo` op by the kiln op of the same meaning, keeping its location
    (JAX's `loc("jit(f)/dot_general")`), so that errors point into the
    user's Python. Kiln's ops follow StableHLO's names and attributes, so
    most map one to one; where StableHLO allows what kiln refuses it is
    settled in StableHLO's favor (`maximum` of `i1` is `or`). A reduction
    whose body applies add, multiply, maximum, minimum, and or or to its
    arguments becomes the matching `kiln.reduce_*`, combined with its init
    value unless that is the identity. JAX's `jax.*` and `mhlo.*` function
    attributes are dropped. Shardy's annotations of a sharded export
    (`sdy.mesh`, `sdy.sharding` on arguments and results,
    `sdy.sharding_constraint`) become Kiln's (`kiln.mesh`, `kiln.sharding`,
    `kiln.sharding_constraint`). An op Kiln cannot import (`custom_call`, or a
    reduction with another body) is an error at its location naming it.

    Example:

    ```mlir
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0]
        : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
    // becomes
    %0 = kiln.dot_general %x, %w, contracting = [1] x [0]
        : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
    ```
  }];
  let dependentDialects = ["::kiln::KilnDialect"];
}

#endif // KILN_FRONTEND_STABLEHLO_PASSES_TD
