# StableHLO's gathers and scatters in the forms jax.numpy's indexing writes
# them (x[:, idx], x[i, j], take_along_axis, vmapped x[i] with batching
# dimensions, windows at clamped starts, x.at[...].add/set/max/min/mul) run
# through kiln-run's importer and match two independent references: numpy's
# own indexing for what the program means, and a loop over elements that
# transcribes StableHLO's specification of gather and scatter (with XLA's
# choice for updates out of range: their slices are dropped).
# RUN: %numpy_python %s kiln-run
import itertools

import numpy as np

from harness import check, finish, ttype

rng = np.random.default_rng(7)


def index_vector(indices, batch, ivd):
    """The index vector at position `batch` of the indices' batch."""
    if ivd == indices.ndim:
        return [indices[tuple(batch)]]
    position = list(batch)
    position.insert(ivd, slice(None))
    return indices[tuple(position)]


def spec_gather(operand, indices, offset_dims, collapsed, index_map, ivd,
                sizes, result_shape, operand_batching=(), indices_batching=()):
    """StableHLO's gather, element by element, as its specification states."""
    result = np.zeros(result_shape, operand.dtype)
    batch_dims = [d for d in range(len(result_shape)) if d not in offset_dims]
    kept = [d for d in range(operand.ndim)
            if d not in collapsed and d not in operand_batching]
    for index in np.ndindex(*result_shape):
        batch = [index[d] for d in batch_dims]
        start = index_vector(indices, batch, ivd)
        full = [0] * operand.ndim
        for k, d in enumerate(index_map):
            full[d] = min(max(int(start[k]), 0), operand.shape[d] - sizes[d])
        for d, i in zip(operand_batching, indices_batching):
            full[d] += batch[i if i < ivd else i - 1]
        for d, w in zip(kept, offset_dims):
            full[d] += index[w]
        result[index] = operand[tuple(full)]
    return result


def spec_scatter(operand, indices, updates, window, inserted, index_map,
                 ivd, combine, operand_batching=(), indices_batching=()):
    """StableHLO's scatter, update by update in order, dropping updates whose
    slice does not fit in the operand."""
    result = operand.copy()
    scatter_dims = [d for d in range(updates.ndim) if d not in window]
    kept = [d for d in range(operand.ndim)
            if d not in inserted and d not in operand_batching]
    sizes = [1] * operand.ndim
    for d, w in zip(kept, window):
        sizes[d] = updates.shape[w]
    for index in np.ndindex(*updates.shape):
        batch = [index[d] for d in scatter_dims]
        start = index_vector(indices, batch, ivd)
        full = [0] * operand.ndim
        fits = True
        for k, d in enumerate(index_map):
            full[d] = int(start[k])
            fits &= 0 <= full[d] <= operand.shape[d] - sizes[d]
        if not fits:
            continue
        for d, i in zip(operand_batching, indices_batching):
            full[d] += batch[i if i < ivd else i - 1]
        for d, w in zip(kept, window):
            full[d] += index[w]
        result[tuple(full)] = combine(result[tuple(full)], updates[index])
    return result


def dims(name, values):
    return f"{name} = [{', '.join(map(str, values))}]" if values else ""


def numbers(kind, window, dropped, index_map, ivd, operand_batching,
            indices_batching):
    """The #stablehlo.gather / #stablehlo.scatter attribute, with JAX's
    field names and omissions."""
    names = {"gather": ("offset_dims", "collapsed_slice_dims",
                        "operand_batching_dims", "start_indices_batching_dims",
                        "start_index_map"),
             "scatter": ("update_window_dims", "inserted_window_dims",
                         "input_batching_dims", "scatter_indices_batching_dims",
                         "scatter_dims_to_operand_dims")}[kind]
    fields = [dims(n, v) for n, v in zip(names, (
        window, dropped, operand_batching, indices_batching, index_map))]
    fields.append(f"index_vector_dim = {ivd}")
    return f"#stablehlo.{kind}<{', '.join(f for f in fields if f)}>"


