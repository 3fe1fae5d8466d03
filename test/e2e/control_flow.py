# cond and while run through kiln-run, compared with Python loops.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check, finish

program = """
func.func @choose(%p: tensor<i1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %r = kiln.cond %p -> (tensor<3xf32>) {
    %s = kiln.add %a, %b : tensor<3xf32>
    kiln.yield %s : tensor<3xf32>
  } else {
    %m = kiln.mul %a, %b : tensor<3xf32>
    kiln.yield %m : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// Collatz steps of n until it reaches 1, and the largest value seen.
func.func @collatz(%n: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
  %zero = kiln.constant dense<0> : tensor<i64>
  %one = kiln.constant dense<1> : tensor<i64>
  %two = kiln.constant dense<2> : tensor<i64>
  %three = kiln.constant dense<3> : tensor<i64>
  %r:3 = kiln.while (%n, %zero, %n) : tensor<i64>, tensor<i64>, tensor<i64> cond {
  ^bb0(%x: tensor<i64>, %steps: tensor<i64>, %top: tensor<i64>):
    %more = kiln.compare NE, %x, %one : tensor<i64>
    kiln.yield %more : tensor<i1>
  } do {
  ^bb0(%x: tensor<i64>, %steps: tensor<i64>, %top: tensor<i64>):
    %rem = kiln.rem %x, %two : tensor<i64>
    %even = kiln.compare EQ, %rem, %zero : tensor<i64>
    %half = kiln.div %x, %two : tensor<i64>
    %triple = kiln.mul %x, %three : tensor<i64>
    %odd = kiln.add %triple, %one : tensor<i64>
    %next = kiln.select %even, %half, %odd : tensor<i1>, tensor<i64>
    %s = kiln.add %steps, %one : tensor<i64>
    %t = kiln.max %top, %next : tensor<i64>
    kiln.yield %next, %s, %t : tensor<i64>, tensor<i64>, tensor<i64>
  }
  return %r#1, %r#2 : tensor<i64>, tensor<i64>
}
"""


def collatz(n):
    steps, top = 0, n
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps, top = steps + 1, max(top, n)
    return steps, top


a = np.array([1.0, -2.0, 0.5], np.float32)
b = np.array([3.0, 4.0, -8.0], np.float32)
check("cond true", program, "choose", [np.array(True), a, b], [a + b])
check("cond false", program, "choose", [np.array(False), a, b], [a * b])
for n in (1, 6, 27, 97):
    steps, top = collatz(n)
    check(f"while collatz {n}", program, "collatz", [np.array(n, np.int64)],
          [np.array(steps, np.int64), np.array(top, np.int64)])

finish()
