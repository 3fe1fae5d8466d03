# kiln.scan with a checkpoint budget (`checkpoints`): the scan runs as
# nested scans of checkpointed segments. Its values and gradients equal the
# plain scan's (f64, 1e-12) for lengths that split evenly and not, forward
# and reversed, unrolled, with two carries of different shapes and two xs;
# and on a scan whose carry is large, the gradient's reported peak memory
# (kiln-compile --report=memory, which agrees with the runtime's) falls
# with the budget.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check_pairs, fail, finish, peak_memory

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


# (length, budget): two levels splitting evenly (64 = 8 x 8) or not (7 =
# 2 x 3 + 1, 10 = 2 x 4 + 2), three levels (100 in steps of 5).
for length, checkpoints in [(7, 6), (10, 8), (64, 16), (100, 15)]:
    for reverse, unroll in [(False, 1), (True, 2)]:
        args = [rng.standard_normal((D, D)) * 0.5, rng.standard_normal(D),
                np.array(0.3), rng.standard_normal((length, D)),
                rng.standard_normal(length) * 0.5]
        check_pairs(f"length {length}, checkpoints {checkpoints}, reverse "
                    f"{reverse}, unroll {unroll}",
                    program(length, checkpoints, reverse, unroll), "main",
                    args, rtol=1e-12, atol=1e-12)

# Peak memory of the gradient of a scan of 64 steps whose carry is a batch
# of 64 states of 64 (32 KiB each), plain and with budgets of 16 (two
# levels of 8) and 12 (three levels of 4).
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
if len(peaks) == 3 and not peaks[0] > 2 * peaks[16]:
    fail(f"a budget of 16 carries does not halve the peak: {peaks}")
finish()
