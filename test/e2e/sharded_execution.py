# Every primitive under random shardings of its arguments, results and an
# intermediate value, on meshes of 1, 2, 2x2, 2x4 and 8 in-process devices:
# the partitioned run (kiln-partition, collectives between device threads)
# equals the run of the same program without shardings, exactly for
# integers and to 1e-6 relative for floats (sums may be ordered otherwise).
# RUN: %numpy_python %s kiln-run
import random

import numpy as np

from harness import compare, fail, finish, run, ttype

MESHES = [{"x": 1}, {"x": 2}, {"x": 2, "y": 2}, {"x": 2, "y": 4}, {"x": 8}]

f32, i32 = np.float32, np.int32
A = (8, 16)

# (name, argument shapes and dtypes, result types, body using %a0.. and
# defining %r0..; %m is an intermediate value given a random constraint).
CASES = [
    ("add", [(A, f32), (A, f32)], [(A, f32)],
     "%m = kiln.add %a0, %a1 : {A}\n%r0 = kiln.tanh %m : {A}"),
    ("integer_mul", [(A, i32), (A, i32)], [(A, i32)],
     "%m = kiln.mul %a0, %a1 : {Ai}\n%r0 = kiln.add %m, %a0 : {Ai}"),
    ("select_compare", [(A, f32), (A, f32)], [(A, f32)],
     "%m = kiln.sub %a0, %a1 : {A}\n%c = kiln.compare GT, %m, %a1 : {A}\n"
     "%r0 = kiln.select %c, %m, %a1 : {Ab}, {A}"),
    ("convert", [(A, f32)], [(A, i32)],
     "%m = kiln.exp %a0 : {A}\n%r0 = kiln.convert %m : ({A}) -> {Ai}"),
    ("broadcast", [((16,), f32)], [(A, f32)],
     "%m = kiln.broadcast_in_dim %a0, dims = [1] : (tensor<16xf32>) -> {A}\n"
     "%r0 = kiln.sin %m : {A}"),
    ("reshape", [(A, f32)], [((2, 4, 16), f32)],
     "%m = kiln.neg %a0 : {A}\n"
     "%r0 = kiln.reshape %m : ({A}) -> tensor<2x4x16xf32>"),
    ("reshape_merge", [((4, 2, 16), f32)], [((8, 16), f32)],
     "%m = kiln.reshape %a0 : (tensor<4x2x16xf32>) -> {A}\n"
     "%r0 = kiln.abs %m : {A}"),
    ("transpose", [(A, f32)], [((16, 8), f32)],
     "%m = kiln.exp %a0 : {A}\n"
     "%r0 = kiln.transpose %m, permutation = [1, 0] : ({A}) -> tensor<16x8xf32>"),
    ("slice", [(A, f32)], [((8, 8), f32)],
     "%m = kiln.cos %a0 : {A}\n"
     "%r0 = kiln.slice %m [0:8, 2:10] : ({A}) -> tensor<8x8xf32>"),
    ("pad", [(A, f32), ((), f32)], [((8, 20), f32)],
     "%m = kiln.tanh %a0 : {A}\n%r0 = kiln.pad %m, %a1, low = [0, 1], "
     "high = [0, 3], interior = [0, 0] : ({A}, tensor<f32>) -> tensor<8x20xf32>"),
    ("reverse", [(A, f32)], [(A, f32)],
     "%m = kiln.sqrt %a0 : {A}\n%r0 = kiln.reverse %m, dims = [0, 1] : {A}"),
    ("concatenate", [(A, f32), (A, f32)], [((8, 32), f32)],
     "%m = kiln.mul %a0, %a1 : {A}\n%r0 = kiln.concatenate %m, %a0, dim = 1 "
     ": ({A}, {A}) -> tensor<8x32xf32>"),
    ("dynamic_slice", [(A, f32), ((), i32)], [((8, 4), f32)],
     "%m = kiln.exp %a0 : {A}\n%z = kiln.constant dense<0> : tensor<i32>\n"
     "%r0 = kiln.dynamic_slice %m [%z, %a1], sizes = [8, 4] : "
     "({A}, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>"),
    ("dynamic_update_slice", [(A, f32), ((8, 4), f32), ((), i32)], [(A, f32)],
     "%m = kiln.exp %a0 : {A}\n%z = kiln.constant dense<0> : tensor<i32>\n"
     "%r0 = kiln.dynamic_update_slice %m, %a1 [%z, %a2] : "
     "({A}, tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> {A}"),
    ("take", [(A, f32), ((8,), i32)], [((8, 16), f32)],
     "%m = kiln.tanh %a0 : {A}\n%r0 = kiln.take %m[%a1], dim = 0 : "
     "({A}, tensor<8xi32>) -> {A}"),
    ("scatter_add", [(A, f32), ((8,), i32), (A, f32)], [(A, f32)],
     "%m = kiln.exp %a2 : {A}\n%r0 = kiln.scatter_add %a0[%a1], %m, dim = 0 : "
     "({A}, tensor<8xi32>, {A}) -> {A}"),
    ("reductions", [(A, f32)], [((8,), f32), ((16,), f32), ((8,), i32)],
     "%m = kiln.sin %a0 : {A}\n"
     "%r0 = kiln.reduce_sum %m, dims = [1] : ({A}) -> tensor<8xf32>\n"
     "%r1 = kiln.reduce_max %m, dims = [0] : ({A}) -> tensor<16xf32>\n"
     "%r2 = kiln.argmax %m, dim = 1 : ({A}) -> tensor<8xi32>"),
    ("integer_reductions", [(A, i32)], [((8,), i32), ((16,), i32)],
     "%m = kiln.mul %a0, %a0 : {Ai}\n"
     "%r0 = kiln.reduce_sum %m, dims = [1] : ({Ai}) -> tensor<8xi32>\n"
     "%r1 = kiln.reduce_min %m, dims = [0] : ({Ai}) -> tensor<16xi32>"),
    ("product", [(A, f32)], [((8,), f32)],
     "%m = kiln.cos %a0 : {A}\n"
     "%r0 = kiln.reduce_prod %m, dims = [1] : ({A}) -> tensor<8xf32>"),
    ("matmul", [(A, f32), ((16, 8), f32)], [((8, 8), f32)],
     "%m = kiln.tanh %a0 : {A}\n%r0 = kiln.dot_general %m, %a1, "
     "contracting = [1] x [0] : ({A}, tensor<16x8xf32>) -> tensor<8x8xf32>"),
    ("batched_dot", [((8, 4, 16), f32), ((8, 16, 8), f32)], [((8, 4, 8), f32)],
     "%m = kiln.exp %a0 : tensor<8x4x16xf32>\n%r0 = kiln.dot_general %m, %a1, "
     "batching = [0] x [0], contracting = [2] x [1] : "
     "(tensor<8x4x16xf32>, tensor<8x16x8xf32>) -> tensor<8x4x8xf32>"),
    ("iota_constant", [(A, i32)], [(A, i32), (A, f32)],
     "%m = kiln.iota dim = 1 : {Ai}\n%r0 = kiln.add %m, %a0 : {Ai}\n"
     "%c = kiln.constant dense<0.5> : {A}\n%r1 = kiln.convert %m : "
     "({Ai}) -> {A}"),
    ("while", [(A, f32)], [(A, f32)],
     "%m = kiln.exp %a0 : {A}\n%zero = kiln.constant dense<0> : tensor<i32>\n"
     "%n, %r0 = kiln.while (%zero, %m) : tensor<i32>, {A} cond {\n"
     "^bb0(%i: tensor<i32>, %v: {A}):\n"
     "  %three = kiln.constant dense<3> : tensor<i32>\n"
     "  %c = kiln.compare LT, %i, %three : tensor<i32>\n"
     "  kiln.yield %c : tensor<i1>\n} do {\n"
     "^bb0(%i: tensor<i32>, %v: {A}):\n"
     "  %one = kiln.constant dense<1> : tensor<i32>\n"
     "  %j = kiln.add %i, %one : tensor<i32>\n"
     "  %w = kiln.tanh %v : {A}\n  kiln.yield %j, %w : tensor<i32>, {A}\n}"),
    ("cond", [(A, f32), ((), np.bool_)], [(A, f32)],
     "%m = kiln.exp %a0 : {A}\n%r0 = kiln.cond %a1 -> ({A}) {\n"
     "  %t = kiln.tanh %m : {A}\n  kiln.yield %t : {A}\n} else {\n"
     "  kiln.yield %m : {A}\n}"),
]


