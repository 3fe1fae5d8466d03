//===- KilnDataMovementOps.td - constants and data movement -*- tablegen -*-===//
#ifndef KILN_DATA_MOVEMENT_OPS_TD
#define KILN_DATA_MOVEMENT_OPS_TD

include "KilnDialect.td"
include "KilnInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kiln_ConstantOp : Kiln_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "a tensor known at compile time";
  let description = [{
    Produces the tensor `value`, as a constant in a JAX program.

    Example:

    ```mlir
    %c = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Kiln_StaticTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Kiln_StopGradientOp : Kiln_Op<"stop_gradient", [Pure,
    SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "its operand, with a zero derivative";
  let description = [{
    Returns its operand unchanged, but differentiation treats the result as
    a constant: its tangent and its operand's cotangent are zero, as
    `jax.lax.stop_gradient`. It has no folder, so that simplification before
    differentiation keeps it; lowering replaces it by its operand.

    Example:

    ```mlir
    %m = kiln.stop_gradient %max : tensor<8xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Kiln_IotaOp : Kiln_Op<"iota", [Pure]> {
  let summary = "indices along one dimension";
  let description = [{
    Fills the result with the index of each element along `iota_dimension`,
    as `jax.lax.broadcasted_iota`.

    Example:

    ```mlir
    // [[0, 0, 0], [1, 1, 1]]
    %i = kiln.iota dim = 0 : tensor<2x3xi32>
    ```
  }];
  let arguments = (ins I64Attr:$iota_dimension);
  let results = (outs Kiln_StaticTensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64]>:$result);
  let assemblyFormat = "`dim` `=` $iota_dimension attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Kiln_BroadcastInDimOp : Kiln_Op<"broadcast_in_dim", [Pure,
    AllElementTypesMatch<["operand", "result"]>, DeclareOpInterfaceMethods<Kiln_ShapeSpecializationOpInterface>]> {
  let summary = "broadcast a tensor into a larger shape";
  let description = [{
    Dimension `i` of the operand becomes dimension `broadcast_dimensions[i]`
    of the result, as `jax.lax.broadcast_in_dim`. The mapped dimensions are
    strictly increasing; each operand dimension has size 1 or the size of
    the result dimension it maps to. Result dimensions not mapped repeat the
    operand.

    A dynamic result dimension takes its size from the operand dimension
    mapped to it, or else from the same dimension of `like`, a tensor of
    the result's rank (StableHLO's `dynamic_broadcast_in_dim`, with the
    shape of a value instead of a shape tensor): a bias broadcast to a
    batch of any size. `like` serves only dynamic sizes:
    kiln-specialize-shapes drops it once they are known.

    Example:

    ```mlir
    %y = kiln.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    %b = kiln.broadcast_in_dim %bias, dims = [1], like %h
        : (tensor<10xf32>, tensor<?x10xf32>) -> tensor<?x10xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand,
                       DenseI64ArrayAttr:$broadcast_dimensions,
                       Optional<Kiln_Tensor>:$like);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $broadcast_dimensions (`,` `like` $like^)?
    attr-dict `:` functional-type(operands, $result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$operand,
                   "::llvm::ArrayRef<int64_t>":$broadcast_dimensions), [{
      build($_builder, $_state, type, operand, broadcast_dimensions,
            /*like=*/::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    ::mlir::LogicalResult verifyLike(::llvm::ArrayRef<int64_t> dims);
  }];
}

def Kiln_ReshapeOp : Kiln_Op<"reshape", [Pure,
    AllElementTypesMatch<["operand", "result"]>, DeclareOpInterfaceMethods<Kiln_ShapeSpecializationOpInterface>]> {
  let summary = "the same elements in row-major order, in another shape";
  let description = [{
    Reinterprets the operand's elements, in row-major order, as the result
    shape, as `jax.lax.reshape` without `dimensions`. Both shapes hold the
    same number of elements.

    Example:

    ```mlir
    %y = kiln.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type($operand, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_TransposeOp : Kiln_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "permute the dimensions of a tensor";
  let description = [{
    Result dimension `i` is operand dimension `permutation[i]`, as
    `jax.lax.transpose`.

    Example:

    ```mlir
    %y = kiln.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `permutation` `=` $permutation attr-dict `:`
    functional-type($operand, $result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_SliceOp : Kiln_Op<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "a strided static window of a tensor";
  let description = [{
    Takes elements `start_indices[d] + k * strides[d]` below
    `limit_indices[d]` along every dimension `d`, as `jax.lax.slice`.
    `0 <= start <= limit <= size` and `stride >= 1`; result dimension `d` has
    `ceil((limit - start) / stride)` elements.

    Example:

    ```mlir
    %y = kiln.slice %x [1:3, 0:4:2] : (tensor<4x4xf32>) -> tensor<2x2xf32>
    // generic: {start_indices = array<i64: 1, 0>,
    //           limit_indices = array<i64: 3, 4>, strides = array<i64: 1, 2>}
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand,
                       DenseI64ArrayAttr:$start_indices,
                       DenseI64ArrayAttr:$limit_indices,
                       DenseI64ArrayAttr:$strides);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand custom<SliceRanges>($start_indices, $limit_indices, $strides)
    attr-dict `:` functional-type($operand, $result)
  }];
  let hasFolder = 1;
}

def Kiln_DynamicSliceOp : Kiln_Op<"dynamic_slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "a window of a tensor at run-time start indices";
  let description = [{
    Takes a window of sizes `slice_sizes` starting at the scalar integer
    tensors `start_indices`, one per dimension, as `jax.lax.dynamic_slice`.
    Start indices are clamped so that the window lies inside the operand.

    Example:

    ```mlir
    %y = kiln.dynamic_slice %x [%i, %j], sizes = [2, 2]
        : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand,
                       Variadic<Kiln_ScalarIndex>:$start_indices,
                       DenseI64ArrayAttr:$slice_sizes);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $start_indices `]` `,` `sizes` `=` $slice_sizes attr-dict `:`
    functional-type(operands, $result)
  }];
  let hasCanonicalizer = 1;
}

def Kiln_DynamicUpdateSliceOp : Kiln_Op<"dynamic_update_slice", [Pure,
    AllTypesMatch<["operand", "result"]>,
    AllElementTypesMatch<["operand", "update"]>]> {
  let summary = "overwrite a window of a tensor at run-time start indices";
  let description = [{
    Returns the operand with the window starting at `start_indices` (one
    scalar integer tensor per dimension) replaced by `update`, as
    `jax.lax.dynamic_update_slice`. Start indices are clamped so that the
    window lies inside the operand.

    Example:

    ```mlir
    %y = kiln.dynamic_update_slice %x, %u [%i, %j]
        : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, Kiln_Tensor:$update,
                       Variadic<Kiln_ScalarIndex>:$start_indices);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $update `[` $start_indices `]` attr-dict `:`
    functional-type(operands, $result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ConcatenateOp : Kiln_Op<"concatenate", [Pure, InferTypeOpAdaptor]> {
  let summary = "join tensors along one dimension";
  let description = [{
    Joins the inputs along `dimension`, as `jax.lax.concatenate`. The inputs
    share their element type, rank and every other dimension.

    Example:

    ```mlir
    %y = kiln.concatenate %a, %b, dim = 0
        : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, I64Attr:$dimension);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    custom<ConcatenateInputs>($inputs, $dimension) attr-dict `:`
    functional-type($inputs, $result)
  }];
  let hasFolder = 1;
}

def Kiln_PadOp : Kiln_Op<"pad", [Pure, InferTypeOpAdaptor]> {
  let summary = "pad a tensor at its edges and between its elements";
  let description = [{
    Adds `edge_padding_low[d]` and `edge_padding_high[d]` elements of
    `padding_value` (a scalar tensor) before and after dimension `d`, and
    `interior_padding[d]` between adjacent elements, as `jax.lax.pad`.
    Negative edge padding removes elements; interior padding is never
    negative.

    Example:

    ```mlir
    %y = kiln.pad %x, %zero, low = [1], high = [0], interior = [1]
        : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, Kiln_Tensor:$padding_value,
                       DenseI64ArrayAttr:$edge_padding_low,
                       DenseI64ArrayAttr:$edge_padding_high,
                       DenseI64ArrayAttr:$interior_padding);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $padding_value `,` `low` `=` $edge_padding_low `,`
    `high` `=` $edge_padding_high `,` `interior` `=` $interior_padding
    attr-dict `:` functional-type(operands, $result)
  }];
  let hasFolder = 1;
}

def Kiln_ReverseOp : Kiln_Op<"reverse", [Pure, SameOperandsAndResultType,
    InferTypeOpInterface]> {
  let summary = "reverse the order of elements along dimensions";
  let description = [{
    Reverses the operand along each dimension in `dimensions`, as
    `jax.lax.rev`. The dimensions are distinct and in range.

    Example:

    ```mlir
    %y = kiln.reverse %x, dims = [0] : tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $dimensions attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // KILN_DATA_MOVEMENT_OPS_TD
