# Forward mode (kiln.jvp) and reverse mode (kiln.vjp) of every
# differentiable primitive, first and second order, against central finite
# differences of the primal program in f64 (JAX's check_grads method), and
# first order in f32 through kiln-run --check-grads, on
# random inputs, directions and cotangents: a VJP is checked by the
# dot-product test <vjp(u), t> = <u, (f(x + ht) - f(x - ht)) / 2h>.
# RUN: %numpy_python %s kiln-run
import os
import subprocess
import tempfile

import numpy as np

from harness import KILN_RUN, fail, finish, ttype
from harness import run as run_source

rng = np.random.default_rng(7)
KILN_COMPILE = os.path.join(os.path.dirname(KILN_RUN), "kiln-compile")
STEP = 1e-5
RTOL = 1e-6


def program(body, args, result, reverse=True):
    """@f(args) -> result from `body` (using %a0, ... and ending in %r),
    @jvp = kiln.jvp @f, @g = the tangent of @jvp alone, @jvp2 = kiln.jvp @g
    and, if `reverse`, @vjp2 = kiln.vjp @g (second order) and @vjp =
    kiln.vjp @f with respect to the float arguments."""
    types = [ttype(a.shape, a.dtype) for a in args]
    n = len(args)
    floats = [i for i, a in enumerate(args) if a.dtype.kind == "f"]
    argnums = ", ".join(str(i) for i in floats)
    argnums2 = ", ".join(str(i) for i in floats + [n + i for i in floats])
    grads = ", ".join(types[i] for i in floats)

    def params(prefix, count, offset=0):
        return ", ".join(f"%{prefix}{i}: {types[(offset + i) % n]}"
                         for i in range(count))

    def names(prefix, count):
        return ", ".join(f"%{prefix}{i}" for i in range(count))

    sig2 = ", ".join(types * 2)
    sig4 = ", ".join(types * 4)
    reverse_mode = f"""
func.func @vjp({params("a", n)}, %ct: {result}) -> ({result}, {grads}) {{
  %r:{1 + len(floats)} = kiln.vjp @f({names("a", n)}, %ct) {{argnums = array<i64: {argnums}>}} : ({", ".join(types)}, {result}) -> ({result}, {grads})
  return %r#0, {", ".join(f"%r#{k + 1}" for k in range(len(floats)))} : {result}, {grads}
}}
func.func @vjp2({params("a", n)}, {params("t", n)}, %ct: {result}) -> ({result}, {grads}, {grads}) {{
  %r:{1 + 2 * len(floats)} = kiln.vjp @g({names("a", n)}, {names("t", n)}, %ct) {{argnums = array<i64: {argnums2}>}} : ({sig2}, {result}) -> ({result}, {grads}, {grads})
  return {", ".join(f"%r#{k}" for k in range(1 + 2 * len(floats)))} : {result}, {grads}, {grads}
}}
""" if reverse else ""
    return f"""
func.func private @f({params("a", n)}) -> {result} {{
{body}
  return %r : {result}
}}
func.func @primal({params("a", n)}) -> {result} {{
  %r = call @f({names("a", n)}) : ({", ".join(types)}) -> {result}
  return %r : {result}
}}
func.func @jvp({params("a", n)}, {params("t", n)}) -> ({result}, {result}) {{
  %y, %ty = kiln.jvp @f({names("a", n)}, {names("t", n)}) : ({sig2}) -> ({result}, {result})
  return %y, %ty : {result}, {result}
}}
func.func @g({params("a", n)}, {params("t", n)}) -> {result} {{
  %y, %ty = kiln.jvp @f({names("a", n)}, {names("t", n)}) : ({sig2}) -> ({result}, {result})
  return %ty : {result}
}}
func.func @jvp2({params("a", n)}, {params("t", n)}, {params("s", n)}, {params("u", n)}) -> ({result}, {result}) {{
  %y, %ty = kiln.jvp @g({names("a", n)}, {names("t", n)}, {names("s", n)}, {names("u", n)}) : ({sig4}) -> ({result}, {result})
  return %y, %ty : {result}, {result}
}}
{reverse_mode}"""