def shape_text(shape, dtype):
    return ttype(shape, dtype)


def random_sharding(rng, shape, mesh):
    """A random #kiln.sharding of `shape` over `mesh`: each dimension takes
    unused axes while their devices divide it."""
    axes = list(mesh)
    rng.shuffle(axes)
    dims = [[] for _ in shape]
    for axis in axes:
        if rng.random() < 0.3 or not shape:
            continue
        d = rng.randrange(len(shape))
        devices = np.prod([mesh[a] for a in dims[d]] + [mesh[axis]])
        if shape[d] % devices == 0:
            dims[d].append(axis)
    text = ", ".join("{" + ", ".join(f'"{a}"' for a in dim) + "}"
                     for dim in dims)
    return f"#kiln.sharding<@mesh, [{text}]>"


def program(case, mesh, rng):
    """The case's program over `mesh` with random shardings (none if mesh
    is None)."""
    name, args, results, body = case
    subst = {"A": ttype(A, f32), "Ai": ttype(A, i32), "Ab": ttype(A, "i1")}
    for key in ("Ai", "Ab", "A"):
        body = body.replace("{" + key + "}", subst[key])

    def layout(shape):
        if mesh is None:
            return ""
        return f" {{kiln.sharding = {random_sharding(rng, shape, mesh)}}}"

    params = ", ".join(f"%a{i}: {shape_text(s, t)}{layout(s)}"
                       for i, (s, t) in enumerate(args))
    outs = ", ".join(f"{shape_text(s, t)}{layout(s)}" for s, t in results)
    text = ""
    if mesh is not None:
        axes = ", ".join(f'"{a}"={n}' for a, n in mesh.items())
        text += f"kiln.mesh @mesh [{axes}]\n"
        # The intermediate %m gets a random constraint too.
        body = body.replace("%m ", "%m0 ", 1)
        first, rest = body.split("\n", 1)
        m_type = first.rsplit(": ", 1)[1].strip()
        if m_type.startswith("("):
            m_type = m_type.rsplit("-> ", 1)[1]
        m_shape = [int(d) for d in
                   m_type[len("tensor<"):].split("x")[:-1]]
        body = (first + "\n%m = kiln.sharding_constraint %m0 <@mesh, "
                + random_sharding(rng, m_shape, mesh)[len("#kiln.sharding<@mesh, "):]
                + f" : {m_type}\n" + rest)
    names = ", ".join(f"%r{i}" for i in range(len(results)))
    types = ", ".join(shape_text(s, t) for s, t in results)
    text += (f"func.func @f({params}) -> ({outs}) {{\n{body}\n"
             f"return {names} : {types}\n}}\n")
    return text


