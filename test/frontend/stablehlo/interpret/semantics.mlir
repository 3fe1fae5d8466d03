// StableHLO semantics where kiln's own could differ, with the values the
// StableHLO specification gives (written in the form of StableHLO's
// interpreter tests).

func.func @remainder_op_test() {
  // The result takes the dividend's sign (C's fmod, not Python's %).
  %0 = stablehlo.constant dense<[5.0, -5.0, 5.0, -5.0]> : tensor<4xf32>
  %1 = stablehlo.constant dense<[3.0, 3.0, -3.0, -3.0]> : tensor<4xf32>
  %2 = stablehlo.remainder %0, %1 : tensor<4xf32>
  check.expect_almost_eq_const %2, dense<[2.0, -2.0, 2.0, -2.0]> : tensor<4xf32>
  %3 = stablehlo.constant dense<[5, -5, 5, -5]> : tensor<4xi32>
  %4 = stablehlo.constant dense<[3, 3, -3, -3]> : tensor<4xi32>
  %5 = stablehlo.remainder %3, %4 : tensor<4xi32>
  check.expect_eq_const %5, dense<[2, -2, 2, -2]> : tensor<4xi32>
  func.return
}

// -----

func.func @convert_op_test() {
  // Floats to integers round toward zero.
  %0 = stablehlo.constant dense<[2.7, -2.7, 0.5, -0.5]> : tensor<4xf32>
  %1 = stablehlo.convert %0 : (tensor<4xf32>) -> tensor<4xi32>
  check.expect_eq_const %1, dense<[2, -2, 0, 0]> : tensor<4xi32>
  func.return
}

// -----

func.func @compare_op_test_nan() {
  %0 = stablehlo.constant dense<[1.0, 0x7FC00000, 2.0]> : tensor<3xf32>
  %1 = stablehlo.constant dense<[1.0, 0x7FC00000, 3.0]> : tensor<3xf32>
  %2 = stablehlo.compare  EQ, %0, %1,  FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %3 = stablehlo.compare  NE, %0, %1,  FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  check.expect_eq_const %2, dense<[true, false, false]> : tensor<3xi1>
  check.expect_eq_const %3, dense<[false, true, true]> : tensor<3xi1>
  func.return
}

// -----

func.func @dynamic_slice_op_test_clamped() {
  // Start indices are clamped so the slice stays inside the operand.
  %0 = stablehlo.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi64>
  %c = stablehlo.constant dense<4> : tensor<i64>
  %1 = stablehlo.dynamic_slice %0, %c, sizes = [2] : (tensor<5xi64>, tensor<i64>) -> tensor<2xi64>
  check.expect_eq_const %1, dense<[3, 4]> : tensor<2xi64>
  %m = stablehlo.constant dense<-3> : tensor<i64>
  %2 = stablehlo.dynamic_slice %0, %m, sizes = [2] : (tensor<5xi64>, tensor<i64>) -> tensor<2xi64>
  check.expect_eq_const %2, dense<[0, 1]> : tensor<2xi64>
  func.return
}

// -----

func.func @dynamic_update_slice_op_test_clamped() {
  %0 = stablehlo.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi64>
  %1 = stablehlo.constant dense<[8, 9]> : tensor<2xi64>
  %c = stablehlo.constant dense<7> : tensor<i64>
  %2 = stablehlo.dynamic_update_slice %0, %1, %c : (tensor<5xi64>, tensor<2xi64>, tensor<i64>) -> tensor<5xi64>
  check.expect_eq_const %2, dense<[0, 1, 2, 8, 9]> : tensor<5xi64>
  func.return
}

// -----

func.func @pad_op_test_interior() {
  %0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %1 = stablehlo.pad %0, %z, low = [0, 1], high = [1, 0], interior = [1, 1] : (tensor<2x2xi64>, tensor<i64>) -> tensor<4x4xi64>
  check.expect_eq_const %1, dense<[[0, 1, 0, 2], [0, 0, 0, 0], [0, 3, 0, 4], [0, 0, 0, 0]]> : tensor<4x4xi64>
  func.return
}

// -----

func.func @slice_reverse_concatenate_op_test() {
  %0 = stablehlo.constant dense<[0, 1, 2, 3, 4, 5, 6]> : tensor<7xi64>
  %1 = stablehlo.slice %0 [1:7:2] : (tensor<7xi64>) -> tensor<3xi64>
  %2 = stablehlo.reverse %1, dims = [0] : tensor<3xi64>
  %3 = stablehlo.concatenate %1, %2, dim = 0 : (tensor<3xi64>, tensor<3xi64>) -> tensor<6xi64>
  check.expect_eq_const %3, dense<[1, 3, 5, 5, 3, 1]> : tensor<6xi64>
  func.return
}