def run(artifact, entry, args):
    with tempfile.TemporaryDirectory() as tmp:
        inputs, outputs = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(args)})
        done = subprocess.run([KILN_RUN, artifact, "--entry", entry, "--input",
                               inputs, "--output", outputs],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(done.stderr)
        with np.load(outputs) as f:
            return [f[f"out{i}"] for i in range(len(f.files))]


def direction(a):
    """A random tangent for a float argument, zero for an integer one."""
    if a.dtype.kind == "f":
        return rng.standard_normal(a.shape)
    return np.zeros_like(a)


def shifted(args, tangents, h):
    return [a + h * t if a.dtype.kind == "f" else a
            for a, t in zip(args, tangents)]


def dot(xs, ys):
    return sum(float(np.sum(x * y)) for x, y in zip(xs, ys))


def close(name, got, want):
    scale = max(np.max(np.abs(want), initial=0.0), 1.0)
    error = np.max(np.abs(got - want), initial=0.0) / scale
    if not error <= RTOL:
        fail(f"{name}: relative error {error:.3g} > {RTOL:g}\n"
             f"got  {got}\nwant {want}")


def check_f32(name, body, args, shape):
    """kiln-run --check-grads on sum(f(args) * w) in f32: the JVP against
    finite differences and the VJP against the JVP, within JAX's f32
    tolerance (2e-3)."""
    args = [a.astype(np.float32) if a.dtype.kind == "f" else a for a in args]
    types = [ttype(a.shape, a.dtype) for a in args]
    result = ttype(shape, np.float32)
    w = rng.standard_normal(shape).astype(np.float32)
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    dims = ", ".join(str(d) for d in range(len(shape)))
    source = f"""func.func @loss({params}, %weights: {result}) -> tensor<f32> {{
{body}
  %weighted = kiln.mul %r, %weights : {result}
  %loss = kiln.reduce_sum %weighted, dims = [{dims}] : ({result}) -> tensor<f32>
  return %loss : tensor<f32>
}}
"""
    with tempfile.TemporaryDirectory() as tmp:
        path, inputs = os.path.join(tmp, "p.mlir"), os.path.join(tmp, "in.npz")
        with open(path, "w") as f:
            f.write(source.replace("f64", "f32"))
        np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(args + [w])})
        done = subprocess.run([KILN_RUN, path, "--entry", "loss", "--input",
                               inputs, "--check-grads"],
                              capture_output=True, text=True)
        if done.returncode != 0 or done.stdout.count(": ok") != len(
                [a for a in args if a.dtype.kind == "f"]) + 1:
            fail(f"{name} in f32: kiln-run --check-grads failed:\n"
                 f"{done.stdout}{done.stderr}")