def gather_module(operand, indices, result_shape, offset_dims, collapsed,
                  index_map, ivd, sizes, operand_batching=(),
                  indices_batching=()):
    a, i = ttype(operand.shape, operand.dtype), ttype(indices.shape,
                                                       indices.dtype)
    r = ttype(result_shape, operand.dtype)
    form = numbers("gather", offset_dims, collapsed, index_map, ivd,
                   operand_batching, indices_batching)
    return f'''module @jit_f {{
  func.func public @main(%arg0: {a}, %arg1: {i}) -> ({r} {{jax.result_info = ""}}) {{
    %0 = "stablehlo.gather"(%arg0, %arg1) <{{dimension_numbers = {form}, indices_are_sorted = false, slice_sizes = array<i64: {', '.join(map(str, sizes))}>}}> : ({a}, {i}) -> {r} loc(#loc2)
    return %0 : {r}
  }}
}}
#loc1 = loc("model.py":3:0)
#loc2 = loc("jit(f)/jit(main)/gather"(#loc1))
'''


BODIES = {"add": "stablehlo.add %arg2, %arg3", "max": "stablehlo.maximum %arg2, %arg3",
          "min": "stablehlo.minimum %arg2, %arg3",
          "mul": "stablehlo.multiply %arg2, %arg3", "set": None}
COMBINE = {"add": lambda a, b: a + b, "max": max, "min": min,
           "mul": lambda a, b: a * b, "set": lambda a, b: b}


def scatter_module(operand, indices, updates, body, window, inserted,
                   index_map, ivd, operand_batching=(), indices_batching=()):
    a, i = ttype(operand.shape, operand.dtype), ttype(indices.shape,
                                                       indices.dtype)
    u = ttype(updates.shape, updates.dtype)
    s = ttype((), operand.dtype)
    form = numbers("scatter", window, inserted, index_map, ivd,
                   operand_batching, indices_batching)
    apply = (f"      %1 = {BODIES[body]} : {s}\n      stablehlo.return %1 : {s}"
             if BODIES[body] else f"      stablehlo.return %arg3 : {s}")
    return f'''module @jit_f {{
  func.func public @main(%arg0: {a}, %arg1: {i}, %arg4: {u}) -> ({a} {{jax.result_info = ""}}) {{
    %0 = "stablehlo.scatter"(%arg0, %arg1, %arg4) <{{indices_are_sorted = false, scatter_dimension_numbers = {form}, unique_indices = false}}> ({{
    ^bb0(%arg2: {s}, %arg3: {s}):
{apply}
    }}) : ({a}, {i}, {u}) -> {a}
    return %0 : {a}
  }}
}}
'''


def gather_case(name, operand, indices, numpy_result, **form):
    """Checks a gather against numpy's meaning and against the spec's loop."""
    expected = spec_gather(operand, indices, result_shape=numpy_result.shape,
                           **form)
    np.testing.assert_array_equal(expected, numpy_result, err_msg=name)
    check(name, gather_module(operand, indices, numpy_result.shape, **form),
          "main", [operand, indices], [numpy_result])


def scatter_case(name, operand, indices, updates, body, numpy_result, **form):
    """Checks a scatter against numpy's meaning and against the spec's loop."""
    expected = spec_scatter(operand, indices, updates, combine=COMBINE[body],
                            **form)
    np.testing.assert_allclose(expected, numpy_result, err_msg=name)
    check(name, scatter_module(operand, indices, updates, body, **form),
          "main", [operand, indices, updates], [numpy_result],
          rtol=1e-6, atol=0)


def vector(*arrays):
    """Index arrays stacked along a new last dimension (JAX's index
    vectors), as i32."""
    return np.stack(arrays, axis=-1).astype(np.int32)


x = rng.standard_normal((5, 7, 4)).astype(np.float32)

# x[:, idx]: the indexed dimension is not the first.
idx = np.array([6, 0, 3], np.int32)
m = x[:, :, 0].copy()
gather_case("x[:, idx]", m, vector(idx), m[:, idx], offset_dims=(0,),
            collapsed=(1,), index_map=(1,), ivd=1, sizes=(5, 1))

