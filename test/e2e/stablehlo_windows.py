# Convolutions and windowed reductions as JAX exports them (flax's Conv,
# lax.conv_general_dilated with strides, padding, dilations, feature and
# batch groups and any layout; max and average pooling with lax.reduce_window) run
# through kiln-run's importer and match numpy references written from
# StableHLO's specification (a dilated, padded input read window by
# window); a small CNN exported whole matches numpy, and Kiln's gradient of
# its loss matches central finite differences.
# RUN: %numpy_python %s kiln-run
import itertools

import numpy as np

from harness import check, finish, ttype
from progen import to_bf16

rng = np.random.default_rng(11)


def dilate_and_pad(x, interior, low, high, value):
    """x with `interior[d]` values between elements and `low`/`high` at the
    edges (negative: removed), as stablehlo.pad."""
    for d in range(x.ndim):
        if interior[d]:
            shape = list(x.shape)
            shape[d] = (shape[d] - 1) * (interior[d] + 1) + 1
            spread = np.full(shape, value, x.dtype)
            index = [slice(None)] * x.ndim
            index[d] = slice(None, None, interior[d] + 1)
            spread[tuple(index)] = x
            x = spread
        before, after = max(low[d], 0), max(high[d], 0)
        widths = [(0, 0)] * x.ndim
        widths[d] = (before, after)
        x = np.pad(x, widths, constant_values=value)
        index = [slice(None)] * x.ndim
        index[d] = slice(-min(low[d], 0), x.shape[d] + min(high[d], 0))
        x = x[tuple(index)]
    return x


def windows(x, sizes, strides, dilations):
    """For each window position, the elements it covers: an array of the
    output's shape followed by the window's."""
    counts = [(x.shape[d] - (sizes[d] - 1) * dilations[d] - 1) // strides[d]
              + 1 for d in range(x.ndim)]
    out = np.zeros(counts + list(sizes), x.dtype)
    for position in itertools.product(*map(range, counts)):
        index = tuple(slice(p * s, p * s + (k - 1) * d + 1, d) for p, s, k, d
                      in zip(position, strides, sizes, dilations))
        out[position] = x[index]
    return out


def conv_reference(x, k, layouts, strides, padding, lhs_dil, rhs_dil,
                   groups=1, reverse=None, batch_groups=1):
    """StableHLO's convolution in float64, from the layouts ("b01f",
    "01io", "b01f": the letters' positions); batch groups split the batch
    and the outputs into contiguous parts, convolved pairwise."""
    in_l, k_l, out_l = layouts
    if batch_groups > 1:
        batch, features = in_l.index("b"), k_l.index("o")
        parts = [conv_reference(xp, kp, layouts, strides, padding, lhs_dil,
                                rhs_dil, groups, reverse)
                 for xp, kp in zip(np.split(x, batch_groups, axis=batch),
                                   np.split(k, batch_groups, axis=features))]
        return np.concatenate(parts, axis=out_l.index("f"))
    n = len(in_l) - 2
    xs = np.moveaxis(x.astype(np.float64), [in_l.index(c) for c in
                     "b" + "".join(map(str, range(n))) + "f"], range(n + 2))
    ks = np.moveaxis(k.astype(np.float64), [k_l.index(c) for c in
                     "".join(map(str, range(n))) + "io"], range(n + 2))
    if reverse:
        ks = np.flip(ks, [d for d in range(n) if reverse[d]])
    xs = dilate_and_pad(xs, [0] + [d - 1 for d in lhs_dil] + [0],
                        [0] + [p[0] for p in padding]
                        + [0], [0] + [p[1] for p in padding] + [0], 0.0)
    spatial = ks.shape[:n]
    cg, out_features = ks.shape[n], ks.shape[n + 1]
    og = out_features // groups
    patches = windows(xs, [1] + list(spatial) + [xs.shape[-1]],
                      [1] + strides + [1], [1] + rhs_dil + [1])
    # [b, o..., 1, 1, k..., c] -> [b, o..., k..., c]
    patches = patches.reshape(patches.shape[:n + 1] + patches.shape[n + 3:])
    result = np.zeros(patches.shape[:n + 1] + (out_features,))
    for g in range(groups):
        part = patches[..., g * cg:(g + 1) * cg]
        weights = ks[..., g * og:(g + 1) * og]
        axes = list(range(n + 1, 2 * n + 2))
        result[..., g * og:(g + 1) * og] = np.tensordot(
            part, weights, axes=(axes, list(range(n + 1))))
    canonical = "b" + "".join(map(str, range(n))) + "f"
    return np.moveaxis(result, range(n + 2),
                       [out_l.index(c) for c in canonical]).astype(x.dtype)


def layout_text(layout):
    return "[" + ", ".join(layout) + "]"