def case(name, body, args, result, second_order=True, reverse=True, f32=True):
    """Checks @f (`body` on `args`) in f64: its JVP against finite
    differences, its VJP by the dot-product test (if `reverse`), both
    again for its JVP (if `second_order`); and, if `f32` and `reverse`,
    the same program in f32 by kiln-run --check-grads."""
    with tempfile.TemporaryDirectory() as tmp:
        source, artifact = os.path.join(tmp, "p.mlir"), os.path.join(tmp, "p.so")
        with open(source, "w") as f:
            f.write(program(body, args, result, reverse))
        done = subprocess.run([KILN_COMPILE, source, "-o", artifact],
                              capture_output=True, text=True)
        if done.returncode != 0:
            fail(f"{name}: kiln-compile failed:\n{done.stderr}")
            return
        t = [direction(a) for a in args]
        y, ty = run(artifact, "jvp", args + t)
        if f32 and reverse:
            check_f32(name, body, args, np.shape(y))
        close(f"{name} primal", y, run(artifact, "primal", args)[0])
        plus = run(artifact, "primal", shifted(args, t, STEP))[0]
        minus = run(artifact, "primal", shifted(args, t, -STEP))[0]
        fd = (plus - minus) / (2 * STEP)
        close(f"{name} jvp", ty, fd)
        # Reverse mode: <vjp(u), t> = <u, J t>.
        floats = [i for i, a in enumerate(args) if a.dtype.kind == "f"]
        u = rng.standard_normal(np.shape(y))
        if reverse:
            out = run(artifact, "vjp", args + [u])
            close(f"{name} vjp primal", out[0], y)
            close(f"{name} vjp",
                  np.array(dot(out[1:], [t[i] for i in floats])),
                  np.array(dot([u], [fd])))
        if not second_order:
            return
        # Second order: the derivative of the JVP along another direction.
        s = [direction(a) for a in args]
        zeros = [np.zeros_like(a) for a in args]
        _, tty = run(artifact, "jvp2", args + t + s + zeros)
        plus = run(artifact, "g", shifted(args, s, STEP) + t)[0]
        minus = run(artifact, "g", shifted(args, s, -STEP) + t)[0]
        close(f"{name} jvp of jvp", tty, (plus - minus) / (2 * STEP))
        if not reverse:
            return
        # vjp of jvp, along (s, s2) for the primals and the tangents.
        s2 = [direction(a) for a in args]
        out = run(artifact, "vjp2", args + t + [u])
        plus = run(artifact, "g", shifted(args, s, STEP) + shifted(t, s2, STEP))[0]
        minus = run(artifact, "g", shifted(args, s, -STEP) + shifted(t, s2, -STEP))[0]
        close(f"{name} vjp of jvp",
              np.array(dot(out[1:], [s[i] for i in floats] + [s2[i] for i in floats])),
              np.array(dot([u], [(plus - minus) / (2 * STEP)])))


def shape():
    """A random shape of rank 1-3 with size-1 dimensions now and then."""
    return tuple(int(rng.choice([1, 2, 3, 5])) for _ in range(rng.integers(1, 4)))


def positive(s):
    return rng.uniform(0.5, 2.0, s)


# Elementwise unary ops, on inputs inside their domains.
for op, make in [("neg", rng.standard_normal), ("exp", rng.standard_normal),
                 ("expm1", rng.standard_normal), ("log", positive),
                 ("log1p", positive), ("tanh", rng.standard_normal),
                 ("logistic", rng.standard_normal), ("sqrt", positive),
                 ("rsqrt", positive), ("sin", rng.standard_normal),
                 ("cos", rng.standard_normal), ("abs", positive),
                 ("floor", positive), ("ceil", positive),
                 ("sign", positive)]:
    s = shape()
    t = ttype(s, np.float64)
    # Steps have no derivative to compare with in f32.
    case(op, f"  %r = kiln.{op} %a0 : {t}", [make(s)], t,
         f32=op not in ("floor", "ceil", "sign"))

# Binary ops, away from their kinks (max/min ties are checked in lit).
for op, x, y in [
        ("add", rng.standard_normal, rng.standard_normal),
        ("sub", rng.standard_normal, rng.standard_normal),
        ("mul", rng.standard_normal, rng.standard_normal),
        ("div", rng.standard_normal, positive),
        ("pow", positive, rng.standard_normal),
        ("atan2", rng.standard_normal, rng.standard_normal),
        ("max", lambda s: rng.uniform(0, 1, s), lambda s: rng.uniform(2, 3, s)),
        ("min", lambda s: rng.uniform(0, 1, s), lambda s: rng.uniform(2, 3, s))]:
    s = shape()
    t = ttype(s, np.float64)
    case(op, f"  %r = kiln.{op} %a0, %a1 : {t}", [x(s), y(s)], t)


def special(name, body, args, tangents, result, want):
    """The JVP at a point where JAX defines the derivative by convention."""
    with tempfile.TemporaryDirectory() as tmp:
        source, artifact = os.path.join(tmp, "p.mlir"), os.path.join(tmp, "p.so")
        with open(source, "w") as f:
            f.write(program(body, args, result))
        subprocess.run([KILN_COMPILE, source, "-o", artifact], check=True)
        close(name, run(artifact, "jvp", args + tangents)[1], want)


