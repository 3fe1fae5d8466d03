//===- Passes.td - specialization for the jit ---------------*- tablegen -*-===//
#ifndef KILN_PASSES_JIT_PASSES_TD
#define KILN_PASSES_JIT_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnSpecializeShapes
    : Pass<"kiln-specialize-shapes", "::mlir::ModuleOp"> {
  let summary = "Give dynamic dimensions the sizes of a call's arguments";
  let description = [{
    What `jax.jit` does when it traces a function for the shapes of a call:
    the public function `entry`'s arguments get the types `arg-types`
    (each must agree with the declared type's rank, element type and static
    sizes) and every op in it takes the sizes its operands now have, as its
    shape inference (or `ShapeSpecializationOpInterface`) says. A call of a
    function with dynamic dimensions calls a private copy specialized for
    the call's operand types instead (one per function and types); private
    functions left uncalled are erased. Transformation ops likewise name
    copies of their functions specialized for the argument types their
    operands imply (`TransformOpInterface::specializeCallees`): a gradient
    of a loss over a batch of any size. A function's declared static result sizes
    must hold; the specialized IR is verified, so inconsistent sizes (adding
    8 rows to 9) are reported at the op that combines them.

    Example (`entry=f arg-types=tensor<8x4xf32>`):

    ```mlir
    func.func @f(%x: tensor<?x4xf32>) -> tensor<?xf32> {
      %s = kiln.reduce_sum %x, dims = [1] : (tensor<?x4xf32>) -> tensor<?xf32>
      return %s : tensor<?xf32>
    }
    // becomes
    func.func @f(%x: tensor<8x4xf32>) -> tensor<8xf32> {
      %s = kiln.reduce_sum %x, dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
      return %s : tensor<8xf32>
    }
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"",
           "The public function to specialize">,
    ListOption<"argTypes", "arg-types", "std::string",
               "The entry's argument types, one per argument "
               "(tensor<8x784xf32>)">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // KILN_PASSES_JIT_PASSES_TD
