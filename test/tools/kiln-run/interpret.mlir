// kiln-run --interpret runs an entry with the reference interpreter. Each
// entry runs both interpreted and compiled against the same values, derived
// by hand from the ops' documented semantics (XLA's integer rules, jax.lax's
// conversions, clamped indices, NaN propagation).
// RUN: kiln-run %s --entry ints --print --interpret | FileCheck %s --check-prefix=INTS
// RUN: kiln-run %s --entry ints --print | FileCheck %s --check-prefix=INTS
// INTS: out0 = i32[5]
// INTS-NEXT: [3 -3 -1 -2147483648 -2]
// INTS-NEXT: out1 = i32[5]
// INTS-NEXT: [1 -1 5 0 0]
// INTS-NEXT: out2 = i32[5]
// INTS-NEXT: [49 -343 0 1 -2147483648]
func.func @ints() -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>) {
  %a = kiln.constant dense<[7, -7, 5, -2147483648, 2]> : tensor<5xi32>
  %b = kiln.constant dense<[2, 2, 0, -1, -1]> : tensor<5xi32>
  %e = kiln.constant dense<[2, 3, -1, 0, 31]> : tensor<5xi32>
  %q = kiln.div %a, %b : tensor<5xi32>
  %r = kiln.rem %a, %b : tensor<5xi32>
  %p = kiln.pow %a, %e : tensor<5xi32>
  return %q, %r, %p : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>
}

// RUN: kiln-run %s --entry conversions --print --interpret | FileCheck %s --check-prefix=CONV
// RUN: kiln-run %s --entry conversions --print | FileCheck %s --check-prefix=CONV
// CONV: out0 = i32[5]
// CONV-NEXT: [0 2147483647 -2147483648 -2 2]
// CONV-NEXT: out1 = i1[4]
// CONV-NEXT: [False False True True]
// CONV-NEXT: out2 = f32[4]
// CONV-NEXT: [-0. nan -1. 1.]
// CONV-NEXT: out3 = f32[2]
// CONV-NEXT: [nan 2.]
// CONV-NEXT: out4 = f32[3]
// CONV-NEXT: [1. 1.0078125 256.]
func.func @conversions() -> (tensor<5xi32>, tensor<4xi1>, tensor<4xf32>,
                             tensor<2xf32>, tensor<3xf32>) {
  %x = kiln.constant dense<[0x7FC00000, 3.9e9, -3.9e9, -2.7, 2.7]> : tensor<5xf32>
  %i = kiln.convert %x : (tensor<5xf32>) -> tensor<5xi32>
  %z = kiln.constant dense<[0.0, -0.0, 0x7FC00000, 0.5]> : tensor<4xf32>
  %b = kiln.convert %z : (tensor<4xf32>) -> tensor<4xi1>
  %s = kiln.constant dense<[-0.0, 0x7FC00000, -3.0, 2.0]> : tensor<4xf32>
  %sign = kiln.sign %s : tensor<4xf32>
  %m0 = kiln.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %m1 = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %m = kiln.max %m0, %m1 : tensor<2xf32>
  // bf16 keeps 8 significant bits: 1 + 2^-9 rounds to 1 (even), 1 + 3 *
  // 2^-9 to 1 + 2^-7, and 257 to 256 (even).
  %f = kiln.constant dense<[1.001953125, 1.005859375, 257.0]> : tensor<3xf32>
  %h = kiln.convert %f : (tensor<3xf32>) -> tensor<3xbf16>
  %back = kiln.convert %h : (tensor<3xbf16>) -> tensor<3xf32>
  return %i, %b, %sign, %m, %back : tensor<5xi32>, tensor<4xi1>, tensor<4xf32>,
                                     tensor<2xf32>, tensor<3xf32>
}