# Ties of max and min split the tangent in halves; abs at 0 has derivative
# sign(0) = 0; pow with a zero base has derivative 0 in the exponent.
v = np.array([1.0, -2.0, 0.0])
tv, tw = np.array([1.0, 2.0, 4.0]), np.array([8.0, 16.0, 32.0])
for op in ["max", "min"]:
    special(f"{op} ties", f"  %r = kiln.{op} %a0, %a1 : tensor<3xf64>",
            [v, v.copy()], [tv, tw], "tensor<3xf64>", 0.5 * (tv + tw))
# stop_gradient: x * stop_gradient(x) has derivative x, where x * x has 2x.
special("stop_gradient", "  %s = kiln.stop_gradient %a0 : tensor<3xf64>\n"
        "  %r = kiln.mul %s, %a0 : tensor<3xf64>", [v], [tv], "tensor<3xf64>",
        v * tv)
special("abs at 0", "  %r = kiln.abs %a0 : tensor<3xf64>", [v], [tv],
        "tensor<3xf64>", np.sign(v) * tv)
special("pow with a zero base", "  %r = kiln.pow %a0, %a1 : tensor<3xf64>",
        [np.zeros(3), np.array([2.0, 1.0, 0.0])], [np.zeros(3), tw],
        "tensor<3xf64>", np.zeros(3))
special("pow at exponent 0", "  %r = kiln.pow %a0, %a1 : tensor<3xf64>",
        [np.array([0.0, 2.0, 3.0]), np.zeros(3)], [tv, np.zeros(3)],
        "tensor<3xf64>", np.zeros(3))

# custom_vjp: reverse mode uses the user's rule (here twice the true
# derivative, so that using the callee's body would show), and the primal
# is the callee's.
CUSTOM = """
func.func private @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = kiln.sin %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_fwd(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %0 = kiln.sin %x : tensor<3xf64>
  %1 = kiln.cos %x : tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
}
func.func private @f_bwd(%c: tensor<3xf64>, %ct: tensor<3xf64>) -> tensor<3xf64> {
  %0 = kiln.mul %c, %ct : tensor<3xf64>
  %1 = kiln.add %0, %0 : tensor<3xf64>
  return %1 : tensor<3xf64>
}
func.func private @loss(%x: tensor<3xf64>) -> tensor<f64> {
  %y = kiln.custom_vjp @f(%x) {fwd = @f_fwd, bwd = @f_bwd} : (tensor<3xf64>) -> tensor<3xf64>
  %l = kiln.reduce_sum %y, dims = [0] : (tensor<3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @main(%x: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>) {
  %l, %g = kiln.value_and_grad @loss(%x) : (tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  return %l, %g : tensor<f64>, tensor<3xf64>
}
"""
x = rng.standard_normal(3)
results, stderr, status = run_source(CUSTOM, "main", [x])
if status != 0:
    fail(f"custom_vjp: kiln-run failed:\n{stderr}")
else:
    close("custom_vjp value", results[0], np.sum(np.sin(x)))
    close("custom_vjp gradient", results[1], 2 * np.cos(x))

# rem(x, y) = x - y * trunc(x / y), with x / y in (1.2, 1.8).
y = positive((3, 2))
case("rem", "  %r = kiln.rem %a0, %a1 : tensor<3x2xf64>",
     [y * rng.uniform(1.2, 1.8, (3, 2)), y], "tensor<3x2xf64>")

# select (convert between float widths is checked in lit: finite
# differences need f64 throughout).
p = rng.standard_normal((4, 3))
case("select", "  %p = kiln.compare GT, %a0, %a2 : tensor<4x3xf64>\n"
     "  %r = kiln.select %p, %a0, %a1 : tensor<4x3xi1>, tensor<4x3xf64>",
     [rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), p],
     "tensor<4x3xf64>")

# Data movement.
x = rng.standard_normal((2, 3, 4))
tx = "tensor<2x3x4xf64>"
case("broadcast_in_dim", "  %r = kiln.broadcast_in_dim %a0, dims = [1] : "
     "(tensor<3xf64>) -> tensor<2x3xf64>", [rng.standard_normal(3)],
     "tensor<2x3xf64>")
