// RUN: kiln-opt %s --split-input-file --kiln-inline-single-calls | FileCheck %s

// A private function of straight-line code called once from a function's
// body is inlined and erased; so is its caller once that is straight-line
// too. A call in a loop (a scan's body) stays a call.
// CHECK-NOT: func.func private @outer
// CHECK-NOT: func.func private @inner
// CHECK-LABEL: func.func private @step
// CHECK-NEXT: kiln.log
// CHECK-LABEL: func.func @entry
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[E:.*]] = kiln.exp %[[X]]
// CHECK-NEXT: %[[N:.*]] = kiln.neg %[[E]]
// CHECK-NEXT: kiln.constant
// CHECK-NEXT: %[[L:.*]]:2 = kiln.while({{.*}}, %[[N]])
// CHECK: call @step
// CHECK: return
func.func private @outer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.exp %x : tensor<4xf32>
  %z = call @inner(%y) : (tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func private @inner(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.neg %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.log %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @entry(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = call @outer(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %zero = kiln.constant dense<0> : tensor<i32>
  %r:2 = kiln.while (%zero, %y) : tensor<i32>, tensor<4xf32> cond {
  ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
    %three = kiln.constant dense<3> : tensor<i32>
    %c = kiln.compare LT, %i, %three : tensor<i32>
    kiln.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
    %one = kiln.constant dense<1> : tensor<i32>
    %j = kiln.add %i, %one : tensor<i32>
    %w = func.call @step(%v) : (tensor<4xf32>) -> tensor<4xf32>
    kiln.yield %j, %w : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// Functions called from two places, public functions, functions whose
// symbol has another use and functions with loops stay calls; an unused
// one is left alone.
// CHECK-LABEL: func.func private @twice
// CHECK-LABEL: func.func private @unused
// CHECK-LABEL: func.func @public_callee
// CHECK-LABEL: func.func private @transformed
// CHECK-LABEL: func.func private @looping
// CHECK-LABEL: func.func @entry
// CHECK: call @twice
// CHECK: call @twice
// CHECK: call @public_callee
// CHECK: kiln.grad @transformed
// CHECK: call @looping
func.func private @twice(%x: tensor<f32>) -> tensor<f32> {
  %y = kiln.exp %x : tensor<f32>
  return %y : tensor<f32>
}
func.func private @unused(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @public_callee(%x: tensor<f32>) -> tensor<f32> {
  %y = kiln.neg %x : tensor<f32>
  return %y : tensor<f32>
}
func.func private @transformed(%x: tensor<f32>) -> tensor<f32> {
  %y = kiln.sin %x : tensor<f32>
  return %y : tensor<f32>
}
func.func private @looping(%x: tensor<f32>) -> tensor<f32> {
  %r = kiln.while (%x) : tensor<f32> cond {
  ^bb0(%v: tensor<f32>):
    %one = kiln.constant dense<1.0> : tensor<f32>
    %c = kiln.compare LT, %v, %one : tensor<f32>
    kiln.yield %c : tensor<i1>
  } do {
  ^bb0(%v: tensor<f32>):
    %w = kiln.exp %v : tensor<f32>
    kiln.yield %w : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @entry(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %a = call @twice(%x) : (tensor<f32>) -> tensor<f32>
  %b = call @twice(%a) : (tensor<f32>) -> tensor<f32>
  %c = call @public_callee(%b) : (tensor<f32>) -> tensor<f32>
  %d = kiln.grad @transformed(%c) : (tensor<f32>) -> tensor<f32>
  %e = call @looping(%d) : (tensor<f32>) -> tensor<f32>
  return %a, %b, %c, %d, %e : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
