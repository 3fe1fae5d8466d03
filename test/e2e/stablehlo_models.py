# Modules in the form jax.export(jax.jit(f))(...).mlir_module() prints them
# (StableHLO's pretty syntax, JAX's attributes, private functions and
# locations; written by hand, as JAX is not installable here) run through
# kiln-run, which imports them (kiln-import-stablehlo), and match numpy: an
# MLP with log_softmax, layer norm with GELU, batched causal attention, an
# RNN written with lax.scan, lax.while_loop and lax.switch, an embedding
# lookup and its scatter-add, erf and exact GELU (chlo.erf), an
# int8-quantized layer on uint8 images, a sharded
# export (Shardy's annotations) on 4 devices, and the gradient
# of an imported loss taken in Kiln (kiln.value_and_grad of the imported
# function) against the gradient derived by hand.
# RUN: %numpy_python %s kiln-run
import math

import numpy as np

from harness import check, finish

HEADER = ('module @jit_f attributes {mhlo.num_partitions = 1 : i32, '
          'mhlo.num_replicas = 1 : i32} {\n')
LOCS = '''
#loc1 = loc("model.py":10:0)
#loc2 = loc("jit(f)/jit(main)/dot_general"(#loc1))
'''

B, D, H, C = 16, 8, 32, 4

MLP = HEADER + f'''
  func.func public @main(%arg0: tensor<{B}x{D}xf32> {{mhlo.layout_mode = "default"}}, %arg1: tensor<{D}x{H}xf32> {{mhlo.layout_mode = "default"}}, %arg2: tensor<{H}xf32> {{mhlo.layout_mode = "default"}}, %arg3: tensor<{H}x{C}xf32> {{mhlo.layout_mode = "default"}}, %arg4: tensor<{C}xf32> {{mhlo.layout_mode = "default"}}) -> (tensor<{B}x{C}xf32> {{jax.result_info = "", mhlo.layout_mode = "default"}}) {{
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<{B}x{D}xf32>, tensor<{D}x{H}xf32>) -> tensor<{B}x{H}xf32> loc(#loc2)
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<{H}xf32>) -> tensor<{B}x{H}xf32>
    %2 = stablehlo.add %0, %1 : tensor<{B}x{H}xf32>
    %3 = call @relu(%2) : (tensor<{B}x{H}xf32>) -> tensor<{B}x{H}xf32>
    %4 = stablehlo.dot_general %3, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<{B}x{H}xf32>, tensor<{H}x{C}xf32>) -> tensor<{B}x{C}xf32>
    %5 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<{C}xf32>) -> tensor<{B}x{C}xf32>
    %6 = stablehlo.add %4, %5 : tensor<{B}x{C}xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<{B}x{C}xf32>, tensor<f32>) -> tensor<{B}xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<{B}xf32>) -> tensor<{B}x{C}xf32>
    %9 = stablehlo.subtract %6, %8 : tensor<{B}x{C}xf32>
    %10 = stablehlo.exponential %9 : tensor<{B}x{C}xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<{B}x{C}xf32>, tensor<f32>) -> tensor<{B}xf32>
    %12 = stablehlo.log %11 : tensor<{B}xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<{B}xf32>) -> tensor<{B}x{C}xf32>
    %14 = stablehlo.subtract %9, %13 : tensor<{B}x{C}xf32>
    return %14 : tensor<{B}x{C}xf32>
  }}
  func.func private @relu(%arg0: tensor<{B}x{H}xf32>) -> tensor<{B}x{H}xf32> {{
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<{B}x{H}xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<{B}x{H}xf32>
    return %1 : tensor<{B}x{H}xf32>
  }}
}}''' + LOCS


def mlp(x, w1, b1, w2, b2):
    x, w1, b1, w2, b2 = (a.astype(np.float64) for a in (x, w1, b1, w2, b2))
    logits = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
            ).astype(np.float32)


