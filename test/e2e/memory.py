# Memory you can see: kiln-compile --report=memory's peak bytes of
# intermediate buffers agree with what kiln-run --report=memory measures
# (within MARGIN, README.md's figure); remat lowers the peak of a 16-block
# residual MLP's gradient; gradient accumulation (a scan over 16
# micro-batches of 4 taking each one's gradient) gives the gradient of the
# batch of 64, checked against PyTorch, with a lower peak.
# RUN: %numpy_python %s kiln-run
import os

import numpy as np
import torch

from harness import fail, finish, peak_memory, run

rng = np.random.default_rng(29)
# The report walks each loop once, in its steady state, and takes every
# conditional deallocation: it may differ from a call's measured peak by
# this fraction of the larger.
MARGIN = 0.05


def peaks(name, program, entry, args):
    """The reported and measured peaks of `entry`, checked to agree."""
    reported, measured, report = peak_memory(program, entry, args)
    if reported is None or measured is None:
        fail(f"{name}: no peak (report: {report!r})")
        return 0, 0
    print(f"{name}: reported {reported} bytes, measured {measured}")
    if abs(reported - measured) > MARGIN * max(reported, measured):
        fail(f"{name}: reported peak {reported} bytes, measured {measured}")
    return reported, measured


# A residual MLP of 16 blocks h + tanh(tanh(h w_k) w_k), the loss the sum
# of squares.
BLOCKS, N, D = 16, 256, 64
H, W = f"tensor<{N}x{D}xf32>", f"tensor<{D}x{D}xf32>"
WS = f"tensor<{BLOCKS}x{D}x{D}xf32>"


def mlp(policy):
    """@grad_<name>: the gradient of the MLP's loss with respect to its
    weights, each block through kiln.checkpoint with `policy`, or called
    plainly for policy None."""
    name = policy or "plain"
    lines = [f"func.func private @loss_{name}(%w: {WS}, %x: {H}) -> tensor<f32> {{"]
    h = "%x"
    for k in range(BLOCKS):
        lines.append(f"  %ws{k} = kiln.slice %w [{k}:{k + 1}, 0:{D}, 0:{D}] : ({WS}) -> tensor<1x{D}x{D}xf32>")
        lines.append(f"  %w{k} = kiln.reshape %ws{k} : (tensor<1x{D}x{D}xf32>) -> {W}")
        call = (f"kiln.checkpoint @block(%w{k}, {h}) {{policy = #kiln<remat_policy {policy}>}}"
                if policy else f"call @block(%w{k}, {h})")
        lines.append(f"  %h{k} = {call} : ({W}, {H}) -> {H}")
        h = f"%h{k}"
    lines += [f"  %sq = kiln.mul {h}, {h} : {H}",
              f"  %l = kiln.reduce_sum %sq, dims = [0, 1] : ({H}) -> tensor<f32>",
              "  return %l : tensor<f32>", "}",
              f"func.func @grad_{name}(%w: {WS}, %x: {H}) -> {WS} {{",
              f"  %g = kiln.grad @loss_{name}(%w, %x) : ({WS}, {H}) -> {WS}",
              f"  return %g : {WS}", "}"]
    return "\n".join(lines) + "\n"


BLOCK = f"""
func.func private @block(%w: {W}, %h: {H}) -> {H} {{
  %a = kiln.dot_general %h, %w, contracting = [1] x [0] : ({H}, {W}) -> {H}
  %t = kiln.tanh %a : {H}
  %b = kiln.dot_general %t, %w, contracting = [1] x [0] : ({H}, {W}) -> {H}
  %u = kiln.tanh %b : {H}
  %r = kiln.add %u, %h : {H}
  return %r : {H}
}}
"""
# One program per entry, as kiln-run compiles only what its entry reaches:
# the report then describes the program that runs (which functions are
# inlined depends on how many places call them).
mlp_args = [(rng.standard_normal((BLOCKS, D, D)) * 0.05).astype(np.float32),
            rng.standard_normal((N, D)).astype(np.float32)]
plain, _ = peaks("16-block MLP gradient", BLOCK + mlp(None), "grad_plain",
                 mlp_args)
remat, _ = peaks("16-block MLP gradient, nothing_saveable",
                 BLOCK + mlp("nothing_saveable"), "grad_nothing_saveable",
                 mlp_args)
dots, _ = peaks("16-block MLP gradient, dots_saveable",
                BLOCK + mlp("dots_saveable"), "grad_dots_saveable", mlp_args)
# Without remat each block keeps for the backward pass its input, both
# tanh's and their derivatives; with dots_saveable its input and both
# dots; with nothing_saveable its input only.
if not plain > dots > remat or plain < 2 * remat:
    fail(f"peaks: plain {plain}, dots_saveable {dots}, nothing_saveable "
         f"{remat}: nothing_saveable is not 2x below plain")
got = [run(BLOCK + mlp(policy), f"grad_{policy or 'plain'}", mlp_args)[0]
       for policy in [None, "nothing_saveable"]]
if got[0] is None or got[1] is None or not np.allclose(got[0][0], got[1][0],
                                                       rtol=1e-5, atol=1e-5):
    fail("the remat MLP's gradient differs from the plain one")

# Gradient accumulation (the demo's scripts/demo/accumulate.mlir): a
# hidden layer of 512 over 16 micro-batches of 4 against the batch of 64.
M, K, F, HID = 16, 4, 8, 512
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "scripts", "demo", "accumulate.mlir")) as f:
    ACCUMULATE = f.read()
w, v = rng.standard_normal((F, HID)) * 0.2, rng.standard_normal(HID) * 0.1
bx, by = rng.standard_normal((M * K, F)), rng.standard_normal(M * K)
micro_args = [w, v, bx.reshape(M, K, F), by.reshape(M, K)]
full_args = [w, v, bx, by]
tw = torch.tensor(w, requires_grad=True)
tv = torch.tensor(v, requires_grad=True)
((torch.tanh(torch.tensor(bx) @ tw) @ tv - torch.tensor(by)) ** 2).sum().backward()
for entry, args in [("accumulated", micro_args), ("full", full_args)]:
    results, output, status = run(ACCUMULATE, entry, args)
    if status != 0:
        fail(f"{entry} gradient: kiln-run failed:\n{output}")
        continue
    for got, want in zip(results, [tw.grad.numpy(), tv.grad.numpy()]):
        error = np.max(np.abs(got - want)) / np.max(np.abs(want))
        if not error <= 1e-10:
            fail(f"{entry} gradient: relative error {error:.3g}")
accumulated, _ = peaks("gradient accumulated over 16 micro-batches of 4",
                       ACCUMULATE, "accumulated", micro_args)
full, _ = peaks("gradient of the batch of 64", ACCUMULATE, "full", full_args)
if accumulated and full <= accumulated:
    fail(f"accumulation's peak {accumulated} is not below the full batch's "
         f"{full}")
finish()
