# kiln.vmap of every primitive op, for every placement of each operand's
# batch dimension (not batched, or any axis from 0 to its rank) with every
# placement of each other operand's (at least one operand batched), with
# batch sizes 1 and 7, against the reference a
# JAX user would write by hand: the unbatched function called on each slice
# and the results stacked (an unrolled loop of calls, written here without
# vmap).
# RUN: %numpy_python %s kiln-run
# (vmap.py KILN_RUN NAME... runs the named cases only.)
import itertools
import sys

import numpy as np

from harness import check_pairs, finish, ttype

rng = np.random.default_rng(11)
SIZES = [1, 7]
ONLY = sys.argv[2:]


def value(shape, dtype):
    """Random data of a dtype: floats away from 0 (for log, div, ...)."""
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-3, 4, shape).astype(dtype)
    return (rng.uniform(0.5, 2.0, shape) * rng.choice([-1, 1], shape)).astype(dtype)


def positive(shape, dtype):
    return rng.uniform(0.5, 2.0, shape).astype(dtype)


class Operand:
    def __init__(self, shape, dtype=np.float64, make=value):
        self.shape, self.dtype, self.make = tuple(shape), dtype, make

    @property
    def type(self):
        return ttype(self.shape, self.dtype)


def batched_shape(shape, axis, size):
    return shape[:axis] + (size,) + shape[axis:]


