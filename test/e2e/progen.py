"""A generator of random well-typed kiln programs with an independent numpy
reference: every op is emitted as kiln text and computed in numpy beside it,
with a bound on the reference's absolute error that follows the data (so
that results are compared as tightly as their conditioning allows).

Values are f32, f64, bf16 (held as float32 rounded to bf16), i8, i16, i32,
i64 and i1
tensors of rank 0 to 5 with size-0, size-1 and odd dimensions. Ops whose
result jumps (floor, compare, argmax, float-to-int conversion) only take
values that are exact in both Kiln and numpy.

`program(seed)` returns the text, the inputs and the expected outputs with
their error bounds; `check(kiln_run, seed)` runs one. test/e2e/generated.py
runs a fixed set of seeds, scripts/fuzz.py as many as you like.
"""
import os
import subprocess
import tempfile

import numpy as np

FLOATS = ("f32", "f64", "bf16")
INTS = ("i8", "i16", "i32", "i64")
EPS = {"f32": 2.0**-23, "f64": 2.0**-52, "bf16": 2.0**-8}
NP = {"f32": np.float32, "f64": np.float64, "bf16": np.float32,
      "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "i1": np.bool_}
DIMS = (0, 1, 1, 2, 3, 3, 5, 7, 17)
MAX_ELEMENTS = 600


def to_bf16(x):
    """float32 values rounded to bf16 (nearest even), as float32."""
    x = np.asarray(x, np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    half, one, shift = np.uint64(0x7FFF), np.uint64(1), np.uint64(16)
    rounded = (bits + half + ((bits >> shift) & one)) >> shift << shift
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, out).astype(np.float32)


def ttype(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


class Value:
    """A value of the program: its name, dtype, numpy reference, the bound
    on the reference's absolute error, and whether it is exact."""

    def __init__(self, name, dtype, ref, err=0.0, exact=True):
        self.name, self.dtype = name, dtype
        self.ref = np.asarray(ref, NP[dtype])
        if dtype == "bf16":
            self.ref = to_bf16(self.ref)
        self.err, self.exact = float(err), exact

    @property
    def shape(self):
        return self.ref.shape

    @property
    def type(self):
        return ttype(self.shape, self.dtype)

    def magnitude(self):
        if self.ref.size == 0 or self.dtype == "i1":
            return 0.0
        return float(np.max(np.abs(self.ref.astype(np.float64))))


class Program:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.lines, self.args, self.inputs, self.values = [], [], [], []

    # -- values ------------------------------------------------------------
    def shape(self, rank=None):
        rank = self.rng.integers(0, 6) if rank is None else rank
        while True:
            shape = tuple(int(self.rng.choice(DIMS)) for _ in range(rank))
            if np.prod(shape, dtype=np.int64) <= MAX_ELEMENTS:
                return shape

    def random_array(self, shape, dtype):
        if dtype in FLOATS:
            return self.rng.uniform(-2, 2, shape).astype(NP[dtype])
        if dtype == "i1":
            return self.rng.integers(0, 2, shape).astype(np.bool_)
        return self.rng.integers(-20, 20, shape).astype(NP[dtype])

    def argument(self, shape, dtype):
        name = f"%a{len(self.args)}"
        value = Value(name, dtype, self.random_array(shape, dtype))
        self.args.append(value)
        self.inputs.append(value.ref)
        self.values.append(value)
        return value

    def emit(self, text, types, dtype, ref, err=0.0, exact=False):
        """Appends `%vN = text : types` computing `ref` (of `dtype`)."""
        name = f"%v{len(self.lines)}"
        value = Value(name, dtype, ref, err, exact)
        self.lines.append(f"  {name} = {text} : {types}")
        self.values.append(value)
        return value

    def pick(self, accept=lambda v: True):
        candidates = [v for v in self.values if accept(v)]
        return candidates[self.rng.integers(len(candidates))] if candidates \
            else None

    # -- error bounds --------------------------------------------------------
    @staticmethod
    def rounding(dtype, magnitude, ulps=1.0):
        """The error of rounding a result of `magnitude` to `dtype`."""
        return EPS.get(dtype, 0.0) * magnitude * ulps

    def finish_float(self, dtype, ref):
        """The reference rounded to `dtype` (bf16 results round once)."""
        ref = np.asarray(ref)
        if dtype == "bf16":
            return to_bf16(ref.astype(np.float32))
        return ref.astype(NP[dtype])

    # -- ops -----------------------------------------------------------------
    def op_unary(self):
        table = {
            "neg": (np.negative, 0, 1.0, True),
            "abs": (np.abs, 0, 1.0, True),
            "tanh": (np.tanh, 4, 1.0, False),
            "logistic": (lambda x: 1 / (1 + np.exp(-x)), 4, 0.25, False),
            "sin": (np.sin, 4, 1.0, False),
            "cos": (np.cos, 4, 1.0, False),
            "exp": (np.exp, 4, None, False),
        }
        x = self.pick(lambda v: v.dtype in FLOATS)
        if x is None:
            return
        op = list(table)[self.rng.integers(len(table))]
        fn, ulps, lipschitz, exact = table[op]
        if op == "exp":
            if x.magnitude() > 8:
                return
            lipschitz = np.exp(x.magnitude() + x.err)
        ref = fn(x.ref.astype(np.float64))
        out = self.finish_float(x.dtype, ref)
        mag = float(np.max(np.abs(ref))) if ref.size else 0.0
        err = lipschitz * x.err + self.rounding(x.dtype, mag, ulps + 1)
        self.emit(f"kiln.{op} {x.name}", x.type, x.dtype, out, err,
                  exact and x.exact)

    def op_discontinuous(self):
        """floor, ceil, sign on exact floats."""
        x = self.pick(lambda v: v.dtype in FLOATS and v.exact)
        if x is None:
            return
        op, fn = [("floor", np.floor), ("ceil", np.ceil),
                  ("sign", np.sign)][self.rng.integers(3)]
        self.emit(f"kiln.{op} {x.name}", x.type, x.dtype, fn(x.ref), 0.0, True)

    def op_binary(self):
        x = self.pick(lambda v: v.dtype != "i1")
        if x is None:
            return
        y = self.pick(lambda v: v.dtype == x.dtype and v.shape == x.shape)
        ops = ["add", "sub", "max", "min"]
        if x.magnitude() <= 20 and y.magnitude() <= 20:
            ops.append("mul")
        if x.dtype in INTS:
            ops += ["div", "rem", "and", "or", "xor"]
        elif y.ref.size == 0 or np.min(np.abs(y.ref)) - y.err > 0.25:
            ops.append("div")
        op = ops[self.rng.integers(len(ops))]
        if x.dtype in INTS:
            self.emit(f"kiln.{op} {x.name}, {y.name}", x.type, x.dtype,
                      int_binary(op, x.ref, y.ref, x.dtype), 0.0, True)
            return
        a, b = x.ref.astype(np.float64), y.ref.astype(np.float64)
        fn = {"add": np.add, "sub": np.subtract, "max": np.maximum,
              "min": np.minimum, "mul": np.multiply, "div": np.divide}[op]
        ref = fn(a, b)
        mag = float(np.max(np.abs(ref))) if ref.size else 0.0
        if op in ("add", "sub"):
            err = x.err + y.err
        elif op in ("max", "min"):
            err = max(x.err, y.err)
        elif op == "mul":
            err = x.magnitude() * y.err + y.magnitude() * x.err + x.err * y.err
        else:
            low = float(np.min(np.abs(b))) - y.err if b.size else 1.0
            err = (x.err + mag * y.err) / low
        err += self.rounding(x.dtype, mag, 1)
        exact = x.exact and y.exact and op in ("max", "min")
        self.emit(f"kiln.{op} {x.name}, {y.name}", x.type, x.dtype,
                  self.finish_float(x.dtype, ref), err, exact)

    def op_compare_select(self):
        x = self.pick(lambda v: v.exact and v.dtype != "i1")
        if x is None:
            return
        y = self.pick(lambda v: v.exact and v.dtype == x.dtype and
                      v.shape == x.shape)
        direction = ["EQ", "NE", "LT", "LE", "GT", "GE"][self.rng.integers(6)]
        fn = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less,
              "LE": np.less_equal, "GT": np.greater,
              "GE": np.greater_equal}[direction]
        p = self.emit(f"kiln.compare {direction}, {x.name}, {y.name}", x.type, "i1",
                      fn(x.ref, y.ref), 0.0, True)
        # The emitted line's type is the operands'; the result is i1.
        a = self.pick(lambda v: v.shape == x.shape and v.dtype != "i1")
        b = self.pick(lambda v: v.shape == a.shape and v.dtype == a.dtype)
        self.emit(f"kiln.select {p.name}, {a.name}, {b.name}", f"{p.type}, {a.type}", a.dtype,
                  np.where(p.ref, a.ref, b.ref), max(a.err, b.err),
                  a.exact and b.exact)

    def op_convert(self):
        x = self.pick()
        to = ["f32", "f64", "bf16", "i8", "i16", "i32", "i64",
              "i1"][self.rng.integers(8)]
        if to == x.dtype:
            return
        if (to in INTS or to == "i1") and x.dtype in FLOATS and not x.exact:
            return
        if to == "i1":
            ref, err, exact = x.ref != 0, 0.0, True
        elif to in INTS:
            ref, err, exact = saturate(x.ref, to), 0.0, True
        else:
            ref = x.ref.astype(np.float64)
            rounded = Value("", to, ref).ref.astype(np.float64)
            exact = x.exact and np.array_equal(rounded, ref)
            err = x.err + self.rounding(to, x.magnitude(), 1)
        self.emit(f"kiln.convert {x.name}", f"({x.type}) -> {ttype(x.shape, to)}", to, ref, err, exact)

    def op_broadcast(self):
        x = self.pick(lambda v: v.ref.ndim < 5)
        if x is None:
            return
        rank = x.ref.ndim + int(self.rng.integers(1, 6 - x.ref.ndim))
        for _ in range(20):
            dims = sorted(self.rng.choice(rank, x.ref.ndim, replace=False))
            shape = list(self.shape(rank))
            for d, size in zip(dims, x.shape):
                shape[d] = size
            if np.prod(shape, dtype=np.int64) <= MAX_ELEMENTS:
                break
        else:
            return
        expanded = x.ref.reshape([shape[d] if d in dims else 1
                                  for d in range(rank)])
        ref = np.broadcast_to(expanded, shape)
        self.emit(f"kiln.broadcast_in_dim {x.name}, dims = "
                  f"[{', '.join(str(int(d)) for d in dims)}]", f"({x.type}) -> {ttype(shape, x.dtype)}", x.dtype, ref,
                  x.err, x.exact)

    def op_reshape(self):
        x = self.pick()
        n = x.ref.size
        shape = []
        rest = n
        for _ in range(int(self.rng.integers(0, 5))):
            divisors = [d for d in (1, 2, 3, 5, 7, 17) if rest and rest % d == 0]
            d = int(self.rng.choice(divisors)) if divisors else 1
            shape.append(d)
            rest = rest // d if rest else 0
        shape.append(rest)
        if n == 0:
            shape = [0] + shape[1:]
        self.emit(f"kiln.reshape {x.name}", f"({x.type}) -> {ttype(shape, x.dtype)}", x.dtype, x.ref.reshape(shape),
                  x.err, x.exact)

    def op_transpose(self):
        x = self.pick(lambda v: v.ref.ndim >= 2)
        if x is None:
            return
        perm = [int(p) for p in self.rng.permutation(x.ref.ndim)]
        ref = np.transpose(x.ref, perm)
        self.emit(f"kiln.transpose {x.name}, permutation = {perm}", f"({x.type}) -> {ttype(ref.shape, x.dtype)}", x.dtype,
                  ref, x.err, x.exact)

    def op_slice(self):
        x = self.pick(lambda v: v.ref.ndim >= 1)
        if x is None:
            return
        parts, index = [], []
        for size in x.shape:
            start = int(self.rng.integers(0, size + 1))
            limit = int(self.rng.integers(start, size + 1))
            stride = int(self.rng.integers(1, 4))
            parts.append(f"{start}:{limit}:{stride}")
            index.append(slice(start, limit, stride))
        ref = x.ref[tuple(index)]
        self.emit(f"kiln.slice {x.name} [{', '.join(parts)}]", f"({x.type}) -> {ttype(ref.shape, x.dtype)}", x.dtype, ref,
                  x.err, x.exact)

    def op_reverse(self):
        x = self.pick(lambda v: v.ref.ndim >= 1)
        if x is None:
            return
        dims = sorted(int(d) for d in self.rng.choice(
            x.ref.ndim, self.rng.integers(1, x.ref.ndim + 1), replace=False))
        self.emit(f"kiln.reverse {x.name}, dims = {dims}", x.type, x.dtype,
                  np.flip(x.ref, dims), x.err, x.exact)

    def op_concatenate(self):
        x = self.pick(lambda v: v.ref.ndim >= 1)
        if x is None:
            return
        y = self.pick(lambda v: v.dtype == x.dtype and v.shape == x.shape)
        dim = int(self.rng.integers(x.ref.ndim))
        ref = np.concatenate([x.ref, y.ref], axis=dim)
        if ref.size > MAX_ELEMENTS:
            return
        self.emit(f"kiln.concatenate {x.name}, {y.name}, dim = {dim}", f"({x.type}, {y.type}) -> {ttype(ref.shape, x.dtype)}",
                  x.dtype, ref, max(x.err, y.err), x.exact and y.exact)

    def op_pad(self):
        x = self.pick(lambda v: v.ref.ndim >= 1 and v.dtype != "i1")
        if x is None:
            return
        low, high, interior = [], [], []
        for size in x.shape:
            low.append(int(self.rng.integers(-min(size, 2), 3)))
            high.append(int(self.rng.integers(-min(size, 2), 3)))
            interior.append(int(self.rng.integers(0, 3)) if size > 1 else 0)
        ref = pad_reference(x.ref, 0.5, low, high, interior)
        if ref is None or ref.size > MAX_ELEMENTS:
            return
        pad_value = self.constant_scalar(x.dtype, 0.5 if x.dtype in FLOATS
                                         else 3)
        ref = pad_reference(x.ref, pad_value.ref, low, high, interior)
        self.emit(f"kiln.pad {x.name}, {pad_value.name}, low = {low}, "
                  f"high = {high}, interior = {interior}", (f"({x.type}, {pad_value.type}) -> "
                        f"{ttype(ref.shape, x.dtype)}"), x.dtype, ref,
                  x.err, x.exact)

    def constant_scalar(self, dtype, value):
        text = f"dense<{value if dtype in FLOATS else int(value)}>"
        return self.emit(f"kiln.constant {text}", ttype((), dtype), dtype,
                         np.array(value, NP[dtype]), 0.0, True)

    def op_reduce(self):
        x = self.pick(lambda v: v.ref.ndim >= 1 and v.dtype != "i1")
        if x is None:
            return
        count = int(self.rng.integers(1, x.ref.ndim + 1))
        dims = [int(d) for d in self.rng.choice(x.ref.ndim, count,
                                                 replace=False)]
        op = ["reduce_sum", "reduce_max", "reduce_min"][self.rng.integers(3)]
        axis = tuple(sorted(dims))
        n = int(np.prod([x.shape[d] for d in axis], dtype=np.int64))
        if x.dtype in FLOATS:
            a = x.ref.astype(np.float64)
            if op == "reduce_sum":
                ref = a.sum(axis=axis)
                total = np.abs(a).sum(axis=axis)
                mag = float(np.max(total)) if total.size else 0.0
                # bf16 and f16 sums accumulate in f32, rounding once.
                acc = "f32" if x.dtype == "bf16" else x.dtype
                err = n * x.err + self.rounding(acc, mag, n) + \
                    self.rounding(x.dtype, mag, 1)
            else:
                fn = np.max if op == "reduce_max" else np.min
                ref = fn(a, axis=axis, initial=-np.inf if op == "reduce_max"
                         else np.inf)
                err = x.err
            ref = self.finish_float(x.dtype, ref)
        else:
            info = np.iinfo(NP[x.dtype])
            if op == "reduce_sum":
                ref = x.ref.sum(axis=axis, dtype=NP[x.dtype])
            elif op == "reduce_max":
                ref = x.ref.max(axis=axis, initial=info.min)
            else:
                ref = x.ref.min(axis=axis, initial=info.max)
            err = 0.0
        self.emit(f"kiln.{op} {x.name}, dims = {dims}", f"({x.type}) -> {ttype(np.shape(ref), x.dtype)}", x.dtype, ref, err,
                  x.exact and op != "reduce_sum" or x.dtype in INTS)

    def op_dot(self):
        x = self.pick(lambda v: v.dtype in FLOATS and 1 <= v.ref.ndim <= 3)
        if x is None:
            return
        rank = x.ref.ndim
        kinds = list(self.rng.choice(["batch", "contract", "free"], rank))
        other_free = [int(self.rng.choice(DIMS)) for _ in
                      range(int(self.rng.integers(0, 2)))]
        batch = [d for d in range(rank) if kinds[d] == "batch"]
        contract = [d for d in range(rank) if kinds[d] == "contract"]
        free = [d for d in range(rank) if kinds[d] == "free"]
        rhs_shape = [x.shape[d] for d in batch] + \
            [x.shape[d] for d in contract] + other_free
        result_shape = [x.shape[d] for d in batch] + \
            [x.shape[d] for d in free] + other_free
        if np.prod(rhs_shape + [1], dtype=np.int64) > MAX_ELEMENTS or \
                np.prod(result_shape + [1], dtype=np.int64) > MAX_ELEMENTS:
            return
        y = self.argument(tuple(rhs_shape), x.dtype)
        nb = len(batch)
        rhs_batch = list(range(nb))
        rhs_contract = list(range(nb, nb + len(contract)))
        letters = "abcdefghij"
        lhs_sub = "".join(letters[d] for d in range(rank))
        rhs_sub = "".join(letters[d] for d in batch + contract) + \
            "".join("uvw"[i] for i in range(len(other_free)))
        out_sub = "".join(letters[d] for d in batch + free) + \
            "".join("uvw"[i] for i in range(len(other_free)))
        a, b = x.ref.astype(np.float64), y.ref.astype(np.float64)
        ref = np.einsum(f"{lhs_sub},{rhs_sub}->{out_sub}", a, b)
        k = int(np.prod([x.shape[d] for d in contract], dtype=np.int64))
        mag = float(np.max(np.einsum(f"{lhs_sub},{rhs_sub}->{out_sub}",
                                     np.abs(a), np.abs(b)))) \
            if ref.size else 0.0
        acc = "f32" if x.dtype == "bf16" else x.dtype
        err = k * y.magnitude() * x.err + self.rounding(acc, mag, max(k, 1)) \
            + self.rounding(x.dtype, mag, 1)
        text = f"kiln.dot_general {x.name}, {y.name}, "
        if batch:
            text += f"batching = {batch} x {rhs_batch}, "
        text += f"contracting = {contract} x {rhs_contract}"
        self.emit(text, f"({x.type}, {y.type}) -> "
                  f"{ttype(result_shape, x.dtype)}", x.dtype,
                  self.finish_float(x.dtype, ref), err)

    def op_take(self):
        x = self.pick(lambda v: v.ref.ndim >= 1 and v.shape[0] > 0)
        if x is None:
            return
        index_shape = self.shape(int(self.rng.integers(0, 3)))
        result_shape = list(index_shape) + list(x.shape[1:])
        if np.prod(result_shape, dtype=np.int64) > MAX_ELEMENTS:
            return
        indices = Value(f"%a{len(self.args)}", "i32",
                        self.rng.integers(-3, x.shape[0] + 3, index_shape))
        self.args.append(indices)
        self.inputs.append(indices.ref)
        ref = x.ref[np.clip(indices.ref, 0, x.shape[0] - 1)]
        self.emit(f"kiln.take {x.name}[{indices.name}], dim = 0",
                  f"({x.type}, {indices.type}) -> "
                  f"{ttype(result_shape, x.dtype)}", x.dtype, ref, x.err,
                  x.exact)

    OPS = ("op_unary", "op_unary", "op_discontinuous", "op_binary",
           "op_binary", "op_compare_select", "op_convert", "op_broadcast",
           "op_reshape", "op_transpose", "op_slice", "op_reverse",
           "op_concatenate", "op_pad", "op_reduce", "op_reduce", "op_dot",
           "op_take")

    def build(self, num_ops):
        for _ in range(int(self.rng.integers(1, 4))):
            dtype = ["f32", "f64", "bf16", "i8", "i16", "i32", "i64", "i1",
                     "f32"][self.rng.integers(9)]
            self.argument(self.shape(), dtype)
        for _ in range(num_ops):
            getattr(self, self.OPS[self.rng.integers(len(self.OPS))])()
        results = [self.values[-1]]
        for _ in range(int(self.rng.integers(0, 3))):
            results.append(self.pick())
        params = ", ".join(f"{a.name}: {a.type}" for a in self.args)
        types = ", ".join(r.type for r in results)
        text = (f"func.func @f({params}) -> ({types}) {{\n" +
                "\n".join(self.lines) +
                f"\n  return {', '.join(r.name for r in results)} : "
                f"{types}\n}}\n")
        return text, results


def int_binary(op, x, y, dtype):
    """Integer ops with XLA's semantics where C leaves them undefined."""
    info = np.iinfo(NP[dtype])
    with np.errstate(all="ignore"):
        if op in ("add", "sub", "mul", "max", "min"):
            return {"add": np.add, "sub": np.subtract, "mul": np.multiply,
                    "max": np.maximum, "min": np.minimum}[op](x, y)
        if op in ("and", "or", "xor"):
            return {"and": np.bitwise_and, "or": np.bitwise_or,
                    "xor": np.bitwise_xor}[op](x, y)
        safe = np.where(y == 0, 1, y)
        overflow = (x == info.min) & (y == -1)
        safe = np.where(overflow, 1, safe)
        # Rounded toward zero in integers (a float64 quotient is inexact
        # past 2^53).
        rem = np.fmod(x, safe)
        quotient = (x - rem) // safe
        if op == "div":
            out = np.where(y == 0, -1, np.where(overflow, info.min, quotient))
        else:
            out = np.where(y == 0, x, np.where(overflow, 0, rem))
        return out.astype(NP[dtype])


def saturate(x, dtype):
    """`x` converted to the integer `dtype` as kiln.convert does: floats
    rounded toward zero, saturating (infinities too), NaN to 0. numpy's
    own cast of a float past the range is undefined, so values at the
    bounds are chosen in integers."""
    info = np.iinfo(NP[dtype])
    a = np.asarray(x)
    if a.dtype.kind in "iub":
        return a.astype(NP[dtype])
    a = a.astype(np.float64)
    inside = np.where(np.isfinite(a) & (a > float(info.min)) &
                      (a < float(info.max)), np.trunc(a), 0)
    out = inside.astype(NP[dtype])
    out = np.where(a >= float(info.max), info.max, out)
    out = np.where(a <= float(info.min), info.min, out)
    return out.astype(NP[dtype])


def pad_reference(x, value, low, high, interior):
    """kiln.pad in numpy: interior padding, then edges (negative crops)."""
    shape = []
    for size, lo, hi, inner in zip(x.shape, low, high, interior):
        grown = size + max(size - 1, 0) * inner
        total = grown + lo + hi
        if total < 0 or grown + min(lo, 0) < 0 or grown + min(hi, 0) < 0:
            return None
        shape.append(total)
    out = np.full([s + max(s - 1, 0) * i for s, i in zip(x.shape, interior)],
                  value, x.dtype)
    out[tuple(slice(None, None, i + 1) for i in interior)] = x
    for d, (lo, hi) in enumerate(zip(low, high)):
        widths = [(0, 0)] * x.ndim
        widths[d] = (max(lo, 0), max(hi, 0))
        out = np.pad(out, widths, constant_values=value)
        start = -lo if lo < 0 else 0
        stop = out.shape[d] + hi if hi < 0 else out.shape[d]
        index = [slice(None)] * x.ndim
        index[d] = slice(start, stop)
        out = out[tuple(index)]
    return out if list(out.shape) == shape else None


np.seterr(all="ignore")  # infinities and NaNs are part of the data


def program(seed, num_ops=8):
    """(text, inputs, [(expected, error bound, dtype)]) of one program."""
    p = Program(seed)
    text, results = p.build(num_ops)
    expected = [(r.ref, r.err, r.dtype) for r in results]
    return text, p.inputs, expected


def check(kiln_run, seed, num_ops=8, extra=()):
    """Runs program `seed` through kiln-run (with `extra` flags:
    --interpret); None if every result matches the reference, else (why,
    program text)."""
    text, inputs, expected = program(seed, num_ops)
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "program.mlir")
        with open(source, "w") as f:
            f.write(text)
        np.savez(os.path.join(tmp, "in.npz"),
                 **{f"arg{i}": a for i, a in enumerate(inputs)})
        done = subprocess.run(
            [kiln_run, source, "--entry", "f", "--input",
             os.path.join(tmp, "in.npz"), "--output",
             os.path.join(tmp, "out.npz"), *extra], capture_output=True,
            text=True)
        if done.returncode != 0:
            return f"kiln-run failed ({done.returncode}): {done.stderr}", text
        with np.load(os.path.join(tmp, "out.npz")) as out:
            for i, e in enumerate(expected):
                why = compare(out[f"out{i}"], e)
                if why:
                    return f"out{i}: {why}", text
    return None


def compare(got, expected):
    """None if `got` matches `expected` within its error bound, else why."""
    want, err, dtype = expected
    if dtype == "i1":
        want = want.astype(np.bool_)
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if dtype in FLOATS:
        a, b = got.astype(np.float64), want.astype(np.float64)
        # The reference and the result each round once more.
        bound = 2 * err + 2 * EPS[dtype] * np.abs(b) + 1e-300
        same = (a == b) | (np.abs(a - b) <= bound) | (np.isnan(a) &
                                                      np.isnan(b))
        if not same.all():
            i = np.argmax(~same)
            return (f"element {np.unravel_index(i, a.shape)}: {a.flat[i]!r} "
                    f"vs {b.flat[i]!r} (bound {np.ravel(bound)[i]:.3g})")
        return None
    if not np.array_equal(got, want.astype(got.dtype)):
        i = np.argmax(got.ravel() != want.ravel().astype(got.dtype))
        return f"element {i}: {got.flat[i]!r} vs {want.flat[i]!r}"
    return None
