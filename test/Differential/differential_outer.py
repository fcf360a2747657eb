"""Differential test of two-level (outer) scales, compiled for the CPU and
executed, against the numpy reference (python/quant_block/reference.py):

* NVFP4 and other schemes with a per-tensor outer scale: quantize with
  explicit block scales and outer scale, then dequantize (codes and values
  compared); quantize_dynamic absmax deriving the outer scale and the block
  scales (codes, block scales, outer scale and values compared);
* with --kquant (differential_outer.test passes it; without it, only the
  cases above): blocked outer scales with and without
  outer mins, integer (ui4 / ui6 / ui8 / i8) block scales, int and float
  zero points under an outer min (GGUF Q4_K / Q5_K / Q2_K-like), quantize
  and dequantize with explicit parameters, and packed (imported) codes
  dequantized.

Bits must be identical.

usage: differential_outer.py QUANT_OPT MLIR_RUNNER LIB_DIR [--cases N]
       [--seed S] [--kquant]
"""

import sys

import numpy as np

import differential
import harness
from harness import Scheme, reference

choice = differential.choice
INT_STORAGE = [s for s in differential.INT_STORAGE
               if reference.storage_bits(s) <= 16]
FLOAT_STORAGE = differential.FLOAT_STORAGE


def positive(rng, shape, type_name, low, high):
    values = np.exp(rng.uniform(np.log(low), np.log(high), shape))
    return np.asarray(reference.convert_float(values.astype(np.float32),
                                              type_name), np.float32)


def random_shape_block(rng, ragged=True):
    """A 1-3-D shape with blocks along the last dimension (16 for NVFP4
    most of the time), sometimes 2-D or ragged (quantize_dynamic rejects
    ragged blocks today)."""
    rank = choice(rng, [1, 2, 2, 3])
    b = choice(rng, [16, 16, 8, 32, 4])
    last = b * choice(rng, [1, 2, 4])
    if ragged and rng.random() < 0.15:
        last -= choice(rng, [1, 3])
    shape = [choice(rng, [1, 2, 3, 4]) for _ in range(rank - 1)] + [last]
    block = [b]
    if rank > 1 and rng.random() < 0.2:
        block = [choice(rng, [1, 2]) if not ragged else choice(rng, [2, 3]),
                 b]
        if not ragged:
            shape[-2] = block[0] * choice(rng, [1, 2])
    return shape, tuple(block)


def per_tensor_scheme(rng, block, expressed, dynamic):
    """NVFP4 (f4E2M1FN, f8E4M3FN block scales, f32 outer) or a variant:
    other storage, block scale and outer types."""
    if rng.random() < 0.4:
        return Scheme("f4E2M1FN", expressed, block, "f8E4M3FN", outer="f32")
    storage = choice(rng, INT_STORAGE + FLOAT_STORAGE)
    scale = choice(rng, ["f8E4M3FN", "f8E4M3FN", "f16"] if dynamic else
                   ["f8E4M3FN", "f16", "bf16", "f32"])
    zero_point = None
    if not dynamic and storage in INT_STORAGE:
        domain = choice(rng, ["none", "int", "float"])
        if domain == "int":
            zero_point = storage
        elif domain == "float":
            zero_point = choice(rng, ["f32", "f16", "bf16"])
    return Scheme(storage, expressed, block, scale, zero_point,
                  rounding=choice(rng, differential.ROUNDINGS),
                  outer=choice(rng, ["f32", "f32", "f16", "bf16"]))


def kquant_scheme(rng, shape, block, expressed):
    """A two-level scheme with a blocked outer scale over the scale tensor,
    an integer or float block scale, and often an outer min."""
    storage = choice(rng, ["ui4", "ui5", "ui2", "ui3", "ui6", "i8", "ui8"])
    scale = choice(rng, ["ui6", "ui6", "ui4", "ui8", "i8", "f16"])
    sshape = reference.scale_shape(shape, reference.resolve_block(block,
                                                                  shape))
    outer_block = (choice(rng, [8, 4, 2, 3, sshape[-1]]),)
    if len(shape) > 1 and rng.random() < 0.2:
        outer_block = (choice(rng, [1, 2]), outer_block[0])
    if rng.random() < 0.1:
        outer_block = ()
    outer = choice(rng, ["f16", "f16", "f32", "bf16"])
    kind = choice(rng, ["min", "min", "scale", "int"])
    zero_point = outer_min = None
    if kind == "min":
        zero_point = choice(rng, ["ui6", "ui4", "ui8", "f16"])
        outer_min = choice(rng, ["f16", "f32"])
    elif kind == "int":
        zero_point = storage
    return Scheme(storage, expressed, block, scale, zero_point,
                  rounding=choice(rng, differential.ROUNDINGS), outer=outer,
                  outer_block=outer_block, outer_min=outer_min)


