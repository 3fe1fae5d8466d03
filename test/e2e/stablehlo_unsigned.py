# Unsigned integers as JAX exports them: jax.random's threefry2x32 hash on
# uint32 keys and counters (adds, rotations by shifts, xors), its bits made
# uniform floats (a logical shift, an or, a bitcast) and a dropout mask,
# and the ops whose meaning depends on signedness (comparison, division,
# remainder of 8 to 64 bits, max, min, conversions). They run through kiln-run's importer,
# which reads uint32 as the signless i32 of the same bits (results come
# back as int32; arguments are passed as int32 views, or, for the uint8
# and uint16 cases, as the unsigned arrays themselves, which kiln-run reads
# as the ints of the same bits), and match numpy's uint arithmetic.
# RUN: %numpy_python %s kiln-run
import numpy as np

from harness import check, finish

rng = np.random.default_rng(5)
N = 16
U = f"tensor<{N}xui32>"
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def rotl(x, r):
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def threefry2x32(key, x0, x1):
    """The Threefry-2x32 hash of 20 rounds (Salmon et al., 2011), as
    jax.random computes it, in numpy's wrapping uint32 arithmetic."""
    ks = [key[0], key[1], key[0] ^ key[1] ^ np.uint32(0x1BD11BDA)]
    x0, x1 = x0 + ks[0], x1 + ks[1]
    for i in range(5):
        for r in ROTATIONS[i % 2]:
            x0 = x0 + x1
            x1 = rotl(x1, r) ^ x0
        x0 = x0 + ks[(i + 1) % 3]
        x1 = x1 + ks[(i + 2) % 3] + np.uint32(i + 1)
    return x0, x1


def threefry_body():
    """The hash's ops on %x0, %x1 with key scalars broadcast to %ks0..2."""
    lines, n = [], [0]

    def emit(text):
        n[0] += 1
        lines.append(f"    %v{n[0]} = {text}")
        return f"%v{n[0]}"

    def const(value):
        return emit(f"stablehlo.constant dense<{value}> : {U}")

    x0 = emit(f"stablehlo.add %x0, %ks0 : {U}")
    x1 = emit(f"stablehlo.add %x1, %ks1 : {U}")
    ks = ["%ks0", "%ks1", "%ks2"]
    for i in range(5):
        for r in ROTATIONS[i % 2]:
            x0 = emit(f"stablehlo.add {x0}, {x1} : {U}")
            left = emit(f"stablehlo.shift_left {x1}, {const(r)} : {U}")
            right = emit(f"stablehlo.shift_right_logical {x1}, "
                         f"{const(32 - r)} : {U}")
            rotated = emit(f"stablehlo.or {left}, {right} : {U}")
            x1 = emit(f"stablehlo.xor {rotated}, {x0} : {U}")
        x0 = emit(f"stablehlo.add {x0}, {ks[(i + 1) % 3]} : {U}")
        x1 = emit(f"stablehlo.add {x1}, {ks[(i + 2) % 3]} : {U}")
        x1 = emit(f"stablehlo.add {x1}, {const(i + 1)} : {U}")
    return "\n".join(lines), x0, x1


body, out0, out1 = threefry_body()
F = f"tensor<{N}xf32>"
PRNG = f'''module @jit_dropout {{
  func.func public @main(%key: tensor<2xui32>, %p: tensor<f32>) -> ({U}, {U}, {F}, tensor<{N}xi1>) {{
    %k0 = stablehlo.slice %key [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %k1 = stablehlo.slice %key [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %s0 = stablehlo.reshape %k0 : (tensor<1xui32>) -> tensor<ui32>
    %s1 = stablehlo.reshape %k1 : (tensor<1xui32>) -> tensor<ui32>
    %x0 = stablehlo.iota dim = 0 : {U}
    %n = stablehlo.constant dense<{N}> : {U}
    %x1 = stablehlo.add %x0, %n : {U}
    %hash:2 = call @threefry2x32(%s0, %s1, %x0, %x1) : (tensor<ui32>, tensor<ui32>, {U}, {U}) -> ({U}, {U})
    %nine = stablehlo.constant dense<9> : {U}
    %mantissa = stablehlo.shift_right_logical %hash#0, %nine : {U}
    %exponent = stablehlo.constant dense<1065353216> : {U}
    %bits = stablehlo.or %mantissa, %exponent : {U}
    %floats = stablehlo.bitcast_convert %bits : ({U}) -> {F}
    %one = stablehlo.constant dense<1.0> : {F}
    %uniform = stablehlo.subtract %floats, %one : {F}
    %pb = stablehlo.broadcast_in_dim %p, dims = [] : (tensor<f32>) -> {F}
    %keep = stablehlo.compare  LT, %uniform, %pb,  FLOAT : ({F}, {F}) -> tensor<{N}xi1>
    return %hash#0, %hash#1, %uniform, %keep : {U}, {U}, {F}, tensor<{N}xi1>
  }}
  func.func private @threefry2x32(%k0: tensor<ui32>, %k1: tensor<ui32>, %x0: {U}, %x1: {U}) -> ({U}, {U}) {{
    %parity = stablehlo.constant dense<466688986> : tensor<ui32>
    %k01 = stablehlo.xor %k0, %k1 : tensor<ui32>
    %k2 = stablehlo.xor %k01, %parity : tensor<ui32>
    %ks0 = stablehlo.broadcast_in_dim %k0, dims = [] : (tensor<ui32>) -> {U}
    %ks1 = stablehlo.broadcast_in_dim %k1, dims = [] : (tensor<ui32>) -> {U}
    %ks2 = stablehlo.broadcast_in_dim %k2, dims = [] : (tensor<ui32>) -> {U}
{body}
    return {out0}, {out1} : {U}, {U}
  }}
}}'''