def conv_module(x, k, result_shape, layouts, strides, padding, lhs_dil,
                rhs_dil, groups=1, reverse=None, batch_groups=1, dtype=None):
    """The convolution as JAX exports it, of `dtype` (default: x's)."""
    dtype = dtype or x.dtype
    a, b = ttype(x.shape, dtype), ttype(k.shape, dtype)
    r = ttype(result_shape, dtype)
    window = [f"stride = {strides}", f"pad = {[list(p) for p in padding]}",
              f"lhs_dilate = {lhs_dil}", f"rhs_dilate = {rhs_dil}"]
    if reverse:
        window.append("reverse = [" + ", ".join(
            "true" if f else "false" for f in reverse) + "]")
    dims = "x".join(map(layout_text, layouts[:2])) + "->" + layout_text(
        layouts[2])
    return f'''module @jit_f {{
  func.func public @main(%arg0: {a}, %arg1: {b}) -> ({r} {{jax.result_info = ""}}) {{
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = {dims}, window = {{{", ".join(window)}}} {{batch_group_count = {batch_groups} : i64, feature_group_count = {groups} : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}} : ({a}, {b}) -> {r} loc(#loc2)
    return %0 : {r}
  }}
}}
#loc1 = loc("model.py":7:0)
#loc2 = loc("jit(f)/jit(main)/conv_general_dilated"(#loc1))
'''


def conv_case(name, x_shape, k_shape, layouts, strides, padding, lhs_dil=None,
              rhs_dil=None, groups=1, reverse=None, dtype=np.float32,
              batch_groups=1):
    """Checks the convolution against conv_reference; of dtype "bf16", on
    float32 values rounded to bf16 (as kiln-run passes them), against the
    reference rounded to bf16, within one bf16 step."""
    n = len(layouts[0]) - 2
    lhs_dil = lhs_dil or [1] * n
    rhs_dil = rhs_dil or [1] * n
    bf16 = dtype == "bf16"
    x, k = (rng.standard_normal(shape).astype(np.float32 if bf16 else dtype)
            for shape in (x_shape, k_shape))
    if bf16:
        x, k = to_bf16(x), to_bf16(k)
    expected = conv_reference(x, k, layouts, strides, padding, lhs_dil,
                              rhs_dil, groups, reverse, batch_groups)
    if bf16:
        expected = to_bf16(expected)
    check(name, conv_module(x, k, expected.shape, layouts, strides, padding,
                            lhs_dil, rhs_dil, groups, reverse, batch_groups,
                            dtype),
          "main", [x, k], [expected], rtol=8e-3 if bf16 else 1e-4,
          atol=8e-3 if bf16 else 1e-4)


NHWC = ("b01f", "01io", "b01f")
conv_case("conv 3x3 NHWC, VALID", (2, 7, 6, 3), (3, 3, 3, 5), NHWC, [1, 1],
          [(0, 0), (0, 0)])
conv_case("conv 3x3 stride 2, SAME", (2, 9, 8, 4), (3, 3, 4, 6), NHWC, [2, 2],
          [(1, 1), (1, 1)])
conv_case("conv 2x3 asymmetric and negative padding", (1, 8, 7, 2),
          (2, 3, 2, 3), NHWC, [1, 2], [(0, 1), (2, -1)])
conv_case("conv rhs dilation 2 (atrous)", (1, 9, 9, 2), (3, 3, 2, 4), NHWC,
          [1, 1], [(2, 2), (2, 2)], rhs_dil=[2, 2])
conv_case("conv lhs dilation 2 (transposed)", (2, 4, 5, 3), (3, 3, 3, 2),
          NHWC, [1, 1], [(2, 2), (2, 2)], lhs_dil=[2, 2])
conv_case("depthwise conv (groups = features)", (2, 6, 6, 4), (3, 3, 1, 8),
          NHWC, [1, 1], [(1, 1), (1, 1)], groups=4)
conv_case("grouped conv (2 groups)", (1, 5, 5, 6), (3, 3, 3, 4), NHWC, [1, 1],
          [(0, 0), (0, 0)], groups=2)
conv_case("conv with window reversal", (1, 6, 5, 2), (3, 2, 2, 3), NHWC,
          [1, 1], [(0, 0), (0, 0)], reverse=[True, False])
conv_case("conv 1-D, PyTorch's NCW / OIW layouts", (3, 4, 11), (5, 4, 3),
          ("bf0", "oi0", "bf0"), [2], [(1, 1)])
conv_case("conv 3-D NDHWC", (1, 4, 5, 4, 2), (2, 2, 2, 2, 3),
          ("b012f", "012io", "b012f"), [1, 1, 1], [(0, 0), (1, 0), (0, 1)])
conv_case("conv NCHW / OIHW in, NHWC out", (2, 3, 6, 6), (4, 3, 3, 3),
          ("bf01", "oi01", "b01f"), [1, 1], [(1, 1), (1, 1)])