T = f"tensor<{B}x{H}xf32>"
R = f"tensor<{B}xf32>"
NORM = HEADER + f'''
  func.func public @main(%arg0: {T}, %arg1: tensor<{H}xf32>, %arg2: tensor<{H}xf32>) -> (tensor<{B}x{H}xf32> {{jax.result_info = ""}}) {{
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : ({T}, tensor<f32>) -> {R}
    %cst_0 = stablehlo.constant dense<{float(H)}> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> {R}
    %2 = stablehlo.divide %0, %1 : {R}
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : ({R}) -> {T}
    %4 = stablehlo.subtract %arg0, %3 : {T}
    %5 = stablehlo.multiply %4, %4 : {T}
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [1] : ({T}, tensor<f32>) -> {R}
    %7 = stablehlo.divide %6, %1 : {R}
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> {R}
    %9 = stablehlo.add %7, %8 : {R}
    %10 = stablehlo.rsqrt %9 : {R}
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : ({R}) -> {T}
    %12 = stablehlo.multiply %4, %11 : {T}
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<{H}xf32>) -> {T}
    %14 = stablehlo.multiply %12, %13 : {T}
    %15 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<{H}xf32>) -> {T}
    %16 = stablehlo.add %14, %15 : {T}
    %17 = call @gelu(%16) : ({T}) -> {T}
    return %17 : {T}
  }}
  func.func private @gelu(%arg0: {T}) -> {T} {{
    %0 = stablehlo.multiply %arg0, %arg0 : {T}
    %1 = stablehlo.multiply %0, %arg0 : {T}
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> {T}
    %3 = stablehlo.multiply %2, %1 : {T}
    %4 = stablehlo.add %arg0, %3 : {T}
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> {T}
    %6 = stablehlo.multiply %5, %4 : {T}
    %7 = stablehlo.tanh %6 : {T}
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> {T}
    %9 = stablehlo.add %8, %7 : {T}
    %10 = stablehlo.multiply %arg0, %9 : {T}
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> {T}
    %12 = stablehlo.multiply %10, %11 : {T}
    return %12 : {T}
  }}
}}''' + LOCS


def layer_norm_gelu(x, gamma, beta):
    x, gamma, beta = (a.astype(np.float64) for a in (x, gamma, beta))
    centered = x - x.mean(axis=1, keepdims=True)
    y = centered / np.sqrt((centered ** 2).mean(axis=1, keepdims=True) + 1e-5)
    y = y * gamma + beta
    return (0.5 * y * (1 + np.tanh(np.sqrt(2 / np.pi) * (y + 0.044715 * y ** 3)))
            ).astype(np.float32)


N, S, K = 2, 6, 8  # batch, sequence, head size
Q = f"tensor<{N}x{S}x{K}xf32>"
P = f"tensor<{N}x{S}x{S}xf32>"
ATTENTION = HEADER + f'''
  func.func public @main(%arg0: {Q}, %arg1: {Q}, %arg2: {Q}) -> ({Q} {{jax.result_info = ""}}) {{
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : ({Q}, {Q}) -> {P}
    %cst = stablehlo.constant dense<{1 / np.sqrt(K):.9f}> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> {P}
    %2 = stablehlo.multiply %0, %1 : {P}
    %3 = stablehlo.iota dim = 0 : tensor<{S}x{S}xi32>
    %4 = stablehlo.iota dim = 1 : tensor<{S}x{S}xi32>
    %5 = stablehlo.compare  GE, %3, %4,  SIGNED : (tensor<{S}x{S}xi32>, tensor<{S}x{S}xi32>) -> tensor<{S}x{S}xi1>
    %6 = stablehlo.broadcast_in_dim %5, dims = [1, 2] : (tensor<{S}x{S}xi1>) -> tensor<{N}x{S}x{S}xi1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> {P}
    %8 = stablehlo.select %6, %2, %7 : tensor<{N}x{S}x{S}xi1>, {P}
    %9 = stablehlo.reduce(%8 init: %cst_0) applies stablehlo.maximum across dimensions = [2] : ({P}, tensor<f32>) -> tensor<{N}x{S}xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<{N}x{S}xf32>) -> {P}
    %11 = stablehlo.subtract %8, %10 : {P}
    %12 = stablehlo.exponential %11 : {P}
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%12 init: %cst_1) applies stablehlo.add across dimensions = [2] : ({P}, tensor<f32>) -> tensor<{N}x{S}xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<{N}x{S}xf32>) -> {P}
    %15 = stablehlo.divide %12, %14 : {P}
    %16 = stablehlo.dot_general %15, %arg2, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : ({P}, {Q}) -> {Q}
    return %16 : {Q}
  }}
}}''' + LOCS


def attention(q, k, v):
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(K)
    scores = np.where(np.tril(np.ones((S, S), bool)), scores, -np.inf)
    p = np.exp(scores - scores.max(axis=2, keepdims=True))
    return ((p / p.sum(axis=2, keepdims=True)) @ v).astype(np.float32)


