# kiln.scan against the same computation written as an unrolled chain of
# calls of its body (JAX's reference semantics of lax.scan): lengths 0, 1
# and 5, reverse on and off, unroll 1, 2 and full, two carries of different
# shapes and dtypes and two ys; and under kiln.jvp, kiln.vjp (the tangent
# arguments serve as the cotangents of the results) and kiln.vmap, which
# see the scan's loop in one program and a chain of calls in the other.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check_pairs, finish

rng = np.random.default_rng(3)

STEP = """
func.func private @step(%h: tensor<2xf64>, %n: tensor<i32>, %x: tensor<2xf64>, %w: tensor<f64>) -> (tensor<2xf64>, tensor<i32>, tensor<2xf64>, tensor<f64>) {
  %wb = kiln.broadcast_in_dim %w, dims = [] : (tensor<f64>) -> tensor<2xf64>
  %m = kiln.mul %h, %x : tensor<2xf64>
  %a = kiln.add %m, %wb : tensor<2xf64>
  %t = kiln.tanh %a : tensor<2xf64>
  %one = kiln.constant dense<1> : tensor<i32>
  %k = kiln.add %n, %one : tensor<i32>
  %s = kiln.reduce_sum %t, dims = [0] : (tensor<2xf64>) -> tensor<f64>
  %y = kiln.mul %s, %w : tensor<f64>
  return %t, %k, %a, %y : tensor<2xf64>, tensor<i32>, tensor<2xf64>, tensor<f64>
}
"""


def types(length):
    args = f"tensor<2xf64>, tensor<i32>, tensor<{length}x2xf64>, tensor<{length}xf64>"
    results = f"tensor<2xf64>, tensor<i32>, tensor<{length}x2xf64>, tensor<{length}xf64>"
    return args, results


def chain(length, reverse):
    """@chain: the scan written out step by step."""
    args, results = types(length)
    lines = [f"func.func private @chain(%h0: tensor<2xf64>, %n0: tensor<i32>, "
             f"%xs: tensor<{length}x2xf64>, %ws: tensor<{length}xf64>) -> ({results}) {{"]
    h, n, ys, ss = "%h0", "%n0", {}, {}
    order = reversed(range(length)) if reverse else range(length)
    for k, t in enumerate(order):
        lines += [
            f"  %xr{k} = kiln.slice %xs [{t}:{t + 1}, 0:2] : (tensor<{length}x2xf64>) -> tensor<1x2xf64>",
            f"  %x{k} = kiln.reshape %xr{k} : (tensor<1x2xf64>) -> tensor<2xf64>",
            f"  %wr{k} = kiln.slice %ws [{t}:{t + 1}] : (tensor<{length}xf64>) -> tensor<1xf64>",
            f"  %w{k} = kiln.reshape %wr{k} : (tensor<1xf64>) -> tensor<f64>",
            f"  %r{k}:4 = call @step({h}, {n}, %x{k}, %w{k}) : (tensor<2xf64>, tensor<i32>, tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<i32>, tensor<2xf64>, tensor<f64>)",
            f"  %y{k} = kiln.reshape %r{k}#2 : (tensor<2xf64>) -> tensor<1x2xf64>",
            f"  %s{k} = kiln.reshape %r{k}#3 : (tensor<f64>) -> tensor<1xf64>"]
        h, n, ys[t], ss[t] = f"%r{k}#0", f"%r{k}#1", f"%y{k}", f"%s{k}"
    if length == 0:
        lines += ["  %ys = kiln.constant dense<0.0> : tensor<0x2xf64>",
                  "  %ss = kiln.constant dense<0.0> : tensor<0xf64>"]
    elif length == 1:
        lines += [f"  %ys = kiln.reshape {ys[0]} : (tensor<1x2xf64>) -> tensor<1x2xf64>",
                  f"  %ss = kiln.reshape {ss[0]} : (tensor<1xf64>) -> tensor<1xf64>"]
    else:
        lines += [
            f"  %ys = kiln.concatenate {', '.join(ys[t] for t in range(length))}, dim = 0 : "
            f"({', '.join(['tensor<1x2xf64>'] * length)}) -> tensor<{length}x2xf64>",
            f"  %ss = kiln.concatenate {', '.join(ss[t] for t in range(length))}, dim = 0 : "
            f"({', '.join(['tensor<1xf64>'] * length)}) -> tensor<{length}xf64>"]
    lines += [f"  return {h}, {n}, %ys, %ss : {results}", "}"]
    return "\n".join(lines) + "\n"