conv_case("conv f64", (1, 5, 5, 2), (3, 3, 2, 2), NHWC, [1, 1],
          [(1, 1), (1, 1)], dtype=np.float64)
# Few input features: contracted from the padded input by output lines
# (a window product; LeNet's layers, ResNet's stem on RGB).
conv_case("conv 5x5, 6 to 16 features (LeNet's second layer)", (4, 14, 14, 6),
          (5, 5, 6, 16), NHWC, [1, 1], [(0, 0), (0, 0)])
conv_case("conv 5x5 of one feature (LeNet's first layer)", (3, 12, 10, 1),
          (5, 5, 1, 6), NHWC, [1, 1], [(0, 0), (0, 0)])
conv_case("conv 7x7 stride 2 of RGB (ResNet's stem)", (2, 16, 15, 3),
          (7, 7, 3, 8), NHWC, [2, 2], [(3, 3), (3, 3)])
# 16 features or more: contracted from the padded input itself by output
# lines (no patches), each line's register tiles summing the whole window
# where the kernel fits a cache tile of B, else each window position a
# matmul of the line's pixels; lines past the last whole register tile's
# rows a tile of their own, images shared by threads when the product is
# large; small images (8 x 8) too.
conv_case("conv 3x3 of 16 features, SAME (from the padded input)",
          (2, 24, 26, 16), (3, 3, 16, 24), NHWC, [1, 1], [(1, 1), (1, 1)])
conv_case("conv of 17 features, dilated, asymmetric and negative padding",
          (1, 30, 29, 17), (2, 3, 17, 5), NHWC, [1, 1], [(2, 1), (0, -1)],
          rhs_dil=[2, 1])
conv_case("conv lhs dilation 2 of 16 features (transposed)", (1, 12, 12, 16),
          (3, 3, 16, 8), NHWC, [1, 1], [(2, 2), (2, 2)], lhs_dil=[2, 2])
conv_case("conv 1-D of 20 features, NCW / OIW", (3, 20, 11), (5, 20, 3),
          ("bf0", "oi0", "bf0"), [1], [(2, 1)])
conv_case("conv 3-D of 16 features", (1, 12, 12, 12, 16), (2, 2, 2, 16, 3),
          ("b012f", "012io", "b012f"), [1, 1, 1], [(0, 0), (1, 0), (0, 1)])
conv_case("conv f64 of 16 features", (1, 24, 24, 16), (3, 3, 16, 4), NHWC,
          [1, 1], [(1, 1), (1, 1)], dtype=np.float64)
conv_case("conv 3x3, 32 to 32 features, blocks shared by threads",
          (4, 30, 30, 32), (3, 3, 32, 32), NHWC, [1, 1], [(1, 1), (1, 1)])
conv_case("conv 3x3 of 16 features on 8 x 8 images",
          (2, 8, 8, 16), (3, 3, 16, 8), NHWC, [1, 1], [(1, 1), (1, 1)])
# Strided, of 16 features or more: each output line's window positions are
# matmuls of every stride-th pixel (line widths of
# 4, 13 and 3 = 8 + 4 + 1 register tiles; odd and mixed strides; dilated;
# one image whose rows threads share).
conv_case("conv 3x3 stride 2 of 16 features, SAME",
          (2, 9, 8, 16), (3, 3, 16, 24), NHWC, [2, 2], [(1, 1), (1, 1)])
conv_case("conv stride 3 x 2 of 20 features, dilated, asymmetric padding",
          (1, 17, 26, 20), (2, 3, 20, 7), NHWC, [3, 2], [(2, 0), (1, 2)],
          rhs_dil=[2, 1])
conv_case("conv 1-D stride 2 of 16 features, NCW / OIW", (3, 16, 11),
          (3, 16, 5), ("bf0", "oi0", "bf0"), [2], [(1, 1)])
conv_case("conv 3-D stride (2, 1, 3) of 16 features", (1, 7, 6, 9, 16),
          (2, 2, 2, 16, 3), ("b012f", "012io", "b012f"), [2, 1, 3],
          [(0, 0), (1, 0), (0, 1)])
conv_case("conv 3x3 stride 2, 64 to 64 features, one image, rows on threads",
          (1, 48, 48, 64), (3, 3, 64, 64), NHWC, [2, 2], [(1, 1), (1, 1)])
# Few outputs (1 to 8) of whole vectors of features: each output line's
# register tiles (R pixels x all outputs x 16 lanes of features) sum every
# window position and group of lanes, then each vector's lanes: lines past
# the last whole tile (23 = 4 x 5 + 3 pixels of 3 outputs), strided,
# dilated, by output pixels (a batch of 32 over lines of 10: LeNet's input
# gradient's form), f64 (8 lanes), images shared by threads.
conv_case("conv 3x3, 64 features to 3, SAME (an output layer)",
          (2, 11, 23, 64), (3, 3, 64, 3), NHWC, [1, 1], [(1, 1), (1, 1)])