# The loss JAX exported; Kiln differentiates it (the public @grads is
# Kiln's own, beside the import).
LOSS = HEADER + f'''
  func.func public @main(%arg0: tensor<{D}x{H}xf32>, %arg1: tensor<{H}x{C}xf32>, %arg2: tensor<{B}x{D}xf32>, %arg3: tensor<{B}x{C}xf32>) -> (tensor<f32> {{jax.result_info = ""}}) {{
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<{B}x{D}xf32>, tensor<{D}x{H}xf32>) -> tensor<{B}x{H}xf32>
    %1 = stablehlo.tanh %0 : tensor<{B}x{H}xf32>
    %2 = stablehlo.dot_general %1, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<{B}x{H}xf32>, tensor<{H}x{C}xf32>) -> tensor<{B}x{C}xf32>
    %3 = stablehlo.subtract %2, %arg3 : tensor<{B}x{C}xf32>
    %4 = stablehlo.multiply %3, %3 : tensor<{B}x{C}xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<{B}x{C}xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<{float(B * C)}> : tensor<f32>
    %6 = stablehlo.divide %5, %cst_0 : tensor<f32>
    return %6 : tensor<f32>
  }}
  func.func public @grads(%w1: tensor<{D}x{H}xf32>, %w2: tensor<{H}x{C}xf32>, %x: tensor<{B}x{D}xf32>, %y: tensor<{B}x{C}xf32>) -> (tensor<f32>, tensor<{D}x{H}xf32>, tensor<{H}x{C}xf32>) {{
    %l, %g1, %g2 = kiln.value_and_grad @main(%w1, %w2, %x, %y) {{argnums = array<i64: 0, 1>}} : (tensor<{D}x{H}xf32>, tensor<{H}x{C}xf32>, tensor<{B}x{D}xf32>, tensor<{B}x{C}xf32>) -> (tensor<f32>, tensor<{D}x{H}xf32>, tensor<{H}x{C}xf32>)
    return %l, %g1, %g2 : tensor<f32>, tensor<{D}x{H}xf32>, tensor<{H}x{C}xf32>
  }}
}}''' + LOCS


def loss_and_grads(w1, w2, x, y):
    w1, w2, x, y = (a.astype(np.float64) for a in (w1, w2, x, y))
    a = np.tanh(x @ w1)
    e = a @ w2 - y
    de = 2 * e / e.size
    return [np.float32((e * e).mean()),
            (x.T @ ((de @ w2.T) * (1 - a * a))).astype(np.float32),
            (a.T @ de).astype(np.float32)]


L, I, Hs = 5, 2, 3  # steps, inputs, hidden
RNN = HEADER + f'''
  func.func public @main(%arg0: tensor<{Hs}x{Hs}xf32>, %arg1: tensor<{I}x{Hs}xf32>, %arg2: tensor<{L}x{I}xf32>, %arg3: tensor<{Hs}xf32>) -> (tensor<{Hs}xf32> {{jax.result_info = "[0]"}}, tensor<{L}x{Hs}xf32> {{jax.result_info = "[1]"}}) {{
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<{L}x{Hs}xf32>
    %1:6 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1, %iterArg_1 = %arg2, %iterArg_2 = %c, %iterArg_3 = %arg3, %iterArg_4 = %0) : tensor<{Hs}x{Hs}xf32>, tensor<{I}x{Hs}xf32>, tensor<{L}x{I}xf32>, tensor<i32>, tensor<{Hs}xf32>, tensor<{L}x{Hs}xf32>
     cond {{
      %c_5 = stablehlo.constant dense<{L}> : tensor<i32>
      %2 = stablehlo.compare  LT, %iterArg_2, %c_5,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    }} do {{
      %c_5 = stablehlo.constant dense<0> : tensor<i32>
      %2 = stablehlo.dynamic_slice %iterArg_1, %iterArg_2, %c_5, sizes = [1, {I}] : (tensor<{L}x{I}xf32>, tensor<i32>, tensor<i32>) -> tensor<1x{I}xf32>
      %3 = stablehlo.reshape %2 : (tensor<1x{I}xf32>) -> tensor<{I}xf32>
      %4 = stablehlo.dot_general %iterArg_3, %iterArg, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<{Hs}xf32>, tensor<{Hs}x{Hs}xf32>) -> tensor<{Hs}xf32>
      %5 = stablehlo.dot_general %3, %iterArg_0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<{I}xf32>, tensor<{I}x{Hs}xf32>) -> tensor<{Hs}xf32>
      %6 = stablehlo.add %4, %5 : tensor<{Hs}xf32>
      %7 = stablehlo.tanh %6 : tensor<{Hs}xf32>
      %8 = stablehlo.broadcast_in_dim %7, dims = [1] : (tensor<{Hs}xf32>) -> tensor<1x{Hs}xf32>
      %9 = stablehlo.dynamic_update_slice %iterArg_4, %8, %iterArg_2, %c_5 : (tensor<{L}x{Hs}xf32>, tensor<1x{Hs}xf32>, tensor<i32>, tensor<i32>) -> tensor<{L}x{Hs}xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %10 = stablehlo.add %iterArg_2, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %iterArg_1, %10, %7, %9 : tensor<{Hs}x{Hs}xf32>, tensor<{I}x{Hs}xf32>, tensor<{L}x{I}xf32>, tensor<i32>, tensor<{Hs}xf32>, tensor<{L}x{Hs}xf32>
    }}
    return %1#4, %1#5 : tensor<{Hs}xf32>, tensor<{L}x{Hs}xf32>
  }}
}}''' + LOCS


