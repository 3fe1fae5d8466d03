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
// ops on them only get no rule applied (and fold, as generated functions
// are simplified); a result with a zero tangent returns a materialized
// zero.
// CHECK-LABEL: func.func private @g_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[N:.*]]: tensor<3xi32>, %[[TX:.*]]: tensor<3xf32>, %{{.*}}: tensor<3xi32>)
// CHECK-NEXT: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT: %[[S:.*]] = kiln.constant dense<0.909297{{.*}}> : tensor<3xf32>
// CHECK-NEXT: %[[M:.*]] = kiln.mul %[[X]], %[[S]]
// CHECK-NEXT: %[[TM:.*]] = kiln.mul %[[TX]], %[[S]]
// CHECK-NEXT: %[[F:.*]] = kiln.convert %[[N]]
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
// CHECK: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x2xf64>
// CHECK: %[[D:.*]] = kiln.dot_general %[[A]], %[[B]]
// CHECK: %[[D1:.*]] = kiln.dot_general %[[TA]], %[[B]]
// CHECK: %[[D2:.*]] = kiln.dot_general %[[A]], %[[TB]]
// CHECK: %[[TD:.*]] = kiln.add %[[D1]], %[[D2]]
// CHECK: %[[W:.*]] = kiln.convert %[[D]] : (tensor<2x2xf32>) -> tensor<2x2xf64>
// CHECK: %[[TW:.*]] = kiln.convert %[[TD]] : (tensor<2x2xf32>) -> tensor<2x2xf64>
// CHECK: %[[S:.*]] = kiln.select %[[P]], %[[W]], %[[Z]]
// CHECK: %[[TS:.*]] = kiln.select %[[P]], %[[TW]], %[[Z]]
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

// -----