conv_case("conv 3x3 stride 2, 32 features to 1", (2, 17, 16, 32),
          (3, 3, 32, 1), NHWC, [2, 2], [(1, 1), (1, 1)])
conv_case("conv 3x3 of 16 features to 2, dilated", (1, 20, 19, 16),
          (3, 3, 16, 2), NHWC, [1, 1], [(2, 2), (2, 2)], rhs_dil=[2, 2])
conv_case("conv 5x5, 16 features to 6, batch 32 by output pixels",
          (32, 10, 10, 16), (5, 5, 16, 6), NHWC, [1, 1], [(4, 4), (4, 4)])
conv_case("conv f64 3x3, 32 features to 3", (1, 13, 12, 32), (3, 3, 32, 3),
          NHWC, [1, 1], [(1, 1), (1, 1)], dtype=np.float64)
conv_case("conv 3x3, 64 features to 3, images shared by threads",
          (4, 64, 64, 64), (3, 3, 64, 3), NHWC, [1, 1], [(1, 1), (1, 1)])
# Fewer than 16 features: contracted from the padded input too, each
# register tile summing every window position and feature before it is
# stored; pixels and outputs past the last whole register tile (48 = 32 +
# 16) are tiles of their own; strided, with threads sharing one image's
# rows, too.
conv_case("conv 5x5 of one feature into 16, VALID",
          (2, 28, 28, 1), (5, 5, 1, 16), NHWC, [1, 1], [(0, 0), (0, 0)])
conv_case("conv 3x3 of RGB into 48 features, SAME (from the padded input)",
          (3, 21, 19, 3), (3, 3, 3, 48), NHWC, [1, 1], [(1, 1), (1, 1)])
conv_case("conv 3x3 of one feature into 32, SAME (MNIST's first layer)",
          (2, 28, 28, 1), (3, 3, 1, 32), NHWC, [1, 1], [(1, 1), (1, 1)])
conv_case("conv of 8 features into 16, dilated, negative padding",
          (1, 30, 29, 8), (2, 3, 8, 16), NHWC, [1, 1], [(2, 1), (0, -1)],
          rhs_dil=[2, 1])
conv_case("conv f64 of RGB into 16 (register tiles of 8 x 16)",
          (1, 20, 20, 3), (3, 3, 3, 16), NHWC, [1, 1], [(1, 1), (1, 1)],
          dtype=np.float64)
conv_case("conv 3x3 of RGB into 64, images shared by threads",
          (4, 48, 48, 3), (3, 3, 3, 64), NHWC, [1, 1], [(1, 1), (1, 1)])
conv_case("conv 7x7 stride 2 of RGB into 32 (a stem), one image on threads",
          (1, 96, 90, 3), (7, 7, 3, 32), NHWC, [2, 2], [(3, 3), (3, 2)])
# A dilated input (a transposed convolution; JAX's input gradient of a
# strided one) runs as one convolution per phase of the output, each with
# the window positions that meet input elements: output counts that the
# dilation does not divide, phases no position meets (a 1x1 window, as a
# strided 1x1 layer's input gradient), dilations of 3 and mixed, negative
# padding, feature groups, one spatial dimension, many features.
conv_case("input gradient of a 3x3 stride 2 conv of 16 features",
          (2, 5, 5, 16), (3, 3, 16, 8), NHWC, [1, 1], [(1, 2), (1, 2)],
          lhs_dil=[2, 2])
conv_case("input gradient of a 1x1 stride 2 conv (empty phases)",
          (2, 4, 4, 32), (1, 1, 32, 16), NHWC, [1, 1], [(0, 1), (0, 1)],
          lhs_dil=[2, 2])
conv_case("transposed conv, dilations 3 and 2, odd and negative padding",
          (1, 4, 5, 6), (4, 3, 6, 5), NHWC, [1, 1], [(2, 3), (-1, 1)],
          lhs_dil=[3, 2])
conv_case("transposed depthwise conv (groups = features)", (2, 4, 4, 8),
          (3, 3, 1, 8), NHWC, [1, 1], [(2, 2), (1, 1)], lhs_dil=[2, 2],
          groups=8)
conv_case("transposed conv 1-D, NCW / OIW, dilation 4", (2, 3, 6),
          (4, 3, 5), ("bf0", "oi0", "bf0"), [1], [(3, 0)], lhs_dil=[4])
conv_case("transposed conv f64 of 16 features", (1, 6, 5, 16),
          (3, 3, 16, 4), NHWC, [1, 1], [(2, 2), (1, 2)], lhs_dil=[2, 2],
          dtype=np.float64)
