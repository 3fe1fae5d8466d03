// Folders and canonicalization patterns of the kiln ops; every expected value
// below is computed by hand from the ops' documented semantics.
// RUN: kiln-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @fold_int_arithmetic
func.func @fold_int_arithmetic() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %a = kiln.constant dense<[7, -7]> : tensor<2xi32>
  %b = kiln.constant dense<[2, 2]> : tensor<2xi32>
  // CHECK-DAG: dense<[9, -5]> : tensor<2xi32>
  %0 = kiln.add %a, %b : tensor<2xi32>
  // CHECK-DAG: dense<[5, -9]> : tensor<2xi32>
  %1 = kiln.sub %a, %b : tensor<2xi32>
  // CHECK-DAG: dense<[14, -14]> : tensor<2xi32>
  %2 = kiln.mul %a, %b : tensor<2xi32>
  // Integer division rounds toward zero; the remainder takes the dividend's sign.
  // CHECK-DAG: dense<[3, -3]> : tensor<2xi32>
  %3 = kiln.div %a, %b : tensor<2xi32>
  // CHECK-DAG: dense<[1, -1]> : tensor<2xi32>
  %4 = kiln.rem %a, %b : tensor<2xi32>
  return %0, %1, %2, %3, %4 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}

// -----

// Division where the hardware's result is undefined folds to XLA's values.
// CHECK-LABEL: func.func @fold_undefined_division
func.func @fold_undefined_division() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = kiln.constant dense<[-2147483648, 7]> : tensor<2xi32>
  %b = kiln.constant dense<[-1, 0]> : tensor<2xi32>
  // INT_MIN / -1 = INT_MIN, 7 / 0 = -1.
  // CHECK-DAG: dense<[-2147483648, -1]> : tensor<2xi32>
  %0 = kiln.div %a, %b : tensor<2xi32>
  // INT_MIN % -1 = 0, 7 % 0 = 7.
  // CHECK-DAG: dense<[0, 7]> : tensor<2xi32>
  %1 = kiln.rem %a, %b : tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @fold_float_arithmetic
func.func @fold_float_arithmetic() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = kiln.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %b = kiln.constant dense<[0.5, 0x7FC00000]> : tensor<2xf32>
  // CHECK-DAG: dense<[2.000000e+00, 0x7FC00000]> : tensor<2xf32>
  %0 = kiln.add %a, %b : tensor<2xf32>
  // CHECK-DAG: dense<[3.000000e+00, 0x7FC00000]> : tensor<2xf32>
  %1 = kiln.div %a, %b : tensor<2xf32>
  // max and min propagate NaN.
  // CHECK-DAG: dense<[1.500000e+00, 0x7FC00000]> : tensor<2xf32>
  %2 = kiln.max %a, %b : tensor<2xf32>
  // CHECK-DAG: dense<[5.000000e-01, 0x7FC00000]> : tensor<2xf32>
  %3 = kiln.min %a, %b : tensor<2xf32>
  // CHECK-DAG: dense<[-1.500000e+00, 2.000000e+00]> : tensor<2xf32>
  %4 = kiln.neg %a : tensor<2xf32>
  // CHECK-DAG: dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
  %5 = kiln.sign %a : tensor<2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @fold_float_functions
func.func @fold_float_functions() -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %x = kiln.constant dense<[0.0, 1.0, 4.0]> : tensor<3xf64>
  %y = kiln.constant dense<[-1.5, 0.5, 2.5]> : tensor<3xf64>
  // exp(0) = 1, exp(1) = e, exp(4) = 54.598150033144236.
  // CHECK-DAG: dense<[1.000000e+00, 2.7182818284590451, 54.598150033144236]> : tensor<3xf64>
  %0 = kiln.exp %x : tensor<3xf64>
  // CHECK-DAG: dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf64>
  %1 = kiln.sqrt %x : tensor<3xf64>
  // rsqrt(0) = +inf.
  // CHECK-DAG: dense<[0x7FF0000000000000, 1.000000e+00, 5.000000e-01]> : tensor<3xf64>
  %2 = kiln.rsqrt %x : tensor<3xf64>
  // CHECK-DAG: dense<[-2.000000e+00, 0.000000e+00, 2.000000e+00]> : tensor<3xf64>
  %3 = kiln.floor %y : tensor<3xf64>
  // ceil(-1.5) = -1, ceil(0.5) = 1, ceil(2.5) = 3.
  // CHECK-DAG: dense<[-1.000000e+00, 1.000000e+00, 3.000000e+00]> : tensor<3xf64>
  %4 = kiln.ceil %y : tensor<3xf64>
  // logistic(0) = 0.5, tanh(0) = 0.
  // CHECK-DAG: dense<5.000000e-01> : tensor<3xf64>
  %z = kiln.constant dense<0.0> : tensor<3xf64>
  %5 = kiln.logistic %z : tensor<3xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}

