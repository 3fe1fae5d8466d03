"""Everyday ops outside products and normalizations against PyTorch eager
(one thread): gathers (an embedding's rows), reductions over the whole
tensor and over other dimension sets (a batch norm's N, H, W of NCHW,
global pooling, column sums, a bias gradient), the same fed by an
elementwise op (a gradient's norm, max(|x|)), argmax, and data movement
(transposes, concatenation, padding, reversal, a conversion to bf16, a
broadcast along columns) and math that has no f32 polynomial (f64 exp,
tanh, sin, log and atan2, f32 pow, float rem), at odd sizes as well as round
ones. Each case is timed with kiln-run --bench (median of N calls)
against the median of N torch calls on the same arrays; prints the CPU
and one row per case with the ratio torch/kiln (100% = as fast as
PyTorch) and the geometric mean.

Usage: op_spread.py KILN_RUN [N]   (default 30)
"""
import tempfile

import numpy as np
import torch

from dot_spread import (kiln_ms, median_ms, print_torch_geometric_mean,
                        relative_error, set_torch_threads,
                        torch_spread_arguments)
from dot_spread import ttype as t

set_torch_threads(1)



def element_of(array):
    return {np.float32: "f32", np.float64: "f64",
            np.int32: "i32"}[array.dtype.type]


def program(args, result, body):
    """kiln: @f over %a0, %a1, ... (typed after `args`) returning %y of
    type `result`, computed by the lines `body`."""
    params = ", ".join(f"%a{i}: {t(a.shape, element_of(a))}"
                       for i, a in enumerate(args))
    lines = "".join(f"  {line}\n" for line in body)
    return (f"func.func @f({params}) -> {result} {{\n{lines}"
            f"  return %y : {result}\n}}\n")


def reduction(op, array, dims, reference):
    """A case: kiln.`op` of `array` over `dims`, against `reference`."""
    element = element_of(array)
    kept = [d for i, d in enumerate(array.shape) if i not in dims]
    result = t(kept, element)
    body = [f"%y = kiln.{op} %a0, dims = {dims} : "
            f"({t(array.shape, element)}) -> {result}"]
    name = f"{op} {'x'.join(map(str, array.shape))} {element} over {dims}"
    return name, program([array], result, body), [array], reference


def fed_reduction(name, op, elementwise, array, reference):
    """A case: kiln.`op` over all of `elementwise` (a line computing %e
    from %a0)."""
    shape = t(array.shape)
    dims = list(range(array.ndim))
    body = [elementwise.format(shape=shape),
            f"%y = kiln.{op} %e, dims = {dims} : ({shape}) -> tensor<f32>"]
    return name, program([array], "tensor<f32>", body), [array], reference


def unary(name, array, line, result, reference):
    """A case: %y computed from %a0 by `line` ({x} and {y}: their types)."""
    body = [line.format(x=t(array.shape, element_of(array)), y=result)]
    return name, program([array], result, body), [array], reference