# Kernel gradients as JAX's transpose rule writes them: the input's
# features are the batch, its images' batch the features, the output
# gradient the kernel ("i01o") and the kernel's taps the output pixels.
# With more batch than output pixels in a line, they run by output pixels
# (the batch a matmul's rows, a window row of pixels and features its
# steps; threads share the batch in chunks of 16 rows or more); dilated
# windows (a strided convolution's gradient) stay by lines.
DW = ("f01b", "i01o", "01bf")
conv_case("kernel gradient of a 3x3 SAME conv (by output pixels)",
          (4, 12, 12, 32), (4, 12, 12, 16), DW, [1, 1], [(1, 1), (1, 1)])
conv_case("kernel gradient of a 1x1 conv, 64 features on threads",
          (4, 32, 32, 64), (4, 32, 32, 32), DW, [1, 1], [(0, 0), (0, 0)])
conv_case("kernel gradient of a 5x3 VALID conv, 20 features into 24",
          (16, 9, 11, 20), (16, 5, 9, 24), DW, [1, 1], [(0, 0), (0, 0)])
conv_case("kernel gradient of a 3x3 stride 2 conv (dilated window)",
          (2, 9, 9, 32), (2, 5, 5, 16), DW, [1, 1], [(1, 1), (1, 1)],
          rhs_dil=[2, 2])
# An output gradient larger than a matmul's cache tile of B (4 x 12 x 12 x
# 128 f32: 288 KiB) is summed in blocks of its window rows (2 of 6).
conv_case("kernel gradient of a 3x3 stride 2 conv, 32 to 128 features, in "
          "blocks of window rows", (4, 24, 24, 32), (4, 12, 12, 128), DW,
          [1, 1], [(1, 0), (1, 0)], rhs_dil=[2, 2])
conv_case("kernel gradient f64 (by output pixels)", (2, 8, 8, 24),
          (2, 8, 8, 16), DW, [1, 1], [(1, 1), (1, 1)], dtype=np.float64)
# A window at one position over the unpadded input (a 1x1 layer's kernel
# gradient above) is one product of the input, sliced under a dilated or
# shorter window, and the kernel in their own layouts: RGB (3 features as
# the batch), a stride 2 layer's (dilated, the input cropped by negative
# padding), the output's features before its batch, strided (one position
# all the same), 1-D and 3-D, and reversed (patches).
conv_case("kernel gradient of a 1x1 conv on RGB", (8, 16, 16, 3),
          (8, 16, 16, 24), DW, [1, 1], [(0, 0), (0, 0)])
conv_case("kernel gradient of a 1x1 stride 2 conv (dilated window)",
          (4, 10, 10, 16), (4, 5, 5, 8), DW, [1, 1], [(0, -1), (0, -1)],
          rhs_dil=[2, 2])
conv_case("one-position window shorter than the input, 3 x 2 of 5 x 4",
          (2, 5, 4, 3), (3, 2, 3, 6), NHWC, [3, 3], [(0, 0), (0, 0)])
conv_case("whole-input window into [f, 0, 1, b], strided", (5, 7, 6, 9),
          (5, 7, 6, 4), ("f01b", "i01o", "f01b"), [2, 3], [(0, 0), (0, 0)])
conv_case("whole-input window 1-D, NCW / OIW", (3, 4, 11), (5, 4, 11),
          ("bf0", "oi0", "bf0"), [1], [(0, 0)])
conv_case("whole-input window 3-D", (2, 3, 4, 2, 5), (3, 4, 2, 5, 6),
          ("b012f", "012io", "b012f"), [1, 1, 1], [(0, 0), (0, 0), (0, 0)])
conv_case("whole-input window reversed", (2, 5, 4, 3), (5, 4, 3, 6), NHWC,
          [1, 1], [(0, 0), (0, 0)], reverse=[True, True])
# Batch groups: the kernel gradient of a depthwise convolution, as JAX's
# transpose rule writes it (features as the batch, 4 groups).
conv_case("conv with batch groups (depthwise kernel gradient)", (3, 6, 6, 4),
          (3, 3, 3, 8), ("f01b", "01io", "01bf"), [1, 1], [(1, 1), (1, 1)],
          batch_groups=4)
conv_case("conv with 2 batch groups, strided", (6, 7, 5, 2), (2, 3, 2, 4),
          NHWC, [2, 1], [(0, 0), (1, 1)], batch_groups=2)


def pool_reference(x, init, combine, sizes, strides, base_dil, win_dil,
                   padding):
    padded = dilate_and_pad(x, [b - 1 for b in base_dil],
                            [p[0] for p in padding], [p[1] for p in padding],
                            init)
    taps = windows(padded, sizes, strides, win_dil)
    flat = taps.reshape(taps.shape[:x.ndim] + (-1,))
    return combine.reduce(np.concatenate(
        [np.full(flat.shape[:-1] + (1,), init, x.dtype), flat], axis=-1),
        axis=-1).astype(x.dtype)


