# Sorting as JAX exports it: jnp.sort (its comparator canonicalizes NaN and
# -0.0, then compares in TOTALORDER), jnp.argsort (values and an iota,
# stable), descending integer sorts along a leading axis, a two-key
# lexicographic sort, long rows, rows of one and rows in chunks, and
# lax.top_k (NaN first, the lowest index among ties) run through kiln-run's
# importer and match numpy's stable sorts.
# RUN: %numpy_python %s kiln-run
import math

import numpy as np

from harness import check, comparator_float, finish, ttype

rng = np.random.default_rng(3)


def sort_module(types, dimension, body, stable=True):
    ins = ", ".join(f"%arg{k}: {t}" for k, t in enumerate(types))
    args = ", ".join(f"%arg{k}" for k in range(len(types)))
    scalars = [t[:t.index("<") + 1] + t[t.rindex("x") + 1:]
               if "x" in t else t for t in types]
    block = ", ".join(f"%p{k}: {s}, %q{k}: {s}"
                      for k, s in enumerate(scalars))
    results = ", ".join(types)
    lines = "\n      ".join(body)
    outs = ", ".join(f"%0#{k}" for k in range(len(types)))
    return f'''module @jit_f {{
  func.func public @main({ins}) -> ({results}) {{
    %0:{len(types)} = "stablehlo.sort"({args}) <{{dimension = {dimension} : i64, is_stable = {str(stable).lower()}}}> ({{
    ^bb0({block}):
      {lines}
      stablehlo.return %lt : tensor<i1>
    }}) : ({results}) -> ({results})
    return {outs} : {results}
  }}
}}
'''


# jnp.sort along the last axis: NaN last, -0.0 and 0.0 equal (kept in
# order), infinities and repeats.
x = rng.standard_normal((4, 9)).astype(np.float32)
x[0, [1, 4]] = np.nan
x[1, [2, 5, 7]] = [-0.0, 0.0, -0.0]
x[2, [0, 3]] = [np.inf, -np.inf]
x[3, :] = np.round(x[3, :])
t = ttype(x.shape, x.dtype)
check("jnp.sort (NaN, signed zeros, infinities, repeats)",
      sort_module([t], 1, comparator_float("tensor<f32>", "p0", "q0")),
      "main", [x], [np.sort(x, axis=1, kind="stable")])

# jnp.argsort: the values and an iota, stable, along axis 0.
v = np.round(rng.standard_normal((7, 3)), 1).astype(np.float32)
iota = np.broadcast_to(np.arange(7, dtype=np.int32)[:, None], (7, 3)).copy()
check("jnp.argsort (ties keep their order)",
      sort_module([ttype(v.shape, v.dtype), ttype(iota.shape, iota.dtype)],
                  0, comparator_float("tensor<f32>", "p0", "q0")),
      "main", [v, iota],
      [np.sort(v, axis=0, kind="stable"),
       np.argsort(v, axis=0, kind="stable").astype(np.int32)])

# Integers, descending, along the first of three axes.
ints = rng.integers(-5, 5, (6, 2, 3)).astype(np.int32)
check("descending integer sort along axis 0",
      sort_module([ttype(ints.shape, ints.dtype)], 0, [
          "%lt = stablehlo.compare  GT, %p0, %q0,  SIGNED : "
          "(tensor<i32>, tensor<i32>) -> tensor<i1>"]),
      "main", [ints], [-np.sort(-ints, axis=0)])

# Two keys: by a, then by b (np.lexsort's last key is the primary one).
a = rng.integers(0, 3, 10).astype(np.int32)
b = rng.standard_normal(10).astype(np.float32)
order = np.lexsort((b, a))
check("lexicographic sort by two keys",
      sort_module([ttype(a.shape, a.dtype), ttype(b.shape, b.dtype)], 0, [
          "%l0 = stablehlo.compare  LT, %p0, %q0,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
          "%e0 = stablehlo.compare  EQ, %p0, %q0,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
          "%l1 = stablehlo.compare  LT, %p1, %q1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
          "%both = stablehlo.and %e0, %l1 : tensor<i1>",
          "%lt = stablehlo.or %l0, %both : tensor<i1>"]),
      "main", [a, b], [a[order], b[order]])

