"""Error-bound test of quant_block.matmul with fast-math flags, compiled for
the CPU and executed, against an f64 reference.

With `fastmath<reassoc>` / `<contract>` / `<fast>` the sum over k may be
split, reordered and fused, so the result bits are not fixed; the bound of
docs/Numerics.md ("Fast-math flags on quant_block.matmul") is:

    |y - y_exact| <= 1.01 * n * u * S + u_e * |y_exact|

* float accumulation: y_exact = sum_k x_k * w_k over the dequantized values
  (computed in f64, exactly enough), S = sum_k |x_k * w_k|, n = K, u the
  accumulator's unit roundoff, u_e the expressed type's (0 when equal);
* accumulate(i32): y_exact = sum_kb isum * sl * sr, S = sum_kb |isum * sl *
  sr|, n = KB + 2.

Half of the cases cancel exactly (y_exact = 0): the second half of K repeats
the first half's weight codes and parameters and negates the activations.
The quantized activation parts of accumulate(i32) cases are compared bit for
bit (quantize_dynamic is not affected by the flags).

With --kernels, every case is one that --quant-block-cpu-matmul-kernels
covers (the register-tiled vector kernels of the CPU pipeline).

usage: differential_fastmath.py QUANT_OPT MLIR_RUNNER LIB_DIR [--cases N]
       [--seed S] [--kernels]
"""

import sys

import numpy as np

import differential_matmul as dm
import harness
from harness import Scheme, choice, reference

