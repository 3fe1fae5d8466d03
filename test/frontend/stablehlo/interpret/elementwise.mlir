// Kiln's own tests in the form of StableHLO's interpreter tests
// (stablehlo/tests/interpret), run by scripts/stablehlo_interpret.py.

func.func @add_op_test_f32() {
  %0 = stablehlo.constant dense<[0.0, -0.0, 1.5, 7.25]> : tensor<4xf32>
  %1 = stablehlo.constant dense<[0.5, 1.0, -2.0, 0.75]> : tensor<4xf32>
  %2 = stablehlo.add %0, %1 : tensor<4xf32>
  check.expect_almost_eq_const %2, dense<[0.5, 1.0, -0.5, 8.0]> : tensor<4xf32>
  func.return
}

// -----

func.func @add_op_test_i1() {
  %0 = stablehlo.constant dense<[false, false, true, true]> : tensor<4xi1>
  %1 = stablehlo.constant dense<[false, true, false, true]> : tensor<4xi1>
  %2 = stablehlo.add %0, %1 : tensor<4xi1>
  check.expect_eq_const %2, dense<[false, true, true, true]> : tensor<4xi1>
  func.return
}

// -----

func.func @maximum_op_test_si32() {
  %0 = stablehlo.constant dense<[-3, 0, 7]> : tensor<3xi32>
  %1 = stablehlo.constant dense<[2, -1, 7]> : tensor<3xi32>
  %2 = stablehlo.maximum %0, %1 : tensor<3xi32>
  %3 = stablehlo.minimum %0, %1 : tensor<3xi32>
  check.expect_eq_const %2, dense<[2, 0, 7]> : tensor<3xi32>
  check.expect_eq %3, %3 : tensor<3xi32>
  func.return
}

// -----

func.func @add_op_test_ui8() {
  %0 = stablehlo.constant dense<[0, 16, 250]> : tensor<3xui8>
  %1 = stablehlo.constant dense<[0, 16, 10]> : tensor<3xui8>
  %2 = stablehlo.add %0, %1 : tensor<3xui8>
  %3 = stablehlo.maximum %0, %1 : tensor<3xui8>
  check.expect_eq_const %2, dense<[0, 32, 4]> : tensor<3xui8>
  check.expect_eq_const %3, dense<[0, 16, 250]> : tensor<3xui8>
  func.return
}

// -----

func.func @divide_op_test_si16() {
  %0 = stablehlo.constant dense<[-32768, 17, -17, 300]> : tensor<4xi16>
  %1 = stablehlo.constant dense<[-1, 5, 5, -7]> : tensor<4xi16>
  %2 = stablehlo.divide %0, %1 : tensor<4xi16>
  check.expect_eq_const %2, dense<[-32768, 3, -3, -42]> : tensor<4xi16>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "generic_form_test"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[1.0, 4.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %1 = "stablehlo.sqrt"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()
