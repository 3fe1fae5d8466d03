// Every kiln op in its pretty form: it parses, verifies, prints back the same,
// and survives a trip through the generic form.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>,
                       %b: tensor<4xi1>) -> tensor<4xf32> {
  // CHECK: kiln.neg %{{.*}} : tensor<4xf32>
  %0 = kiln.neg %x : tensor<4xf32>
  // CHECK: kiln.abs %{{.*}} : tensor<4xi32>
  %1 = kiln.abs %i : tensor<4xi32>
  // CHECK: kiln.sign %{{.*}} : tensor<4xf32>
  %2 = kiln.sign %0 : tensor<4xf32>
  // CHECK: kiln.exp
  %3 = kiln.exp %2 : tensor<4xf32>
  // CHECK: kiln.expm1
  %4 = kiln.expm1 %3 : tensor<4xf32>
  // CHECK: kiln.log
  %5 = kiln.log %4 : tensor<4xf32>
  // CHECK: kiln.log1p
  %6 = kiln.log1p %5 : tensor<4xf32>
  // CHECK: kiln.tanh
  %7 = kiln.tanh %6 : tensor<4xf32>
  // CHECK: kiln.logistic
  %8 = kiln.logistic %7 : tensor<4xf32>
  // CHECK: kiln.sqrt
  %9 = kiln.sqrt %8 : tensor<4xf32>
  // CHECK: kiln.rsqrt
  %10 = kiln.rsqrt %9 : tensor<4xf32>
  // CHECK: kiln.sin
  %11 = kiln.sin %10 : tensor<4xf32>
  // CHECK: kiln.cos
  %12 = kiln.cos %11 : tensor<4xf32>
  // CHECK: kiln.floor
  %13 = kiln.floor %12 : tensor<4xf32>
  // CHECK: kiln.ceil
  %14 = kiln.ceil %13 : tensor<4xf32>
  // CHECK: kiln.not %{{.*}} : tensor<4xi1>
  %15 = kiln.not %b : tensor<4xi1>
  // CHECK: kiln.add %{{.*}}, %{{.*}} : tensor<4xf32>
  %16 = kiln.add %14, %y : tensor<4xf32>
  // CHECK: kiln.sub
  %17 = kiln.sub %16, %y : tensor<4xf32>
  // CHECK: kiln.mul
  %18 = kiln.mul %17, %y : tensor<4xf32>
  // CHECK: kiln.div
  %19 = kiln.div %18, %y : tensor<4xf32>
  // CHECK: kiln.rem %{{.*}}, %{{.*}} : tensor<4xi32>
  %20 = kiln.rem %1, %i : tensor<4xi32>
  // CHECK: kiln.max
  %21 = kiln.max %19, %y : tensor<4xf32>
  // CHECK: kiln.min
  %22 = kiln.min %21, %y : tensor<4xf32>
  // CHECK: kiln.pow
  %23 = kiln.pow %22, %y : tensor<4xf32>
  // CHECK: kiln.atan2
  %24 = kiln.atan2 %23, %y : tensor<4xf32>
  // CHECK: kiln.and %{{.*}}, %{{.*}} : tensor<4xi32>
  %25 = kiln.and %20, %i : tensor<4xi32>
  // CHECK: kiln.or %{{.*}}, %{{.*}} : tensor<4xi1>
  %26 = kiln.or %15, %b : tensor<4xi1>
  // CHECK: kiln.xor
  %27 = kiln.xor %26, %b : tensor<4xi1>
  // CHECK: kiln.shift_left %{{.*}}, %{{.*}} : tensor<4xi32>
  %sl = kiln.shift_left %25, %i : tensor<4xi32>
  // CHECK: kiln.shift_right_logical %{{.*}}, %{{.*}} : tensor<4xi32>
  %sr = kiln.shift_right_logical %sl, %i : tensor<4xi32>
  // CHECK: kiln.shift_right_arithmetic %{{.*}}, %{{.*}} : tensor<4xi32>
  %sa = kiln.shift_right_arithmetic %sr, %i : tensor<4xi32>
  // CHECK: kiln.bitcast_convert %{{.*}} : (tensor<4xi32>) -> tensor<4xf32>
  %bc = kiln.bitcast_convert %sa : (tensor<4xi32>) -> tensor<4xf32>
  // CHECK: kiln.compare LT, %{{.*}}, %{{.*}} : tensor<4xf32>
  // GENERIC: comparison_direction = #kiln<comparison_direction LT>
  %28 = kiln.compare LT, %24, %y : tensor<4xf32>
  // CHECK: kiln.compare GE, %{{.*}}, %{{.*}} : tensor<4xi32>
  %29 = kiln.compare GE, %25, %i : tensor<4xi32>
  %30 = kiln.and %28, %29 : tensor<4xi1>
  %31 = kiln.and %30, %27 : tensor<4xi1>
  // CHECK: kiln.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>
  %32 = kiln.select %31, %24, %y : tensor<4xi1>, tensor<4xf32>
  // CHECK: kiln.convert %{{.*}} : (tensor<4xf32>) -> tensor<4xbf16>
  %33 = kiln.convert %32 : (tensor<4xf32>) -> tensor<4xbf16>
  %34 = kiln.convert %33 : (tensor<4xbf16>) -> tensor<4xf32>
  return %34 : tensor<4xf32>
}

