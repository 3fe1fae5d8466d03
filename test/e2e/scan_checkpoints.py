# kiln.scan with a checkpoint budget (`checkpoints`): the scan runs
# Griewank's binomial checkpointing schedule. Its values and gradients equal
# the plain scan's (f64, 1e-12) for budgets from 1 carry to most of the
# length, forward and reversed, unrolled, with two carries of different
# shapes and two xs; its gradient runs the body forward as many times as
# Griewank and Walther's formula for the fewest steps with C stored carries
# says (counted by kiln-compile --report=calls); and on a scan whose carry
# is large, the gradient's reported peak memory (kiln-compile
# --report=memory, which agrees with the runtime's) falls with the budget.
from math import comb

# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check_pairs, fail, finish, function_runs, peak_memory

rng = np.random.default_rng(31)
D = 3


def program(length, checkpoints, reverse, unroll):
    """@main: the loss of a scan with the budget and of the plain scan, and
    the gradients of both with respect to every argument, in pairs."""
    W, H, S = f"tensor<{D}x{D}xf64>", f"tensor<{D}xf64>", "tensor<f64>"
    XS, ZS = f"tensor<{length}x{D}xf64>", f"tensor<{length}xf64>"
    attrs = (f"num_carry = 3 : i64, length = {length} : i64, "
             f"reverse = {'true' if reverse else 'false'}, unroll = {unroll} : i64")
    text = f"""
func.func private @cell(%w: {W}, %h: {H}, %s: {S}, %x: {H}, %z: tensor<f64>) -> ({W}, {H}, {S}, {H}, tensor<f64>) {{
  %a = kiln.dot_general %w, %h, contracting = [1] x [0] : ({W}, {H}) -> {H}
  %b = kiln.add %a, %x : {H}
  %t = kiln.tanh %b : {H}
  %zb = kiln.broadcast_in_dim %z, dims = [] : (tensor<f64>) -> {H}
  %u = kiln.mul %t, %zb : {H}
  %q = kiln.reduce_sum %u, dims = [0] : ({H}) -> {S}
  %sn = kiln.add %s, %q : {S}
  %m = kiln.mul %sn, %z : {S}
  return %w, %t, %sn, %u, %m : {W}, {H}, {S}, {H}, tensor<f64>
}}
"""
    for name, budget in [("budgeted", f", checkpoints = {checkpoints} : i64"), ("plain", "")]:
        text += f"""
func.func private @{name}(%w: {W}, %h: {H}, %s: {S}, %xs: {XS}, %zs: {ZS}) -> tensor<f64> {{
  %r:5 = kiln.scan @cell(%w, %h, %s, %xs, %zs) {{{attrs}{budget}}} : ({W}, {H}, {S}, {XS}, {ZS}) -> ({W}, {H}, {S}, {XS}, {ZS})
  %hh = kiln.mul %r#1, %r#1 : {H}
  %l1 = kiln.reduce_sum %hh, dims = [0] : ({H}) -> tensor<f64>
  %l2 = kiln.reduce_sum %r#3, dims = [0, 1] : ({XS}) -> tensor<f64>
  %l3 = kiln.reduce_sum %r#4, dims = [0] : ({ZS}) -> tensor<f64>
  %l12 = kiln.add %l1, %l2 : tensor<f64>
  %l123 = kiln.add %l12, %l3 : tensor<f64>
  %l = kiln.add %l123, %r#2 : tensor<f64>
  return %l : tensor<f64>
}}"""
    grads = f"({W}, {H}, {S}, {XS}, {ZS})"
    text += f"""
func.func @main(%w: {W}, %h: {H}, %s: {S}, %xs: {XS}, %zs: {ZS}) -> (tensor<f64>, tensor<f64>, {W}, {W}, {H}, {H}, {S}, {S}, {XS}, {XS}, {ZS}, {ZS}) {{
  %vb:6 = kiln.value_and_grad @budgeted(%w, %h, %s, %xs, %zs) {{argnums = array<i64: 0, 1, 2, 3, 4>}} : {grads} -> (tensor<f64>, {W}, {H}, {S}, {XS}, {ZS})
  %vp:6 = kiln.value_and_grad @plain(%w, %h, %s, %xs, %zs) {{argnums = array<i64: 0, 1, 2, 3, 4>}} : {grads} -> (tensor<f64>, {W}, {H}, {S}, {XS}, {ZS})
  return %vb#0, %vp#0, %vb#1, %vp#1, %vb#2, %vp#2, %vb#3, %vp#3, %vb#4, %vp#4, %vb#5, %vp#5 : tensor<f64>, tensor<f64>, {W}, {W}, {H}, {H}, {S}, {S}, {XS}, {XS}, {ZS}, {ZS}
}}
"""
    return text


