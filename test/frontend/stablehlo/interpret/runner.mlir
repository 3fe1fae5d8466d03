// The runner's own cases, written the way StableHLO's interpreter tests
// write them: expected values spread over several lines (also after the
// check's comma), and a result the specification leaves to the
// implementation.

func.func @dot_general_op_test_multiline_algorithm() {
  %lhs = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]],
                                   [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf32>
  %rhs = stablehlo.constant dense<[[[0.0, 1.0], [1.0, 0.0]],
                                   [[2.0, 0.0], [0.0, 2.0]]]> : tensor<2x2x2xf32>
  %result = stablehlo.dot_general %lhs, %rhs,
    batching_dims = [0] x [0],
    contracting_dims = [2] x [1],
    algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>
    : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  check.expect_almost_eq_const %result, dense<[[[2.0, 1.0], [4.0, 3.0]],
                                               [[10.0, 12.0], [14.0, 16.0]]]> : tensor<2x2x2xf32>
  func.return
}

// -----

func.func @convolution_op_test_check_after_comma() {
  %lhs = stablehlo.constant dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %rhs = stablehlo.constant dense<[[[1.0, 10.0]]]> : tensor<1x1x2xf32>
  %result = stablehlo.convolution(%lhs, %rhs)
    dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0],
    window = {stride = [1], pad = [[0, 0]]}
    {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
    : (tensor<1x1x4xf32>, tensor<1x1x2xf32>) -> tensor<1x1x3xf32>
  check.expect_almost_eq_const %result,
    dense<[[[21.0, 32.0, 43.0]]]> : tensor<1x1x3xf32>
  func.return
}

// -----

// Division by zero is implementation-defined; the value stated here is not
// Kiln's (it gives XLA's -1), so the runner reports it beside the values.
func.func @divide_op_test_by_zero() {
  %lhs = stablehlo.constant dense<[5, -5]> : tensor<2xi32>
  %rhs = stablehlo.constant dense<[0, 0]> : tensor<2xi32>
  %result = stablehlo.divide %lhs, %rhs : tensor<2xi32>
  check.expect_eq_const %result, dense<[0, 0]> : tensor<2xi32>
  func.return
}