# x[i, j]: points in two dimensions, whole slices along the third.
i, j = np.array([4, 0, 2, 2, 1, 3], np.int32), np.array([6, 1, 0, 5, 5, 2],
                                                         np.int32)
gather_case("x[i, j]", x, vector(i, j), x[i, j], offset_dims=(1,),
            collapsed=(0, 1), index_map=(0, 1), ivd=1, sizes=(1, 1, 4))

# x[:, j, i] with the index vector in the first dimension and its
# components in the opposite order of the operand's dimensions.
k = np.array([3, 0, 1, 2], np.int32)
gather_case("x[:, j, k] (index vector first)", x,
            np.stack([k, j[:4]]).astype(np.int32), np.moveaxis(
                x[:, j[:4], k], 0, 1), offset_dims=(1,), collapsed=(1, 2),
            index_map=(2, 1), ivd=0, sizes=(5, 1, 1))

# x[2, j] with a scalar index in front (no index vector dimension).
gather_case("x[j] of a scalar index", x, np.array(3, np.int32), x[:, 3, :],
            offset_dims=(0, 1), collapsed=(1,), index_map=(1,), ivd=0,
            sizes=(5, 1, 4))

# jnp.take_along_axis(a, idx, axis=1), which JAX writes with batching
# dimensions.
a = rng.standard_normal((4, 6)).astype(np.float32)
along = rng.integers(0, 6, (4, 3)).astype(np.int32)
gather_case("take_along_axis", a, along[..., None],
            np.take_along_axis(a, along, axis=1), offset_dims=(),
            collapsed=(1,), index_map=(1,), ivd=2, sizes=(1, 1),
            operand_batching=(0,), indices_batching=(0,))

# vmap(lambda row, i: row[i]) over a batch of tables (batching dimension
# 0 of the operand, paired with dimension 0 of the indices).
t = rng.standard_normal((4, 5, 3)).astype(np.float32)
rows = np.array([4, 0, 2, 4], np.int32)
gather_case("vmap of x[i]", t, rows[:, None], t[np.arange(4), rows],
            offset_dims=(1,), collapsed=(1,), index_map=(1,), ivd=1,
            sizes=(1, 1, 3), operand_batching=(0,), indices_batching=(0,))

# vmap of lax.dynamic_slice: windows of 2x3 at starts out of range, which
# are clamped so the window fits.
w = rng.standard_normal((8, 6)).astype(np.float32)
starts = np.array([[0, 0], [7, 5], [-3, 2], [3, 9]], np.int32)
windows = np.stack([w[min(max(r, 0), 6):min(max(r, 0), 6) + 2,
                      min(max(c, 0), 3):min(max(c, 0), 3) + 3]
                    for r, c in starts])
gather_case("windows at clamped starts", w, starts, windows,
            offset_dims=(1, 2), collapsed=(), index_map=(0, 1), ivd=1,
            sizes=(2, 3))

# An integer table and i64 indices.
table = np.arange(24, dtype=np.int32).reshape(6, 4)
gather_case("x[:, idx] of integers, i64 indices", table,
            np.array([[3], [0], [3]], np.int64), table[:, [3, 0, 3]],
            offset_dims=(0,), collapsed=(1,), index_map=(1,), ivd=1,
            sizes=(6, 1))

# x.at[:, idx].add(u) with a repeated index: both add.
u = rng.standard_normal((5, 3)).astype(np.float32)
dup = np.array([2, 5, 2], np.int32)
added = m.copy()
np.add.at(added, (slice(None), dup), u)
scatter_case("x.at[:, idx].add(u)", m, vector(dup), u, "add", added,
             window=(0,), inserted=(1,), index_map=(1,), ivd=1)

# x.at[i, j].add(u) with indices out of range: their rows are dropped.
ii, jj = np.array([4, 9, 1, -1], np.int32), np.array([6, 0, 1, 2], np.int32)
rows_u = rng.standard_normal((4, 4)).astype(np.float32)
kept = (ii >= 0) & (ii < 5) & (jj >= 0) & (jj < 7)
added = x.copy()
np.add.at(added, (ii[kept], jj[kept]), rows_u[kept])
scatter_case("x.at[i, j].add(u), out of range dropped", x, vector(ii, jj),
             rows_u, "add", added, window=(1,), inserted=(0, 1),
             index_map=(0, 1), ivd=1)

