"""Differential test of quant_block.matmul, compiled for the CPU and
executed, against the numpy reference (python/quant_block/reference.py):

* float accumulation: a float lhs (or a dynamically quantized one) times a
  packed weight of a random scheme (integer storage of 2..8, 16 bits, the
  OCP floats, MX floats and integers; every scale type; none / int / float
  zero points; blocks along K that divide it or end ragged, blocks along
  N), with and without transpose_rhs, rank 2 and batched (rank 3) weights,
  f32 accumulation for every expressed type and f16 / bf16 accumulation for
  their own; `inhibit`, and `propagate` (the result requantized by
  quantize_dynamic, whose parts are compared too);
* i32 accumulation: an 8-bit lhs from quantize_dynamic (absmax, or minmax
  with int zero points) times integer weights of up to 8 bits (sometimes
  with two-level scales: float or integer block scales under a per-tensor or
  blocked outer scale) with the same block size along K; the lhs parts are
  compared as well.

Result bits must be identical.

usage: differential_matmul.py QUANT_OPT MLIR_RUNNER LIB_DIR [--cases N]
       [--seed S] [--any-i32-layout] [--include-former-failures]
       [--e2m1-weights]
--e2m1-weights draws only i32-accumulating products of FP4 E2M1 weights
(MXFP4 with E8M0 scales per 32, NVFP4 with E4M3 scales per 16 and an outer
scale, or other scales and blocks).
--any-i32-layout draws i32-accumulating weights the lowering rejects today
(ragged blocks, packed blocks that are not whole packing groups).
"""

import sys

import numpy as np

import harness
from harness import Scheme, choice, reference

INT_STORAGE = [f"{sign}{width}" for width in (2, 3, 4, 5, 6, 7, 8, 16)
               for sign in ("i", "ui")]
SMALL_INT_STORAGE = [f"{sign}{width}" for width in (2, 3, 4, 5, 6, 7, 8)
                     for sign in ("i", "ui")]
FLOAT_STORAGE = list(reference.FLOAT_FORMATS)
MX_INT_STORAGE = ["i4", "i6", "i8"]


def random_scales(rng, shape, scale_type, storage):
    if scale_type == "f8E8M0FNU":
        emax, _ = reference.mx_element_facts(storage)
        return reference.decode_e8m0(127 - emax + rng.integers(-2, 2, shape))
    if scale_type == "f8E4M3FN":
        return reference.decode_float(rng.integers(5 << 3, 9 << 3, shape),
                                      "f8E4M3FN")
    values = np.exp(rng.uniform(np.log(0.01), np.log(1.0), shape))
    return np.asarray(reference.convert_float(values.astype(np.float32),
                                              scale_type), np.float32)


def random_codes(rng, shape, scheme):
    """Codes of every representable finite value (and the most negative MX
    integer, which decodes but is never produced)."""
    if scheme.integer_storage:
        lo, hi = scheme.qrange
        return rng.integers(lo, hi + 1, shape)
    table = reference.float_format_table(scheme.storage)
    finite = np.nonzero(np.isfinite(table))[0]
    return finite[rng.integers(0, len(finite), shape)]