// -----

func.func @dot_general_op_test_batched() {
  %0 = stablehlo.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xf32>
  %1 = stablehlo.constant dense<[[[1.0], [1.0]], [[2.0], [0.5]]]> : tensor<2x2x1xf32>
  %2 = stablehlo.dot_general %0, %1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x1x2xf32>, tensor<2x2x1xf32>) -> tensor<2x1x1xf32>
  check.expect_almost_eq_const %2, dense<[[[3.0]], [[8.0]]]> : tensor<2x1x1xf32>
  func.return
}

// -----

func.func @case_op_test_out_of_range() {
  // An index out of range runs the last branch.
  %i = stablehlo.constant dense<-1> : tensor<i32>
  %0 = "stablehlo.case"(%i) ({
    %a = stablehlo.constant dense<10> : tensor<i64>
    stablehlo.return %a : tensor<i64>
  }, {
    %b = stablehlo.constant dense<11> : tensor<i64>
    stablehlo.return %b : tensor<i64>
  }) : (tensor<i32>) -> tensor<i64>
  check.expect_eq_const %0, dense<11> : tensor<i64>
  func.return
}

// -----

func.func @reduce_op_test_init() {
  // The init value takes part in the reduction.
  %x = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %init = stablehlo.constant dense<10> : tensor<i64>
  %0 = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [0] : (tensor<2x2xi64>, tensor<i64>) -> tensor<2xi64>
  check.expect_eq_const %0, dense<[14, 16]> : tensor<2xi64>
  func.return
}

// -----

func.func @reduce_op_test_variadic() {
  // Each tensor reduced on its own, from its own init value (the product
  // from 2).
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %y = stablehlo.constant dense<[[1, 7, 3], [9, 2, 8]]> : tensor<2x3xi32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %low = stablehlo.constant dense<-2147483648> : tensor<i32>
  %two = stablehlo.constant dense<2.0> : tensor<f32>
  %0:3 = stablehlo.reduce(%x init: %zero), (%y init: %low), (%x init: %two) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<f32>, tensor<i32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>)
   reducer(%a: tensor<f32>, %d: tensor<f32>) (%b: tensor<i32>, %e: tensor<i32>) (%c: tensor<f32>, %f: tensor<f32>)  {
    %s = stablehlo.add %a, %d : tensor<f32>
    %m = stablehlo.maximum %b, %e : tensor<i32>
    %p = stablehlo.multiply %c, %f : tensor<f32>
    stablehlo.return %s, %m, %p : tensor<f32>, tensor<i32>, tensor<f32>
  }
  check.expect_almost_eq_const %0#0, dense<[6.0, 15.0]> : tensor<2xf32>
  check.expect_eq_const %0#1, dense<[7, 9]> : tensor<2xi32>
  check.expect_almost_eq_const %0#2, dense<[12.0, 240.0]> : tensor<2xf32>
  func.return
}

// -----

func.func @sign_op_test() {
  %0 = stablehlo.constant dense<[-2.5, -0.0, 0.0, 3.0]> : tensor<4xf32>
  %1 = stablehlo.sign %0 : tensor<4xf32>
  check.expect_eq_const %1, dense<[-1.0, -0.0, 0.0, 1.0]> : tensor<4xf32>
  func.return
}

// -----

func.func @compare_op_test_totalorder() {
  // TOTALORDER: -NaN < -inf < ... < -0 < +0 < ... < inf < NaN, and a NaN
  // equal to itself.
  %0 = stablehlo.constant dense<[-0.0, 1.0, 0x7FC00000, 0x7FC00000, 0x7F800000, 0xFFC00000, 0xFFC00000, -2.0]> : tensor<8xf32>
  %1 = stablehlo.constant dense<[0.0, 0x7FC00000, 0x7FC00000, 0x7F800000, 1.0, 0xFF800000, 0x7FC00000, -1.0]> : tensor<8xf32>
  %2 = stablehlo.compare  LT, %0, %1,  TOTALORDER : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %3 = stablehlo.compare  EQ, %0, %1,  TOTALORDER : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %4 = stablehlo.compare  GE, %0, %1,  TOTALORDER : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  check.expect_eq_const %2, dense<[true, true, false, false, false, true, true, true]> : tensor<8xi1>
  check.expect_eq_const %3, dense<[false, false, true, false, false, false, false, false]> : tensor<8xi1>
  check.expect_eq_const %4, dense<[false, false, true, true, true, false, false, false]> : tensor<8xi1>
  func.return
}
