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
// CHECK: stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK: stablehlo.reduce(%arg0 init: %{{.*}}) across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32> reducer(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>) {
// CHECK-NEXT: stablehlo.multiply %[[B]], %[[A]] : tensor<f32>
// CHECK: stablehlo.custom_call @target(%arg0) {has_side_effect = true} : (tensor<2x3xf32>) -> ()
func.func @syntax(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>) {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2x3xf32>
  %1 = stablehlo.convert %0 : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %2 = stablehlo.compare GT, %arg0, %arg0, TOTALORDER : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %3 = stablehlo.select %2, %arg0, %arg0 : tensor<2x3xi1>, tensor<2x3xf32>
  %4 = stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, HIGH] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %5 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %6 = stablehlo.reduce(%arg0 init: %c) across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %m = stablehlo.multiply %b, %a : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }
  stablehlo.custom_call @target(%arg0) {has_side_effect = true} : (tensor<2x3xf32>) -> ()
  return %0, %1, %3, %4, %5, %6 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>
}