// CHECK-LABEL: func.func @scalar_select
func.func @scalar_select(%p: tensor<i1>, %x: tensor<2x2xf64>, %y: tensor<2x2xf64>) -> tensor<2x2xf64> {
  // CHECK: kiln.select %{{.*}} : tensor<i1>, tensor<2x2xf64>
  %0 = kiln.select %p, %x, %y : tensor<i1>, tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<2x3xf32>, %s: tensor<f32>, %i: tensor<i32>,
                  %j: tensor<i64>) -> tensor<3x2xf32> {
  // CHECK: kiln.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %c = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: kiln.iota dim = 1 : tensor<2x3xi32>
  %iota = kiln.iota dim = 1 : tensor<2x3xi32>
  // CHECK: kiln.broadcast_in_dim %{{.*}}, dims = [1] : (tensor<2xf32>) -> tensor<3x2xf32>
  %b = kiln.broadcast_in_dim %c, dims = [1] : (tensor<2xf32>) -> tensor<3x2xf32>
  // CHECK: kiln.reshape %{{.*}} : (tensor<2x3xf32>) -> tensor<6xf32>
  %r = kiln.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  // CHECK: kiln.transpose %{{.*}}, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %t = kiln.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: kiln.slice %{{.*}} [1:6:2] : (tensor<6xf32>) -> tensor<3xf32>
  // GENERIC: limit_indices = array<i64: 6>, start_indices = array<i64: 1>, strides = array<i64: 2>
  %sl = kiln.slice %r [1:6:2] : (tensor<6xf32>) -> tensor<3xf32>
  // CHECK: kiln.slice %{{.*}} [0:2, 1:3] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %sl2 = kiln.slice %x [0:2, 1:3] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  // CHECK: kiln.dynamic_slice %{{.*}}[%{{.*}}, %{{.*}}], sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i64>) -> tensor<1x2xf32>
  %ds = kiln.dynamic_slice %x [%i, %j], sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i64>) -> tensor<1x2xf32>
  // CHECK: kiln.dynamic_update_slice %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %dus = kiln.dynamic_update_slice %x, %ds [%i, %i] : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  // CHECK: kiln.concatenate %{{.*}}, %{{.*}}, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %cat = kiln.concatenate %x, %dus, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK: kiln.pad %{{.*}}, %{{.*}}, low = [1, -1], high = [0, 2], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  %p = kiln.pad %x, %s, low = [1, -1], high = [0, 2], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  // CHECK: kiln.reverse %{{.*}}, dims = [0, 1] : tensor<2x3xf32>
  %rev = kiln.reverse %x, dims = [0, 1] : tensor<2x3xf32>
  return %t : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @compute