# x.at[i, j].set(u): updates apply in order, the last of repeated indices
# wins (as numpy's assignment does).
ii, jj = np.array([0, 3, 0, 4], np.int32), np.array([1, 6, 1, 0], np.int32)
written = x.copy()
written[ii, jj] = rows_u
scatter_case("x.at[i, j].set(u)", x, vector(ii, jj), rows_u, "set", written,
             window=(1,), inserted=(0, 1), index_map=(0, 1), ivd=1)

# .max, .min, .mul of elements at repeated and out-of-range indices.
v = rng.standard_normal(9).astype(np.float32)
at = np.array([3, 1, 3, 8, 12, 0, 1, 3], np.int32)
vals = rng.standard_normal(8).astype(np.float32)
inside = at < 9
for body, ufunc in (("max", np.maximum), ("min", np.minimum),
                    ("mul", np.multiply)):
    expected = v.copy()
    ufunc.at(expected, at[inside], vals[inside])
    scatter_case(f"x.at[idx].{body}(u)", v, at[:, None], vals, body, expected,
                 window=(), inserted=(0,), index_map=(0,), ivd=1)

# Booleans: mask.at[idx].set(True).
mask = np.zeros(6, np.bool_)
hits = np.array([[4], [1], [4]], np.int32)
marked = mask.copy()
marked[[4, 1, 4]] = True
scatter_case("mask.at[idx].set(True)", mask, hits, np.ones(3, np.bool_), "set",
             marked, window=(), inserted=(0,), index_map=(0,), ivd=1)

# Windows added at starts: a window that does not fit is dropped whole.
grid = np.zeros((6, 5), np.float32)
corners = np.array([[0, 0], [4, 3], [5, 0], [2, -1]], np.int32)
patches = rng.standard_normal((4, 2, 2)).astype(np.float32)
summed = grid.copy()
for (r, c), p in zip(corners, patches):
    if 0 <= r <= 4 and 0 <= c <= 3:
        summed[r:r + 2, c:c + 2] += p
scatter_case("windows added, those out of range dropped", grid, corners,
             patches, "add", summed, window=(1, 2), inserted=(),
             index_map=(0, 1), ivd=1)

# vmap of x.at[i].add(u): batching dimensions in a scatter.
grads = rng.standard_normal((4, 3)).astype(np.float32)
batched = t.copy()
for b, r in enumerate(rows):
    batched[b, r] += grads[b]
scatter_case("vmap of x.at[i].add(u)", t, rows[:, None], grads, "add",
             batched, window=(1,), inserted=(1,), index_map=(1,), ivd=1,
             operand_batching=(0,), indices_batching=(0,))