// Reverse mode: the gradient of an MLP loss with respect to its weights is
// the forward pass, then the transposed dots (a weight's gradient as
// activations^T . cotangent, with no transpose after it, as JAX's
// swap_ans); the loss value itself is never computed and no zero
// cotangent is added.
// CHECK-LABEL: func.func private @mlp_grad
// CHECK-SAME: (%[[W1:.*]]: tensor<4x8xf32>, %[[W2:.*]]: tensor<8x2xf32>, %[[X:.*]]: tensor<16x4xf32>) -> (tensor<4x8xf32>, tensor<8x2xf32>)
// CHECK-NEXT: %[[TWO:.*]] = kiln.constant dense<2.000000e+00> : tensor<16x2xf32>
// CHECK-NEXT: %[[ONE:.*]] = kiln.constant dense<1.000000e+00> : tensor<16x8xf32>
// CHECK-NEXT: %[[H:.*]] = kiln.dot_general %[[X]], %[[W1]]
// CHECK-NEXT: %[[A:.*]] = kiln.tanh %[[H]]
// CHECK-NEXT: %[[AA:.*]] = kiln.mul %[[A]], %[[A]]
// CHECK-NEXT: %[[DA:.*]] = kiln.sub %[[ONE]], %[[AA]]
// CHECK-NEXT: %[[O:.*]] = kiln.dot_general %[[A]], %[[W2]]
// CHECK-NEXT: %[[GO:.*]] = kiln.mul %[[O]], %[[TWO]]
// CHECK-NEXT: %[[GW2:.*]] = kiln.dot_general %[[A]], %[[GO]], contracting = [0] x [0] : (tensor<16x8xf32>, tensor<16x2xf32>) -> tensor<8x2xf32>
// CHECK-NEXT: %[[GA:.*]] = kiln.dot_general %[[GO]], %[[W2]], contracting = [1] x [1] : (tensor<16x2xf32>, tensor<8x2xf32>) -> tensor<16x8xf32>
// CHECK-NEXT: %[[GH:.*]] = kiln.mul %[[GA]], %[[DA]]
// CHECK-NEXT: %[[GW1:.*]] = kiln.dot_general %[[X]], %[[GH]], contracting = [0] x [0] : (tensor<16x4xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[GW1]], %[[GW2]]
// CHECK-NOT: func.func private @mlp_jvp
// CHECK-LABEL: func.func @main
// CHECK: call @mlp_grad
func.func private @mlp(%w1: tensor<4x8xf32>, %w2: tensor<8x2xf32>, %x: tensor<16x4xf32>) -> tensor<f32> {
  %h = kiln.dot_general %x, %w1, contracting = [1] x [0] : (tensor<16x4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  %a = kiln.tanh %h : tensor<16x8xf32>
  %o = kiln.dot_general %a, %w2, contracting = [1] x [0] : (tensor<16x8xf32>, tensor<8x2xf32>) -> tensor<16x2xf32>
  %sq = kiln.mul %o, %o : tensor<16x2xf32>
  %l = kiln.reduce_sum %sq, dims = [0, 1] : (tensor<16x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%w1: tensor<4x8xf32>, %w2: tensor<8x2xf32>, %x: tensor<16x4xf32>) -> (tensor<4x8xf32>, tensor<8x2xf32>) {
  %g:2 = kiln.grad @mlp(%w1, %w2, %x) {argnums = array<i64: 0, 1>} : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<16x4xf32>) -> (tensor<4x8xf32>, tensor<8x2xf32>)
  return %g#0, %g#1 : tensor<4x8xf32>, tensor<8x2xf32>
}

// -----

// A called function is split once into a forward half (its results, then
// the residuals its backward half needs) and a backward half, shared by
// value_and_grad and grad; has_aux returns the other results unchanged.
// CHECK-LABEL: func.func private @h_fwd
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT: %[[S:.*]] = kiln.sin %[[X]]
// CHECK-NEXT: %[[C:.*]] = kiln.cos %[[X]]
// CHECK-NEXT: return %[[S]], %[[C]]
// CHECK-LABEL: func.func private @h_bwd
// CHECK-SAME: (%[[CT:.*]]: tensor<3xf32>, %[[R:.*]]: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[M:.*]] = kiln.mul %[[CT]], %[[R]]
// CHECK-NEXT: return %[[M]]
// CHECK-LABEL: func.func private @f_value_and_grad
// CHECK: %[[F:.*]]:2 = call @h_fwd(
// CHECK: %[[L:.*]] = kiln.reduce_sum %[[F]]#0
// CHECK: %[[B:.*]] = call @h_bwd(%{{.*}}, %[[F]]#1)
// CHECK: return %[[L]], %[[F]]#0, %[[B]]
// CHECK-LABEL: func.func private @f_grad
// CHECK: %[[F:.*]]:2 = call @h_fwd(
// CHECK: %[[B:.*]] = call @h_bwd(%{{.*}}, %[[F]]#1)
// CHECK: return %[[B]], %[[F]]#0
// CHECK-NOT: @h_fwd_
// CHECK-NOT: @h_bwd_
func.func private @h(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.sin %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %0 = call @h(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = kiln.reduce_sum %0, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %1, %0 : tensor<f32>, tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %g:2 = kiln.grad @f(%x) {has_aux = true} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %v:3 = kiln.value_and_grad @f(%x) {has_aux = true} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>)
  return %v#0, %v#2, %g#0, %g#1 : tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Higher order: the JVP and the VJP of a function that takes a gradient
// (Hessian-vector products) differentiate the generated gradient in turn.
// CHECK-LABEL: func.func private @sq_grad(
// CHECK-LABEL: func.func private @sq_grad_fwd(
// CHECK-LABEL: func.func private @sq_grad_bwd(
// CHECK-LABEL: func.func private @sq_grad_jvp(
// CHECK-LABEL: func.func private @dsq(
// CHECK: call @sq_grad(
// CHECK-LABEL: func.func private @dsq_vjp(
// CHECK: call @sq_grad_fwd(
// CHECK: call @sq_grad_bwd(
// CHECK-LABEL: func.func private @dsq_jvp(
// CHECK: call @sq_grad_jvp(
func.func private @sq(%x: tensor<2xf32>) -> tensor<f32> {
  %0 = kiln.mul %x, %x : tensor<2xf32>
  %1 = kiln.reduce_sum %0, dims = [0] : (tensor<2xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @dsq(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.grad @sq(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %t: tensor<2xf32>, %u: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0:2 = kiln.jvp @dsq(%x, %t) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %1:2 = kiln.vjp @dsq(%x, %u) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %0#1, %1#1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// stop_gradient: its operand is a constant to differentiation, so the
// gradient of x * stop_gradient(x) is stop_gradient(x), not 2x.
// CHECK-LABEL: func.func private @sg_grad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[S:.*]] = kiln.stop_gradient %[[X]]
// CHECK-NEXT: return %[[S]]
func.func private @sg(%x: tensor<3xf32>) -> tensor<f32> {
  %s = kiln.stop_gradient %x : tensor<3xf32>
  %m = kiln.mul %x, %s : tensor<3xf32>
  %l = kiln.reduce_sum %m, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = kiln.grad @sg(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// custom_vjp: reverse mode calls the user's fwd and, on the way back, bwd
// (through a function taking the cotangents first); the callee's body is
// not differentiated. Left alone, a custom_vjp is a call of its callee.
// CHECK-LABEL: func.func private @cf_custom_bwd
// CHECK-SAME: (%[[CT:.*]]: tensor<3xf32>, %[[R:.*]]: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[B:.*]] = call @cf_bwd(%[[R]], %[[CT]])
// CHECK-NEXT: return %[[B]]
// CHECK-LABEL: func.func private @closs(
// CHECK-NEXT: call @cf(
// CHECK-LABEL: func.func private @closs_value_and_grad
// CHECK: %[[F:.*]]:2 = call @cf_fwd(%{{.*}})
// CHECK: %[[L:.*]] = kiln.reduce_sum %[[F]]#0
// CHECK: %[[G:.*]] = call @cf_custom_bwd(%{{.*}}, %[[F]]#1)
// CHECK: return %[[L]], %[[G]]
// CHECK-NOT: kiln.custom_vjp
// CHECK-NOT: @cf_custom_jvp
func.func private @cf(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.sin %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @cf_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = kiln.sin %x : tensor<3xf32>
  %1 = kiln.cos %x : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
func.func private @cf_bwd(%c: tensor<3xf32>, %ct: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.mul %c, %ct : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @closs(%x: tensor<3xf32>) -> tensor<f32> {
  %y = kiln.custom_vjp @cf(%x) {fwd = @cf_fwd, bwd = @cf_bwd} : (tensor<3xf32>) -> tensor<3xf32>
  %l = kiln.reduce_sum %y, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %l, %g = kiln.value_and_grad @closs(%x) : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %l, %g : tensor<f32>, tensor<3xf32>
}

// -----

// cond: one cond whose branches yield the results, then the tangents of
// the results that either branch gives one (the true branch's is zero,
// materialized there; simplification hoists the constants).
// CHECK-LABEL: func.func private @choose_jvp
// CHECK-SAME: (%[[P:.*]]: tensor<i1>, %[[X:.*]]: tensor<3xf32>, %{{.*}}: tensor<i1>, %[[T:.*]]: tensor<3xf32>)
// CHECK-DAG: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00>
// CHECK-DAG: %[[ONES:.*]] = kiln.constant dense<1.000000e+00>
// CHECK: %[[R:.*]]:2 = kiln.cond %[[P]] -> (tensor<3xf32>, tensor<3xf32>) {
// CHECK: kiln.yield %[[ONES]], %[[ZERO]]
// CHECK: } else {
// CHECK: %[[S:.*]] = kiln.sin %[[X]]
// CHECK: %[[C:.*]] = kiln.cos %[[X]]
// CHECK: %[[TS:.*]] = kiln.mul %[[T]], %[[C]]
// CHECK: kiln.yield %[[S]], %[[TS]]
// CHECK: return %[[R]]#0, %[[R]]#1
func.func private @choose(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.cond %p -> (tensor<3xf32>) {
    %c = kiln.constant dense<1.0> : tensor<3xf32>
    kiln.yield %c : tensor<3xf32>
  } else {
    %s = kiln.sin %x : tensor<3xf32>
    kiln.yield %s : tensor<3xf32>
  }
  return %0 : tensor<3xf32>
}
func.func @main(%p: tensor<i1>, %x: tensor<3xf32>, %tp: tensor<i1>, %t: tensor<3xf32>) -> tensor<3xf32> {
  %0:2 = kiln.jvp @choose(%p, %x, %tp, %t) : (tensor<i1>, tensor<3xf32>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#1 : tensor<3xf32>
}

// -----

// while: the loop carries the tangents of the carried values that have
// one: %v's from the start, and %u's because the body multiplies the
// constant it starts as by %v (a fixed point over the body); the counter
// carries none. %v and its tangent pass through unchanged, so the body
// uses their initial values (x and t).
// CHECK-LABEL: func.func private @power_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[T:.*]]: tensor<3xf32>)
// CHECK-DAG: %[[ONES:.*]] = kiln.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK: %[[W:.*]]:5 = kiln.while(%{{.*}}, %[[ONES]], %[[X]], %[[ZERO]], %[[T]]) : tensor<i32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> cond {
// CHECK: ^bb0(%[[I:[^:]*]]: tensor<i32>,
// CHECK: kiln.compare  LT, %[[I]]
// CHECK: } do {
// CHECK: ^bb0(%{{[^:]*}}: tensor<i32>, %[[U:[^:]*]]: tensor<3xf32>, %[[V:[^:]*]]: tensor<3xf32>, %[[TU:[^:]*]]: tensor<3xf32>, %[[TV:[^:]*]]: tensor<3xf32>):
// CHECK: %[[UV:.*]] = kiln.mul %[[U]], %[[X]]
// CHECK: %[[A:.*]] = kiln.mul %[[TU]], %[[X]]
// CHECK: %[[B:.*]] = kiln.mul %[[U]], %[[T]]
// CHECK: %[[TUV:.*]] = kiln.add %[[A]], %[[B]]
// CHECK: kiln.yield %{{.*}}, %[[UV]], %[[V]], %[[TUV]], %[[TV]]
// CHECK: return %[[W]]#1, %[[W]]#3
func.func private @power(%x: tensor<3xf32>) -> tensor<3xf32> {
  %zero = kiln.constant dense<0> : tensor<i32>
  %one = kiln.constant dense<1> : tensor<i32>
  %n = kiln.constant dense<4> : tensor<i32>
  %ones = kiln.constant dense<1.0> : tensor<3xf32>
  %r:3 = kiln.while (%zero, %ones, %x) : tensor<i32>, tensor<3xf32>, tensor<3xf32> cond {
  ^bb0(%i: tensor<i32>, %u: tensor<3xf32>, %v: tensor<3xf32>):
    %p = kiln.compare LT, %i, %n : tensor<i32>
    kiln.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %u: tensor<3xf32>, %v: tensor<3xf32>):
    %j = kiln.add %i, %one : tensor<i32>
    %uv = kiln.mul %u, %v : tensor<3xf32>
    kiln.yield %j, %uv, %v : tensor<i32>, tensor<3xf32>, tensor<3xf32>
  }
  return %r#1 : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>, %t: tensor<3xf32>) -> tensor<3xf32> {
  %0:2 = kiln.jvp @power(%x, %t) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#1 : tensor<3xf32>
}

// -----

// Reverse mode through a cond: a forward cond yields the primal result and
// the residuals of the branch taken (cos x; zeros in the other branch's
// slots), a backward cond on the same predicate runs that branch's
// transpose and yields the cotangents of the values the branches use. The
// primal result, which grad does not return, is gone with its work.
// CHECK-LABEL: func.func private @branchy_grad
// CHECK-SAME: (%[[P:.*]]: tensor<i1>, %[[X:.*]]: tensor<3xf32>)
// CHECK-DAG: %[[TWO:.*]] = kiln.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK: %[[F:.*]] = kiln.cond %[[P]] -> (tensor<3xf32>) {
// CHECK-NEXT: %[[C:.*]] = kiln.cos %[[X]]
// CHECK-NEXT: kiln.yield %[[C]]
// CHECK-NEXT: } else {
// CHECK-NEXT: kiln.yield %[[ZERO]]
// CHECK: %[[B:.*]] = kiln.cond %[[P]] -> (tensor<3xf32>) {
// CHECK-NEXT: kiln.yield %[[F]]
// CHECK-NEXT: } else {
// CHECK-NEXT: kiln.yield %[[TWO]]
// CHECK: return %[[B]]
func.func private @branchy(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<f32> {
  %0 = kiln.cond %p -> (tensor<3xf32>) {
    %s = kiln.sin %x : tensor<3xf32>
    kiln.yield %s : tensor<3xf32>
  } else {
    %d = kiln.add %x, %x : tensor<3xf32>
    kiln.yield %d : tensor<3xf32>
  }
  %l = kiln.reduce_sum %0, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.grad @branchy(%p, %x) {argnums = array<i64: 1>} : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A sharding constraint is linear, as JAX's: its JVP constrains the
// tangent, and reverse mode gives the cotangent the same layout.
// CHECK-LABEL: func.func private @shard_loss_grad(
// CHECK:         %[[X:.*]] = kiln.sharding_constraint %arg0 <@mesh, [{"data"}]> : tensor<8xf32>
// CHECK:         %[[CT:.*]] = kiln.mul %[[X]], %{{.*}} : tensor<8xf32>
// CHECK:         %[[G:.*]] = kiln.sharding_constraint %[[CT]] <@mesh, [{"data"}]> : tensor<8xf32>
// CHECK:         return %[[G]]
kiln.mesh @mesh ["data"=2]
func.func private @shard_loss(%x: tensor<8xf32>) -> tensor<f32> {
  %c = kiln.sharding_constraint %x <@mesh, [{"data"}]> : tensor<8xf32>
  %s = kiln.mul %c, %c : tensor<8xf32>
  %l = kiln.reduce_sum %s, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @shard_grad(%x: tensor<8xf32>) -> tensor<8xf32> {
  %g = kiln.grad @shard_loss(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %g : tensor<8xf32>
}
