// RUN: kiln-opt %s --kiln-expand-transforms --split-input-file | FileCheck %s

// kiln.jvp becomes a call of a generated function: each op is copied, then
// its rule builds the tangent from the operands' tangents.
// CHECK-LABEL: func.func private @f_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[T:.*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[E:.*]] = kiln.exp %[[X]]
// CHECK: %[[TE:.*]] = kiln.mul %[[T]], %[[E]]
// CHECK: return %[[E]], %[[TE]]
// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]]:2 = call @f_jvp(%{{.*}}, %{{.*}})
// CHECK-NOT: kiln.jvp
// CHECK: return %[[R]]#0, %[[R]]#1
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %ty = kiln.jvp @f(%x, %t) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %y, %ty : tensor<4xf32>, tensor<4xf32>
}

// -----

// Symbolic zeros: a constant and an integer argument have no tangent, so
// ops on them only get no rule applied; a result with a zero tangent
// returns a materialized zero.
// CHECK-LABEL: func.func private @g_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[N:.*]]: tensor<3xi32>, %[[TX:.*]]: tensor<3xf32>, %{{.*}}: tensor<3xi32>)
// CHECK: %[[C:.*]] = kiln.constant dense<2.000000e+00>
// CHECK-NEXT: %[[S:.*]] = kiln.sin %[[C]]
// CHECK-NEXT: %[[M:.*]] = kiln.mul %[[X]], %[[S]]
// CHECK-NEXT: %[[TM:.*]] = kiln.mul %[[TX]], %[[S]]
// CHECK-NEXT: %[[F:.*]] = kiln.convert %[[N]]
// CHECK-NEXT: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT: return %[[M]], %[[F]], %[[TM]], %[[Z]]
func.func private @g(%x: tensor<3xf32>, %n: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %c = kiln.constant dense<2.0> : tensor<3xf32>
  %s = kiln.sin %c : tensor<3xf32>
  %m = kiln.mul %x, %s : tensor<3xf32>
  %f = kiln.convert %n : (tensor<3xi32>) -> tensor<3xf32>
  return %m, %f : tensor<3xf32>, tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>, %n: tensor<3xi32>, %tx: tensor<3xf32>, %tn: tensor<3xi32>) -> tensor<3xf32> {
  %0:4 = kiln.jvp @g(%x, %n, %tx, %tn) : (tensor<3xf32>, tensor<3xi32>, tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#2 : tensor<3xf32>
}

// -----

// One derivative per function, however often it is asked for; a name that
// is taken gets a suffix; calls call the callee's derivative.
// CHECK-LABEL: func.func private @h_jvp(
// CHECK-NOT: func.func private @h_jvp_
// CHECK-LABEL: func.func private @outer_jvp_0
// CHECK: %[[T:.*]] = kiln.tanh
// CHECK: call @h_jvp(%[[T]], %{{.*}})
// CHECK-LABEL: func.func @main
// CHECK: call @h_jvp
// CHECK: call @outer_jvp_0
// CHECK: call @h_jvp
func.func private @h(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.mul %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @outer(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.tanh %x : tensor<2xf32>
  %1 = call @h(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
func.func private @outer_jvp(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %t: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a:2 = kiln.jvp @h(%x, %t) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %b:2 = kiln.jvp @outer(%x, %t) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %c:2 = kiln.jvp @h(%x, %t) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %d = call @outer_jvp(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %a#1, %b#1, %c#1 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Second order: the JVP of a function that takes a JVP differentiates the
// generated function in turn.
// CHECK-LABEL: func.func private @sq_jvp(
// CHECK-LABEL: func.func private @sq_jvp_jvp(
// CHECK-LABEL: func.func private @dsq(
// CHECK: call @sq_jvp(
// CHECK-LABEL: func.func private @dsq_jvp(
// CHECK: call @sq_jvp_jvp(
// CHECK-LABEL: func.func @main
// CHECK: call @dsq_jvp
func.func private @sq(%x: tensor<f32>) -> tensor<f32> {
  %0 = kiln.mul %x, %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func private @dsq(%x: tensor<f32>, %t: tensor<f32>) -> tensor<f32> {
  %y, %ty = kiln.jvp @sq(%x, %t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %ty : tensor<f32>
}
func.func @main(%x: tensor<f32>, %t: tensor<f32>, %s: tensor<f32>, %u: tensor<f32>) -> tensor<f32> {
  %0:2 = kiln.jvp @dsq(%x, %t, %s, %u) : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %0#1 : tensor<f32>
}

// -----

// Linear ops apply themselves to the tangents (convert between float
// widths, select with the same predicate); dot_general is bilinear.
// CHECK-LABEL: func.func private @lin_jvp
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x2xf32>, %[[P:.*]]: tensor<2x2xi1>, %[[TA:.*]]: tensor<2x3xf32>, %[[TB:.*]]: tensor<3x2xf32>, %{{.*}}: tensor<2x2xi1>)
// CHECK: %[[D:.*]] = kiln.dot_general %[[A]], %[[B]]
// CHECK: %[[D1:.*]] = kiln.dot_general %[[TA]], %[[B]]
// CHECK: %[[D2:.*]] = kiln.dot_general %[[A]], %[[TB]]
// CHECK: %[[TD:.*]] = kiln.add %[[D1]], %[[D2]]
// CHECK: %[[W:.*]] = kiln.convert %[[D]] : (tensor<2x2xf32>) -> tensor<2x2xf64>
// CHECK: %[[TW:.*]] = kiln.convert %[[TD]] : (tensor<2x2xf32>) -> tensor<2x2xf64>
// CHECK: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x2xf64>
// CHECK: %[[S:.*]] = kiln.select %[[P]], %[[W]], %[[Z]]
// CHECK: %[[Z2:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x2xf64>
// CHECK: %[[TS:.*]] = kiln.select %[[P]], %[[TW]], %[[Z2]]
// CHECK: return %[[S]], %[[TS]]
func.func private @lin(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %p: tensor<2x2xi1>) -> tensor<2x2xf64> {
  %d = kiln.dot_general %a, %b, contracting = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %w = kiln.convert %d : (tensor<2x2xf32>) -> tensor<2x2xf64>
  %z = kiln.constant dense<0.0> : tensor<2x2xf64>
  %s = kiln.select %p, %w, %z : tensor<2x2xi1>, tensor<2x2xf64>
  return %s : tensor<2x2xf64>
}
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %p: tensor<2x2xi1>, %ta: tensor<2x3xf32>, %tb: tensor<3x2xf32>, %tp: tensor<2x2xi1>) -> tensor<2x2xf64> {
  %0:2 = kiln.jvp @lin(%a, %b, %p, %ta, %tb, %tp) : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xi1>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xi1>) -> (tensor<2x2xf64>, tensor<2x2xf64>)
  return %0#1 : tensor<2x2xf64>
}