def rnn(wh, wx, xs, h):
    wh, wx, xs, h = (a.astype(np.float64) for a in (wh, wx, xs, h))
    ys = []
    for x in xs:
        h = np.tanh(h @ wh + x @ wx)
        ys.append(h)
    return [h.astype(np.float32), np.array(ys, np.float32)]


# lax.while_loop with a trip count known at run time only, then lax.switch
# on a run-time index (clamped into range, as jnp.clip does).
CONTROL = HEADER + '''
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> (tensor<4xf32> {jax.result_info = ""}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<4xf32>
     cond {
      %2 = stablehlo.compare  LT, %iterArg, %arg1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %cst = stablehlo.constant dense<5.000000e-01> : tensor<4xf32>
      %2 = stablehlo.multiply %iterArg_0, %cst : tensor<4xf32>
      %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
      %3 = stablehlo.add %2, %cst_1 : tensor<4xf32>
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %4 = stablehlo.add %iterArg, %c_2 : tensor<i32>
      stablehlo.return %4, %3 : tensor<i32>, tensor<4xf32>
    }
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %c_4 = stablehlo.constant dense<2> : tensor<i32>
    %5 = stablehlo.clamp %c_3, %arg2, %c_4 : tensor<i32>
    %6 = "stablehlo.case"(%5) ({
      %7 = stablehlo.sine %0#1 : tensor<4xf32>
      stablehlo.return %7 : tensor<4xf32>
    }, {
      %7 = stablehlo.cosine %0#1 : tensor<4xf32>
      stablehlo.return %7 : tensor<4xf32>
    }, {
      %7 = stablehlo.negate %0#1 : tensor<4xf32>
      stablehlo.return %7 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %6 : tensor<4xf32>
  }
}''' + LOCS


def control(x, n, k):
    x = x.astype(np.float64)
    for _ in range(int(n)):
        x = x * 0.5 + 1
    return [[np.sin, np.cos, np.negative][min(max(int(k), 0), 2)](x).astype(
        np.float32)]


# An embedding lookup (x[ids]: the gather clamps indices) and its
# accumulation back (table.at[ids].add(rows): indices out of range are
# dropped).
INDEXING = HEADER + '''
  func.func public @main(%arg0: tensor<10x4xf32>, %arg1: tensor<6xi32>) -> (tensor<6x4xf32> {jax.result_info = "[0]"}, tensor<10x4xf32> {jax.result_info = "[1]"}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %1 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<6x1xi32>) -> tensor<6x4xf32>
    %2 = "stablehlo.scatter"(%arg0, %0, %1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %3 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }) : (tensor<10x4xf32>, tensor<6x1xi32>, tensor<6x4xf32>) -> tensor<10x4xf32>
    return %1, %2 : tensor<6x4xf32>, tensor<10x4xf32>
  }
}''' + LOCS


def indexing(table, ids):
    rows = table[np.clip(ids, 0, len(table) - 1)]
    total = table.astype(np.float64)
    for i, row in zip(ids, rows):
        if 0 <= i < len(table):
            total[i] += row
    return [rows, total.astype(np.float32)]