case("reshape", f"  %r = kiln.reshape %a0 : ({tx}) -> tensor<6x4xf64>", [x],
     "tensor<6x4xf64>")
case("transpose", f"  %r = kiln.transpose %a0, permutation = [2, 0, 1] : "
     f"({tx}) -> tensor<4x2x3xf64>", [x], "tensor<4x2x3xf64>")
case("slice with strides", f"  %r = kiln.slice %a0 [0:2, 1:3, 0:4:3] : "
     f"({tx}) -> tensor<2x2x2xf64>", [x], "tensor<2x2x2xf64>")
case("reverse", f"  %r = kiln.reverse %a0, dims = [0, 2] : {tx}", [x], tx)
case("concatenate", "  %r = kiln.concatenate %a0, %a1, dim = 0 : "
     "(tensor<2x3xf64>, tensor<1x3xf64>) -> tensor<3x3xf64>",
     [rng.standard_normal((2, 3)), rng.standard_normal((1, 3))],
     "tensor<3x3xf64>")
case("pad negative and interior", "  %r = kiln.pad %a0, %a1, low = [-1, 2], "
     "high = [1, -2], interior = [1, 0] : (tensor<2x3xf64>, tensor<f64>) -> "
     "tensor<3x3xf64>", [rng.standard_normal((2, 3)),
                         np.array(rng.standard_normal())], "tensor<3x3xf64>")
i1, i2 = np.array(1, np.int32), np.array(2, np.int32)
case("dynamic_slice", "  %r = kiln.dynamic_slice %a0 [%a1, %a2], sizes = "
     "[2, 2] : (tensor<4x5xf64>, tensor<i32>, tensor<i32>) -> tensor<2x2xf64>",
     [rng.standard_normal((4, 5)), i1, i2], "tensor<2x2xf64>")
case("dynamic_update_slice", "  %r = kiln.dynamic_update_slice %a0, %a1 "
     "[%a2, %a3] : (tensor<4x5xf64>, tensor<2x2xf64>, tensor<i32>, "
     "tensor<i32>) -> tensor<4x5xf64>",
     [rng.standard_normal((4, 5)), rng.standard_normal((2, 2)), i1, i2],
     "tensor<4x5xf64>")
ids = np.array([3, 0, 3], np.int32)
case("take", "  %r = kiln.take %a0[%a1], dim = 0 : (tensor<4x2xf64>, "
     "tensor<3xi32>) -> tensor<3x2xf64>", [rng.standard_normal((4, 2)), ids],
     "tensor<3x2xf64>")
case("scatter_add", "  %r = kiln.scatter_add %a0[%a1], %a2, dim = 0 : "
     "(tensor<4x2xf64>, tensor<3xi32>, tensor<3x2xf64>) -> tensor<4x2xf64>",
     [rng.standard_normal((4, 2)), ids, rng.standard_normal((3, 2))],
     "tensor<4x2xf64>")

# Compute: dot_general with batch and contracting dims, reductions.
case("dot_general", "  %r = kiln.dot_general %a0, %a1, batching = [1] x [2], "
     "contracting = [2] x [1] : (tensor<3x4x5xf64>, tensor<2x5x4xf64>) -> "
     "tensor<4x3x2xf64>",
     [rng.standard_normal((3, 4, 5)), rng.standard_normal((2, 5, 4))],
     "tensor<4x3x2xf64>")
# Elements 0.1 apart, so that no finite-difference step crosses a tie of
# reduce_max or reduce_min.
spread = (rng.permutation(24).reshape(2, 3, 4) - 12) * 0.1
for op in ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"]:
    case(op, f"  %r = kiln.{op} %a0, dims = [0, 2] : ({tx}) -> tensor<3xf64>",
         [spread + rng.uniform(-0.01, 0.01, (2, 3, 4))], "tensor<3xf64>")