func.func @compute(%a: tensor<8x4x16xbf16>, %b: tensor<8x16x32xbf16>,
                   %x: tensor<4x16xf32>, %y: tensor<16x32xf32>,
                   %table: tensor<100x8xf32>, %ids: tensor<3x5xi32>,
                   %upd: tensor<3x5x8xf32>) -> tensor<4xi32> {
  // CHECK: kiln.dot_general %{{.*}}, %{{.*}}, batching = [0] x [0], contracting = [2] x [1] : (tensor<8x4x16xbf16>, tensor<8x16x32xbf16>) -> tensor<8x4x32xf32>
  %0 = kiln.dot_general %a, %b, batching = [0] x [0], contracting = [2] x [1] : (tensor<8x4x16xbf16>, tensor<8x16x32xbf16>) -> tensor<8x4x32xf32>
  // CHECK: kiln.dot_general %{{.*}}, %{{.*}}, contracting = [1] x [0], precision = HIGHEST : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  // GENERIC: precision = #kiln<precision HIGHEST>
  %1 = kiln.dot_general %x, %y, contracting = [1] x [0], precision = HIGHEST : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  // CHECK: kiln.reduce_sum %{{.*}}, dims = [1] : (tensor<4x32xf32>) -> tensor<4xf32>
  %2 = kiln.reduce_sum %1, dims = [1] : (tensor<4x32xf32>) -> tensor<4xf32>
  // CHECK: kiln.reduce_prod %{{.*}}, dims = [0, 1] : (tensor<4x32xf32>) -> tensor<f32>
  %3 = kiln.reduce_prod %1, dims = [0, 1] : (tensor<4x32xf32>) -> tensor<f32>
  // CHECK: kiln.reduce_max
  %4 = kiln.reduce_max %0, dims = [0, 2] : (tensor<8x4x32xf32>) -> tensor<4xf32>
  // CHECK: kiln.reduce_min
  %5 = kiln.reduce_min %0, dims = [1] : (tensor<8x4x32xf32>) -> tensor<8x32xf32>
  // CHECK: kiln.argmax %{{.*}}, dim = 1 : (tensor<4x32xf32>) -> tensor<4xi32>
  %6 = kiln.argmax %1, dim = 1 : (tensor<4x32xf32>) -> tensor<4xi32>
  // CHECK: kiln.take %{{.*}}[%{{.*}}], dim = 0 : (tensor<100x8xf32>, tensor<3x5xi32>) -> tensor<3x5x8xf32>
  %7 = kiln.take %table[%ids], dim = 0 : (tensor<100x8xf32>, tensor<3x5xi32>) -> tensor<3x5x8xf32>
  // CHECK: kiln.scatter_add %{{.*}}[%{{.*}}], %{{.*}}, dim = 0 : (tensor<100x8xf32>, tensor<3x5xi32>, tensor<3x5x8xf32>) -> tensor<100x8xf32>
  %8 = kiln.scatter_add %table[%ids], %upd, dim = 0 : (tensor<100x8xf32>, tensor<3x5xi32>, tensor<3x5x8xf32>) -> tensor<100x8xf32>
  return %6 : tensor<4xi32>
}

// CHECK-LABEL: func.func @control_flow
func.func @control_flow(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<f32>) -> tensor<i32> {
  // CHECK: kiln.cond %{{.*}} -> (tensor<f32>) {
  // CHECK-NEXT: kiln.yield %{{.*}} : tensor<f32>
  // CHECK-NEXT: } else {
  %r = kiln.cond %p -> (tensor<f32>) {
    kiln.yield %a : tensor<f32>
  } else {
    %s = kiln.add %a, %b : tensor<f32>
    kiln.yield %s : tensor<f32>
  }
  %zero = kiln.constant dense<0> : tensor<i32>
  %one = kiln.constant dense<1> : tensor<i32>
  %ten = kiln.constant dense<10> : tensor<i32>
  // CHECK: kiln.while(%{{.*}}) : tensor<i32> cond {
  // CHECK: ^bb0(%{{.*}}: tensor<i32>):
  // CHECK: kiln.yield %{{.*}} : tensor<i1>
  // CHECK: } do {
  %n = kiln.while (%zero) : tensor<i32> cond {
  ^bb0(%i: tensor<i32>):
    %c = kiln.compare LT, %i, %ten : tensor<i32>
    kiln.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    %j = kiln.add %i, %one : tensor<i32>
    kiln.yield %j : tensor<i32>
  }
  // A cond with no results.
  // CHECK: kiln.cond %{{.*}} {
  kiln.cond %p {
    kiln.yield
  } else {
    kiln.yield
  }
  return %n : tensor<i32>
}