// -----

// Transcendental functions of 16-bit floats are left to run time.
// CHECK-LABEL: func.func @no_fold_narrow_exp
func.func @no_fold_narrow_exp() -> tensor<bf16> {
  %x = kiln.constant dense<1.0> : tensor<bf16>
  // CHECK: kiln.exp
  %0 = kiln.exp %x : tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

// CHECK-LABEL: func.func @fold_logical
func.func @fold_logical() -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi32>) {
  %t = kiln.constant dense<[true, false]> : tensor<2xi1>
  %u = kiln.constant dense<[true, true]> : tensor<2xi1>
  %i = kiln.constant dense<[12, 10]> : tensor<2xi32>
  %j = kiln.constant dense<[10, 6]> : tensor<2xi32>
  // CHECK-DAG: dense<[false, true]> : tensor<2xi1>
  %0 = kiln.not %t : tensor<2xi1>
  // CHECK-DAG: dense<[true, false]> : tensor<2xi1>
  %1 = kiln.and %t, %u : tensor<2xi1>
  // CHECK-DAG: dense<true> : tensor<2xi1>
  %2 = kiln.or %t, %u : tensor<2xi1>
  // 12 ^ 10 = 6, 10 ^ 6 = 12.
  // CHECK-DAG: dense<[6, 12]> : tensor<2xi32>
  %3 = kiln.xor %i, %j : tensor<2xi32>
  return %0, %1, %2, %3 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @fold_compare
func.func @fold_compare() -> (tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<2xi1>) {
  %a = kiln.constant dense<[1.0, 2.0, 0x7FC00000]> : tensor<3xf32>
  %b = kiln.constant dense<[2.0, 2.0, 0x7FC00000]> : tensor<3xf32>
  // Any ordered comparison with NaN is false ...
  // CHECK-DAG: dense<[true, true, false]> : tensor<3xi1>
  %0 = kiln.compare LE, %a, %b : tensor<3xf32>
  // ... and NE is true.
  // CHECK-DAG: dense<[true, false, true]> : tensor<3xi1>
  %1 = kiln.compare NE, %a, %b : tensor<3xf32>
  // Integers compare as signed.
  %i = kiln.constant dense<[-1, 3]> : tensor<2xi32>
  %j = kiln.constant dense<[1, 3]> : tensor<2xi32>
  // CHECK-DAG: dense<[true, false]> : tensor<2xi1>
  %2 = kiln.compare LT, %i, %j : tensor<2xi32>
  // Booleans compare as false < true.
  %t = kiln.constant dense<[true, false]> : tensor<2xi1>
  %f = kiln.constant dense<[false, true]> : tensor<2xi1>
  // CHECK-DAG: dense<[false, true]> : tensor<2xi1>
  %3 = kiln.compare LT, %t, %f : tensor<2xi1>
  return %0, %1, %2, %3 : tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// CHECK-LABEL: func.func @compare_self
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>, %[[F:.*]]: tensor<4xf32>)
func.func @compare_self(%x: tensor<4xi32>, %f: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  // CHECK-DAG: %[[T:.*]] = kiln.constant dense<true> : tensor<4xi1>
  %0 = kiln.compare GE, %x, %x : tensor<4xi32>
  // A float may be NaN, so f == f stays.
  // CHECK-DAG: %[[E:.*]] = kiln.compare EQ, %[[F]], %[[F]]
  %1 = kiln.compare EQ, %f, %f : tensor<4xf32>
  // CHECK: return %[[T]], %[[E]]
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @fold_convert
func.func @fold_convert() -> (tensor<4xi32>, tensor<2xf32>, tensor<2xi32>, tensor<2xbf16>, tensor<3xi1>) {
  // Toward zero, saturating, NaN to 0.
  %f = kiln.constant dense<[-2.7, 3.9e10, 0x7FC00000, 2.5]> : tensor<4xf32>
  // CHECK-DAG: dense<[-2, 2147483647, 0, 2]> : tensor<4xi32>
  %0 = kiln.convert %f : (tensor<4xf32>) -> tensor<4xi32>
  // A boolean true converts to 1, not -1.
  %b = kiln.constant dense<[true, false]> : tensor<2xi1>
  // CHECK-DAG: dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
  %1 = kiln.convert %b : (tensor<2xi1>) -> tensor<2xf32>
  // CHECK-DAG: dense<[1, 0]> : tensor<2xi32>
  %2 = kiln.convert %b : (tensor<2xi1>) -> tensor<2xi32>
  // f32 1.00390625 = 1 + 2^-8 is a tie between bf16 1.0 and 1.0078125; even wins.
  %g = kiln.constant dense<[1.00390625, -3.0]> : tensor<2xf32>
  // CHECK-DAG: dense<[1.000000e+00, -3.000000e+00]> : tensor<2xbf16>
  %3 = kiln.convert %g : (tensor<2xf32>) -> tensor<2xbf16>
  // Anything converts to i1 as x != 0.
  %h = kiln.constant dense<[0.0, -0.5, 0x7FC00000]> : tensor<3xf32>
  // CHECK-DAG: dense<[false, true, true]> : tensor<3xi1>
  %4 = kiln.convert %h : (tensor<3xf32>) -> tensor<3xi1>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<2xf32>, tensor<2xi32>, tensor<2xbf16>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
func.func @identities(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %nz = kiln.constant dense<-0.0> : tensor<4xf32>
  %pz = kiln.constant dense<0.0> : tensor<4xf32>
  %one = kiln.constant dense<1.0> : tensor<4xf32>
  %zero_i = kiln.constant dense<0> : tensor<4xi32>
  %ones_i = kiln.constant dense<-1> : tensor<4xi32>
  %0 = kiln.add %x, %nz : tensor<4xf32>
  %1 = kiln.sub %x, %pz : tensor<4xf32>
  %2 = kiln.mul %one, %x : tensor<4xf32>
  %3 = kiln.div %x, %one : tensor<4xf32>
  %4 = kiln.add %zero_i, %i : tensor<4xi32>
  %5 = kiln.and %i, %ones_i : tensor<4xi32>
  %6 = kiln.xor %i, %zero_i : tensor<4xi32>
  %7 = kiln.max %x, %x : tensor<4xf32>
  %n = kiln.neg %x : tensor<4xf32>
  %8 = kiln.neg %n : tensor<4xf32>
  // x + +0.0 is not x when x is -0.0.
  // CHECK: %[[KEEP:.*]] = kiln.add %[[X]], %{{.*}} : tensor<4xf32>
  %9 = kiln.add %x, %pz : tensor<4xf32>
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[I]], %[[I]], %[[I]], %[[X]], %[[X]], %[[KEEP]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[P:.*]]: tensor<4xi1>, %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
func.func @select(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = kiln.constant dense<true> : tensor<4xi1>
  %f = kiln.constant dense<false> : tensor<i1>
  %0 = kiln.select %t, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = kiln.select %f, %a, %b : tensor<i1>, tensor<4xf32>
  %2 = kiln.select %p, %a, %a : tensor<4xi1>, tensor<4xf32>
  // CHECK: return %[[A]], %[[B]], %[[A]]
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @shape_identities
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[S:.*]]: tensor<f32>)
func.func @shape_identities(%x: tensor<2x3xf32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = kiln.transpose %x, permutation = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = kiln.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = kiln.broadcast_in_dim %x, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = kiln.slice %x [0:2, 0:3] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = kiln.pad %x, %s, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %5 = kiln.reverse %x, dims = [] : tensor<2x3xf32>
  %6 = kiln.concatenate %x, dim = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = kiln.reduce_sum %x, dims = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = kiln.reverse %x, dims = [1] : tensor<2x3xf32>
  %8 = kiln.reverse %r, dims = [1] : tensor<2x3xf32>
  // CHECK-NOT: kiln.
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @compose_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x5xf32>)
func.func @compose_transposes(%x: tensor<2x3x5xf32>) -> (tensor<3x5x2xf32>, tensor<2x3x5xf32>) {
  // [1, 0, 2] then [0, 2, 1]: result dims are x's 1, 2, 0.
  // CHECK: %[[T:.*]] = kiln.transpose %[[X]], permutation = [1, 2, 0] : (tensor<2x3x5xf32>) -> tensor<3x5x2xf32>
  %0 = kiln.transpose %x, permutation = [1, 0, 2] : (tensor<2x3x5xf32>) -> tensor<3x2x5xf32>
  %1 = kiln.transpose %0, permutation = [0, 2, 1] : (tensor<3x2x5xf32>) -> tensor<3x5x2xf32>
  // A permutation and its inverse cancel.
  %2 = kiln.transpose %1, permutation = [2, 0, 1] : (tensor<3x5x2xf32>) -> tensor<2x3x5xf32>
  // CHECK: return %[[T]], %[[X]]
  return %1, %2 : tensor<3x5x2xf32>, tensor<2x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @compose_broadcasts
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
func.func @compose_broadcasts(%x: tensor<3xf32>) -> tensor<4x2x3xf32> {
  // CHECK: %[[B:.*]] = kiln.broadcast_in_dim %[[X]], dims = [2] : (tensor<3xf32>) -> tensor<4x2x3xf32>
  %0 = kiln.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln.broadcast_in_dim %0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  // CHECK: return %[[B]]
  return %1 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @compose_reshapes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @compose_reshapes(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: %[[R:.*]] = kiln.reshape %[[X]] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %0 = kiln.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = kiln.reshape %0 : (tensor<6xf32>) -> tensor<3x2xf32>
  // CHECK: return %[[R]]
  return %1 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @constant_data_movement
func.func @constant_data_movement() -> (tensor<3x2xf32>, tensor<4x2xi32>, tensor<2x2xi32>) {
  %s = kiln.constant dense<2.0> : tensor<2x3xf32>
  // CHECK-DAG: dense<2.000000e+00> : tensor<3x2xf32>
  %0 = kiln.transpose %s, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %v = kiln.constant dense<[5, 6]> : tensor<2xi32>
  // A non-splat broadcast is left alone: folding it would copy data.
  // CHECK-DAG: kiln.broadcast_in_dim
  %1 = kiln.broadcast_in_dim %v, dims = [1] : (tensor<2xi32>) -> tensor<4x2xi32>
  %w = kiln.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  // CHECK-DAG: dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
  %2 = kiln.reshape %w : (tensor<4xi32>) -> tensor<2x2xi32>
  return %0, %1, %2 : tensor<3x2xf32>, tensor<4x2xi32>, tensor<2x2xi32>
}

// -----

// CHECK-LABEL: func.func @dynamic_slice_constant
// CHECK-SAME: (%[[X:.*]]: tensor<5x4xf32>)
func.func @dynamic_slice_constant(%x: tensor<5x4xf32>) -> tensor<2x3xf32> {
  %i = kiln.constant dense<4> : tensor<i32>
  %j = kiln.constant dense<-3> : tensor<i64>
  // Start 4 clamps to 5 - 2 = 3; start -3 clamps to 0.
  // CHECK: kiln.slice %[[X]] [3:5, 0:3] : (tensor<5x4xf32>) -> tensor<2x3xf32>
  %0 = kiln.dynamic_slice %x [%i, %j], sizes = [2, 3] : (tensor<5x4xf32>, tensor<i32>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @full_update
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[U:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<i32>)
func.func @full_update(%x: tensor<4xf32>, %u: tensor<4xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  %0 = kiln.dynamic_update_slice %x, %u [%i] : (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  // CHECK: return %[[U]]
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @constant_cond
// CHECK-SAME: (%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>)
func.func @constant_cond(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %f = kiln.constant dense<false> : tensor<i1>
  // CHECK-NOT: kiln.cond
  // CHECK: %[[S:.*]] = kiln.mul %[[A]], %[[B]] : tensor<f32>
  %0 = kiln.cond %f -> (tensor<f32>) {
    kiln.yield %a : tensor<f32>
  } else {
    %s = kiln.mul %a, %b : tensor<f32>
    kiln.yield %s : tensor<f32>
  }
  // CHECK: return %[[S]]
  return %0 : tensor<f32>
}

// -----

// A cond's unused results are dropped with the work that made them.
// CHECK-LABEL: func.func @unused_cond_result
// CHECK-SAME: (%[[P:.*]]: tensor<i1>, %[[A:.*]]: tensor<f32>)
func.func @unused_cond_result(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32> {
  // CHECK: %[[R:.*]] = kiln.cond %[[P]] -> (tensor<f32>) {
  // CHECK-NEXT: %[[E:.*]] = kiln.exp %[[A]]
  // CHECK-NEXT: kiln.yield %[[E]]
  // CHECK-NEXT: } else {
  // CHECK-NEXT: kiln.yield %[[A]]
  // CHECK-NEXT: }
  %0:2 = kiln.cond %p -> (tensor<f32>, tensor<f32>) {
    %s = kiln.sin %a : tensor<f32>
    %e = kiln.exp %a : tensor<f32>
    kiln.yield %s, %e : tensor<f32>, tensor<f32>
  } else {
    %c = kiln.cos %a : tensor<f32>
    kiln.yield %c, %a : tensor<f32>, tensor<f32>
  }
  // CHECK-NEXT: return %[[R]]
  return %0#1 : tensor<f32>
}

// -----

// A while's carried value that the body passes through unchanged is its
// initial value everywhere it is used.
// CHECK-LABEL: func.func @invariant_carry
// CHECK-SAME: (%[[N:.*]]: tensor<i32>, %[[W:.*]]: tensor<f32>)
func.func @invariant_carry(%n: tensor<i32>, %w: tensor<f32>) -> (tensor<i32>, tensor<f32>) {
  %zero = kiln.constant dense<0> : tensor<i32>
  %one = kiln.constant dense<1> : tensor<i32>
  // CHECK: %[[R:.*]]:2 = kiln.while
  %r:2 = kiln.while (%zero, %w) : tensor<i32>, tensor<f32> cond {
  ^bb0(%i: tensor<i32>, %v: tensor<f32>):
    %p = kiln.compare LT, %i, %n : tensor<i32>
    kiln.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %v: tensor<f32>):
    // CHECK: kiln.convert %[[W]]
    %c = kiln.convert %v : (tensor<f32>) -> tensor<i32>
    %k = kiln.add %i, %c : tensor<i32>
    %j = kiln.add %k, %one : tensor<i32>
    kiln.yield %j, %v : tensor<i32>, tensor<f32>
  }
  // CHECK: return %[[R]]#0, %[[W]]
  return %r#0, %r#1 : tensor<i32>, tensor<f32>
}

// -----

// On i1, max is or and min is and (true is the larger).
// CHECK-LABEL: func.func @fold_bool_max_min
func.func @fold_bool_max_min() -> (tensor<2xi1>, tensor<2xi1>) {
  %t = kiln.constant dense<[true, false]> : tensor<2xi1>
  %f = kiln.constant dense<[false, false]> : tensor<2xi1>
  // CHECK-DAG: %[[MAX:.*]] = kiln.constant dense<[true, false]> : tensor<2xi1>
  // CHECK-DAG: %[[MIN:.*]] = kiln.constant dense<false> : tensor<2xi1>
  // CHECK: return %[[MAX]], %[[MIN]]
  %0 = kiln.max %t, %f : tensor<2xi1>
  %1 = kiln.min %t, %f : tensor<2xi1>
  return %0, %1 : tensor<2xi1>, tensor<2xi1>
}

// -----

// Shifts and bitcasts of constants fold, with StableHLO's out-of-range
// rules.
// CHECK-LABEL: func.func @fold_shifts
// CHECK-DAG: kiln.constant dense<[17, 0, -1, -1]> : tensor<4xi32>
// CHECK-DAG: kiln.constant dense<[1, 20, 268435455, 0]> : tensor<4xi32>
// CHECK-DAG: kiln.constant dense<1.000000e+00> : tensor<f32>
func.func @fold_shifts() -> (tensor<4xi32>, tensor<4xi32>, tensor<f32>) {
  %x = kiln.constant dense<[4, 1, -8, -8]> : tensor<4xi32>
  %k = kiln.constant dense<[2, 32, -1, 40]> : tensor<4xi32>
  %l = kiln.constant dense<[1, 1, 4, 40]> : tensor<4xi32>
  %m = kiln.constant dense<[2, 40, -16, -1]> : tensor<4xi32>
  %0 = kiln.shift_left %x, %k : tensor<4xi32>
  %a = kiln.shift_right_arithmetic %x, %k : tensor<4xi32>
  %1 = kiln.add %0, %a : tensor<4xi32>
  %2 = kiln.shift_right_logical %m, %l : tensor<4xi32>
  %bits = kiln.constant dense<1065353216> : tensor<i32>
  %3 = kiln.bitcast_convert %bits : (tensor<i32>) -> tensor<f32>
  return %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<f32>
}
