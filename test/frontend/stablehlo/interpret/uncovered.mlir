func.func @add_op_test_ui4() {
  %0 = stablehlo.constant dense<[0, 7]> : tensor<2xui4>
  %1 = stablehlo.add %0, %0 : tensor<2xui4>
  check.expect_eq_const %1, dense<[0, 14]> : tensor<2xui4>
  func.return
}