def random_params(rng, shape, scheme):
    sshape = scheme.scale_shape(shape)
    oshape = scheme.outer_shape(shape)
    if scheme.scale in ("f8E4M3FN", "f16", "bf16", "f32"):
        scales = differential.random_scales(rng, sshape, scheme.scale)
    else:
        top = reference.integer_range(scheme.scale)[1]
        scales = rng.integers(1, top + 1, sshape).astype(np.float32)
    outer = positive(rng, oshape, scheme.outer, 2.0 ** -6, 0.5)
    zero_points = outer_mins = None
    if scheme.zero_point is not None:
        if scheme.zero_point in harness.FLOAT_TYPES:
            zero_points = differential.round_to(rng.uniform(-2, 2, sshape),
                                                scheme.zero_point)
        else:
            lo, hi = reference.integer_range(scheme.zero_point)
            if scheme.zero_point_domain == "int":
                lo, hi = max(lo, scheme.qrange[0]), min(hi, scheme.qrange[1])
            zero_points = rng.integers(lo, hi + 1, sshape)
    if scheme.outer_min:
        outer_mins = -positive(rng, oshape, scheme.outer_min, 2.0 ** -6, 0.5)
    return reference.Params(scales, zero_points, outer, outer_mins)


def random_input(rng, shape, scheme, params, dynamic):
    """Values on and between the storage grid at the effective scales, with
    ties, and (explicit parameters only) NaN, +-Inf and -0.0."""
    block = scheme.block_for(shape)
    s = reference.expand_blocks(reference.effective_scales(
        params.scales, outer_scales=params.outer_scales,
        outer_block=scheme.outer_block), shape, block)
    if dynamic:
        magnitude = np.exp(rng.uniform(-3, 3, scheme.scale_shape(shape)))
        x = rng.standard_normal(shape) * \
            reference.expand_blocks(magnitude, shape, block)
        x = np.where(rng.random(shape) < 0.1, 0.0, x)
        if rng.random() < 0.2:
            x[..., :block[-1]] = 0.0  # an all-zero block
    elif scheme.integer_storage:
        lo, hi = scheme.qrange
        y = rng.integers(lo - 2, hi + 3, shape) + \
            np.where(rng.random(shape) < 0.3, 0.5, 0.0)
        m = 0.0
        if scheme.zero_point_domain == "float":
            zp = params.zero_points
            if params.outer_mins is not None:
                zp = reference.effective_mins(
                    zp, outer_mins=params.outer_mins,
                    outer_block=scheme.outer_block)
            m = reference.expand_blocks(np.asarray(zp, np.float32), shape,
                                        block)
        elif scheme.zero_point_domain == "int":
            y = y - reference.expand_blocks(params.zero_points, shape, block)
        x = y * s.astype(np.float64) + m
    else:
        table = reference.float_format_table(scheme.storage)
        grid = table[np.isfinite(table)]
        pick = grid[rng.integers(0, len(grid), shape)]
        other = grid[rng.integers(0, len(grid), shape)]
        x = np.where(rng.random(shape) < 0.5, pick, (pick + other) / 2) * s
    x = differential.round_to(np.asarray(x, np.float32), scheme.expressed)
    if not dynamic:
        flat = x.ravel()
        for special in (np.nan, np.inf, -np.inf, -0.0):
            if rng.random() < 0.2:
                flat[int(rng.integers(0, flat.size))] = special
        x = flat.reshape(shape)
    return x