def arguments(case, rng):
    values = []
    for shape, dtype in case[1]:
        if dtype == np.bool_:
            values.append(np.array(rng.random() < 0.5))
        elif dtype == i32 and case[0] in ("take", "scatter_add"):
            values.append(np.array(
                [rng.randrange(8) for _ in range(int(np.prod(shape)))],
                dtype=i32).reshape(shape))
        elif dtype == i32:
            values.append(np.array(
                [rng.randrange(-5, 6) for _ in range(int(np.prod(shape)))],
                dtype=i32).reshape(shape))
        else:
            values.append(np.array(
                [rng.uniform(0.1, 1.5) for _ in range(int(np.prod(shape)))],
                dtype=f32).reshape(shape))
    return values


def main():
    rng = random.Random(13)
    for case in CASES:
        args = arguments(case, rng)
        expected, output, status = run(program(case, None, rng), "f", args)
        if status != 0:
            fail(f"{case[0]} unsharded: kiln-run failed:\n{output}")
            continue
        for mesh in MESHES:
            text = program(case, mesh, rng)
            results, output, status = run(text, "f", args)
            label = f"{case[0]} on {mesh}"
            if status != 0:
                fail(f"{label}: kiln-run failed:\n{output}\n{text}")
                continue
            if not compare(label, results, expected, rtol=1e-6, atol=1e-6):
                fail(f"{label}: the program was\n{text}")
    finish()


if __name__ == "__main__":
    main()
