# kiln.checkpoint: gradients with every remat policy (nothing_saveable
# recomputes the block from its arguments, dots_saveable and
# dots_with_no_batch_dims_saveable keep its dots, save_only_these_names the
# values tagged with kiln.checkpoint_name, everything_saveable all) equal the
# gradients without checkpoints, in f64, for a residual MLP of 4 blocks
# whose blocks hold a plain dot, a batched one and tagged values; also under
# jvp, under vmap, and as the body of a scan.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check_pairs, finish

rng = np.random.default_rng(23)
N, D = 3, 4
H = f"tensor<{N}x{D}xf64>"
W = f"tensor<{D}x{D}xf64>"


def model(policy):
    """@loss_<policy>: 4 residual blocks, each through kiln.checkpoint with
    `policy`, or called plainly for policy None."""
    name = policy or "plain"
    lines = [f"func.func private @loss_{name}(%w: tensor<4x{D}x{D}xf64>, %x: {H}) -> tensor<f64> {{"]
    h = "%x"
    for k in range(4):
        lines.append(f"  %ws{k} = kiln.slice %w [{k}:{k + 1}, 0:{D}, 0:{D}] : (tensor<4x{D}x{D}xf64>) -> tensor<1x{D}x{D}xf64>")
        lines.append(f"  %w{k} = kiln.reshape %ws{k} : (tensor<1x{D}x{D}xf64>) -> {W}")
        if policy:
            names = ', names = ["pre", "norms"]' if policy == "save_only_these_names" else ""
            lines.append(f"  %h{k} = kiln.checkpoint @block(%w{k}, {h}) {{policy = #kiln<remat_policy {policy}>{names}}} : ({W}, {H}) -> {H}")
        else:
            lines.append(f"  %h{k} = call @block(%w{k}, {h}) : ({W}, {H}) -> {H}")
        h = f"%h{k}"
    lines += [f"  %sq = kiln.mul {h}, {h} : {H}",
              f"  %l = kiln.reduce_sum %sq, dims = [0, 1] : ({H}) -> tensor<f64>",
              "  return %l : tensor<f64>", "}"]
    return "\n".join(lines) + "\n"


POLICIES = ["nothing_saveable", "everything_saveable", "dots_saveable",
            "dots_with_no_batch_dims_saveable", "save_only_these_names"]
# h + tanh(h w) * (1 + |rows of tanh(h w)|^2), the row norms a batched dot.
SOURCE = f"""
func.func private @block(%w: {W}, %h: {H}) -> {H} {{
  %a = kiln.dot_general %h, %w, contracting = [1] x [0] : ({H}, {W}) -> {H}
  %pre = kiln.checkpoint_name %a, "pre" : {H}
  %t = kiln.tanh %pre : {H}
  %n = kiln.dot_general %t, %t, batching = [0] x [0], contracting = [1] x [1] : ({H}, {H}) -> tensor<{N}xf64>
  %norms = kiln.checkpoint_name %n, "norms" : tensor<{N}xf64>
  %one = kiln.constant dense<1.0> : tensor<{N}xf64>
  %m = kiln.add %norms, %one : tensor<{N}xf64>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : (tensor<{N}xf64>) -> {H}
  %s = kiln.mul %t, %mb : {H}
  %other = kiln.checkpoint_name %s, "other" : {H}
  %r = kiln.add %other, %h : {H}
  return %r : {H}
}}
""" + model(None) + "".join(model(policy) for policy in POLICIES)

GRAD = f"(tensor<4x{D}x{D}xf64>, {H}) -> (tensor<4x{D}x{D}xf64>, {H})"
JVP = f"(tensor<4x{D}x{D}xf64>, {H}, tensor<4x{D}x{D}xf64>, {H}) -> (tensor<f64>, tensor<f64>)"
VMAP = (f"{{in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>}} : "
        f"(tensor<4x{D}x{D}xf64>, tensor<5x{N}x{D}xf64>) -> tensor<5xf64>")