def make_case(rng, index, kquant):
    expressed = choice(rng, ["f32", "f32", "f16", "bf16"])
    if kquant and rng.random() < 0.7:
        shape, block = random_shape_block(rng)
        scheme = kquant_scheme(rng, shape, block, expressed)
        params = random_params(rng, shape, scheme)
        if rng.random() < 0.4:
            # Imported codes (a GGUF file): pack, then dequantize only.
            lo, hi = scheme.qrange
            codes = rng.integers(lo, hi + 1, shape)
            return dict(index=index, shape=shape, scheme=scheme,
                        params=params, codes=codes, dynamic=False)
        x = random_input(rng, shape, scheme, params, False)
        return dict(index=index, shape=shape, scheme=scheme, params=params,
                    x=x, dynamic=False)
    else:
        dynamic = rng.random() < 0.5
        shape, block = random_shape_block(rng, ragged=not dynamic)
        scheme = per_tensor_scheme(rng, block, expressed, dynamic)
    params = None if dynamic else random_params(rng, shape, scheme)
    if dynamic:
        x = random_input(rng, shape, scheme,
                         random_params(rng, shape, scheme), True)
    else:
        x = random_input(rng, shape, scheme, params, False)
    return dict(index=index, shape=shape, scheme=scheme, params=params, x=x,
                dynamic=dynamic)


def emit(case):
    f = harness.Function(f"case{case['index']}")
    scheme, shape, params = case["scheme"], case["shape"], case["params"]
    qtype = harness.qtensor(shape, scheme)
    q = f.fresh("q")
    if "codes" in case:
        operands = []
        for name, part_shape, element in harness.part_types(shape,
                                                            scheme)[1:]:
            value = getattr(params, name)
            operands.append(f"{name}({f.const(value, element)} : "
                            f"{harness.tensor(part_shape, element)})")
        data = f.const(case["codes"], scheme.storage)
        f.add(f"{q} = quant_block.pack {data} {' '.join(operands)} : "
              f"{harness.tensor(shape, scheme.storage)} -> {qtype}")
        y = f.fresh("y")
        f.add(f"{y} = quant_block.dequantize {q} : {qtype} -> "
              f"{harness.tensor(shape, scheme.expressed)}")
        f.print_bits(y, shape, scheme.expressed)
        return f
    x = f.const(case["x"], scheme.expressed)
    if case["dynamic"]:
        f.add(f"{q} = quant_block.quantize_dynamic absmax {x} : "
              f"{harness.tensor(shape, scheme.expressed)} -> {qtype}")
        f.print_quantized(q, shape, scheme)
    else:
        operands = []
        for name, part_shape, element in harness.part_types(shape,
                                                            scheme)[1:]:
            value = getattr(params, name)
            operands.append(f"{name}({f.const(value, element)} : "
                            f"{harness.tensor(part_shape, element)})")
        f.add(f"{q} = quant_block.quantize {x} {' '.join(operands)} : "
              f"{harness.tensor(shape, scheme.expressed)} -> {qtype}")
        f.print_bits(*f.unpack(q, shape, scheme)[0])
    y = f.fresh("y")
    f.add(f"{y} = quant_block.dequantize {q} : {qtype} -> "
          f"{harness.tensor(shape, scheme.expressed)}")
    f.print_bits(y, shape, scheme.expressed)
    return f


def check(case, outputs):
    scheme, shape = case["scheme"], case["shape"]
    if "codes" in case:
        values = reference.dequantize_scheme(case["codes"], scheme,
                                             case["params"])
        return harness.compare(case, outputs, [
            ("values", scheme.expressed,
             harness.bits_of(values, scheme.expressed))],
            f"pack + dequantize {harness.scheme_text(scheme)} shape {shape}")
    if case["dynamic"]:
        codes, params = reference.quantize_dynamic(case["x"], "absmax",
                                                   scheme)
    else:
        params = case["params"]
        codes = reference.quantize_scheme(case["x"], scheme, params)
    values = reference.dequantize_scheme(codes, scheme, params)
    expected = harness.expected_bits(codes, params, values, scheme, shape)
    if not case["dynamic"]:
        expected = [expected[0], expected[-1]]
    what = (f"{'quantize_dynamic absmax' if case['dynamic'] else 'quantize'}"
            f" {harness.scheme_text(scheme)} shape {shape}")
    return harness.compare(case, outputs, expected, what)


def main():
    def extra(parser):
        parser.add_argument("--kquant", action="store_true",
                            help="also draw blocked outer scales, outer "
                                 "mins and integer block scales (not "
                                 "lowered yet)")
    args = harness.parse_args(__doc__, 60, 20261126, extra)
    rng = np.random.default_rng(args.seed)
    cases = harness.select([make_case(rng, i, args.kquant)
                            for i in range(args.cases)], args.only)
    return harness.execute(cases, emit, check, "differential_outer", args)


if __name__ == "__main__":
    sys.exit(main())