with np.errstate(over="ignore"):
    for seed in (0, 42, 2**32 - 1):
        key = np.array([seed >> 16, seed & 0xFFFF ^ 0x9E37], np.uint32)
        counters = np.arange(N, dtype=np.uint32)
        h0, h1 = threefry2x32(key, counters, counters + np.uint32(N))
        uniform = ((h0 >> np.uint32(9)) | np.uint32(0x3F800000)).view(
            np.float32) - np.float32(1)
        check(f"threefry2x32, uniform floats and a dropout mask (key {seed})",
              PRNG, "main", [key.view(np.int32), np.float32(0.3)],
              [h0.view(np.int32), h1.view(np.int32), uniform, uniform < 0.3])

# The ops whose meaning depends on signedness, at values above 2^31.
V = "tensor<8xui32>"
a = np.array([0, 1, 2**31, 2**32 - 1, 7, 3000000000, 5, 2**31 + 3],
             np.uint32)
b = np.array([1, 2**32 - 1, 3, 2, 0, 7, 2**31, 2**31 + 3], np.uint32)
floats = np.array([-1.5, 0.0, 1.9, 3e9, 5e9, np.nan, 4294967040.0, 2.5e9],
                  np.float32)
wide = np.array([0, 1, 2**63, 2**64 - 1, 2**63 + 2**40, 12345, 2**62, 7],
                np.uint64)
SIGNS = f'''module @jit_unsigned {{
  func.func public @main(%a: {V}, %b: {V}, %f: tensor<8xf32>, %w: tensor<8xui64>) -> (tensor<8xi1>, tensor<8xi1>, {V}, {V}, {V}, {V}, tensor<8xf32>, tensor<8xi64>, {V}, tensor<8xf64>, tensor<8xui64>) {{
    %lt = stablehlo.compare  LT, %a, %b,  UNSIGNED : ({V}, {V}) -> tensor<8xi1>
    %ge = stablehlo.compare  GE, %a, %b : ({V}, {V}) -> tensor<8xi1>
    %div = stablehlo.divide %a, %b : {V}
    %rem = stablehlo.remainder %a, %b : {V}
    %max = stablehlo.maximum %a, %b : {V}
    %min = stablehlo.minimum %a, %b : {V}
    %tofloat = stablehlo.convert %a : ({V}) -> tensor<8xf32>
    %toint = stablehlo.convert %a : ({V}) -> tensor<8xi64>
    %fromfloat = stablehlo.convert %f : (tensor<8xf32>) -> {V}
    %widefloat = stablehlo.convert %w : (tensor<8xui64>) -> tensor<8xf64>
    %widened = stablehlo.convert %a : ({V}) -> tensor<8xui64>
    return %lt, %ge, %div, %rem, %max, %min, %tofloat, %toint, %fromfloat, %widefloat, %widened : tensor<8xi1>, tensor<8xi1>, {V}, {V}, {V}, {V}, tensor<8xf32>, tensor<8xi64>, {V}, tensor<8xf64>, tensor<8xui64>
  }}
}}'''