UNIT_ROUNDOFF = {"f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}
FLAGS = ["reassoc", "contract", "reassoc,contract", "fast"]


def mirror_k(values, axis, blocks_along_k):
    """Copies the first half along `axis` onto the second half (when the
    parameters have one block along K there is nothing to copy)."""
    values = np.array(values, copy=True)
    size = values.shape[axis]
    if blocks_along_k and size > 1:
        half = size // 2
        first = np.take(values, range(half), axis=axis)
        index = [slice(None)] * values.ndim
        index[axis] = slice(half, 2 * half)
        values[tuple(index)] = first
    return values


def draw_case(rng, index):
    integer = rng.random() < 0.5
    transpose = bool(rng.random() < 0.7)
    cancel = rng.random() < 0.5
    m = choice(rng, [1, 1, 2, 3])
    n = choice(rng, [1, 3, 8, 16, 32])
    k_block = choice(rng, [16, 32, 64])
    k = k_block * 2 * int(rng.integers(1, 5))
    expressed = "f32" if integer else choice(rng, ["f32", "f32", "f16",
                                                   "bf16"])
    # f32 accumulation: the bound needs K * u <= 0.01.
    acc = "f32"
    w_shape = [n, k] if transpose else [k, n]
    k_dim = 1 if transpose else 0
    # (Mirroring along K below keeps no outer scales: one level only.)
    scheme, codes, params = dm.random_weight(rng, w_shape, k_dim, expressed,
                                             integer, k_block,
                                             two_level=False)
    x = (rng.standard_normal([m, k]) * 2).astype(np.float32)
    if cancel:
        x[:, k // 2:] = -x[:, :k // 2]
        codes = mirror_k(codes, k_dim, True)
        scales = mirror_k(params.scales, k_dim, True)
        zero_points = (None if params.zero_points is None else
                       mirror_k(params.zero_points, k_dim, True))
        params = reference.Params(scales, zero_points)
    x = np.asarray(reference.convert_float(x, expressed), np.float32)
    case = dict(index=index, integer=integer, transpose=transpose, x=x,
                w_scheme=scheme, w_codes=codes, w_params=params, acc=acc,
                out_shape=[m, n], cancel=cancel, propagate=None,
                flags=choice(rng, FLAGS))
    if integer:
        # absmax keeps the negated half exactly negated.
        case.update(acc="i32", lhs_method="absmax",
                    lhs_scheme=Scheme("i8", expressed, (1, k_block),
                                      choice(rng, ["f32", "f16", "bf16"])))
    else:
        case["lhs_method"] = None
    return case


def draw_kernel_case(rng, index):
    """A product --quant-block-cpu-matmul-kernels covers (transposed 4- or
    8-bit integer weight in blocks [1, B], B a multiple of 32, f32 / f16 /
    bf16 scales, no or integer zero points; MXFP4; NVFP4 (blocks of 16, E4M3
    scales, an f32 outer scale) and 4-bit integers in blocks of 16; f32
    activations and result, reassoc; or int8 activations and
    accumulate(i32)), with the tile shapes it chooses between: M not a
    multiple of 8, N not a multiple of 4, several blocks per K step, and K
    steps of fewer blocks than the unrolled maximum."""
    cancel = rng.random() < 0.5
    m = choice(rng, [1, 1, 2, 3, 8, 16])
    # N a multiple of 16 takes the kernels with one weight row per lane
    # (int8 activations with vpdpbusd, strict-order products): as often as
    # the other tile shapes together.
    n = choice(rng, [1, 3, 4, 5, 8, 12, 16, 16, 32, 32, 48, 48])
    k_block = choice(rng, [32, 64, 128])
    k = k_block * 2 * int(rng.integers(1, 4))
    storage = choice(rng, ["i4", "ui4", "i8", "ui8", "f4E2M1FN", "nvfp4",
                           "i4-block16"])
    # f16 / bf16 activations (and expressed type) for float accumulation.
    expressed = choice(rng, ["f32", "f32", "f16", "bf16"])
    if storage == "f4E2M1FN":
        # MXFP4: E8M0 scales per 32.
        k_block = 32
        k = k_block * 2 * int(rng.integers(1, 5))
        scheme = Scheme(storage, expressed, (1, k_block), "f8E8M0FNU")
    elif storage == "nvfp4":
        k_block, storage = 16, "f4E2M1FN"
        k = 32 * int(rng.integers(1, 9))
        scheme = Scheme(storage, expressed, (1, k_block), "f8E4M3FN",
                        outer="f32")
    elif storage == "i4-block16":
        # Blocks of 16 with 4-bit integers: no zero points.
        k_block, storage = 16, choice(rng, ["i4", "ui4"])
        k = 32 * int(rng.integers(1, 9))
        scheme = Scheme(storage, expressed, (1, k_block),
                        choice(rng, ["f32", "f16", "f8E4M3FN"]))
    else:
        zero_point = storage if rng.random() < 0.4 else None
        scheme = Scheme(storage, expressed, (1, k_block),
                        choice(rng, ["f32", "f16", "bf16"]), zero_point)
    sshape = scheme.scale_shape([n, k])
    scales = dm.random_scales(rng, sshape, scheme.scale, storage)
    zero_points = None
    if scheme.zero_point:
        lo, hi = scheme.qrange
        zero_points = rng.integers(lo, hi + 1, sshape)
    outer_scales = None
    if scheme.outer:
        outer_scales = np.asarray(
            rng.uniform(0.01, 2.0, scheme.outer_shape([n, k])), np.float32)
    codes = dm.random_codes(rng, [n, k], scheme)
    x = (rng.standard_normal([m, k]) * 2).astype(np.float32)
    x = np.asarray(reference.convert_float(x, expressed), np.float32)
    if cancel:
        x[:, k // 2:] = -x[:, :k // 2]
        codes = mirror_k(codes, 1, True)
        scales = mirror_k(scales, 1, True)
        zero_points = (None if zero_points is None else
                       mirror_k(zero_points, 1, True))
    case = dict(index=index, integer=False, transpose=True, x=x,
                w_scheme=scheme, w_codes=codes,
                w_params=reference.Params(scales, zero_points, outer_scales),
                acc="f32",
                out_shape=[m, n], cancel=cancel, propagate=None,
                flags=choice(rng, ["reassoc", "reassoc,contract", "fast"]),
                lhs_method=None)
    if (storage != "f4E2M1FN" and k_block % 32 == 0 and
            expressed == "f32" and scheme.scale != "f8E4M3FN" and
            rng.random() < 0.4):
        # int8 activations, accumulate(i32): the kernels keep exact block
        # sums (any flags, the strict order included).
        case.update(integer=True, acc="i32", lhs_method="absmax",
                    flags=choice(rng, ["reassoc", "contract", "fast"]),
                    lhs_scheme=Scheme("i8", "f32", (1, k_block),
                                      choice(rng, ["f32", "f16", "bf16"])))
    return case


def make_case(rng, index, kernels=False):
    while True:
        case = (draw_kernel_case if kernels else draw_case)(rng, index)
        if case["integer"] and not dm.expanded_layout(
                list(case["w_codes"].shape), case["w_scheme"]):
            continue
        if np.all(np.isfinite(exact_and_magnitude(case)[0])):
            return case


def emit(case):
    f = dm.emit(case)
    # The same function, with the flags after the propagation keyword.
    f.lines = [line.replace(" inhibit :", f" inhibit fastmath<{case['flags']}>"
                            " :") for line in f.lines]
    return f


def exact_and_magnitude(case):
    """(y_exact, S, n) in f64 per output."""
    scheme, params = case["w_scheme"], case["w_params"]
    if case["integer"]:
        lhs_scheme = case["lhs_scheme"]
        codes, lp = reference.quantize_dynamic(case["x"], "absmax",
                                               lhs_scheme)
        shape = list(case["x"].shape)
        lc = np.asarray(codes, np.int64)
        ls = reference.expand_blocks(np.asarray(lp.scales, np.float64),
                                     shape, lhs_scheme.block_for(shape))
        wshape = list(case["w_codes"].shape)
        wblock = scheme.block_for(wshape)
        # E2M1 codes enter as twice their values, halved per block.
        twice = scheme.storage == "f4E2M1FN"
        rc = (2 * reference.decode_float(case["w_codes"], scheme.storage)
              if twice else case["w_codes"]).astype(np.int64)
        if scheme.zero_point:
            rc = rc - reference.expand_blocks(
                np.asarray(params.zero_points, np.int64), wshape, wblock)
        rs = reference.expand_blocks(
            np.asarray(reference.effective_scales(
                params.scales, outer_scales=params.outer_scales,
                outer_block=scheme.outer_block), np.float64), wshape, wblock)
        if case["transpose"]:
            rc, rs = rc.T, rs.T
        k_block = wblock[1] if case["transpose"] else wblock[0]
        k = shape[-1]
        kb = k // k_block
        # Block sums [m, n, kb] exactly, then their scaled terms in f64.
        prod = lc[:, :, None] * rc[None, :, :]
        isum = prod.reshape(shape[0], kb, k_block, -1).sum(axis=2)
        scale = (ls[:, ::k_block][:, :, None] *
                 rs[::k_block, :][None, :, :])
        terms = isum.astype(np.float64) * (0.5 if twice else 1.0) * scale
        return terms.sum(axis=1), np.abs(terms).sum(axis=1), kb + 2
    w = np.asarray(reference.dequantize_scheme(case["w_codes"], scheme,
                                               params), np.float64)
    if case["transpose"]:
        w = w.T
    x = np.asarray(case["x"], np.float64)
    terms = x[:, :, None] * w[None, :, :]
    return terms.sum(axis=1), np.abs(terms).sum(axis=1), x.shape[-1]


def check(case, outputs):
    expressed = case["w_scheme"].expressed
    expected = []
    if case["integer"]:
        lhs_scheme = case["lhs_scheme"]
        codes, lp = reference.quantize_dynamic(case["x"], "absmax",
                                               lhs_scheme)
        values = reference.dequantize_scheme(codes, lhs_scheme, lp)
        expected = harness.expected_bits(codes, lp, values, lhs_scheme,
                                         list(case["x"].shape))[:-1]
    what = dm.describe(case) + f" fastmath<{case['flags']}>" + \
        (" (cancelling)" if case["cancel"] else "")
    if not harness.compare(case, outputs[:-1], expected, what):
        return False
    got_bits = np.asarray(outputs[-1], np.int64)
    if expressed == "f32":
        got = got_bits.astype(np.uint32).view(np.float32)
    elif expressed == "f16":
        got = got_bits.astype(np.uint16).view(np.float16)
    else:
        got = (got_bits.astype(np.uint32) << 16).view(np.float32)
    got = got.astype(np.float64).reshape(case["out_shape"])
    exact, magnitude, n = exact_and_magnitude(case)
    u = UNIT_ROUNDOFF["f32"]
    u_e = 0.0 if expressed == "f32" else UNIT_ROUNDOFF[expressed]
    assert n * u <= 0.01, "the bound needs n * u <= 0.01"
    bound = 1.01 * n * u * magnitude + u_e * np.abs(exact)
    error = np.abs(got - exact)
    bad = np.nonzero(~(error <= bound))[0] if error.ndim == 1 else \
        np.argwhere(~(error <= bound))
    if len(bad):
        i = tuple(bad[0])
        print(f"FAIL case {case['index']}: {what}: output {i}: got "
              f"{got[i]!r}, exact {exact[i]!r}, error {error[i]:.3g} > "
              f"bound {bound[i]:.3g}")
        return False
    return True


def main():
    def extra(parser):
        parser.add_argument(
            "--kernels", action="store_true",
            help="only products that --quant-block-cpu-matmul-kernels "
                 "covers")

    args = harness.parse_args(__doc__, 40, 20261125, extra)
    rng = np.random.default_rng(args.seed)
    cases = harness.select(
        [make_case(rng, i, args.kernels) for i in range(args.cases)],
        args.only)
    return harness.execute(cases, emit, check, "differential_fastmath", args)


if __name__ == "__main__":
    sys.exit(main())
