# Entries with dynamic dimensions run through kiln-run's jit for several
# shapes each (one specialization per shape), compared with numpy: a dense
# layer with a bias broadcast `like` its batch, a softmax, an embedding
# lookup of any number of tokens, a reshape solving its dynamic dimension,
# a while loop carrying a dynamically shaped value, and a training step
# whose value_and_grad differentiates a mean loss over a batch of any size
# (its count summed from ones broadcast `like` the batch).
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import compare, fail, finish, run

DENSE = """
func.func @dense(%x: tensor<?x5xf32>, %w: tensor<5x3xf32>, %b: tensor<3xf32>)
    -> (tensor<?x3xf32>, tensor<?xi32>) {
  %h = kiln.dot_general %x, %w, contracting = [1] x [0]
      : (tensor<?x5xf32>, tensor<5x3xf32>) -> tensor<?x3xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [1], like %h
      : (tensor<3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %z = kiln.add %h, %bb : tensor<?x3xf32>
  %m = kiln.reduce_max %z, dims = [1] : (tensor<?x3xf32>) -> tensor<?xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : (tensor<?xf32>) -> tensor<?x3xf32>
  %e = kiln.exp %z : tensor<?x3xf32>
  %em = kiln.exp %mb : tensor<?x3xf32>
  %n = kiln.div %e, %em : tensor<?x3xf32>
  %s = kiln.reduce_sum %n, dims = [1] : (tensor<?x3xf32>) -> tensor<?xf32>
  %sb = kiln.broadcast_in_dim %s, dims = [0] : (tensor<?xf32>) -> tensor<?x3xf32>
  %p = kiln.div %n, %sb : tensor<?x3xf32>
  %c = kiln.argmax %z, dim = 1 : (tensor<?x3xf32>) -> tensor<?xi32>
  return %p, %c : tensor<?x3xf32>, tensor<?xi32>
}
"""

EMBED = """
func.func @embed(%table: tensor<10x4xf32>, %ids: tensor<?xi32>) -> tensor<?x2x2xf32> {
  %rows = kiln.take %table[%ids], dim = 0 : (tensor<10x4xf32>, tensor<?xi32>) -> tensor<?x4xf32>
  %r = kiln.reshape %rows : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
  return %r : tensor<?x2x2xf32>
}
"""

# Squares the vector three times.
POWER = """
func.func @power(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = kiln.constant dense<0> : tensor<i32>
  %one = kiln.constant dense<1> : tensor<i32>
  %three = kiln.constant dense<3> : tensor<i32>
  %r:2 = kiln.while (%x, %zero) : tensor<?xf32>, tensor<i32> cond {
  ^bb0(%v: tensor<?xf32>, %i: tensor<i32>):
    %c = kiln.compare LT, %i, %three : tensor<i32>
    kiln.yield %c : tensor<i1>
  } do {
  ^bb0(%v: tensor<?xf32>, %i: tensor<i32>):
    %w = kiln.mul %v, %v : tensor<?xf32>
    %j = kiln.add %i, %one : tensor<i32>
    kiln.yield %w, %j : tensor<?xf32>, tensor<i32>
  }
  return %r#0 : tensor<?xf32>
}
"""

TRAIN = """
func.func private @loss(%w: tensor<3x2xf32>, %x: tensor<?x3xf32>, %y: tensor<?x2xf32>) -> tensor<f32> {
  %p = kiln.dot_general %x, %w, contracting = [1] x [0]
      : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  %d = kiln.sub %p, %y : tensor<?x2xf32>
  %s = kiln.mul %d, %d : tensor<?x2xf32>
  %total = kiln.reduce_sum %s, dims = [0, 1] : (tensor<?x2xf32>) -> tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %ones = kiln.broadcast_in_dim %one, dims = [], like %y
      : (tensor<f32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  %n = kiln.reduce_sum %ones, dims = [0, 1] : (tensor<?x2xf32>) -> tensor<f32>
  %l = kiln.div %total, %n : tensor<f32>
  return %l : tensor<f32>
}
func.func @step(%w: tensor<3x2xf32>, %x: tensor<?x3xf32>, %y: tensor<?x2xf32>)
    -> (tensor<f32>, tensor<3x2xf32>) {
  %l, %g = kiln.value_and_grad @loss(%w, %x, %y)
      : (tensor<3x2xf32>, tensor<?x3xf32>, tensor<?x2xf32>) -> (tensor<f32>, tensor<3x2xf32>)
  return %l, %g : tensor<f32>, tensor<3x2xf32>
}
"""

rng = np.random.default_rng(7)


def check(name, program, entry, args, expected, rtol=0.0, atol=0.0):
    results, output, status = run(program, entry, args)
    if status != 0:
        fail(f"{name}: kiln-run failed ({status}):\n{output}")
        return
    compare(name, results, expected, rtol, atol)


w = rng.standard_normal((5, 3)).astype(np.float32)
b = rng.standard_normal(3).astype(np.float32)
for batch in (1, 7, 64, 0):
    x = rng.standard_normal((batch, 5)).astype(np.float32)
    z = x.astype(np.float64) @ w + b
    p = np.exp(z - z.max(axis=1, keepdims=True)) if batch else z
    p = p / p.sum(axis=1, keepdims=True) if batch else p
    check(f"dense batch={batch}", DENSE, "dense", [x, w, b],
          [p.astype(np.float32), z.argmax(axis=1).astype(np.int32)],
          rtol=1e-5, atol=1e-6)

table = rng.standard_normal((10, 4)).astype(np.float32)
for count in (1, 5, 33):
    ids = rng.integers(0, 10, count).astype(np.int32)
    check(f"embed tokens={count}", EMBED, "embed", [table, ids],
          [table[ids].reshape(count, 2, 2)])

for n in (3, 17):
    x = rng.uniform(0.5, 1.5, n).astype(np.float32)
    check(f"power n={n}", POWER, "power", [x],
          [(x.astype(np.float64) ** 8).astype(np.float32)], rtol=1e-6)

w2 = rng.standard_normal((3, 2)).astype(np.float32)
for batch in (3, 10):
    x = rng.standard_normal((batch, 3)).astype(np.float32)
    y = rng.standard_normal((batch, 2)).astype(np.float32)
    d = x.astype(np.float64) @ w2 - y
    check(f"train batch={batch}", TRAIN, "step", [w2, x, y],
          [np.float32((d * d).mean()),
           (2 * x.T.astype(np.float64) @ d / d.size).astype(np.float32)],
          rtol=1e-5, atol=1e-6)

# Sizes the shapes imply that disagree: an error at the op, not a crash.
_, output, status = run(EMBED.replace("?x2x2xf32", "?x3x2xf32"), "embed",
                       [table, np.arange(5, dtype=np.int32)])
if status != 1 or ("cannot reshape 'tensor<5x4xf32>' into 'tensor<?x3x2xf32>'"
                   not in output):
    fail(f"reshape of 5x4 into ?x3x2: status {status}:\n{output}")

finish()