entry = [f"func.func @main(%w: tensor<4x{D}x{D}xf64>, %x: {H}, %tw: tensor<4x{D}x{D}xf64>, %tx: {H}, %xs: tensor<5x{N}x{D}xf64>) -> ("]
results, body, returned = [], [], []
for name in POLICIES:
    body += [
        f"  %g_{name}:2 = kiln.grad @loss_{name}(%w, %x) {{argnums = array<i64: 0, 1>}} : {GRAD}",
        f"  %gp_{name}:2 = kiln.grad @loss_plain(%w, %x) {{argnums = array<i64: 0, 1>}} : {GRAD}",
        f"  %j_{name}:2 = kiln.jvp @loss_{name}(%w, %x, %tw, %tx) : {JVP}",
        f"  %jp_{name}:2 = kiln.jvp @loss_plain(%w, %x, %tw, %tx) : {JVP}",
        f"  %v_{name} = kiln.vmap @loss_{name}(%w, %xs) {VMAP}",
        f"  %vp_{name} = kiln.vmap @loss_plain(%w, %xs) {VMAP}"]
    returned += [f"%g_{name}#0", f"%gp_{name}#0", f"%g_{name}#1", f"%gp_{name}#1",
                 f"%j_{name}#1", f"%jp_{name}#1", f"%v_{name}", f"%vp_{name}"]
    results += [f"tensor<4x{D}x{D}xf64>"] * 2 + [H] * 2 + ["tensor<f64>"] * 2 + \
        ["tensor<5xf64>"] * 2
entry[0] += ", ".join(results) + ") {"
entry += body + [f"  return {', '.join(returned)} : {', '.join(results)}", "}"]

# A scan whose body is checkpointed: its gradient equals the plain scan's.
SCAN = f"""
func.func private @step(%w: {W}, %h: {H}, %x: {H}) -> ({W}, {H}, tensor<f64>) {{
  %a = kiln.add %h, %x : {H}
  %r = kiln.checkpoint @block(%w, %a) : ({W}, {H}) -> {H}
  %s = kiln.reduce_sum %r, dims = [0, 1] : ({H}) -> tensor<f64>
  return %w, %r, %s : {W}, {H}, tensor<f64>
}}
func.func private @plain_step(%w: {W}, %h: {H}, %x: {H}) -> ({W}, {H}, tensor<f64>) {{
  %a = kiln.add %h, %x : {H}
  %r = call @block(%w, %a) : ({W}, {H}) -> {H}
  %s = kiln.reduce_sum %r, dims = [0, 1] : ({H}) -> tensor<f64>
  return %w, %r, %s : {W}, {H}, tensor<f64>
}}
"""
for name in ["step", "plain_step"]:
    SCAN += f"""
func.func private @scan_{name}(%w: {W}, %h: {H}, %xs: tensor<6x{N}x{D}xf64>) -> tensor<f64> {{
  %r:3 = kiln.scan @{name}(%w, %h, %xs) {{num_carry = 2 : i64, length = 6 : i64}} : ({W}, {H}, tensor<6x{N}x{D}xf64>) -> ({W}, {H}, tensor<6xf64>)
  %l = kiln.reduce_sum %r#2, dims = [0] : (tensor<6xf64>) -> tensor<f64>
  return %l : tensor<f64>
}}"""
SCAN += f"""
func.func @scanned(%w: {W}, %h: {H}, %xs: tensor<6x{N}x{D}xf64>) -> ({W}, {W}) {{
  %g = kiln.grad @scan_step(%w, %h, %xs) : ({W}, {H}, tensor<6x{N}x{D}xf64>) -> {W}
  %p = kiln.grad @scan_plain_step(%w, %h, %xs) : ({W}, {H}, tensor<6x{N}x{D}xf64>) -> {W}
  return %g, %p : {W}, {W}
}}
"""

w = rng.standard_normal((4, D, D)) * 0.5
args = [w, rng.standard_normal((N, D)), rng.standard_normal((4, D, D)),
        rng.standard_normal((N, D)), rng.standard_normal((5, N, D))]
check_pairs("checkpoint policies", SOURCE + "\n".join(entry) + "\n", "main",
            args, rtol=1e-12, atol=1e-12)
check_pairs("checkpointed scan body", SOURCE + SCAN, "scanned",
            [w[0], rng.standard_normal((N, D)), rng.standard_normal((6, N, D))],
            rtol=1e-12, atol=1e-12)
finish()
