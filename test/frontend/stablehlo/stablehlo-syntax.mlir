// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Kiln's StableHLO ops print as JAX prints them and read back, in either
// form.
// CHECK-LABEL: func.func @syntax
// CHECK: stablehlo.add %arg0, %arg0 : tensor<2x3xf32>
// CHECK: stablehlo.convert %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xi32>
// CHECK: stablehlo.compare GT, %arg0, %arg0, TOTALORDER : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK: stablehlo.select %{{.*}}, %arg0, %arg0 : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK: stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, HIGH] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>
// CHECK: stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [0], contracting_dims = [1] x [1], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>
// CHECK: stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK: stablehlo.reduce(%arg0 init: %{{.*}}) across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32> reducer(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>) {
// CHECK-NEXT: stablehlo.multiply %[[B]], %[[A]] : tensor<f32>
// CHECK: stablehlo.custom_call @target(%arg0) {has_side_effect = true} : (tensor<2x3xf32>) -> ()
func.func @syntax(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>) {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2x3xf32>
  %1 = stablehlo.convert %0 : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %2 = stablehlo.compare GT, %arg0, %arg0, TOTALORDER : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %3 = stablehlo.select %2, %arg0, %arg0 : tensor<2x3xi1>, tensor<2x3xf32>
  %4 = stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, HIGH] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>
  %7 = stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [0], contracting_dims = [1] x [1], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %5 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %6 = stablehlo.reduce(%arg0 init: %c) across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %m = stablehlo.multiply %b, %a : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }
  stablehlo.custom_call @target(%arg0) {has_side_effect = true} : (tensor<2x3xf32>) -> ()
  return %0, %1, %3, %4, %5, %6, %7 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @loops
// CHECK: stablehlo.while(%[[I:.*]] = %arg0) : tensor<i32> cond {
// CHECK: stablehlo.compare LT, %[[I]], %arg0, SIGNED
// CHECK: } do {
// CHECK: stablehlo.add %[[I]], %[[I]] : tensor<i32>
// CHECK: stablehlo.dynamic_slice %arg1, %arg0, sizes = [2] : (tensor<4xf32>, tensor<i32>) -> tensor<2xf32>
// CHECK: stablehlo.pad %arg1, %{{.*}}, low = [1], high = [2], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<7xf32>
// CHECK: stablehlo.clamp %{{.*}}, %arg1, %{{.*}} : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
func.func @loops(%arg0: tensor<i32>, %arg1: tensor<4xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<7xf32>, tensor<4xf32>) {
  %0 = stablehlo.while(%iterArg = %arg0) : tensor<i32>
   cond {
    %1 = stablehlo.compare  LT, %iterArg, %arg0,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1 = stablehlo.add %iterArg, %iterArg : tensor<i32>
    stablehlo.return %1 : tensor<i32>
  }
  %2 = stablehlo.dynamic_slice %arg1, %arg0, sizes = [2] : (tensor<4xf32>, tensor<i32>) -> tensor<2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %3 = stablehlo.pad %arg1, %z, low = [1], high = [2], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<7xf32>
  %4 = stablehlo.clamp %z, %arg1, %z : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %2, %3, %4 : tensor<i32>, tensor<2xf32>, tensor<7xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @windows
// CHECK: stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = {{\[}}[1, 1], [0, 2]], lhs_dilate = [1, 1], rhs_dilate = [2, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x3x8x4xf32>
// CHECK: stablehlo.convolution(%{{.*}}, %{{.*}}) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0] {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x4x9xf32>, tensor<6x2x3xf32>) -> tensor<2x6x7xf32>
// CHECK: "stablehlo.reduce_window"(%arg0, %{{.*}}) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
// CHECK: stablehlo.maximum
func.func @windows(%arg0: tensor<1x8x8x3xf32>, %arg1: tensor<3x3x3x4xf32>, %arg2: tensor<2x4x9xf32>, %arg3: tensor<6x2x3xf32>) -> (tensor<1x3x8x4xf32>, tensor<2x6x7xf32>, tensor<1x4x4x3xf32>) {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 1], [0, 2]], lhs_dilate = [1, 1], rhs_dilate = [2, 1], reverse = [0, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x3x8x4xf32>
  %1 = "stablehlo.convolution"(%arg2, %arg3) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, feature_group_count = 2 : i64}> : (tensor<2x4x9xf32>, tensor<6x2x3xf32>) -> tensor<2x6x7xf32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %2 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<1x8x8x3xf32>, tensor<f32>) -> tensor<1x4x4x3xf32>
  return %0, %1, %2 : tensor<1x3x8x4xf32>, tensor<2x6x7xf32>, tensor<1x4x4x3xf32>
}

// CHECK-LABEL: func.func @composites
// CHECK: stablehlo.composite "my.swish" %arg0 {composite_attributes = {beta = 1.000000e+00 : f32}, decomposition = @my.swish.impl, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
func.func @composites(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.composite "my.swish" %arg0 {composite_attributes = {beta = 1.0 : f32}, decomposition = @my.swish.impl, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @my.swish.impl(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.logistic %arg0 : tensor<4xf32>
  %1 = stablehlo.multiply %arg0, %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