def program(length, reverse, unroll):
    args, results = types(length)
    batched_args = (f"tensor<3x2xf64>, tensor<i32>, tensor<3x{length}x2xf64>, "
                    f"tensor<{length}xf64>")
    batched_results = (f"tensor<3x2xf64>, tensor<3xi32>, tensor<3x{length}x2xf64>, "
                       f"tensor<3x{length}xf64>")
    sig = f"({args}) -> ({results})"
    jvp_sig = f"({args}, {args}) -> ({results}, {results})"
    vmap = (f"{{in_axes = array<i64: 0, -1, 0, -1>, out_axes = array<i64: 0, 0, 0, 0>}} : "
            f"({batched_args}) -> ({batched_results})")
    grads = f"tensor<2xf64>, tensor<{length}x2xf64>, tensor<{length}xf64>"
    vjp_sig = f"({args}, {results}) -> ({results}, {grads})"
    entries = []
    for name in ["scanned", "chain"]:
        entries.append(f"""
func.func @{name}_main(%h: tensor<2xf64>, %n: tensor<i32>, %xs: tensor<{length}x2xf64>, %ws: tensor<{length}xf64>, %th: tensor<2xf64>, %tn: tensor<i32>, %txs: tensor<{length}x2xf64>, %tws: tensor<{length}xf64>, %bh: tensor<3x2xf64>, %bxs: tensor<3x{length}x2xf64>) -> ({results}, {results}, {results}, {batched_results}, {grads}) {{
  %p:4 = call @{name}(%h, %n, %xs, %ws) : {sig}
  %j:8 = kiln.jvp @{name}(%h, %n, %xs, %ws, %th, %tn, %txs, %tws) : {jvp_sig}
  %v:4 = kiln.vmap @{name}(%bh, %n, %bxs, %ws) {vmap}
  %c:7 = kiln.vjp @{name}(%h, %n, %xs, %ws, %th, %tn, %txs, %tws) {{argnums = array<i64: 0, 2, 3>}} : {vjp_sig}
  return %p#0, %p#1, %p#2, %p#3, %j#4, %j#5, %j#6, %j#7, %j#0, %j#1, %j#2, %j#3, %v#0, %v#1, %v#2, %v#3, %c#4, %c#5, %c#6 : {results}, {results}, {results}, {batched_results}, {grads}
}}""")
    scanned = f"""
func.func private @scanned(%h: tensor<2xf64>, %n: tensor<i32>, %xs: tensor<{length}x2xf64>, %ws: tensor<{length}xf64>) -> ({results}) {{
  %r:4 = kiln.scan @step(%h, %n, %xs, %ws) {{num_carry = 2 : i64, length = {length} : i64, reverse = {str(reverse).lower()}, unroll = {unroll} : i64}} : {sig}
  return %r#0, %r#1, %r#2, %r#3 : {results}
}}"""
    # One entry returning each result of the scan beside the chain's.
    groups = [results] * 3 + [batched_results, grads]
    each = [t for group in groups for t in group.split(", ")]
    pairs = ", ".join(f"{t}, {t}" for t in each)
    operands = (f"tensor<2xf64>, tensor<i32>, tensor<{length}x2xf64>, "
                f"tensor<{length}xf64>, tensor<2xf64>, tensor<i32>, "
                f"tensor<{length}x2xf64>, tensor<{length}xf64>, "
                f"tensor<3x2xf64>, tensor<3x{length}x2xf64>")
    call_sig = f"({operands}) -> ({', '.join(each)})"
    names = "%h, %n, %xs, %ws, %th, %tn, %txs, %tws, %bh, %bxs"
    params = ", ".join(f"{name}: {t}" for name, t in
                       zip(names.split(", "), operands.split(", ")))
    both = f"""
func.func @main({params}) -> ({pairs}) {{
  %a:19 = call @scanned_main({names}) : {call_sig}
  %b:19 = call @chain_main({names}) : {call_sig}
  return {", ".join(f"%a#{i}, %b#{i}" for i in range(19))} : {pairs}
}}"""
    return STEP + chain(length, reverse) + scanned + "".join(entries) + both + "\n"


for length in [0, 1, 5]:
    for reverse in [False, True]:
        for unroll in [1, 2, max(length, 1)]:
            args = [rng.standard_normal(2), np.array(3, np.int32),
                    rng.standard_normal((length, 2)), rng.standard_normal(length),
                    rng.standard_normal(2), np.array(0, np.int32),
                    rng.standard_normal((length, 2)), rng.standard_normal(length),
                    rng.standard_normal((3, 2)), rng.standard_normal((3, length, 2))]
            check_pairs(f"scan length {length} reverse {reverse} unroll {unroll}",
                        program(length, reverse, unroll), "main", args,
                        rtol=1e-12, atol=1e-12)

finish()