# (length, budget): one carry (6 sweeps), a length the binomial numbers
# reach exactly (C(3 + 2, 3) = 10) and not (64 with 4 carries, 100 with 15).
for length, checkpoints in [(7, 1), (10, 3), (64, 4), (100, 15)]:
    for reverse, unroll in [(False, 1), (True, 2)]:
        args = [rng.standard_normal((D, D)) * 0.5, rng.standard_normal(D),
                np.array(0.3), rng.standard_normal((length, D)),
                rng.standard_normal(length) * 0.5]
        check_pairs(f"length {length}, checkpoints {checkpoints}, reverse "
                    f"{reverse}, unroll {unroll}",
                    program(length, checkpoints, reverse, unroll), "main",
                    args, rtol=1e-12, atol=1e-12)



def fewest_forward_steps(length, carries):
    """Griewank and Walther (ACM TOMS 26(1), 2000): reversing `length`
    steps with `carries` stored carries takes at least r L - C(c + r, c + 1)
    steps forward besides the one before each step's reverse, where r is the
    fewest sweeps with C(c + r, c) >= L; a plain scan (no budget) runs each
    step once."""
    if carries is None or carries >= length:
        return length
    sweeps = 0
    while comb(carries + sweeps, carries) < length:
        sweeps += 1
    return length + sweeps * length - comb(carries + sweeps, carries + 1)


# The body's forward runs in the gradient: its primal (the checkpointed
# segments' first sweeps) and its forward half (the steps reversed).
for length, checkpoints in [(5, None), (5, 1), (10, 3), (20, 2), (64, 4),
                            (100, 15), (100, 99)]:
    runs = function_runs(program(length, checkpoints or length, False, 1),
                         "main")
    if runs is None:
        fail(f"length {length}, checkpoints {checkpoints}: no call counts")
        continue
    # @main's second gradient is the plain scan's: L runs of the forward
    # half; the rest is the budgeted one's.
    body = runs.get("cell", 0) + runs.get("cell_fwd", 0) - length
    expected = fewest_forward_steps(length, checkpoints)
    print(f"length {length}, checkpoints {checkpoints}: the body runs "
          f"{body} times forward (fewest possible: {expected})")
    if body != expected:
        fail(f"length {length}, checkpoints {checkpoints}: {body} forward "
             f"runs of the body, not {expected}")

# Peak memory of the gradient of a scan of 64 steps whose carry is a batch
# of 64 states of 64 (32 KiB each) next to a weight, plain and with budgets
# of 16 and 12 carries: the plain gradient stores about 3 carries per step,
# the budgeted ones about one per stored carry and a few per sweep.
L, B = 64, 64
HB, WB, XB = f"tensor<{B}x{B}xf64>", f"tensor<{B}x{B}xf64>", f"tensor<{L}x{B}xf64>"


def rnn(checkpoints):
    budget = f", checkpoints = {checkpoints} : i64" if checkpoints else ""
    return f"""
func.func private @step(%w: {WB}, %h: {HB}, %x: tensor<{B}xf64>) -> ({WB}, {HB}, tensor<f64>) {{
  %a = kiln.dot_general %h, %w, contracting = [1] x [0] : ({HB}, {WB}) -> {HB}
  %xb = kiln.broadcast_in_dim %x, dims = [1] : (tensor<{B}xf64>) -> {HB}
  %b = kiln.add %a, %xb : {HB}
  %t = kiln.tanh %b : {HB}
  %s = kiln.reduce_sum %t, dims = [0, 1] : ({HB}) -> tensor<f64>
  return %w, %t, %s : {WB}, {HB}, tensor<f64>
}}
func.func private @loss(%w: {WB}, %h: {HB}, %xs: {XB}) -> tensor<f64> {{
  %r:3 = kiln.scan @step(%w, %h, %xs) {{num_carry = 2 : i64, length = {L} : i64{budget}}} : ({WB}, {HB}, {XB}) -> ({WB}, {HB}, tensor<{L}xf64>)
  %l = kiln.reduce_sum %r#2, dims = [0] : (tensor<{L}xf64>) -> tensor<f64>
  return %l : tensor<f64>
}}
func.func @grad(%w: {WB}, %h: {HB}, %xs: {XB}) -> {WB} {{
  %g = kiln.grad @loss(%w, %h, %xs) : ({WB}, {HB}, {XB}) -> {WB}
  return %g : {WB}
}}
"""


rnn_args = [rng.standard_normal((B, B)) * 0.1, rng.standard_normal((B, B)),
            rng.standard_normal((L, B))]
peaks = {}
for checkpoints in [0, 16, 12]:
    reported, measured, report = peak_memory(rnn(checkpoints), "grad", rnn_args)
    if reported is None or measured is None:
        fail(f"checkpoints {checkpoints}: no peak ({report!r})")
        continue
    print(f"gradient of a 64-step scan, checkpoints {checkpoints or 'none'}: "
          f"reported {reported} bytes, measured {measured}")
    peaks[checkpoints] = reported
if len(peaks) == 3 and not peaks[0] > 3 * peaks[16] > 3 * peaks[12]:
    fail(f"the peaks do not fall with the budget, to a third at 16: {peaks}")
finish()