def random_form(rng, kind):
    """A random consistent gather (or scatter) form: operand and indices
    shapes and dimension numbers, with batching dimensions, collapsed
    dimensions, partial slices, and the index vector anywhere (or
    absent)."""
    rank = int(rng.integers(1, 4))
    operand = [int(v) for v in rng.integers(1, 5, rank)]
    dims = list(rng.permutation(rank))
    batching = dims[:int(rng.integers(0, min(2, rank)))]
    rest = dims[len(batching):]
    index_map = [int(d) for d in rest[:int(rng.integers(1, len(rest) + 1))]]
    collapsed = sorted(int(d) for d in index_map if rng.random() < 0.6)
    sizes = [1 if d in batching or d in collapsed else
             int(rng.integers(1, operand[d] + 1)) for d in range(rank)]
    batch = [int(v) for v in rng.integers(1, 4, int(rng.integers(0, 3)))]
    # The indices' batch dimensions: free ones and one per batching pair.
    slots = batch + [operand[d] for d in batching]
    order = list(rng.permutation(len(slots)))
    index_batch = [slots[k] for k in order]
    indices_batching = [order.index(len(batch) + k)
                        for k in range(len(batching))]
    with_vector = len(index_map) > 1 or rng.random() < 0.7
    ivd = int(rng.integers(0, len(index_batch) + 1)) if with_vector else len(
        index_batch)
    shape = list(index_batch)
    if with_vector:
        shape.insert(ivd, len(index_map))
        indices_batching = [i if i < ivd else i + 1 for i in indices_batching]
    kept = [d for d in range(rank) if d not in collapsed and d not in batching]
    elements_rank = len(index_batch) + len(kept)
    window = sorted(int(d) for d in rng.choice(elements_rank, len(kept),
                                                replace=False))
    elements, it = [], iter(index_batch)
    for d in range(elements_rank):
        elements.append(sizes[kept[window.index(d)]] if d in window
                        else next(it))
    bound = max(operand) + 2
    indices = rng.integers(-2, bound, shape).astype(np.int32)
    form = dict(index_map=tuple(index_map), ivd=ivd,
                operand_batching=tuple(int(d) for d in batching),
                indices_batching=tuple(indices_batching))
    if kind == "gather":
        form.update(offset_dims=tuple(window), collapsed=tuple(collapsed),
                    sizes=tuple(sizes))
    else:
        form.update(window=tuple(window), inserted=tuple(collapsed))
    return operand, indices, elements, form


# Generated forms, each against the specification's loop.
forms = np.random.default_rng(2026)
for case in range(24):
    shape, idx, result_shape, form = random_form(forms, "gather")
    table = forms.standard_normal(shape).astype(np.float32)
    expected = spec_gather(table, idx, result_shape=result_shape, **form)
    check(f"generated gather {case}: {form}",
          gather_module(table, idx, result_shape, **form), "main",
          [table, idx], [expected])
for case in range(16):
    shape, idx, update_shape, form = random_form(forms, "scatter")
    table = forms.standard_normal(shape).astype(np.float32)
    updates = forms.standard_normal(update_shape).astype(np.float32)
    body = ("add", "set", "max")[case % 3]
    expected = spec_scatter(table, idx, updates, combine=COMBINE[body],
                            **form)
    check(f"generated scatter {case} ({body}): {form}",
          scatter_module(table, idx, updates, body, **form), "main",
          [table, idx, updates], [expected], rtol=1e-6)


# Kiln's gradient of an imported loss through a gather of points (x[i, j]
# with a repeated point): the rows' weights added at the points.
POINTS_LOSS = """module @jit_loss {
  func.func public @main(%arg0: tensor<5x7x4xf32>, %arg1: tensor<6x2xi32>, %arg2: tensor<6x4xf32>) -> (tensor<f32> {jax.result_info = ""}) {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 4>}> : (tensor<5x7x4xf32>, tensor<6x2xi32>) -> tensor<6x4xf32>
    %1 = stablehlo.multiply %0, %arg2 : tensor<6x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x4xf32>, tensor<f32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
  func.func public @grads(%x: tensor<5x7x4xf32>, %p: tensor<6x2xi32>, %w: tensor<6x4xf32>) -> (tensor<f32>, tensor<5x7x4xf32>) {
    %l, %g = kiln.value_and_grad @main(%x, %p, %w) {argnums = array<i64: 0>} : (tensor<5x7x4xf32>, tensor<6x2xi32>, tensor<6x4xf32>) -> (tensor<f32>, tensor<5x7x4xf32>)
    return %l, %g : tensor<f32>, tensor<5x7x4xf32>
  }
}"""
pi, pj = np.array([4, 0, 2, 4, 1, 3], np.int32), np.array([6, 1, 0, 6, 5, 2],
                                                          np.int32)
weights = rng.standard_normal((6, 4)).astype(np.float32)
gradient = np.zeros_like(x)
np.add.at(gradient, (pi, pj), weights)
loss = np.float32((x[pi, pj].astype(np.float64) * weights).sum())
check("grad through x[i, j]", POINTS_LOSS, "grads",
      [x, vector(pi, pj), weights], [loss, gradient], rtol=1e-5, atol=1e-6)

finish()