func.func private @loss(%w: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<f32>
func.func private @loss_aux(%w: tensor<4xf32>) -> (tensor<f32>, tensor<2xi32>)
func.func private @f(%x: tensor<4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32>
func.func private @step(%c: tensor<f32>, %x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)

// CHECK-LABEL: func.func @transforms
func.func @transforms(%w: tensor<4xf32>, %x: tensor<4xf32>, %m: tensor<4x2xf32>,
                      %xs: tensor<8x4xf32>, %c: tensor<f32>, %ct: tensor<2xf32>) {
  // CHECK: kiln.grad @loss(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %g = kiln.grad @loss(%w, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.grad @loss(%{{.*}}, %{{.*}}) {argnums = array<i64: 1, 0>}
  %g2:2 = kiln.grad @loss(%w, %x) {argnums = array<i64: 1, 0>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  // CHECK: kiln.grad @loss_aux(%{{.*}}) {has_aux = true} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<2xi32>)
  %ga:2 = kiln.grad @loss_aux(%w) {has_aux = true} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<2xi32>)
  // CHECK: kiln.value_and_grad @loss(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  %v:2 = kiln.value_and_grad @loss(%w, %x) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  // CHECK: kiln.jvp @loss
  %j:2 = kiln.jvp @loss(%w, %x, %w, %x) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<f32>)
  // CHECK: kiln.vjp @f(%{{.*}}, %{{.*}}, %{{.*}}) {argnums = array<i64: 1>}
  %vj:2 = kiln.vjp @f(%x, %m, %ct) {argnums = array<i64: 1>} : (tensor<4xf32>, tensor<4x2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>)
  // CHECK: kiln.vjp @f(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4x2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>, tensor<4x2xf32>)
  %va:3 = kiln.vjp @f(%x, %m, %ct) : (tensor<4xf32>, tensor<4x2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>, tensor<4x2xf32>)
  // CHECK: kiln.vmap @f(%{{.*}}, %{{.*}}) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 1>}
  %vm = kiln.vmap @f(%xs, %m) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 1>} : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<2x8xf32>
  // CHECK: kiln.vmap @f(%{{.*}}, %{{.*}}) {axis_size = 3 : i64, in_axes = array<i64: -1, -1>, out_axes = array<i64: 0>}
  %vn = kiln.vmap @f(%x, %m) {axis_size = 3 : i64, in_axes = array<i64: -1, -1>, out_axes = array<i64: 0>} : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  // CHECK: kiln.scan @step(%{{.*}}, %{{.*}}) {length = 8 : i64, num_carry = 1 : i64, reverse = true, unroll = 2 : i64}
  %sc:2 = kiln.scan @step(%c, %xs) {num_carry = 1 : i64, length = 8 : i64, reverse = true, unroll = 2 : i64} : (tensor<f32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<8x4xf32>)
  // CHECK: kiln.checkpoint @f(%{{.*}}, %{{.*}}) {policy = #kiln<remat_policy dots_saveable>}
  %ck = kiln.checkpoint @f(%x, %m) {policy = #kiln<remat_policy dots_saveable>} : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
  // CHECK: kiln.checkpoint @f(%{{.*}}, %{{.*}}) {names = ["h"], policy = #kiln<remat_policy save_only_these_names>}
  %cn = kiln.checkpoint @f(%x, %m) {policy = #kiln<remat_policy save_only_these_names>, names = ["h"]} : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
  // CHECK: kiln.stop_gradient %{{.*}} : tensor<4xf32>
  %sg = kiln.stop_gradient %x : tensor<4xf32>
  // CHECK: kiln.checkpoint_name %{{.*}}, "h" : tensor<4xf32>
  %h = kiln.checkpoint_name %x, "h" : tensor<4xf32>
  return
}
