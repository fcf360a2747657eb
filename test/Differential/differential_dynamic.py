"""Differential test of quant_block.quantize_dynamic: random schemes for
each method (absmax with integer and float storage, minmax with int and
float zero points, mx with MX floats and MX integers), every scale type the
method can derive (f32, f16, bf16, f8E4M3FN; f8E8M0FNU for mx), ranges,
rounding and saturation modes, expressed f32 / f16 / bf16, shapes of rank 1
to 3 with 1- and 2-D, whole-dimension and per-tensor blocks; blocks whose
parameters come out exact (rounding ties), all-zero blocks, blocks holding
NaN, +-Inf or -0.0. The compiled CPU path and the numpy reference
(python/quant_block/reference.py) must agree bit for bit on the codes, the
scales, the zero points and the dequantized values.

usage: differential_dynamic.py QUANT_OPT MLIR_RUNNER LIB_DIR [--cases N]
       [--seed S] [--ragged] [--all-scale-roundings]
--ragged and --all-scale-roundings draw configurations the compiled path
rejects today (ragged blocks; MX scale_rounding ceil / half_to_even).
"""

import sys

import numpy as np

import harness
from harness import (FLOAT_STORAGE, INT_STORAGE, MX_INT_STORAGE, ROUNDINGS,
                     Scheme, choice, reference)


def random_layout(rng, rank, mx, ragged):
    """(shape, block): blocks that divide their dimensions (the lowering
    rejects ragged ones), unless `ragged`."""
    if mx:
        axis = rank - 1 if rng.random() < 0.7 else int(rng.integers(0, rank))
        block = [32 if d == axis else 1 for d in range(rank)]
        shape = [32 * int(rng.integers(1, 3)) if d == axis else
                 int(rng.integers(1, 4)) for d in range(rank)]
        if ragged and rng.random() < 0.5:
            shape[axis] -= int(rng.integers(1, 31))
        return shape, tuple(block)
    shape, block = [], []
    for d in range(rank):
        last = d == rank - 1
        b = choice(rng, [1, 2, 4, 8, 16, 32, -1] if last else [1, 1, 2, -1])
        count = int(rng.integers(1, 4 if last else 3))
        size = (b if b > 0 else choice(rng, [3, 8, 16])) * count
        if ragged and b > 1 and rng.random() < 0.5:
            size -= int(rng.integers(1, b))
        shape.append(max(size, 1))
        block.append(b)
    if rng.random() < 0.08:
        block = []
    elif rank > 1 and block[0] == 1 and rng.random() < 0.3:
        block = block[1:]
    return shape, tuple(block)


def former_failure(method, scheme):
    """Configurations the compiled path failed on when this test was
    written, drawn only with --include-former-failures: minmax with a
    32-bit integer zero point emitted an invalid `arith.trunci` from i32 to
    i32 ("'arith.trunci' op operand type 'i32' and result type 'i32' are
    cast incompatible"). Fixed by 857b471 ("quantize_dynamic minmax: 32-bit
    zero points"); differential_dynamic.test runs them."""
    return method == "minmax" and scheme.zero_point_domain == "int" and \
        scheme.storage_bits == 32 and \
        reference.storage_bits(scheme.zero_point) == 32


def undefined(case):
    """Inputs the contract does not define a result for: minmax with an
    int zero point where a nonzero f32 scale rounds to 0 in the scale type
    (f8E4M3FN below 2^-10, f16 / bf16 underflow) on a block with min = 0:
    the zero point is then round(qmin - 0 / 0), a NaN converted to an
    integer (the zero test of s = 1 comes before the rounding)."""
    if case["method"] != "minmax" or \
            case["scheme"].zero_point_domain != "int":
        return False
    _, params = reference.quantize_dynamic(case["x"], "minmax",
                                           case["scheme"])
    return bool(np.any(params.scales == 0))


def make_case(rng, index, args):
    while True:
        case = draw_case(rng, index, args)
        if undefined(case):
            continue
        if args.include_former_failures or \
                not former_failure(case["method"], case["scheme"]):
            return case