# XLA's rules for a zero divisor: all ones, and the dividend.
nonzero = np.where(b == 0, 1, b)
quotient = np.where(b == 0, np.uint32(2**32 - 1), a // nonzero)
remainder = np.where(b == 0, a, a % nonzero)
saturated = np.array([0, 0, 1, 3000000000, 2**32 - 1, 0, 4294967040,
                      2500000000], np.uint32)
check("unsigned compare, divide, remainder, max, min, converts", SIGNS,
      "main", [a.view(np.int32), b.view(np.int32), floats, wide.view(np.int64)],
      [a < b, a >= b, quotient.view(np.int32), remainder.view(np.int32),
       np.maximum(a, b).view(np.int32), np.minimum(a, b).view(np.int32),
       a.astype(np.float32), a.astype(np.int64), saturated.view(np.int32),
       wide.astype(np.float64), a.astype(np.uint64).view(np.int64)])

def narrow_signs(bits):
    """The sign-dependent ops on uint8 or uint16 (uint8 images made floats
    in [0, 1]; values from 2^(bits - 1) on, where signed ones differ)."""
    unsigned, signed = np.dtype(f"u{bits // 8}"), np.dtype(f"i{bits // 8}")
    top = 2**bits - 1
    x = np.array([0, 1, 2**(bits - 1), top, 7, top - 5, 5, 2**(bits - 1) + 3],
                 unsigned)
    y = np.array([1, top, 3, 2, 0, 7, 2**(bits - 1), 2**(bits - 1) + 3],
                 unsigned)
    reals = np.array([-1.5, 0.0, 1.9, 255.9, 300.0, np.nan, 65535.5, 1e9],
                     np.float32)
    big = np.array([0, 255, 256, 65535, 65536 + 9, 2**32 - 1, 2**31, 77],
                   np.uint32)
    u, i32 = f"tensor<8xui{bits}>", "tensor<8xui32>"
    program = f'''module @jit_narrow {{
  func.func public @main(%a: {u}, %b: {u}, %f: tensor<8xf32>, %w: {i32}) -> (tensor<8xi1>, tensor<8xi1>, {u}, {u}, {u}, {u}, tensor<8xf32>, tensor<8xi32>, {u}, {i32}, {u}) {{
    %lt = stablehlo.compare  LT, %a, %b,  UNSIGNED : ({u}, {u}) -> tensor<8xi1>
    %ge = stablehlo.compare  GE, %a, %b : ({u}, {u}) -> tensor<8xi1>
    %div = stablehlo.divide %a, %b : {u}
    %rem = stablehlo.remainder %a, %b : {u}
    %max = stablehlo.maximum %a, %b : {u}
    %min = stablehlo.minimum %a, %b : {u}
    %real = stablehlo.convert %a : ({u}) -> tensor<8xf32>
    %top = stablehlo.constant dense<{float(top)}> : tensor<8xf32>
    %scaled = stablehlo.divide %real, %top : tensor<8xf32>
    %toint = stablehlo.convert %a : ({u}) -> tensor<8xi32>
    %fromfloat = stablehlo.convert %f : (tensor<8xf32>) -> {u}
    %widened = stablehlo.convert %a : ({u}) -> {i32}
    %low = stablehlo.convert %w : ({i32}) -> {u}
    return %lt, %ge, %div, %rem, %max, %min, %scaled, %toint, %fromfloat, %widened, %low : tensor<8xi1>, tensor<8xi1>, {u}, {u}, {u}, {u}, tensor<8xf32>, tensor<8xi32>, {u}, {i32}, {u}
  }}
}}'''
    safe = np.where(y == 0, 1, y)
    saturated = np.nan_to_num(np.clip(np.trunc(reals), 0, top)).astype(unsigned)
    check(f"uint{bits}: compare, divide, remainder, max, min, converts",
          program, "main",
          [x, y, reals, big],
          [x < y, x >= y, np.where(y == 0, unsigned.type(top),
                                   x // safe).view(signed),
           np.where(y == 0, x, x % safe).view(signed),
           np.maximum(x, y).view(signed), np.minimum(x, y).view(signed),
           x.astype(np.float32) / np.float32(top), x.astype(np.int32),
           saturated.view(signed), x.astype(np.uint32).view(np.int32),
           big.astype(unsigned).view(signed)])


narrow_signs(8)
narrow_signs(16)

# Unsigned 64-bit division and remainder: divisors above 2^63, zero, one,
# and random values of every magnitude.
W = "tensor<12xui64>"
top = np.uint64(2**64 - 1)
x64 = np.array([0, 1, 2**64 - 1, 2**63, 2**63 + 5, 10**19, 12345678901234,
                2**64 - 1, 7, 2**63 - 1, 99, 2**40 + 3], np.uint64)
y64 = np.array([1, 0, 2**63, 2**63 + 1, 2**63, 3, 2**33 + 1, 2**64 - 1, 9,
                2, 0, 2**20 - 1], np.uint64)
safe = np.where(y64 == 0, np.uint64(1), y64)
DIVIDE64 = f'''module @jit_divide {{
  func.func public @main(%x: {W}, %y: {W}) -> ({W}, {W}) {{
    %q = stablehlo.divide %x, %y : {W}
    %r = stablehlo.remainder %x, %y : {W}
    return %q, %r : {W}, {W}
  }}
}}'''
# Floats to unsigned 64-bit integers: toward zero, saturating at 0 and
# 2^64 - 1, NaN to 0.
reals = np.array([-3.0, 0.5, 2.0**40 + 0.5, 2.0**63, 1.5 * 2.0**63,
                  2.0**64, 1e30, np.nan, 7.9, 2.0**63 - 1024, 123.0, 1e19])
wrapped = np.array([0, 0, 2**40, 2**63, 3 * 2**62, 2**64 - 1, 2**64 - 1, 0, 7,
                    2**63 - 1024, 123, 10**19], np.uint64)
TO64 = '''module @jit_convert {
  func.func public @main(%x: tensor<12xf64>) -> tensor<12xui64> {
    %0 = stablehlo.convert %x : (tensor<12xf64>) -> tensor<12xui64>
    return %0 : tensor<12xui64>
  }
}'''
check("f64 to unsigned 64-bit", TO64, "main", [reals],
      [wrapped.view(np.int64)])
check("unsigned 64-bit divide and remainder", DIVIDE64, "main",
      [x64.view(np.int64), y64.view(np.int64)],
      [np.where(y64 == 0, top, x64 // safe).view(np.int64),
       np.where(y64 == 0, x64, x64 % safe).view(np.int64)])

finish()