def random_weight(rng, shape, k_dim, expressed, integer_only=False,
                  k_block=None, e2m1=False, two_level=True):
    """A weight scheme, its codes and parameters. `k_dim` is the K
    dimension of `shape`; `k_block` forces the block size along K. `e2m1`:
    FP4 E2M1 codes (an i32-accumulating weight), MXFP4 (E8M0 scales) in
    half the blocks of 32. `two_level`: integer-only weights may get outer
    scales."""
    rank = len(shape)
    mx = not integer_only and k_block is None and rng.random() < 0.15
    outer = None
    if e2m1 and k_block == 32 and rng.random() < 0.5:
        block = tuple(32 if d == k_dim else 1 for d in range(rank))
        scheme = Scheme("f4E2M1FN", expressed, block, "f8E8M0FNU")
    elif e2m1 and k_block == 16 and rng.random() < 0.5:
        # NVFP4: E4M3 scales per 16 along K, a per-tensor f32 outer scale.
        block = tuple(16 if d == k_dim else 1 for d in range(rank))
        scheme = Scheme("f4E2M1FN", expressed, block, "f8E4M3FN",
                        outer="f32")
        outer = np.full(scheme.outer_shape(shape),
                        rng.uniform(0.01, 1.0), np.float32)
    elif mx:
        storage = choice(rng, FLOAT_STORAGE + MX_INT_STORAGE)
        axis = k_dim if rng.random() < 0.7 else (rank - 1 if k_dim ==
                                                  rank - 2 else rank - 2)
        block = tuple(32 if d == axis else 1 for d in range(rank))
        scheme = Scheme(storage, expressed, block, "f8E8M0FNU")
    else:
        storage = "f4E2M1FN" if e2m1 else choice(
            rng, SMALL_INT_STORAGE if integer_only else
            INT_STORAGE + FLOAT_STORAGE)
        block = []
        for d, size in enumerate(shape):
            if d == k_dim:
                b = k_block or choice(rng, [1, 2, 3, 4, 8, 16, -1])
            elif d >= rank - 2:
                b = choice(rng, [1, 1, 2, 3, -1])
            else:
                b = 1 if rng.random() < 0.8 else -1
            block.append(b)
        scale = choice(rng, ["f32", "f16", "bf16", "f8E4M3FN"])
        zero_point = None
        if storage not in FLOAT_STORAGE:
            domain = choice(rng, ["none", "int"] if integer_only else
                            ["none", "int", "float"])
            if domain == "int":
                zero_point = storage
            elif domain == "float":
                zero_point = choice(rng, ["f32", "f16", "bf16"])
        scheme = Scheme(storage, expressed, tuple(block), scale, zero_point)
        if integer_only and two_level and rng.random() < 0.3:
            # Two-level scales: a per-tensor outer scale over float block
            # scales, or integer block scales under a per-tensor or blocked
            # outer scale (GGUF K-quant super-blocks).
            sshape = scheme.scale_shape(shape)
            outer_block = () if rng.random() < 0.5 else \
                (choice(rng, [2, 3, sshape[-1]]),)
            scheme = Scheme(storage, expressed, tuple(block),
                            choice(rng, ["f16", "f32", "ui4", "ui6", "ui8"]),
                            zero_point,
                            outer=choice(rng, ["f32", "f16", "bf16"]),
                            outer_block=outer_block)
            outer = np.exp(rng.uniform(np.log(2.0 ** -6), np.log(0.5),
                                       scheme.outer_shape(shape)))
            outer = np.asarray(reference.convert_float(
                outer.astype(np.float32), scheme.outer), np.float32)
    sshape = scheme.scale_shape(shape)
    if scheme.scale.startswith("ui"):
        top = reference.integer_range(scheme.scale)[1]
        scales = rng.integers(1, top + 1, sshape).astype(np.float32)
    else:
        scales = random_scales(rng, sshape, scheme.scale, scheme.storage)
    zero_points = None
    if scheme.zero_point_domain == "int":
        lo, hi = scheme.qrange
        zero_points = rng.integers(lo, hi + 1, sshape)
    elif scheme.zero_point_domain == "float":
        zero_points = np.asarray(reference.convert_float(
            rng.uniform(-1, 1, sshape).astype(np.float32),
            scheme.zero_point), np.float32)
    codes = random_codes(rng, shape, scheme)
    return scheme, codes, reference.Params(scales, zero_points, outer)


def result_scheme(rng, shape, expressed):
    """The scheme a `propagate` result is requantized to: absmax (no zero
    point), minmax (zero point) or mx (f8E8M0FNU), as the op chooses."""
    kind = choice(rng, ["absmax", "minmax", "mx"])
    n = shape[-1]
    if kind == "mx" and n % 32 == 0:
        return Scheme(choice(rng, ["f8E4M3FN", "f4E2M1FN", "i8"]), expressed,
                      (1, 32), "f8E8M0FNU"), "mx"
    if kind == "minmax":
        storage = choice(rng, ["ui8", "ui4", "i8"])
        zero_point = choice(rng, [storage, "f32"])
        return Scheme(storage, expressed, (1, -1), choice(rng, ["f32",
                                                                "f16"]),
                      zero_point), "minmax"
    return Scheme(choice(rng, ["i8", "i4", "f8E4M3FN"]), expressed, (1, -1),
                  choice(rng, ["f32", "f16"])), "absmax"