def draw_case(rng, index, args):
    method = choice(rng, ["absmax", "absmax", "minmax", "minmax", "mx"])
    rank = choice(rng, [1, 2, 2, 3])
    expressed = choice(rng, ["f32", "f32", "f16", "bf16"])
    rounding = choice(rng, ROUNDINGS)
    shape, block = random_layout(rng, rank, method == "mx", args.ragged)
    qrange = None
    if method == "mx":
        storage = choice(rng, FLOAT_STORAGE + MX_INT_STORAGE)
        scale_rounding = "floor"
        if args.all_scale_roundings:
            scale_rounding = choice(rng, ["floor", "ceil", "half_to_even"])
        scheme = Scheme(storage, expressed, block, "f8E8M0FNU",
                        rounding=rounding, scale_rounding=scale_rounding)
    else:
        scale = choice(rng, ["f32", "f32", "f16", "bf16", "f8E4M3FN"])
        if method == "absmax":
            storage = choice(rng, INT_STORAGE + FLOAT_STORAGE)
            zero_point = None
        else:
            storage = choice(rng, INT_STORAGE)
            zero_point = storage if rng.random() < 0.5 else \
                choice(rng, ["f32", "f16", "bf16"])
        saturate = True
        if storage in INT_STORAGE and rng.random() < 0.2:
            lo, hi = reference.integer_range(storage)
            if method == "absmax" and lo < 0:
                qrange = (-hi, hi)
            else:
                a = int(rng.integers(lo, hi))
                qrange = (a, int(rng.integers(a + 1, hi + 1)))
            if method == "absmax" and qrange[1] <= 0:
                qrange = None
        elif storage in ("f8E4M3FN", "f8E5M2"):
            saturate = rng.random() < 0.7
        scheme = Scheme(storage, expressed, block, scale, zero_point, qrange,
                        rounding, saturate)
    x = random_input(rng, shape, scheme, method)
    return dict(index=index, method=method, scheme=scheme, shape=shape, x=x)


def element_grid(scheme):
    """Representable element values of the storage (integers of the range,
    or the float format's finite values) and the largest magnitude."""
    if scheme.integer_storage and not scheme.mx:
        return None, float(scheme.qrange[1])
    _, largest = reference.mx_element_facts(scheme.storage) if scheme.mx \
        else (0, reference.max_finite(scheme.storage))
    if scheme.integer_storage:
        return None, largest
    table = reference.float_format_table(scheme.storage)
    return table[np.isfinite(table)], largest


def random_input(rng, shape, scheme, method):
    """Block by block: random magnitudes spanning many binades; "exact"
    blocks whose parameters are powers of two (so that the elements sit on
    rounding ties of the storage grid); subnormal blocks; all-zero blocks;
    NaN, +-Inf and -0.0
    where the contract defines the result (not in minmax blocks with an int
    zero point, whose zero point would be the conversion of NaN)."""
    block = scheme.block_for(shape)
    sshape = scheme.scale_shape(shape)
    x = np.zeros(shape, np.float32)
    grid, largest = element_grid(scheme)
    specials_ok = not (method == "minmax" and
                       scheme.zero_point_domain == "int")
    # Keep finite blocks finite in the expressed type: the largest block
    # value is about largest (or the range's span) times 2^j.
    limit = reference.type_max(scheme.expressed) / 4
    span = largest if method != "minmax" else \
        float(scheme.qrange[1] - scheme.qrange[0])
    j_max = int(np.floor(np.log2(limit / span)))
    for index in np.ndindex(*sshape):
        region = tuple(slice(i * b, min((i + 1) * b, d))
                       for i, b, d in zip(index, block, shape))
        size = x[region].shape
        kind = rng.random()
        j = min(int(rng.integers(-8, 9)), j_max)
        if kind < 0.1:
            values = np.zeros(size)
        elif kind < 0.45:
            values = exact_block(rng, size, scheme, method, grid, largest, j)
        else:
            magnitude = np.exp(rng.uniform(-4, 6)) * 2.0 ** j
            values = rng.standard_normal(size) * magnitude
            if method == "minmax" and rng.random() < 0.3:
                values = np.abs(values) * choice(rng, [1, -1])
        values = np.clip(np.asarray(values, np.float64), -limit,
                         limit).ravel()
        if rng.random() < 0.05:
            # Subnormal inputs (of f32, or tiny ones of f16 / bf16).
            values = values * (2.0 ** -140 if scheme.expressed == "f32"
                               else 2.0 ** -24)
        if rng.random() < 0.15:
            values[int(rng.integers(0, values.size))] = -0.0
        if specials_ok and rng.random() < 0.08:
            values[int(rng.integers(0, values.size))] = \
                choice(rng, [np.nan, np.inf, -np.inf])
        x[region] = values.reshape(size)
    return np.asarray(reference.convert_float(x, scheme.expressed),
                      np.float32)


