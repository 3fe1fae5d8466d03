# Buffer donation through kiln-run: an SGD step of a linear model whose
# weights and bias are donated ({kiln.donate}) gives the step numpy computes
# and the same bits as the step without donation; its weights are read
# after the update is computed (the loss uses them), so the compiler must
# not overwrite them early. kiln-compile --report=donation names the
# result each donated argument gives its buffer to; --bench (which copies
# donated arguments afresh before each call) runs.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import compare, compile_report, fail, finish, run, ttype

rng = np.random.default_rng(12)
B, D, C = 64, 48, 10
X = rng.standard_normal((B, D)).astype(np.float32)
Y = rng.standard_normal((B, C)).astype(np.float32)
W = rng.standard_normal((D, C)).astype(np.float32) * 0.1
Bias = rng.standard_normal(C).astype(np.float32)
LR = 0.01


def program(donate):
    mark = " {kiln.donate}" if donate else ""
    tw, tb, tx, ty = (ttype(a.shape, np.float32) for a in (W, Bias, X, Y))
    return f"""
func.func private @loss(%w: {tw}, %b: {tb}, %x: {tx}, %y: {ty}) -> tensor<f32> {{
  %p = kiln.dot_general %x, %w, contracting = [1] x [0] : ({tx}, {tw}) -> {ty}
  %bb = kiln.broadcast_in_dim %b, dims = [1] : ({tb}) -> {ty}
  %q = kiln.add %p, %bb : {ty}
  %d = kiln.sub %q, %y : {ty}
  %s = kiln.mul %d, %d : {ty}
  %l = kiln.reduce_sum %s, dims = [0, 1] : ({ty}) -> tensor<f32>
  return %l : tensor<f32>
}}
func.func @step(%w: {tw}{mark}, %b: {tb}{mark}, %x: {tx}, %y: {ty}) -> (tensor<f32>, {tw}, {tb}) {{
  %l, %gw, %gb = kiln.value_and_grad @loss(%w, %b, %x, %y) {{argnums = array<i64: 0, 1>}} : ({tw}, {tb}, {tx}, {ty}) -> (tensor<f32>, {tw}, {tb})
  %lrw = kiln.constant dense<{LR}> : {tw}
  %lrb = kiln.constant dense<{LR}> : {tb}
  %uw = kiln.mul %gw, %lrw : {tw}
  %ub = kiln.mul %gb, %lrb : {tb}
  %w2 = kiln.sub %w, %uw : {tw}
  %b2 = kiln.sub %b, %ub : {tb}
  return %l, %w2, %b2 : tensor<f32>, {tw}, {tb}
}}
"""


# numpy's step, in float64.
w, b, x, y = (a.astype(np.float64) for a in (W, Bias, X, Y))
d = x @ w + b - y
want = [np.float32((d * d).sum()), (w - LR * 2 * x.T @ d).astype(np.float32),
        (b - LR * 2 * d.sum(axis=0)).astype(np.float32)]

results = {}
for donate in (False, True):
    got, output, status = run(program(donate), "step", [W, Bias, X, Y])
    if status != 0:
        fail(f"step (donate={donate}): kiln-run failed ({status}):\n{output}")
        continue
    compare(f"step (donate={donate})", got, want, rtol=1e-4, atol=1e-4)
    results[donate] = got
if len(results) == 2 and not all(
        np.array_equal(a, b) for a, b in zip(results[False], results[True])):
    fail("the donated step's results differ from the plain step's")

report, ok = compile_report(program(True), "donation")
for line in ["@step: argument 0 (tensor<48x10xf32>, kiln.donate) donated: "
             "result 1 reuses its buffer",
             "@step: argument 1 (tensor<10xf32>, kiln.donate) donated: "
             "result 2 reuses its buffer"]:
    if not ok or line not in report:
        fail(f"--report=donation lacks {line!r}:\n{report}")

_, output, status = run(program(True), "step", [W, Bias, X, Y], ["--bench", "3"])
if status != 0 or "step: median" not in output:
    fail(f"--bench of a donating entry failed ({status}):\n{output}")

finish()