# Long rows, which the network pads to a power of two: 1000 floats per row
# (NaNs, infinities, repeats) and an argsort of 4097 elements drawn from
# ten values (stability over many ties; padded to 8192); rows of one.
long_rows = rng.standard_normal((3, 1000)).astype(np.float32)
long_rows[0, ::97] = np.nan
long_rows[1, ::3] = 0.5
long_rows[2, [5, 500]] = [np.inf, -np.inf]
check("jnp.sort of rows of 1000",
      sort_module([ttype(long_rows.shape, long_rows.dtype)], 1,
                  comparator_float("tensor<f32>", "p0", "q0")),
      "main", [long_rows], [np.sort(long_rows, axis=1, kind="stable")])
ties = rng.integers(0, 10, (2, 4097)).astype(np.float32)
positions = np.broadcast_to(np.arange(4097, dtype=np.int32), (2, 4097)).copy()
check("jnp.argsort of rows of 4097 with many ties",
      sort_module([ttype(ties.shape, ties.dtype),
                   ttype(positions.shape, positions.dtype)], 1,
                  comparator_float("tensor<f32>", "p0", "q0")),
      "main", [ties, positions],
      [np.sort(ties, axis=1, kind="stable"),
       np.argsort(ties, axis=1, kind="stable").astype(np.int32)])
def sorts_module(shapes):
    """One argsort per shape, of floats by jnp.sort's comparator along the
    last axis, in one function."""
    args, results, body, outs = [], [], [], []
    lt = comparator_float("tensor<f32>", "p0", "q0")
    block = "\n      ".join(lt)
    for k, shape in enumerate(shapes):
        f, i = ttype(shape, np.float32), ttype(shape, np.int32)
        args += [f"%x{k}: {f}", f"%i{k}: {i}"]
        results += [f, i]
        body.append(f'''%s{k}:2 = "stablehlo.sort"(%x{k}, %i{k}) <{{dimension = {len(shape) - 1} : i64, is_stable = true}}> ({{
    ^bb0(%p0: tensor<f32>, %q0: tensor<f32>, %p1: tensor<i32>, %q1: tensor<i32>):
      {block}
      stablehlo.return %lt : tensor<i1>
    }}) : ({f}, {i}) -> ({f}, {i})''')
        outs += [f"%s{k}#0", f"%s{k}#1"]
    sorts = "\n    ".join(body)
    return f'''module @jit_f {{
  func.func public @main({", ".join(args)}) -> ({", ".join(results)}) {{
    {sorts}
    return {", ".join(outs)} : {", ".join(results)}
  }}
}}
'''


# Every way the network lays rows out: widths of an even and an odd power
# of two (the transposed layout square or not), padded or not, from 2 to
# 513, with repeats (stability) and NaNs.
shapes = [(3, 2), (2, 5), (4, 8), (2, 17), (3, 33), (2, 64), (2, 129),
          (1, 513)]
arrays, expected = [], []
for shape in shapes:
    x = np.round(rng.standard_normal(shape), 1).astype(np.float32)
    x.flat[::7] = np.nan
    positions = np.broadcast_to(np.arange(shape[-1], dtype=np.int32),
                                shape).copy()
    arrays += [x, positions]
    expected += [np.sort(x, axis=-1, kind="stable"),
                 np.argsort(x, axis=-1, kind="stable").astype(np.int32)]
check("argsorts of widths 2 to 513", sorts_module(shapes), "main", arrays,
      expected)

single = rng.standard_normal((5, 1)).astype(np.float32)
check("sort of rows of one",
      sort_module([ttype(single.shape, single.dtype)], 1,
                  comparator_float("tensor<f32>", "p0", "q0")),
      "main", [single], [single])


def top_k_reference(x, k):
    """Per row, the k largest (NaN the largest, the first index of ties)."""
    values, indices = [], []
    for row in x.reshape(-1, x.shape[-1]):
        order = sorted(range(len(row)), key=lambda i: (
            not math.isnan(row[i]), -row[i] if not math.isnan(row[i]) else 0,
            i))[:k]
        values.append(row[order])
        indices.append(order)
    shape = x.shape[:-1] + (k,)
    return (np.array(values, x.dtype).reshape(shape),
            np.array(indices, np.int32).reshape(shape))


