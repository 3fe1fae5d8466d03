"""One SGD training step of an MLP classifier (256 x 784 -> 512 -> 10,
ReLU, softmax cross-entropy), Kiln against PyTorch eager, on 1 and on 2
threads each, side by side in one run. Kiln's step is a kiln program
whose gradient comes from kiln.value_and_grad (expanded at compile time)
and which returns the updated parameters; PyTorch's is forward, backward
and torch.optim.SGD. Both start from the same parameters and batch, and
the script checks that they give the same loss and updated parameters
before timing (kiln-run --bench: median of N calls; PyTorch: median of N
steps). Prints the CPU and the ratio torch/kiln (100% = as fast as
PyTorch; the issue's target is 130% on one thread).

Usage: mlp_step.py KILN_RUN [N]   (default 30)
"""
import os
import sys
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402
import torch  # noqa: E402

from dot_spread import cpu_name, kiln_ms, median_ms, set_torch_threads, ttype  # noqa: E402

B, D, H, C = 256, 784, 512, 10
LR = 0.05


def program(data_devices=None, B=B):
    """The step on a batch of B; with `data_devices`, data parallel over a
    mesh of that many devices (the batch split, the parameters whole on
    each)."""
    w1, b1, w2, b2 = ttype((D, H)), ttype((H,)), ttype((H, C)), ttype((C,))
    mesh, split = "", ""
    if data_devices:
        mesh = f'kiln.mesh @mesh ["data"={data_devices}]\n'
        split = ' {kiln.sharding = #kiln.sharding<@mesh, [{"data"}, {}]>}'
    x, y, bh, bc = ttype((B, D)), ttype((B, C)), ttype((B, H)), ttype((B, C))
    rows, scalar = ttype((B,)), ttype(())
    params = f"{w1}, {b1}, {w2}, {b2}"
    return mesh + f"""
func.func private @loss(%w1: {w1}, %b1: {b1}, %w2: {w2}, %b2: {b2},
                        %x: {x}, %y: {y}) -> {scalar} {{
  %h = kiln.dot_general %x, %w1, contracting = [1] x [0] : ({x}, {w1}) -> {bh}
  %c1 = kiln.broadcast_in_dim %b1, dims = [1] : ({b1}) -> {bh}
  %a = kiln.add %h, %c1 : {bh}
  %zero = kiln.constant dense<0.0> : {bh}
  %r = kiln.max %a, %zero : {bh}
  %o = kiln.dot_general %r, %w2, contracting = [1] x [0] : ({bh}, {w2}) -> {bc}
  %c2 = kiln.broadcast_in_dim %b2, dims = [1] : ({b2}) -> {bc}
  %s = kiln.add %o, %c2 : {bc}
  %m = kiln.reduce_max %s, dims = [1] : ({bc}) -> {rows}
  %mb = kiln.broadcast_in_dim %m, dims = [0] : ({rows}) -> {bc}
  %z = kiln.sub %s, %mb : {bc}
  %e = kiln.exp %z : {bc}
  %se = kiln.reduce_sum %e, dims = [1] : ({bc}) -> {rows}
  %lse = kiln.log %se : {rows}
  %lb = kiln.broadcast_in_dim %lse, dims = [0] : ({rows}) -> {bc}
  %logp = kiln.sub %z, %lb : {bc}
  %yl = kiln.mul %y, %logp : {bc}
  %total = kiln.reduce_sum %yl, dims = [0, 1] : ({bc}) -> {scalar}
  %n = kiln.constant dense<{-float(B)}> : {scalar}
  %l = kiln.div %total, %n : {scalar}
  return %l : {scalar}
}}

func.func @train_step(%w1: {w1}, %b1: {b1}, %w2: {w2}, %b2: {b2},
                      %x: {x}{split}, %y: {y}{split})
    -> ({params}, {scalar}) {{
  %l, %g1, %gb1, %g2, %gb2 = kiln.value_and_grad @loss(%w1, %b1, %w2, %b2, %x, %y)
      {{argnums = array<i64: 0, 1, 2, 3>}}
      : ({params}, {x}, {y}) -> ({scalar}, {params})
{update("w1", "g1", w1)}{update("b1", "gb1", b1)}{update("w2", "g2", w2)}{update("b2", "gb2", b2)}
  return %nw1, %nb1, %nw2, %nb2, %l : {params}, {scalar}
}}
"""


def update(param, grad, t):
    """kiln: %n<param> = %<param> - LR * %<grad>."""
    return (f"  %lr_{param} = kiln.constant dense<{LR}> : {t}\n"
            f"  %s_{param} = kiln.mul %{grad}, %lr_{param} : {t}\n"
            f"  %n{param} = kiln.sub %{param}, %s_{param} : {t}\n")


def torch_step(model, optimizer, x, labels):
    optimizer.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(x), labels)
    loss.backward()
    optimizer.step()
    return loss


def step_arguments(B=B):
    """Parameters and a batch of B from a fixed seed: (w1, b1, w2, b2, x,
    one-hot y), and the labels."""
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((D, H)) / np.sqrt(D)).astype(np.float32)
    b1 = np.zeros(H, np.float32)
    w2 = (rng.standard_normal((H, C)) / np.sqrt(H)).astype(np.float32)
    b2 = np.zeros(C, np.float32)
    x = rng.standard_normal((B, D)).astype(np.float32)
    labels = rng.integers(0, C, B)
    y = np.eye(C, dtype=np.float32)[labels]
    return [w1, b1, w2, b2, x, y], labels


def main():
    kiln_run = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    (w1, b1, w2, b2, x, y), labels = step_arguments()

    model = torch.nn.Sequential(torch.nn.Linear(D, H), torch.nn.ReLU(),
                                torch.nn.Linear(H, C))
    with torch.no_grad():
        model[0].weight.copy_(torch.from_numpy(w1.T))
        model[0].bias.copy_(torch.from_numpy(b1))
        model[2].weight.copy_(torch.from_numpy(w2.T))
        model[2].bias.copy_(torch.from_numpy(b2))
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    tx, tl = torch.from_numpy(x), torch.from_numpy(labels)

    print(cpu_name())
    print(f"median of {runs} steps; PyTorch {torch.__version__} eager")
    source = program()
    with tempfile.TemporaryDirectory() as tmp:
        for threads in (1, 2):
            kiln, new_w1 = kiln_ms(kiln_run, tmp, source,
                                   [w1, b1, w2, b2, x, y], runs, threads)
            if threads == 1:
                # PyTorch's first step from the same parameters is the
                # reference for Kiln's updated first layer.
                torch_step(model, optimizer, tx, tl)
                want = model[0].weight.detach().numpy().T
                error = np.max(np.abs(new_w1 - want)) / np.max(np.abs(want))
                if error > 1e-4:
                    sys.exit(f"Kiln's updated w1 is off by {error:.1e}")
            set_torch_threads(threads)
            peer = median_ms(lambda: torch_step(model, optimizer, tx, tl), runs)
            print(f"{threads} thread(s): kiln {kiln:7.3f} ms | torch "
                  f"{peer:7.3f} ms | torch/kiln {100 * peer / kiln:6.1f}%")


if __name__ == "__main__":
    main()