def exact_block(rng, size, scheme, method, grid, largest, j):
    """A block whose derived scale is 2^j exactly and whose other elements
    are rounding ties (or grid points) of the storage at that scale."""
    count = int(np.prod(size))
    step = 2.0 ** j
    if method == "minmax":
        lo, hi = scheme.qrange
        span = hi - lo
        # min = -z * step with z integer or a tie, max = (span - z) * step:
        # s = (max - min) / span = step.
        z = int(rng.integers(0, min(span, 2 ** 20) + 1)) + \
            choice(rng, [0.0, 0.5])
        z = min(z, span)
        low, high = -z * step, (span - z) * step
        k = rng.integers(0, min(span, 2 ** 20) + 1, count) + \
            np.where(rng.random(count) < 0.5, 0.5, 0.0)
        values = np.clip(low + k * step, low, high)
        values[0], values[-1] = low, high
        return values
    if grid is None:
        # Integers (or MX integers, whose element is k / 2^(N-2)).
        if scheme.mx:
            bits = scheme.storage_bits
            unit = 2.0 ** (2 - bits)
            top = (1 << (bits - 1)) - 1
        else:
            unit, top = 1.0, int(largest)
        k = rng.integers(-top, top + 1, count) + \
            np.where(rng.random(count) < 0.5, 0.5, 0.0)
        values = np.clip(k, -top, top) * unit * step
        values[0] = largest * step * choice(rng, [1, -1])
        return values
    pick = grid[rng.integers(0, len(grid), count)]
    other = grid[rng.integers(0, len(grid), count)]
    values = np.where(rng.random(count) < 0.5, pick, (pick + other) / 2)
    values = values * step
    values[0] = largest * step * choice(rng, [1, -1])
    return values


def emit(case):
    f = harness.Function(f"case{case['index']}")
    scheme, shape = case["scheme"], case["shape"]
    x = f.const(case["x"], scheme.expressed)
    qtype = harness.qtensor(shape, scheme)
    q, y = f.fresh("q"), f.fresh("y")
    f.add(f"{q} = quant_block.quantize_dynamic {case['method']} {x} : "
          f"{harness.tensor(shape, scheme.expressed)} -> {qtype}")
    f.print_quantized(q, shape, scheme)
    f.add(f"{y} = quant_block.dequantize {q} : {qtype} -> "
          f"{harness.tensor(shape, scheme.expressed)}")
    f.print_bits(y, shape, scheme.expressed)
    return f


def check(case, outputs):
    scheme, shape = case["scheme"], case["shape"]
    codes, params = reference.quantize_dynamic(case["x"], case["method"],
                                               scheme)
    values = reference.dequantize_scheme(codes, scheme, params)
    return harness.compare(case, outputs,
                           harness.expected_bits(codes, params, values,
                                                 scheme, shape),
                           f"quantize_dynamic {case['method']} "
                           f"{harness.scheme_text(scheme)} shape {shape}")


def main():
    def extra(parser):
        parser.add_argument("--ragged", action="store_true",
                            help="also draw ragged blocks (not lowered yet)")
        parser.add_argument("--all-scale-roundings", action="store_true",
                            help="also draw MX scale_rounding ceil and "
                                 "half_to_even (not lowered yet)")
    args = harness.parse_args(__doc__, 60, 20261123, extra)
    rng = np.random.default_rng(args.seed)
    cases = harness.select([make_case(rng, i, args)
                            for i in range(args.cases)], args.only)
    return harness.execute(cases, emit, check, "differential_dynamic", args)


if __name__ == "__main__":
    sys.exit(main())