BODY = {np.maximum: "stablehlo.maximum", np.add: "stablehlo.add",
        np.minimum: "stablehlo.minimum", np.logical_or: "stablehlo.or"}


def pool_case(name, x, init, combine, sizes, strides=None, base_dil=None,
              win_dil=None, padding=None):
    rank = x.ndim
    strides = strides or [1] * rank
    base_dil = base_dil or [1] * rank
    win_dil = win_dil or [1] * rank
    padding = padding or [(0, 0)] * rank
    expected = pool_reference(x, init, combine, sizes, strides, base_dil,
                              win_dil, padding)
    a, r = ttype(x.shape, x.dtype), ttype(expected.shape, x.dtype)
    s = ttype((), x.dtype)
    infinities = {-np.inf: "0xFF800000", np.inf: "0x7F800000"}
    literal = ("true" if init else "false") if x.dtype == np.bool_ else (
        infinities.get(init, repr(float(init))))
    array = lambda v: "array<i64: " + ", ".join(map(str, v)) + ">"
    pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    module = f'''module @jit_f {{
  func.func public @main(%arg0: {a}) -> ({r} {{jax.result_info = ""}}) {{
    %cst = stablehlo.constant dense<{literal}> : {s}
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{{base_dilations = {array(base_dil)}, padding = dense<[{pads}]> : tensor<{rank}x2xi64>, window_dilations = {array(win_dil)}, window_dimensions = {array(sizes)}, window_strides = {array(strides)}}}> ({{
    ^bb0(%arg1: {s}, %arg2: {s}):
      %1 = {BODY[combine]} %arg1, %arg2 : {s}
      stablehlo.return %1 : {s}
    }}) : ({a}, {s}) -> {r}
    return %0 : {r}
  }}
}}
'''
    check(name, module, "main", [x], [expected], rtol=1e-6, atol=1e-6)


images = rng.standard_normal((2, 8, 7, 3)).astype(np.float32)
pool_case("max pool 2x2 stride 2 (flax max_pool, VALID)", images, -np.inf,
          np.maximum, [1, 2, 2, 1], [1, 2, 2, 1])
pool_case("max pool 3x3 stride 2, SAME padding", images, -np.inf, np.maximum,
          [1, 3, 3, 1], [1, 2, 2, 1], padding=[(0, 0), (1, 1), (1, 1), (0, 0)])
pool_case("sum pool 3x3 (avg_pool's sum), SAME", images, 0.0, np.add,
          [1, 3, 3, 1], padding=[(0, 0), (1, 1), (1, 1), (0, 0)])
pool_case("min pool with window and base dilation", images, np.inf,
          np.minimum, [1, 2, 2, 1], [1, 1, 2, 1], base_dil=[1, 2, 1, 1],
          win_dil=[1, 2, 1, 1])
pool_case("sum over a window with an init of 1.5", images[0, :, :, 0], 1.5,
          np.add, [3, 2], [2, 2])
pool_case("or over boolean windows", images[0] > 0.8, False, np.logical_or,
          [2, 2, 1], [1, 2, 1])


def select_and_scatter_reference(x, source, init, sizes, strides, padding,
                                 keeps):
    """StableHLO's select_and_scatter: each window selects, over its
    elements in order (padding skipped), the first that `keeps` does not
    keep the previous choice over, and its source value is added there."""
    result = np.full(x.shape, init, np.float64)
    for window in np.ndindex(*source.shape):
        selected = None
        for offset in np.ndindex(*sizes):
            p = tuple(window[d] * strides[d] + offset[d] - padding[d][0]
                      for d in range(x.ndim))
            if any(not 0 <= p[d] < x.shape[d] for d in range(x.ndim)):
                continue
            if selected is None or not keeps(x[selected], x[p]):
                selected = p
        if selected is not None:
            result[selected] += source[window]
    return result.astype(x.dtype)