# A sharded export (Shardy's annotations: data parallel over "data",
# tensor parallel over "model") runs partitioned on the 4 devices of its
# mesh.
SHARDED = '''
module @jit_sharded attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]>
  func.func public @main(%arg0: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<6x12xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg2: tensor<12x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<8x6xf32> {jax.result_info = "", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x6xf32>, tensor<6x12xf32>) -> tensor<8x12xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {"model"}]> : tensor<8x12xf32>
    %2 = stablehlo.tanh %1 : tensor<8x12xf32>
    %3 = stablehlo.dot_general %2, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x12xf32>, tensor<12x6xf32>) -> tensor<8x6xf32>
    return %3 : tensor<8x6xf32>
  }
}'''


def sharded(x, w1, w2):
    x, w1, w2 = (a.astype(np.float64) for a in (x, w1, w2))
    return [(np.tanh(x @ w1) @ w2).astype(np.float32)]


rng = np.random.default_rng(3)


def normal(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


args = [normal(B, D), normal(D, H, scale=0.3), normal(H), normal(H, C, scale=0.3),
        normal(C)]
check("mlp", MLP, "main", args, [mlp(*args)], rtol=1e-5, atol=1e-5)
args = [normal(B, H), normal(H), normal(H)]
check("layer norm + gelu", NORM, "main", args, [layer_norm_gelu(*args)],
      rtol=1e-4, atol=1e-5)
args = [normal(N, S, K) for _ in range(3)]
check("causal attention", ATTENTION, "main", args, [attention(*args)],
      rtol=1e-5, atol=1e-5)
args = [normal(D, H, scale=0.3), normal(H, C, scale=0.3), normal(B, D),
        normal(B, C)]
check("grad of the imported loss", LOSS, "grads", args, loss_and_grads(*args),
      rtol=1e-4, atol=1e-6)
args = [normal(Hs, Hs, scale=0.5), normal(I, Hs), normal(L, I), normal(Hs)]
check("rnn (lax.scan)", RNN, "main", args, rnn(*args), rtol=1e-5, atol=1e-6)
args = [normal(8, 6), normal(6, 12, scale=0.4), normal(12, 6, scale=0.4)]
check("sharded (sdy) on 4 devices", SHARDED, "main", args, sharded(*args),
      rtol=1e-5, atol=1e-5)
args = [normal(10, 4), np.array([3, 0, 3, 12, -2, 9], np.int32)]
check("embedding take and add", INDEXING, "main", args, indexing(*args),
      rtol=1e-6, atol=1e-6)
ANY_ALL = HEADER + '''
  func.func public @main(%arg0: tensor<3x4xi1>) -> (tensor<3xi1>, tensor<4xi1>) {
    %false = stablehlo.constant dense<false> : tensor<i1>
    %0 = stablehlo.reduce(%arg0 init: %false) applies stablehlo.or across dimensions = [1] : (tensor<3x4xi1>, tensor<i1>) -> tensor<3xi1>
    %true = stablehlo.constant dense<true> : tensor<i1>
    %1 = stablehlo.reduce(%arg0 init: %true) applies stablehlo.and across dimensions = [0] : (tensor<3x4xi1>, tensor<i1>) -> tensor<4xi1>
    return %0, %1 : tensor<3xi1>, tensor<4xi1>
  }
}''' + LOCS
# jnp.argmax and jnp.argmin as jax.lax writes them: a reduction of the
# values and an iota, the first index on ties, NaN as the extreme.
def arg_body(direction):
    return f'''
     reducer(%a: tensor<f32>, %b: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>)  {{
      %p = stablehlo.compare  {direction}, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %n = stablehlo.compare  NE, %a, %a,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %pv = stablehlo.or %p, %n : tensor<i1>
      %e = stablehlo.compare  EQ, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %l = stablehlo.compare  LT, %i, %j,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %el = stablehlo.and %e, %l : tensor<i1>
      %pi = stablehlo.or %pv, %el : tensor<i1>
      %v = stablehlo.select %pv, %a, %b : tensor<i1>, tensor<f32>
      %k = stablehlo.select %pi, %i, %j : tensor<i1>, tensor<i32>
      stablehlo.return %v, %k : tensor<f32>, tensor<i32>
    }}'''


ARG = HEADER + f'''
  func.func public @main(%arg0: tensor<3x5xf32>) -> (tensor<3xi32>, tensor<5xi32>) {{
    %0 = stablehlo.iota dim = 1 : tensor<3x5xi32>
    %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %low), (%0 init: %c) across dimensions = [1] : (tensor<3x5xf32>, tensor<3x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>){arg_body("GT")}
    %2 = stablehlo.iota dim = 0 : tensor<3x5xi32>
    %high = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %3:2 = stablehlo.reduce(%arg0 init: %high), (%2 init: %c) across dimensions = [0] : (tensor<3x5xf32>, tensor<3x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<5xf32>, tensor<5xi32>){arg_body("LT")}
    return %1#1, %3#1 : tensor<3xi32>, tensor<5xi32>
  }}
}}''' + LOCS
scores = np.array([[1, 3, 3, 0, 2], [np.nan, 1, 5, 5, -1], [0, 0, 0, 0, 0]],
                  np.float32)
check("jnp.argmax, jnp.argmin", ARG, "main", [scores],
      [np.array([1, 0, 0], np.int32), np.array([1, 2, 2, 0, 1], np.int32)])
# jnp.argmin of integers, down to the lowest one (the first of ties).
INT_ARGMIN = HEADER + '''
  func.func public @main(%arg0: tensor<2x5xi32>) -> tensor<2xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<2x5xi32>
    %high = stablehlo.constant dense<2147483647> : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %high), (%0 init: %c) across dimensions = [1] : (tensor<2x5xi32>, tensor<2x5xi32>, tensor<i32>, tensor<i32>) -> (tensor<2xi32>, tensor<2xi32>)
     reducer(%a: tensor<i32>, %b: tensor<i32>) (%i: tensor<i32>, %j: tensor<i32>)  {
      %p = stablehlo.compare  LT, %a, %b,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %e = stablehlo.compare  EQ, %a, %b,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %l = stablehlo.compare  LT, %i, %j,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %el = stablehlo.and %e, %l : tensor<i1>
      %pi = stablehlo.or %p, %el : tensor<i1>
      %v = stablehlo.select %p, %a, %b : tensor<i1>, tensor<i32>
      %k = stablehlo.select %pi, %i, %j : tensor<i1>, tensor<i32>
      stablehlo.return %v, %k : tensor<i32>, tensor<i32>
    }
    return %1#1 : tensor<2xi32>
  }
}''' + LOCS
ints = np.array([[4, -2**31, 7, -2**31, 0], [3, 1, 1, 9, 2]], np.int32)
check("jnp.argmin of integers", INT_ARGMIN, "main", [ints],
      [np.argmin(ints, axis=1).astype(np.int32)])
# jax.scipy.special.erf and jax.nn.gelu(approximate=False): chlo.erf.
ERF = HEADER + '''
  func.func public @main(%arg0: tensor<64xf32>) -> tensor<64xf32> {
    %0 = chlo.erf %arg0 : tensor<64xf32> -> tensor<64xf32>
    return %0 : tensor<64xf32>
  }
}''' + LOCS
EXACT_GELU = HEADER + '''
  func.func public @main(%arg0: tensor<64xf32>) -> tensor<64xf32> {
    %cst = stablehlo.constant dense<0.707106769> : tensor<64xf32>
    %1 = stablehlo.multiply %arg0, %cst : tensor<64xf32>
    %2 = chlo.erf %1 : tensor<64xf32> -> tensor<64xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<64xf32>
    %3 = stablehlo.add %cst_0, %2 : tensor<64xf32>
    %4 = stablehlo.multiply %arg0, %3 : tensor<64xf32>
    %cst_1 = stablehlo.constant dense<5.000000e-01> : tensor<64xf32>
    %5 = stablehlo.multiply %4, %cst_1 : tensor<64xf32>
    return %5 : tensor<64xf32>
  }
}''' + LOCS
points = np.concatenate([np.linspace(-6, 6, 56), [0, 1e-6, -1e-3, 0.5, 3.9,
                                                   4.1, -30, 30]]).astype(
    np.float32)
exact_erf = np.vectorize(math.erf)
check("chlo.erf", ERF, "main", [points],
      [exact_erf(points.astype(np.float64)).astype(np.float32)],
      rtol=2e-6, atol=1e-9)
# 1 + erf(x) cancels in f32 for x << 0 (as in JAX): absolute tolerance.
check("exact gelu", EXACT_GELU, "main", [points],
      [(0.5 * points * (1 + exact_erf(points / np.sqrt(2)))).astype(
          np.float32)], rtol=2e-6, atol=1e-6)
flags = np.array([[0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 1, 1]], bool)
check("jnp.any, jnp.all", ANY_ALL, "main", [flags],
      [flags.any(axis=1), flags.all(axis=0)])
# An int8-quantized dense layer on uint8 images, as JAX exports
# (img.astype(f32) / 255 - 0.5, activations quantized with jnp.round and
# jnp.clip, lax.dot_general with preferred_element_type=int32, rescaled).
P, Q = 48, 10
QUANTIZED = HEADER + f'''
  func.func public @main(%arg0: tensor<{B}x{P}xui8>, %arg1: tensor<{P}x{Q}xi8>, %arg2: tensor<{Q}xf32>) -> (tensor<{B}x{Q}xf32> {{jax.result_info = "[0]"}}, tensor<{B}xi32> {{jax.result_info = "[1]"}}) {{
    %0 = stablehlo.convert %arg0 : (tensor<{B}x{P}xui8>) -> tensor<{B}x{P}xf32>
    %cst = stablehlo.constant dense<2.550000e+02> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<{B}x{P}xf32>
    %2 = stablehlo.divide %0, %1 : tensor<{B}x{P}xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<{B}x{P}xf32>
    %4 = stablehlo.subtract %2, %3 : tensor<{B}x{P}xf32>
    %cst_1 = stablehlo.constant dense<1.270000e+02> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<{B}x{P}xf32>
    %6 = stablehlo.multiply %4, %5 : tensor<{B}x{P}xf32>
    %7 = stablehlo.round_nearest_even %6 : tensor<{B}x{P}xf32>
    %cst_2 = stablehlo.constant dense<-1.270000e+02> : tensor<f32>
    %8 = stablehlo.clamp %cst_2, %7, %cst_1 : (tensor<f32>, tensor<{B}x{P}xf32>, tensor<f32>) -> tensor<{B}x{P}xf32>
    %9 = stablehlo.convert %8 : (tensor<{B}x{P}xf32>) -> tensor<{B}x{P}xi8>
    %10 = stablehlo.dot_general %9, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<{B}x{P}xi8>, tensor<{P}x{Q}xi8>) -> tensor<{B}x{Q}xi32> loc(#loc2)
    %11 = stablehlo.convert %10 : (tensor<{B}x{Q}xi32>) -> tensor<{B}x{Q}xf32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<{Q}xf32>
    %13 = stablehlo.divide %arg2, %12 : tensor<{Q}xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [1] : (tensor<{Q}xf32>) -> tensor<{B}x{Q}xf32>
    %15 = stablehlo.multiply %11, %14 : tensor<{B}x{Q}xf32>
    %16 = stablehlo.iota dim = 1 : tensor<{B}x{Q}xi32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %17:2 = stablehlo.reduce(%15 init: %cst_3), (%16 init: %c) across dimensions = [1] : (tensor<{B}x{Q}xf32>, tensor<{B}x{Q}xi32>, tensor<f32>, tensor<i32>) -> (tensor<{B}xf32>, tensor<{B}xi32>){arg_body("GT")}
    return %15, %17#1 : tensor<{B}x{Q}xf32>, tensor<{B}xi32>
  }}
}}''' + LOCS


def quantized(image, weights, scale):
    x = image.astype(np.float32) / np.float32(255) - np.float32(0.5)
    q = np.clip(np.round(x * np.float32(127)), -127, 127).astype(np.int8)
    acc = q.astype(np.int32) @ weights.astype(np.int32)
    y = acc.astype(np.float32) * (scale / np.float32(127))
    return [y, y.argmax(axis=1).astype(np.int32)]


image = rng.integers(0, 256, (B, P)).astype(np.uint8)
weights = rng.integers(-127, 128, (P, Q)).astype(np.int8)
args = [image.view(np.int8), weights, normal(Q)]
check("int8-quantized layer on uint8 images", QUANTIZED, "main", args,
      quantized(image, weights, args[2]))
x = normal(4)
for n, k in ((0, 0), (3, 1), (7, 2), (2, 9), (4, -3)):
    args = [x, np.array(n, np.int32), np.array(k, np.int32)]
    check(f"while_loop {n} times, switch {k}", CONTROL, "main", args,
          control(*args), rtol=1e-6, atol=1e-6)
finish()
