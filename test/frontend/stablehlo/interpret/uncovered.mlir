func.func @add_op_test_ui8() {
  %0 = stablehlo.constant dense<[0, 16]> : tensor<2xui8>
  %1 = stablehlo.add %0, %0 : tensor<2xui8>
  check.expect_eq_const %1, dense<[0, 32]> : tensor<2xui8>
  func.return
}