def select_and_scatter_case(name, x, init, direction, sizes, strides,
                            padding):
    keeps = {"GE": np.greater_equal, "LE": np.less_equal}[direction]
    counts = [(x.shape[d] + lo + hi - sizes[d]) // strides[d] + 1
              for d, (lo, hi) in enumerate(padding)]
    source = rng.standard_normal(counts).astype(x.dtype)
    expected = select_and_scatter_reference(x, source, init, sizes, strides,
                                            padding, keeps)
    a, b = ttype(x.shape, x.dtype), ttype(source.shape, x.dtype)
    s = ttype((), x.dtype)
    array = lambda v: "array<i64: " + ", ".join(map(str, v)) + ">"
    pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    module = f'''module @jit_f {{
  func.func public @main(%arg0: {a}, %arg1: {b}) -> ({a} {{jax.result_info = ""}}) {{
    %init = stablehlo.constant dense<{float(init)}> : {s}
    %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %init) <{{padding = dense<[{pads}]> : tensor<{x.ndim}x2xi64>, window_dimensions = {array(sizes)}, window_strides = {array(strides)}}}> ({{
    ^bb0(%p: {s}, %q: {s}):
      %c = stablehlo.compare  {direction}, %p, %q,  FLOAT : ({s}, {s}) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }}, {{
    ^bb0(%p: {s}, %q: {s}):
      %t = stablehlo.add %p, %q : {s}
      stablehlo.return %t : {s}
    }}) : ({a}, {b}, {s}) -> {a}
    return %0 : {a}
  }}
}}
'''
    check(name, module, "main", [x, source], [expected], rtol=1e-6,
          atol=1e-6)


# JAX's gradient of max pooling: overlapping windows, padding, ties (the
# first maximum in window order is chosen), min pooling's, an init value.
select_and_scatter_case("select_and_scatter: max pool 2x2 stride 2", images,
                        0.0, "GE", [1, 2, 2, 1], [1, 2, 2, 1],
                        [(0, 0)] * 4)
ties = rng.integers(0, 3, (2, 7, 6, 2)).astype(np.float32)
select_and_scatter_case("select_and_scatter: 3x3 stride 2 SAME, ties", ties,
                        0.0, "GE", [1, 3, 3, 1], [1, 2, 2, 1],
                        [(0, 0), (1, 1), (1, 1), (0, 0)])
select_and_scatter_case("select_and_scatter: min pool, init 0.5",
                        images[0, :, :, 0], 0.5, "LE", [3, 2], [1, 2],
                        [(1, 0), (0, 1)])