# A product over a zero, over two zeros and over three: exact to second
# order there (the rule multiplies prefix and suffix products and never
# divides).
z = rng.standard_normal((4, 5))
z[0, 1] = 0.0
z[2, 0] = z[2, 3] = 0.0
z[3, 1] = z[3, 2] = z[3, 4] = 0.0
case("reduce_prod with zeros", "  %r = kiln.reduce_prod %a0, dims = [1] : "
     "(tensor<4x5xf64>) -> tensor<4xf64>", [z], "tensor<4xf64>")
case("reduce_prod over dims 2 and 0", "  %r = kiln.reduce_prod %a0, dims = [2, 0] : "
     f"({tx}) -> tensor<3xf64>", [x], "tensor<3xf64>")

# A chain through a call: the callee is differentiated once.
case("through a call", "  %e = kiln.tanh %a0 : tensor<3xf64>\n"
     "  %c = call @helper(%e, %a0) : (tensor<3xf64>, tensor<3xf64>) -> "
     "tensor<3xf64>\n  return %c : tensor<3xf64>\n}\n"
     "func.func private @helper(%a: tensor<3xf64>, "
     "%b: tensor<3xf64>) -> tensor<3xf64> {\n"
     "  %r = kiln.mul %a, %b : tensor<3xf64>",
     [rng.standard_normal(3)], "tensor<3xf64>", f32=False)

# Control flow: a cond on either branch (forward and reverse mode), and a
# while loop (forward mode) whose carried values gain tangents in its body
# (u starts constant).
for taken in [True, False]:
    t = "tensor<2x3xf64>"
    case(f"cond taking the {'true' if taken else 'false'} branch",
         f"""  %r = kiln.cond %a0 -> ({t}) {{
    %s = kiln.sin %a1 : {t}
    %m = kiln.mul %s, %a2 : {t}
    kiln.yield %m : {t}
  }} else {{
    %e = kiln.exp %a2 : {t}
    kiln.yield %e : {t}
  }}""", [np.array(taken), rng.standard_normal((2, 3)),
          rng.standard_normal((2, 3))], t)
    # A cond nested in a branch, using a value from two levels up.
    case(f"nested cond, outer {'true' if taken else 'false'}",
         f"""  %e = kiln.exp %a1 : {t}
  %r = kiln.cond %a0 -> ({t}) {{
    %q = kiln.cond %a3 -> ({t}) {{
      %m = kiln.mul %e, %a2 : {t}
      kiln.yield %m : {t}
    }} else {{
      %s = kiln.sin %a2 : {t}
      kiln.yield %s : {t}
    }}
    %w = kiln.mul %q, %e : {t}
    kiln.yield %w : {t}
  }} else {{
    %c = kiln.cos %a1 : {t}
    kiln.yield %c : {t}
  }}""", [np.array(taken), rng.standard_normal((2, 3)),
          rng.standard_normal((2, 3)), np.array(not taken)], t)
case("while", """  %zero = kiln.constant dense<0> : tensor<i32>
  %one = kiln.constant dense<1> : tensor<i32>
  %ones = kiln.constant dense<1.0> : tensor<3xf64>
  %w:3 = kiln.while (%zero, %ones, %a0) : tensor<i32>, tensor<3xf64>, tensor<3xf64> cond {
  ^bb0(%i: tensor<i32>, %u: tensor<3xf64>, %v: tensor<3xf64>):
    %p = kiln.compare LT, %i, %a2 : tensor<i32>
    kiln.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %u: tensor<3xf64>, %v: tensor<3xf64>):
    %j = kiln.add %i, %one : tensor<i32>
    %u2 = kiln.mul %u, %v : tensor<3xf64>
    %s = kiln.sin %v : tensor<3xf64>
    %v2 = kiln.mul %s, %a1 : tensor<3xf64>
    kiln.yield %j, %u2, %v2 : tensor<i32>, tensor<3xf64>, tensor<3xf64>
  }
  %r = kiln.add %w#1, %w#2 : tensor<3xf64>""",
     [rng.standard_normal(3), rng.standard_normal(3),
      np.array(4, np.int32)], "tensor<3xf64>", reverse=False)

finish()