def top_k_module(x, k):
    t = ttype(x.shape, x.dtype)
    shape = x.shape[:-1] + (k,)
    v, i = ttype(shape, x.dtype), ttype(shape, np.int32)
    return f'''module @jit_f {{
  func.func public @main(%arg0: {t}) -> ({v}, {i}) {{
    %0:2 = chlo.top_k(%arg0, k = {k}) : {t} -> ({v}, {i})
    return %0#0, %0#1 : {v}, {i}
  }}
}}
'''


scores = np.round(rng.standard_normal((3, 2, 11)), 1).astype(np.float32)
scores[0, 0, [3, 8]] = np.nan
scores[1, 1, :] = -np.inf
check("lax.top_k (NaN first, ties by index)", top_k_module(scores, 4), "main",
      [scores], list(top_k_reference(scores, 4)))
# -0 and +0 tie (by index), as they compare equal; NaNs of either sign and
# payload tie above everything.
zeros = np.array([[0.0, -0.0, 0.0, -0.0, 1.0, -np.inf, 0.5, -1.0],
                  [-0.0, 0.0, -np.inf, -0.0, 0.0, -np.nan, np.nan, -2.0]],
                 np.float32)
check("lax.top_k of signed zeros and NaN", top_k_module(zeros, 6), "main",
      [zeros], list(top_k_reference(zeros, 6)))
counts = rng.integers(-3, 3, (5, 8)).astype(np.int32)
check("lax.top_k of integers, k = n", top_k_module(counts, 8), "main",
      [counts], list(top_k_reference(counts, 8)))

# The bitonic top-k at each of its shapes: k of one (halving down to
# single elements), k not a power of two over padded rows, k of 50 among
# many ties, and rows in several chunks (40 rows of 2,000 padded to 2,048:
# 16 a chunk at most, so 3 chunks of 14; compiled only, the interpreter
# being slow at that size).
for shape, k in [((3, 1000), 1), ((4, 37), 3), ((2, 1000), 50)]:
    x = np.round(rng.standard_normal(shape), 1).astype(np.float32)
    x.flat[::13] = np.nan
    check(f"lax.top_k, k = {k} of {shape[-1]}", top_k_module(x, k), "main",
          [x], list(top_k_reference(x, k)))
# Other element types: int8 rows ranked by blocks (padded with -128, which
# ties with the row's own -128s), f64 and f16.
small = rng.integers(-128, 128, (3, 300)).astype(np.int8)
small[0, :] = -128
check("lax.top_k of int8 (blocks padded with -128)", top_k_module(small, 4),
      "main", [small], list(top_k_reference(small, 4)))
for dtype in (np.float64, np.float16):
    x = np.round(rng.standard_normal((2, 200)), 1).astype(dtype)
    x.flat[::17] = np.nan
    check(f"lax.top_k of {np.dtype(dtype).name}", top_k_module(x, 6), "main",
          [x], list(top_k_reference(x, 6)))
many = np.round(rng.standard_normal((40, 2000)), 2).astype(np.float32)
check("lax.top_k of rows in chunks", top_k_module(many, 10), "main", [many],
      list(top_k_reference(many, 10)), interpret=False)
# Blocks ranked over several levels (5,000 -> 1,250 -> 313 -> ...), among
# many ties and NaNs, whose candidates carry their columns; 100 rows of
# 2,000 whose candidates order in chunks of rows.
levels = np.round(rng.standard_normal((3, 5000)), 1).astype(np.float32)
levels.flat[::101] = np.nan
check("lax.top_k over levels of groups", top_k_module(levels, 7), "main",
      [levels], list(top_k_reference(levels, 7)), interpret=False)
wide = np.round(rng.standard_normal((100, 2000)), 1).astype(np.float32)
check("lax.top_k of candidates in chunks", top_k_module(wide, 100), "main",
      [wide], list(top_k_reference(wide, 100)), interpret=False)
check("jnp.sort of rows in chunks",
      sort_module([ttype(many.shape, many.dtype)], 1,
                  comparator_float("tensor<f32>", "p0", "q0")),
      "main", [many], [np.sort(many, axis=1, kind="stable")], interpret=False)

finish()