// RUN: kiln-run %s --entry indexing --print --interpret | FileCheck %s --check-prefix=INDEX
// RUN: kiln-run %s --entry indexing --print | FileCheck %s --check-prefix=INDEX
// INDEX: out0 = i32[2]
// INDEX-NEXT: [1 0]
// INDEX-NEXT: out1 = f32[3]
// INDEX-NEXT: [10. 20. 30.]
// INDEX-NEXT: out2 = f32[2]
// INDEX-NEXT: [3. 4.]
// INDEX-NEXT: out3 = f32[5]
// INDEX-NEXT: [0. 2. 0. 3. 0.]
// INDEX-NEXT: out4 = f32[3]
// INDEX-NEXT: [11. 20. 32.5]
func.func @indexing() -> (tensor<2xi32>, tensor<3xf32>, tensor<2xf32>,
                          tensor<5xf32>, tensor<3xf32>) {
  // The first largest; a NaN counts as the largest.
  %x = kiln.constant dense<[[1.0, 3.0, 3.0], [0x7FC00000, 5.0, 0x7FC00000]]> : tensor<2x3xf32>
  %arg = kiln.argmax %x, dim = 1 : (tensor<2x3xf32>) -> tensor<2xi32>
  // Indices clamp into range.
  %table = kiln.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %ids = kiln.constant dense<[-5, 1, 9]> : tensor<3xi32>
  %taken = kiln.take %table[%ids], dim = 0 : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  // A start of 4 for a window of 2 in 5 elements clamps to 3.
  %iota = kiln.iota dim = 0 : tensor<5xf32>
  %start = kiln.constant dense<4> : tensor<i32>
  %window = kiln.dynamic_slice %iota[%start], sizes = [2] : (tensor<5xf32>, tensor<i32>) -> tensor<2xf32>
  // Interior padding spreads [1, 2, 3] to [1, 0, 2, 0, 3]; low = -1 drops
  // its first element, high = 1 adds one.
  %y = kiln.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %padded = kiln.pad %y, %zero, low = [-1], high = [1], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<5xf32>
  // Repeated (and clamped) indices accumulate.
  %updates = kiln.constant dense<[1.0, 2.0, 0.5]> : tensor<3xf32>
  %at = kiln.constant dense<[0, 7, 2]> : tensor<3xi32>
  %scattered = kiln.scatter_add %table[%at], %updates, dim = 0 : (tensor<3xf32>, tensor<3xi32>, tensor<3xf32>) -> tensor<3xf32>
  return %arg, %taken, %window, %padded, %scattered : tensor<2xi32>, tensor<3xf32>, tensor<2xf32>, tensor<5xf32>, tensor<3xf32>
}

// A loop, a branch, a call and a gradient (which kiln-expand-transforms
// makes explicit before the interpreter runs it): 0 + 1 + 2 + 3 + 4 = 10;
// 10 > 5 picks the square, 100; d/dx sum(x * x) = 2x.
// RUN: kiln-run %s --entry control --print --interpret | FileCheck %s --check-prefix=CONTROL
// RUN: kiln-run %s --entry control --print | FileCheck %s --check-prefix=CONTROL
// CONTROL: out0 = i32[]
// CONTROL-NEXT: 100
// CONTROL-NEXT: out1 = f32[3]
// CONTROL-NEXT: [2. 4. 6.]
func.func private @square(%x: tensor<i32>) -> tensor<i32> {
  %0 = kiln.mul %x, %x : tensor<i32>
  return %0 : tensor<i32>
}
func.func private @sum_of_squares(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = kiln.mul %x, %x : tensor<3xf32>
  %1 = kiln.reduce_sum %0, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func @control() -> (tensor<i32>, tensor<3xf32>) {
  %zero = kiln.constant dense<0> : tensor<i32>
  %one = kiln.constant dense<1> : tensor<i32>
  %five = kiln.constant dense<5> : tensor<i32>
  %i, %sum = kiln.while (%zero, %zero) : tensor<i32>, tensor<i32> cond {
  ^bb0(%j: tensor<i32>, %s: tensor<i32>):
    %p = kiln.compare LT, %j, %five : tensor<i32>
    kiln.yield %p : tensor<i1>
  } do {
  ^bb0(%j: tensor<i32>, %s: tensor<i32>):
    %next = kiln.add %j, %one : tensor<i32>
    %t = kiln.add %s, %j : tensor<i32>
    kiln.yield %next, %t : tensor<i32>, tensor<i32>
  }
  %big = kiln.compare GT, %sum, %five : tensor<i32>
  %picked = kiln.cond %big -> (tensor<i32>) {
    %sq = func.call @square(%sum) : (tensor<i32>) -> tensor<i32>
    kiln.yield %sq : tensor<i32>
  } else {
    kiln.yield %sum : tensor<i32>
  }
  %x = kiln.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %g = kiln.grad @sum_of_squares(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %picked, %g : tensor<i32>, tensor<3xf32>
}