def cases(rng):
    def normal(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def ints(*shape):
        return rng.integers(-100, 100, shape).astype(np.int32)

    table, rows = normal(32000, 512), rng.integers(0, 32000, 2048)
    odd_table, odd_rows = normal(5001, 300), rng.integers(0, 5001, 777)
    for tab, ids in [(table, rows), (odd_table, odd_rows)]:
        ids = ids.astype(np.int32)
        out = t((ids.size, tab.shape[1]))
        yield (f"take {ids.size} rows of {tab.shape[0]}x{tab.shape[1]}",
               program([tab, ids], out, [
                   f"%y = kiln.take %a0[%a1], dim = 0 : ({t(tab.shape)}, "
                   f"{t(ids.shape, 'i32')}) -> {out}"]),
               [tab, ids], lambda a, i: a[i.long()])
    columns = rng.integers(0, 1000, 97).astype(np.int32)
    x = normal(512, 1000)
    yield ("take 97 columns of 512x1000",
           program([x, columns], t((512, 97)), [
               f"%y = kiln.take %a0[%a1], dim = 1 : ({t(x.shape)}, "
               f"{t(columns.shape, 'i32')}) -> {t((512, 97))}"]),
           [x, columns], lambda a, i: a[:, i.long()])

    def whole(a, op):
        return getattr(a, op)()
    for array in (normal(2048, 2048), normal(1000003), normal(7, 142858),
                  normal(300, 7, 50)):
        for op, peer in (("reduce_max", "max"), ("reduce_min", "min"),
                         ("reduce_sum", "sum")):
            yield reduction(op, array, list(range(array.ndim)),
                            lambda a, peer=peer: whole(a, peer))
    for array in (ints(2048, 2048), ints(1000003)):
        yield reduction("reduce_sum", array, list(range(array.ndim)),
                        lambda a: a.sum(dtype=torch.int32))
    nchw = normal(32, 64, 56, 56)
    yield reduction("reduce_sum", nchw, [0, 2, 3], lambda a: a.sum((0, 2, 3)))
    yield reduction("reduce_max", nchw, [2, 3], lambda a: a.amax((2, 3)))
    nhwc = normal(32, 7, 7, 2048)
    yield reduction("reduce_sum", nhwc, [1, 2], lambda a: a.sum((1, 2)))
    yield reduction("reduce_sum", normal(4096, 1024), [0],
                    lambda a: a.sum(0))
    yield reduction("reduce_max", normal(4099, 257), [0],
                    lambda a: a.amax(0))
    yield reduction("reduce_sum", normal(64, 128, 768), [0, 1],
                    lambda a: a.sum((0, 1)))
    yield reduction("reduce_sum", normal(8, 512, 1024), [1],
                    lambda a: a.sum(1))
    yield reduction("reduce_sum", normal(300, 400, 50), [1],
                    lambda a: a.sum(1))
    yield reduction("reduce_sum", ints(1024, 4096), [1],
                    lambda a: a.sum(1, dtype=torch.int32))
    for array in (normal(2048, 2048), normal(1000, 1537)):
        size = "x".join(map(str, array.shape))
        yield fed_reduction(f"max(|x|) of {size}", "reduce_max",
                            "%e = kiln.abs %a0 : {shape}", array,
                            lambda a: a.abs().max())
        yield fed_reduction(f"sum(x * x) of {size}", "reduce_sum",
                            "%e = kiln.mul %a0, %a0 : {shape}", array,
                            lambda a: (a * a).sum())
    for shape, dim in (((512, 1000), 1), ((1000, 512), 0), ((77, 50257), 1)):
        x = normal(*shape)
        kept = t([d for i, d in enumerate(shape) if i != dim], "i32")
        yield unary(f"argmax {'x'.join(map(str, shape))} dim {dim}", x,
                    f"%y = kiln.argmax %a0, dim = {dim} : ({{x}}) -> {{y}}",
                    kept, lambda a, dim=dim: a.argmax(dim).int())
    for shape in ((2048, 2048), (1000, 1537)):
        x = normal(*shape)
        flipped = t(shape[::-1])
        yield unary(f"transpose {'x'.join(map(str, shape))}", x,
                    "%y = kiln.transpose %a0, permutation = [1, 0] : "
                    "({x}) -> {y}", flipped, lambda a: a.t().contiguous())
    x = normal(8, 128, 12, 64)
    yield unary("transpose 8x128x12x64 to heads", x,
                "%y = kiln.transpose %a0, permutation = [0, 2, 1, 3] : "
                "({x}) -> {y}", t((8, 12, 128, 64)),
                lambda a: a.permute(0, 2, 1, 3).contiguous())
    a, b = normal(1024, 512), normal(1024, 509)
    yield ("concatenate 1024x512 and 1024x509 along columns",
           program([a, b], t((1024, 1021)), [
               f"%y = kiln.concatenate %a0, %a1, dim = 1 : ({t(a.shape)}, "
               f"{t(b.shape)}) -> {t((1024, 1021))}"]),
           [a, b], lambda a, b: torch.cat([a, b], 1))
    x, v = normal(1024, 1024), normal(1024)
    yield ("1024x1024 plus a column vector",
           program([x, v], t(x.shape), [
               f"%b = kiln.broadcast_in_dim %a1, dims = [0] : ({t(v.shape)}) "
               f"-> {t(x.shape)}",
               f"%y = kiln.add %a0, %b : {t(x.shape)}"]),
           [x, v], lambda a, v: a + v[:, None])
    x = normal(1023, 1025)
    yield unary("pad 1023x1025 by 1", x,
                "%z = kiln.constant dense<0.0> : tensor<f32>\n"
                "  %y = kiln.pad %a0, %z, low = [1, 1], high = [1, 1], "
                "interior = [0, 0] : ({x}, tensor<f32>) -> {y}",
                t((1025, 1027)),
                lambda a: torch.nn.functional.pad(a, (1, 1, 1, 1)))
    x = normal(2048, 2048)
    yield unary("reverse 2048x2048 along rows", x,
                "%y = kiln.reverse %a0, dims = [1] : {x}", t(x.shape),
                lambda a: a.flip(1))
    yield unary("convert 2048x2048 f32 to bf16", x,
                "%y = kiln.convert %a0 : ({x}) -> {y}", t(x.shape, "bf16"),
                lambda a: a.bfloat16())
    x = normal(1000, 999).astype(np.float64)
    yield unary("exp 1000x999 f64", x, "%y = kiln.exp %a0 : {x}",
                t(x.shape, "f64"), torch.exp)
    for op, peer in (("tanh", torch.tanh), ("sin", torch.sin)):
        yield unary(f"{op} 1000x999 f64", x, f"%y = kiln.{op} %a0 : {{x}}",
                    t(x.shape, "f64"), peer)
    x = np.abs(x) + 1e-3
    yield unary("log 1000x999 f64", x, "%y = kiln.log %a0 : {x}",
                t(x.shape, "f64"), torch.log)
    x, y = (normal(1000, 999).astype(np.float64) for _ in range(2))
    yield ("atan2 1000x999 f64", program([x, y], t(x.shape, "f64"), [
        f"%y = kiln.atan2 %a0, %a1 : {t(x.shape, 'f64')}"]), [x, y],
        torch.atan2)
    x, y = np.abs(normal(1000, 999)) + 0.1, normal(1000, 999)
    yield ("pow 1000x999 f32", program([x, y], t(x.shape), [
        f"%y = kiln.pow %a0, %a1 : {t(x.shape)}"]), [x, y], torch.pow)
    x = 100 * normal(1000, 999)
    yield ("rem 1000x999 f32", program([x, y], t(x.shape), [
        f"%y = kiln.rem %a0, %a1 : {t(x.shape)}"]), [x, y], torch.fmod)


def main():
    kiln_run, runs = torch_spread_arguments(30)
    rng = np.random.default_rng(0)
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, source, args, reference in cases(rng):
            kiln, got = kiln_ms(kiln_run, tmp, source, args, runs)
            tensors = [torch.from_numpy(a) for a in args]
            want = reference(*tensors)
            peer = median_ms(lambda: reference(*tensors), runs)
            error = relative_error(np.asarray(got, np.float64),
                                   want.double().numpy())
            ratios.append(peer / kiln)
            print(f"{name:48s} kiln {kiln:8.4f} ms | torch {peer:8.4f} ms | "
                  f"torch/kiln {100 * peer / kiln:6.1f}% | rel. error "
                  f"{error:.1e}", flush=True)
    print_torch_geometric_mean(ratios)


if __name__ == "__main__":
    main()