# A small CNN exported whole: conv 3x3 SAME + bias + relu, max pool 2x2,
# dense to 3 classes, log_softmax; and Kiln's gradient of its loss.
B, H, W, C, F, K = 2, 6, 6, 2, 4, 3
P = (H // 2) * (W // 2) * F
CNN = f'''module @jit_loss {{
  func.func public @main(%x: tensor<{B}x{H}x{W}x{C}xf64>, %k: tensor<3x3x{C}x{F}xf64>, %bias: tensor<{F}xf64>, %w: tensor<{P}x{K}xf64>, %y: tensor<{B}x{K}xf64>) -> (tensor<f64> {{jax.result_info = ""}}) {{
    %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<{B}x{H}x{W}x{C}xf64>, tensor<3x3x{C}x{F}xf64>) -> tensor<{B}x{H}x{W}x{F}xf64>
    %1 = stablehlo.broadcast_in_dim %bias, dims = [3] : (tensor<{F}xf64>) -> tensor<{B}x{H}x{W}x{F}xf64>
    %2 = stablehlo.add %0, %1 : tensor<{B}x{H}x{W}x{F}xf64>
    %zero = stablehlo.constant dense<0.0> : tensor<{B}x{H}x{W}x{F}xf64>
    %3 = stablehlo.maximum %2, %zero : tensor<{B}x{H}x{W}x{F}xf64>
    %ninf = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %4 = "stablehlo.reduce_window"(%3, %ninf) <{{window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}}> ({{
    ^bb0(%a: tensor<f64>, %b: tensor<f64>):
      %m = stablehlo.maximum %a, %b : tensor<f64>
      stablehlo.return %m : tensor<f64>
    }}) : (tensor<{B}x{H}x{W}x{F}xf64>, tensor<f64>) -> tensor<{B}x{H // 2}x{W // 2}x{F}xf64>
    %5 = stablehlo.reshape %4 : (tensor<{B}x{H // 2}x{W // 2}x{F}xf64>) -> tensor<{B}x{P}xf64>
    %6 = stablehlo.dot_general %5, %w, contracting_dims = [1] x [0] : (tensor<{B}x{P}xf64>, tensor<{P}x{K}xf64>) -> tensor<{B}x{K}xf64>
    %7 = stablehlo.multiply %6, %y : tensor<{B}x{K}xf64>
    %c0 = stablehlo.constant dense<0.0> : tensor<f64>
    %8 = stablehlo.reduce(%7 init: %c0) applies stablehlo.add across dimensions = [0, 1] : (tensor<{B}x{K}xf64>, tensor<f64>) -> tensor<f64>
    return %8 : tensor<f64>
  }}
  func.func public @grads(%x: tensor<{B}x{H}x{W}x{C}xf64>, %k: tensor<3x3x{C}x{F}xf64>, %bias: tensor<{F}xf64>, %w: tensor<{P}x{K}xf64>, %y: tensor<{B}x{K}xf64>) -> (tensor<f64>, tensor<3x3x{C}x{F}xf64>, tensor<{F}xf64>) {{
    %l, %gk, %gb = kiln.value_and_grad @main(%x, %k, %bias, %w, %y) {{argnums = array<i64: 1, 2>}} : (tensor<{B}x{H}x{W}x{C}xf64>, tensor<3x3x{C}x{F}xf64>, tensor<{F}xf64>, tensor<{P}x{K}xf64>, tensor<{B}x{K}xf64>) -> (tensor<f64>, tensor<3x3x{C}x{F}xf64>, tensor<{F}xf64>)
    return %l, %gk, %gb : tensor<f64>, tensor<3x3x{C}x{F}xf64>, tensor<{F}xf64>
  }}
}}'''


def cnn_loss(x, k, bias, w, y):
    h = conv_reference(x, k, NHWC, [1, 1], [(1, 1), (1, 1)], [1, 1], [1, 1])
    h = np.maximum(h + bias, 0)
    pooled = h.reshape(B, H // 2, 2, W // 2, 2, F).max(axis=(2, 4))
    return float((pooled.reshape(B, P) @ w * y).sum())


cnn_args = [rng.standard_normal((B, H, W, C)), rng.standard_normal(
    (3, 3, C, F)), rng.standard_normal(F) * 0.1, rng.standard_normal((P, K)),
    rng.standard_normal((B, K))]


def central_difference(index, eps=1e-6):
    base = cnn_args[index]
    grad = np.zeros_like(base)
    for position in np.ndindex(*base.shape):
        args = [a.copy() for a in cnn_args]
        args[index][position] += eps
        up = cnn_loss(*args)
        args[index][position] -= 2 * eps
        grad[position] = (up - cnn_loss(*args)) / (2 * eps)
    return grad


check("a CNN (conv, relu, max pool, dense) and its gradient", CNN, "grads",
      cnn_args, [np.float64(cnn_loss(*cnn_args)), central_difference(1),
                 central_difference(2)], rtol=1e-6, atol=1e-6)

# A kernel larger than a matmul's cache tile of B (3 x 3 x 128 x 96 f32:
# 432 KiB) is summed window position by position; the smaller ones above,
# whole in each register tile. (Last, so that the cases above keep their
# random inputs.)
conv_case("conv 3x3, 128 to 96 features, position by position",
          (2, 10, 12, 128), (3, 3, 128, 96), NHWC, [1, 1], [(1, 1), (1, 1)])

# Few features into outputs that are no multiple of 16 are window products
# too (20 = 16 + 4 lanes, 10, 12); bf16 of fewer than 16 features one in
# f32, its input and kernel widened first and its result rounded (RGB into
# 32, 12 into 20). (Last, so that the cases above keep their random inputs.)
conv_case("conv 5x5, 12 to 20 features, SAME", (2, 16, 15, 12),
          (5, 5, 12, 20), NHWC, [1, 1], [(2, 2), (2, 2)])
conv_case("conv 3x3 stride 2, 8 to 10 features", (3, 17, 16, 8),
          (3, 3, 8, 10), NHWC, [2, 2], [(1, 1), (1, 1)])
conv_case("conv 7x7 stride 2 of RGB into 12", (2, 30, 29, 3), (7, 7, 3, 12),
          NHWC, [2, 2], [(3, 3), (3, 3)])
conv_case("conv bf16 3x3 of RGB into 32, SAME", (2, 20, 19, 3),
          (3, 3, 3, 32), NHWC, [1, 1], [(1, 1), (1, 1)], dtype="bf16")
conv_case("conv bf16 5x5, 12 to 20 features", (2, 14, 13, 12),
          (5, 5, 12, 20), NHWC, [1, 1], [(0, 0), (0, 0)], dtype="bf16")
# One feature at stride 2 (a grayscale first layer; the compile crashed in
# upstream's expand-strided-metadata until 2026-11-29), into 16 and 10.
conv_case("conv 3x3 stride 2 of one feature into 16", (4, 32, 31, 1),
          (3, 3, 1, 16), NHWC, [2, 2], [(1, 1), (1, 1)])
conv_case("conv 3x3 stride 2 of one feature into 10", (3, 17, 16, 1),
          (3, 3, 1, 10), NHWC, [2, 2], [(1, 1), (1, 1)])
# 1x1 windows of few features: the product of the input's (strided) rows
# with the kernel (their taps were feature-major until 2026-11-29).
conv_case("conv 1x1 of one feature into 64", (4, 14, 13, 1), (1, 1, 1, 64),
          NHWC, [1, 1], [(0, 0), (0, 0)])
conv_case("conv 1x1 stride 2 of RGB into 24", (3, 15, 16, 3), (1, 1, 3, 24),
          NHWC, [2, 2], [(0, 0), (0, 0)])

finish()