def packing_group(storage):
    """Elements per packing group of sub-byte storage (docs/Packing.md):
    8 / gcd(w, 8); 1 for whole bytes."""
    width = reference.storage_bits(storage)
    return 1 if width >= 8 else 8 // np.gcd(width, 8)


def expanded_layout(shape, scheme):
    """True when the weight has the expanded block iteration space the
    i32-accumulating lowering needs: every block divides its dimension, and
    the innermost (packed) block of sub-byte storage is a whole number of
    packing groups. The other layouts are rejected today ("i32
    accumulation: dimension D (size N) ends in a ragged block of B; ragged
    blocks are not lowered yet", "i32 accumulation: sub-byte data with one
    scale per element along the innermost dimension is not lowered yet",
    "... is not a multiple of the G elements of a packing group", "i32
    accumulation with blocks along batch dimensions is not lowered")."""
    block = scheme.block_for(shape)
    if any(d % b for d, b in zip(shape, block)):
        return False
    # "i32 accumulation with blocks along batch dimensions is not lowered"
    if any(b != 1 and d != 1 for d, b in zip(shape[:-2], block[:-2])):
        return False
    group = packing_group(scheme.storage)
    return group == 1 or block[-1] % group == 0


def former_failure(case):
    """Products the compiled path got wrong when this test was written,
    drawn only with --include-former-failures. The vectorized code was
    wrong and the scalar code (--pipeline-options vectorize=false) right:
    in --quant-block-cpu-flatten-vectors, the upstream unit-dimension
    patterns turned a vector.broadcast followed by a vector.transpose of
    unit dimensions into a broadcast along the wrong dimension. Fixed by
    9501ede ("Flatten broadcasts and transposes before the unit-dimension
    patterns"); differential_matmul.test runs them. Sweeping M, N, K, the
    blocks, the storage, the lhs and transpose_rhs for both accumulations,
    the shapes that reached it were (conservatively): a [K, N] weight with one block along N; a transposed
    [N, K] weight with one block along K and two or more along N; a
    transposed weight of sub-byte (packed) storage whose K block is one
    packing group and whose N block is not 1; a transposed weight with
    ragged blocks (the separate-dequantize form) times a quantized lhs with
    M >= 2 and N >= 2."""
    scheme = case["w_scheme"]
    shape = list(case["w_codes"].shape)
    block = scheme.block_for(shape)
    k_dim = len(shape) - 1 if case["transpose"] else len(shape) - 2
    n_dim = len(shape) - 2 if case["transpose"] else len(shape) - 1
    k_blocks = -(-shape[k_dim] // block[k_dim])
    n_blocks = -(-shape[n_dim] // block[n_dim])
    group = packing_group(scheme.storage)
    if not case["transpose"]:
        return n_blocks == 1
    ragged = any(d % b for d, b in zip(shape, block))
    m, n = case["out_shape"][-2:]
    return (k_blocks == 1 and n_blocks >= 2) or \
        (group > 1 and block[k_dim] == group and block[n_dim] > 1) or \
        (ragged and case["lhs_method"] is not None and m >= 2 and n >= 2)


def make_case(rng, index, args):
    while True:
        case = draw_case(rng, index, args.e2m1_weights, args.sub_byte_lhs)
        if case["integer"] and not args.any_i32_layout and \
                not expanded_layout(list(case["w_codes"].shape),
                                    case["w_scheme"]):
            continue
        if args.include_former_failures or not former_failure(case):
            return case


def draw_case(rng, index, e2m1=False, sub_byte_lhs=False):
    integer = rng.random() < 0.5 or e2m1 or sub_byte_lhs
    transpose = bool(rng.random() < 0.5)
    batched = rng.random() < 0.25
    batch = [int(rng.integers(1, 3))] if batched else []
    batched_rhs = batched and rng.random() < 0.5
    m, n = int(rng.integers(1, 5)), choice(rng, [1, 2, 3, 5, 8, 32])
    expressed = choice(rng, ["f32", "f32", "f16", "bf16"])
    case = dict(index=index, integer=integer, transpose=transpose)
    if integer:
        k_block = choice(rng, [2, 4, 8, 16, 32])
        k = k_block * int(rng.integers(1, 4))
        lhs_storage = choice(rng, ["i8", "ui8"])
        if sub_byte_lhs or rng.random() < 0.2:
            # 4-bit (and 2-bit) activations, unpacked before the integer
            # sums; blocks of whole packing groups.
            lhs_storage = choice(rng, ["i4", "ui4"] +
                                 (["i2", "ui2"] if k_block >= 4 else []))
        method = choice(rng, ["absmax", "minmax"]) \
            if lhs_storage.startswith("i") else "minmax"
        lhs_scheme = Scheme(lhs_storage, expressed, (1, k_block),
                            choice(rng, ["f32", "f16", "bf16"]),
                            lhs_storage if method == "minmax" else None)
        case.update(lhs_method=method, lhs_scheme=lhs_scheme, acc="i32")
    else:
        k = choice(rng, [3, 8, 12, 16, 30, 32, 64])
        k_block = None
        case["acc"] = "f32" if expressed == "f32" or rng.random() < 0.6 \
            else expressed
        case["lhs_method"] = None
        if rng.random() < 0.2:
            storage = choice(rng, ["i8", "f8E4M3FN", "ui4"])
            method = "minmax" if storage == "ui4" else "absmax"
            case["lhs_method"] = method
            case["lhs_scheme"] = Scheme(
                storage, expressed, (1, choice(rng, [k, -1])), "f32",
                storage if method == "minmax" else None)
    w_shape = ([n, k] if transpose else [k, n])
    if batched_rhs:
        w_shape = batch + w_shape
    k_dim = len(w_shape) - 1 if transpose else len(w_shape) - 2
    scheme, codes, params = random_weight(rng, w_shape, k_dim, expressed,
                                          integer, k_block, e2m1)
    x_shape = batch + [m, k]
    x = (rng.standard_normal(x_shape) * 2).astype(np.float32)
    x = np.asarray(reference.convert_float(x, expressed), np.float32)
    case.update(x=x, w_scheme=scheme, w_codes=codes, w_params=params,
                out_shape=batch + [m, n])
    case["propagate"] = None
    if not integer and rng.random() < 0.2:
        case["propagate"] = result_scheme(rng, case["out_shape"], expressed)
        # A product that overflows (f16) leaves the int zero point of minmax
        # undefined (round of a NaN): requantize those with absmax.
        rscheme, method = case["propagate"]
        if rscheme.zero_point_domain == "int" and \
                not np.all(np.isfinite(product(case)[-1])):
            case["propagate"] = None
    return case


def emit(case):
    f = harness.Function(f"case{case['index']}")
    scheme, params = case["w_scheme"], case["w_params"]
    shape = list(case["w_codes"].shape)
    sshape = scheme.scale_shape(shape)
    wtype = harness.qtensor(shape, scheme)
    expressed = scheme.expressed
    d = f.const(case["w_codes"] if scheme.integer_storage else
                reference.decode_float(case["w_codes"], scheme.storage),
                scheme.storage)
    s = f.const(params.scales, scheme.scale)
    operands = f"scales({s} : {harness.tensor(sshape, scheme.scale)})"
    if scheme.zero_point:
        z = f.const(params.zero_points, scheme.zero_point)
        operands += (f" zero_points({z} : "
                     f"{harness.tensor(sshape, scheme.zero_point)})")
    if scheme.outer:
        oshape = scheme.outer_shape(shape)
        o = f.const(params.outer_scales, scheme.outer)
        operands += (f" outer_scales({o} : "
                     f"{harness.tensor(oshape, scheme.outer)})")
    w = f.fresh("w")
    f.add(f"{w} = quant_block.pack {d} {operands} : "
          f"{harness.tensor(shape, scheme.storage)} -> {wtype}")
    x_shape = list(case["x"].shape)
    x = f.const(case["x"], expressed)
    lhs, lhs_type = x, harness.tensor(x_shape, expressed)
    if case["lhs_method"]:
        lhs_scheme = case["lhs_scheme"]
        lhs_type = harness.qtensor(x_shape, lhs_scheme)
        lhs = f.fresh("xq")
        f.add(f"{lhs} = quant_block.quantize_dynamic {case['lhs_method']} "
              f"{x} : {harness.tensor(x_shape, expressed)} -> {lhs_type}")
        f.print_quantized(lhs, x_shape, lhs_scheme)
    out_shape = case["out_shape"]
    transpose = " transpose_rhs" if case["transpose"] else ""
    y = f.fresh("y")
    if case["propagate"]:
        rscheme, _ = case["propagate"]
        rtype = harness.qtensor(out_shape, rscheme)
        f.add(f"{y} = quant_block.matmul {lhs}, {w}{transpose} accumulate("
              f"{case['acc']}) propagate : {lhs_type}, {wtype} -> {rtype}")
        f.print_quantized(y, out_shape, rscheme)
        yd = f.fresh("yd")
        f.add(f"{yd} = quant_block.dequantize {y} : {rtype} -> "
              f"{harness.tensor(out_shape, expressed)}")
        f.print_bits(yd, out_shape, expressed)
    else:
        f.add(f"{y} = quant_block.matmul {lhs}, {w}{transpose} accumulate("
              f"{case['acc']}) inhibit : {lhs_type}, {wtype} -> "
              f"{harness.tensor(out_shape, expressed)}")
        f.print_bits(y, out_shape, expressed)
    return f


def describe(case):
    lhs = (f"quantize_dynamic {case['lhs_method']} "
           f"{harness.scheme_text(case['lhs_scheme'])}"
           if case["lhs_method"] else "float")
    transpose = " transpose_rhs" if case["transpose"] else ""
    return (f"matmul accumulate({case['acc']}){transpose} "
            f"lhs {list(case['x'].shape)} {lhs}, rhs "
            f"{list(case['w_codes'].shape)} "
            f"{harness.scheme_text(case['w_scheme'])}" +
            (f" propagate {harness.scheme_text(case['propagate'][0])}"
             if case["propagate"] else ""))


def product(case):
    """The reference: (expected bits of the lhs parts when the lhs is
    quantized, the product in the expressed type)."""
    w_scheme, w_params = case["w_scheme"], case["w_params"]
    expected = []
    lhs_values = case["x"]
    if case["lhs_method"]:
        lhs_scheme = case["lhs_scheme"]
        lhs_codes, lhs_params = reference.quantize_dynamic(
            case["x"], case["lhs_method"], lhs_scheme)
        lhs_values = reference.dequantize_scheme(lhs_codes, lhs_scheme,
                                                 lhs_params)
        expected += harness.expected_bits(lhs_codes, lhs_params, lhs_values,
                                          lhs_scheme,
                                          list(case["x"].shape))[:-1]
    if case["integer"]:
        y = reference.matmul_integer(lhs_codes, lhs_scheme, lhs_params,
                                     case["w_codes"], w_scheme, w_params,
                                     transpose_rhs=case["transpose"])
    else:
        w = reference.dequantize_scheme(case["w_codes"], w_scheme, w_params)
        y = reference.matmul_float(lhs_values, w,
                                   transpose_rhs=case["transpose"],
                                   accumulate=case["acc"],
                                   expressed=w_scheme.expressed)
    return expected, y


def check(case, outputs):
    expressed = case["w_scheme"].expressed
    expected, y = product(case)
    if case["propagate"]:
        rscheme, method = case["propagate"]
        codes, params = reference.quantize_dynamic(y, method, rscheme)
        values = reference.dequantize_scheme(codes, rscheme, params)
        expected += harness.expected_bits(codes, params, values, rscheme,
                                          case["out_shape"])
    else:
        expected.append(("result", expressed,
                         harness.bits_of(y, expressed)))
    return harness.compare(case, outputs, expected, describe(case))


def main():
    def extra(parser):
        parser.add_argument("--any-i32-layout", action="store_true",
                            help="also draw i32-accumulating weights with "
                                 "ragged or partly packed blocks (not "
                                 "lowered yet)")
        parser.add_argument("--sub-byte-lhs", action="store_true",
                            help="only 4- and 2-bit activations in the "
                                 "i32-accumulating products")
        parser.add_argument("--e2m1-weights", action="store_true",
                            help="only i32-accumulating products, of FP4 "
                                 "E2M1 weights (MXFP4, NVFP4, other scales)")
    args = harness.parse_args(__doc__, 60, 20261124, extra)
    rng = np.random.default_rng(args.seed)
    cases = harness.select([make_case(rng, i, args)
                            for i in range(args.cases)], args.only)
    return harness.execute(cases, emit, check, "differential_matmul", args)


if __name__ == "__main__":
    sys.exit(main())
