// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @cond_pred(%p: tensor<2xi1>, %a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.cond' op operand #0 must be 0D tensor of 1-bit signless integer values}}
  %0 = "kiln.cond"(%p) ({
    kiln.yield %a : tensor<f32>
  }, {
    kiln.yield %a : tensor<f32>
  }) : (tensor<2xi1>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cond_yield(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<f64>) -> tensor<f32> {
  %0 = kiln.cond %p -> (tensor<f32>) {
    kiln.yield %a : tensor<f32>
  } else {
    // expected-error @+1 {{'kiln.yield' op yields ('tensor<f64>') but false_branch must yield ('tensor<f32>'), the op's result types}}
    kiln.yield %b : tensor<f64>
  }
  return %0 : tensor<f32>
}

// -----

func.func @cond_true_yield(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32> {
  %0 = kiln.cond %p -> (tensor<f32>) {
    // expected-error @+1 {{'kiln.yield' op yields () but true_branch must yield ('tensor<f32>'), the op's result types}}
    kiln.yield
  } else {
    kiln.yield %a : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

func.func @cond_terminator(%p: tensor<i1>) {
  // expected-error @+1 {{'kiln.cond' op true_branch region must end in kiln.yield}}
  kiln.cond %p {
    llvm.unreachable
  } else {
    kiln.yield
  }
  return
}

// -----

func.func @cond_arguments(%p: tensor<i1>) {
  // expected-error @+1 {{'kiln.cond' op region #0 should have no arguments}}
  "kiln.cond"(%p) ({
  ^bb0(%x: tensor<f32>):
    kiln.yield
  }, {
    kiln.yield
  }) : (tensor<i1>) -> ()
  return
}

// -----

func.func @yield_parent(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.yield' op expects parent op to be one of 'kiln.cond, kiln.while'}}
  kiln.yield %a : tensor<f32>
}

// -----

func.func @while_empty() {
  // expected-error @+1 {{'kiln.while' op needs at least one loop-carried value}}
  "kiln.while"() ({
    %t = kiln.constant dense<true> : tensor<i1>
    kiln.yield %t : tensor<i1>
  }, {
    kiln.yield
  }) : () -> ()
  return
}

// -----

func.func @while_cond_arguments(%a: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{'kiln.while' op cond region takes ('tensor<f32>') but must take the loop-carried types ('tensor<i32>')}}
  %0 = kiln.while (%a) : tensor<i32> cond {
  ^bb0(%i: tensor<f32>):
    %t = kiln.constant dense<true> : tensor<i1>
    kiln.yield %t : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    kiln.yield %i : tensor<i32>
  }
  return %0 : tensor<i32>
}

// -----

func.func @while_cond_yield(%a: tensor<i32>) -> tensor<i32> {
  %0 = kiln.while (%a) : tensor<i32> cond {
  ^bb0(%i: tensor<i32>):
    // expected-error @+1 {{'kiln.yield' op yields ('tensor<i32>') but cond must yield ('tensor<i1>'), the loop condition}}
    kiln.yield %i : tensor<i32>
  } do {
  ^bb0(%i: tensor<i32>):
    kiln.yield %i : tensor<i32>
  }
  return %0 : tensor<i32>
}

// -----

func.func @while_body_arguments(%a: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{'kiln.while' op body region takes () but must take the loop-carried types ('tensor<i32>')}}
  %0 = kiln.while (%a) : tensor<i32> cond {
  ^bb0(%i: tensor<i32>):
    %t = kiln.constant dense<true> : tensor<i1>
    kiln.yield %t : tensor<i1>
  } do {
    kiln.yield %a : tensor<i32>
  }
  return %0 : tensor<i32>
}

// -----

func.func @while_body_yield(%a: tensor<i32>, %b: tensor<i64>) -> tensor<i32> {
  %0 = kiln.while (%a) : tensor<i32> cond {
  ^bb0(%i: tensor<i32>):
    %t = kiln.constant dense<true> : tensor<i1>
    kiln.yield %t : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    // expected-error @+1 {{'kiln.yield' op yields ('tensor<i64>') but body must yield ('tensor<i32>'), the loop-carried types}}
    kiln.yield %b : tensor<i64>
  }
  return %0 : tensor<i32>
}
