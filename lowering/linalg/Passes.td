//===- Passes.td - kiln to linalg, tensor and scf --------*- tablegen -*-===//
#ifndef KILN_LOWERING_LINALG_PASSES_TD
#define KILN_LOWERING_LINALG_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertKilnToLinalg : Pass<"convert-kiln-to-linalg"> {
  let summary = "Lower kiln primitive ops to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites every primitive kiln op into upstream ops on tensors, split by
    op family: elementwise ops become linalg.generic, data movement becomes
    tensor slices and linalg ops, `dot_general` becomes `linalg.matmul`,
    `linalg.batch_matmul` or a contraction, reductions `linalg.reduce`,
    `cond` and `while` become `scf.if` and `scf.while`. Transformation ops
    (`kiln.grad`, ...) are left in place for the contract check to report.

    Example:

    ```mlir
    %y = kiln.exp %x : tensor<4xf32>
    // becomes
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    } -> tensor<4xf32>
    ```
  }];
  let options = [
    Option<"laneReductions", "lane-reductions", "bool", "true",
           "Reduce trailing dimensions, and matrix-vector products along "
           "K, as [R / L, L] for vector lanes (CPUs); off, each is one "
           "linalg.reduce or matmul (GPUs reduce in warps)">,
    Option<"windowProducts", "window-products", "bool", "true",
           "Contract a convolution's patches (a concatenation of window "
           "slices of one tensor; of bf16 or f16, of fewer than 16 "
           "features, widened to f32) from the padded input itself: "
           "a linalg.generic over the output's pixels, outputs, window and "
           "features that reads the input at stride * output + dilation * "
           "window (kiln-tile-and-vectorize schedules it by output lines "
           "on CPUs); off, the patches are built and multiplied (im2col)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def KilnFuseElementwise : Pass<"kiln-fuse-elementwise"> {
  let summary = "Fuse chains of elementwise linalg ops into bounded loop bodies";
  let description = [{
    linalg's elementwise fusion (producers with one use are merged into
    their consumers, splat constants folded in), with the fused body
    bounded by `max-body-ops`: fusing copies the producer's body, so
    unbounded fusion of a chain of n ops costs O(n^2) compile time. A longer
    chain becomes several loops, each over `max-body-ops` ops.

    Example:

    ```mlir
    %e = linalg.generic ... ins(%x) { math.exp } -> tensor<8xf32>
    %t = linalg.generic ... ins(%e) { math.tanh } -> tensor<8xf32>
    // becomes one linalg.generic computing tanh(exp(x))
    ```
  }];
  let options = [
    Option<"maxBodyOps", "max-body-ops", "int64_t", "256",
           "The most ops a fused body may hold">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // KILN_LOWERING_LINALG_PASSES_TD