def program(body, operands, result, combos):
    """@f from `body`; for each (in_axes, size) of `combos`, the vmap of @f
    and the unrolled loop over slices, all results of one entry @all."""
    params = ", ".join(f"%a{i}: {o.type}" for i, o in enumerate(operands))
    lines = [f"func.func private @f({params}) -> {result.type} {{", body,
             f"  return %r : {result.type}", "}"]
    args, results, rets, body_lines = [], [], [], []
    for k, (axes, size) in enumerate(combos):
        names, types = [], []
        for i, (o, axis) in enumerate(zip(operands, axes)):
            shape = o.shape if axis == -1 else batched_shape(o.shape, axis, size)
            names.append(f"%c{k}_{i}")
            types.append(ttype(shape, o.dtype))
            args.append(f"%c{k}_{i}: {types[-1]}")
        out = ttype((size,) + result.shape, result.dtype)
        axes_text = ", ".join(str(a) for a in axes)
        body_lines.append(
            f"  %v{k} = kiln.vmap @f({', '.join(names)}) {{in_axes = "
            f"array<i64: {axes_text}>, out_axes = array<i64: 0>}} : "
            f"({', '.join(types)}) -> {out}")
        slices = []
        for s in range(size):
            operands_s = []
            for i, (o, axis) in enumerate(zip(operands, axes)):
                if axis == -1:
                    operands_s.append(names[i])
                    continue
                full = batched_shape(o.shape, axis, size)
                ranges = ", ".join(
                    f"{s}:{s + 1}" if d == axis else f"0:{n}"
                    for d, n in enumerate(full))
                one = ttype(batched_shape(o.shape, axis, 1), o.dtype)
                body_lines.append(f"  %s{k}_{s}_{i} = kiln.slice {names[i]} "
                                  f"[{ranges}] : ({types[i]}) -> {one}")
                body_lines.append(f"  %u{k}_{s}_{i} = kiln.reshape "
                                  f"%s{k}_{s}_{i} : ({one}) -> {o.type}")
                operands_s.append(f"%u{k}_{s}_{i}")
            body_lines.append(
                f"  %y{k}_{s} = call @f({', '.join(operands_s)}) : "
                f"({', '.join(o.type for o in operands)}) -> {result.type}")
            one = ttype((1,) + result.shape, result.dtype)
            body_lines.append(f"  %w{k}_{s} = kiln.reshape %y{k}_{s} : "
                              f"({result.type}) -> {one}")
            slices.append(f"%w{k}_{s}")
        if size == 1:
            body_lines.append(f"  %l{k} = kiln.reshape {slices[0]} : "
                              f"({one}) -> {out}")
        else:
            body_lines.append(
                f"  %l{k} = kiln.concatenate {', '.join(slices)}, dim = 0 : "
                f"({', '.join([one] * size)}) -> {out}")
        results += [out, out]
        rets += [f"%v{k}", f"%l{k}"]
    lines.append(f"func.func @all({', '.join(args)}) -> ({', '.join(results)}) {{")
    lines += body_lines
    lines.append(f"  return {', '.join(rets)} : {', '.join(results)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def placements(operands):
    """Batch axes for the operands: every placement of each operand's batch
    dimension (none, or 0 to its rank) alongside every placement of each
    other operand's (all pairs; all combinations for two operands), with
    at least one operand batched."""
    choices = [[-1] + list(range(len(o.shape) + 1)) for o in operands]
    candidates = [axes for axes in itertools.product(*choices)
                  if any(a != -1 for a in axes)]

    def pairs(axes):
        return {(i, a, j, b) for i, a in enumerate(axes)
                for j, b in enumerate(axes) if i < j} | \
            {(i, a, i, a) for i, a in enumerate(axes)}

    uncovered = set().union(*(pairs(axes) for axes in candidates))
    chosen = []
    while uncovered:
        best = max(candidates, key=lambda axes: len(pairs(axes) & uncovered))
        chosen.append(best)
        uncovered -= pairs(best)
    return chosen


def case(name, body, operands, result):
    """Checks vmap of `body` for the placements of the batch dimensions."""
    if ONLY and name not in ONLY:
        return
    combos = [(axes, size) for axes in placements(operands) for size in SIZES]
    args = []
    for axes, size in combos:
        for o, axis in zip(operands, axes):
            shape = o.shape if axis == -1 else batched_shape(o.shape, axis, size)
            args.append(o.make(shape, o.dtype))
    source = program(body, operands, result, combos)
    tolerance = 1e-12 if np.dtype(result.dtype).kind == "f" else 0.0
    check_pairs(name, source, "all", args, rtol=tolerance, atol=tolerance)


F = np.float64
m23, m32, v3 = Operand((2, 3)), Operand((3, 2)), Operand((3,))
s = Operand(())
bools = Operand((2, 3), np.bool_)
ints = Operand((2, 3), np.int32)

for op in ["neg", "abs", "sign", "exp", "expm1", "tanh", "logistic", "sin",
           "cos", "floor", "ceil", "stop_gradient"]:
    case(op, f"  %r = kiln.{op} %a0 : {m23.type}", [m23], m23)
for op in ["log", "log1p", "sqrt", "rsqrt"]:
    case(op, f"  %r = kiln.{op} %a0 : {m23.type}",
         [Operand((2, 3), F, positive)], m23)
case("not", f"  %r = kiln.not %a0 : {bools.type}", [bools], bools)
for op in ["add", "sub", "mul", "div", "rem", "max", "min", "atan2"]:
    case(op, f"  %r = kiln.{op} %a0, %a1 : {m23.type}", [m23, m23], m23)
case("pow", f"  %r = kiln.pow %a0, %a1 : {m23.type}",
     [Operand((2, 3), F, positive), m23], m23)
for op in ["and", "or", "xor"]:
    case(op, f"  %r = kiln.{op} %a0, %a1 : {bools.type}", [bools, bools], bools)
case("compare", f"  %r = kiln.compare LT, %a0, %a1 : {m23.type}", [m23, m23],
     bools)
case("select", f"  %r = kiln.select %a0, %a1, %a2 : {bools.type}, {m23.type}",
     [bools, m23, m23], m23)
case("select on a scalar", f"  %r = kiln.select %a0, %a1, %a2 : "
     f"tensor<i1>, {m23.type}", [Operand((), np.bool_), m23, m23], m23)
case("convert", f"  %r = kiln.convert %a0 : ({m23.type}) -> {ints.type}",
     [m23], ints)

case("broadcast_in_dim", f"  %r = kiln.broadcast_in_dim %a0, dims = [1] : "
     "(tensor<3xf64>) -> tensor<2x3x4xf64>", [v3], Operand((2, 3, 4)))
case("reshape", f"  %r = kiln.reshape %a0 : ({m23.type}) -> tensor<3x2xf64>",
     [m23], m32)
case("transpose", "  %r = kiln.transpose %a0, permutation = [2, 0, 1] : "
     "(tensor<2x3x4xf64>) -> tensor<4x2x3xf64>", [Operand((2, 3, 4))],
     Operand((4, 2, 3)))
case("slice", "  %r = kiln.slice %a0 [0:2, 1:5:2] : (tensor<3x5xf64>) -> "
     "tensor<2x2xf64>", [Operand((3, 5))], Operand((2, 2)))
case("reverse", f"  %r = kiln.reverse %a0, dims = [1] : {m23.type}", [m23],
     m23)
case("pad", "  %r = kiln.pad %a0, %a1, low = [1, -1], high = [0, 2], "
     "interior = [1, 0] : (tensor<2x3xf64>, tensor<f64>) -> tensor<4x4xf64>",
     [m23, s], Operand((4, 4)))
case("concatenate", "  %r = kiln.concatenate %a0, %a1, dim = 1 : "
     "(tensor<2x3xf64>, tensor<2x1xf64>) -> tensor<2x4xf64>",
     [m23, Operand((2, 1))], Operand((2, 4)))
index = Operand((), np.int32)
case("dynamic_slice", "  %r = kiln.dynamic_slice %a0 [%a1, %a2], sizes = "
     "[2, 2] : (tensor<3x4xf64>, tensor<i32>, tensor<i32>) -> tensor<2x2xf64>",
     [Operand((3, 4)), index, index], Operand((2, 2)))
case("dynamic_update_slice", "  %r = kiln.dynamic_update_slice %a0, %a1 "
     "[%a2, %a3] : (tensor<3x4xf64>, tensor<2x2xf64>, tensor<i32>, "
     "tensor<i32>) -> tensor<3x4xf64>",
     [Operand((3, 4)), Operand((2, 2)), index, index], Operand((3, 4)))
case("dynamic_update_slice of booleans", "  %r = kiln.dynamic_update_slice "
     "%a0, %a1 [%a2] : (tensor<5xi1>, tensor<2xi1>, tensor<i32>) -> "
     "tensor<5xi1>", [Operand((5,), np.bool_), Operand((2,), np.bool_), index],
     Operand((5,), np.bool_))

case("dot_general", "  %r = kiln.dot_general %a0, %a1, batching = [0] x [1], "
     "contracting = [2] x [0] : (tensor<2x3x4xf64>, tensor<4x2x5xf64>) -> "
     "tensor<2x3x5xf64>", [Operand((2, 3, 4)), Operand((4, 2, 5))],
     Operand((2, 3, 5)))
case("matrix-vector dot", "  %r = kiln.dot_general %a0, %a1, contracting = "
     "[1] x [0] : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2xf64>",
     [m23, v3], Operand((2,)))
for op in ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min"]:
    case(op, f"  %r = kiln.{op} %a0, dims = [2, 0] : (tensor<2x3x4xf64>) -> "
         "tensor<3xf64>", [Operand((2, 3, 4))], v3)
case("argmax", f"  %r = kiln.argmax %a0, dim = 1 : ({m23.type}) -> "
     "tensor<2xi32>", [m23], Operand((2,), np.int32))
ids = Operand((2,), np.int32, lambda shape, dtype:
              rng.integers(-1, 5, shape).astype(dtype))
case("take", "  %r = kiln.take %a0[%a1], dim = 1 : (tensor<3x4xf64>, "
     "tensor<2xi32>) -> tensor<3x2xf64>", [Operand((3, 4)), ids],
     Operand((3, 2)))
case("scatter_add", "  %r = kiln.scatter_add %a0[%a1], %a2, dim = 1 : "
     "(tensor<3x4xf64>, tensor<2xi32>, tensor<3x2xf64>) -> tensor<3x4xf64>",
     [Operand((3, 4)), ids, Operand((3, 2))], Operand((3, 4)))

# Control flow and calls.
case("cond", f"""  %r = kiln.cond %a0 -> ({m23.type}) {{
    %e = kiln.exp %a1 : {m23.type}
    kiln.yield %e : {m23.type}
  }} else {{
    %m = kiln.mul %a1, %a2 : {m23.type}
    kiln.yield %m : {m23.type}
  }}""", [Operand((), np.bool_), m23, m23], m23)
case("while", f"""  %zero = kiln.constant dense<0> : tensor<i32>
  %one = kiln.constant dense<1> : tensor<i32>
  %w:2 = kiln.while (%zero, %a0) : tensor<i32>, {v3.type} cond {{
  ^bb0(%i: tensor<i32>, %v: {v3.type}):
    %p = kiln.compare LT, %i, %a1 : tensor<i32>
    kiln.yield %p : tensor<i1>
  }} do {{
  ^bb0(%i: tensor<i32>, %v: {v3.type}):
    %j = kiln.add %i, %one : tensor<i32>
    %s = kiln.sin %v : {v3.type}
    %u = kiln.add %s, %v : {v3.type}
    kiln.yield %j, %u : tensor<i32>, {v3.type}
  }}
  %r = kiln.add %w#1, %a0 : {v3.type}""",
     [v3, Operand((), np.int32, lambda shape, dtype:
                  rng.integers(0, 5, shape).astype(dtype))], v3)
case("call", f"""  %t = kiln.tanh %a0 : {m23.type}
  %r = call @helper(%t, %a1) : ({m23.type}, {m23.type}) -> {m23.type}
  return %r : {m23.type}
}}
func.func private @helper(%x: {m23.type}, %y: {m23.type}) -> {m23.type} {{
  %r = kiln.mul %x, %y : {m23.type}""", [m23, m23], m23)

finish()
