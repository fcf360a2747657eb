"""The kernel kinds bench/ times, at small shapes, compiled for the CPU and
executed, against the numpy reference (python/quant_block/reference.py):

* linear_int4_g32_f16*: int4 weights in blocks of 32 along K with f16
  scales, transpose_rhs, f32 activations with fastmath<fast> at M = 1, 8
  and 32, and int8 activations (quantize_dynamic absmax, blocks of 32) with
  accumulate(i32) at M = 1, 8 and 32;
* linear_int4_g32_f16_i8act_tiled: the same weights in the row-tiled
  layout (row_tile = 16), f32 and int8 activations, M = 1;
* linear_mxfp4_fast: FP4 E2M1 weights with E8M0 scales per 32 (MXFP4),
  transpose_rhs, f32 activations, fastmath<fast>, M = 1;
* linear_mxfp4_i8act: the same weights (also row-tiled) with int8
  activations and accumulate(i32), M = 1;
* linear_nvfp4_fast: FP4 E2M1 weights with E4M3 scales per 16 and an f32
  outer scale (NVFP4), transpose_rhs, f32 activations, fastmath<fast>, M = 1,
  and int8 activations in blocks of 16 with accumulate(i32)
  (linear_nvfp4_i8act);
* linear_int8_channel_fast: int8 weights with one f32 scale per output row,
  transpose_rhs, f32 activations, fastmath<fast>, M = 1.

Each fastmath<fast> kind runs twice, once with ordinary sums and once with
sums that cancel exactly, within the error bound of docs/Numerics.md against
an f64 reference (differential_fastmath.py's check), and once more without
fast-math flags, bit for bit (differential_matmul.py's check), as do the
accumulate(i32) kinds. The random generators of those two tests draw these
kinds only by chance (differential_fastmath.py never draws MX weights, nor
M > 3); this test always runs them. The weights are constants packed with
quant_block.pack here, where bench/ passes them as function arguments.

usage: differential_bench.py QUANT_OPT MLIR_RUNNER LIB_DIR [--seed S]
       [--cases N: ignored, the cases are fixed]
"""

import sys

import numpy as np

import differential_fastmath as fm
import differential_matmul as dm
import harness
from harness import Scheme, reference

N, K = 32, 256

INT4_G32_F16 = Scheme("i4", "f32", (1, 32), "f16")
INT4_G32_F16_TILED = Scheme("i4", "f32", (1, 32), "f16", row_tile=16)
MXFP4 = Scheme("f4E2M1FN", "f32", (1, 32), "f8E8M0FNU")
MXFP4_TILED = Scheme("f4E2M1FN", "f32", (1, 32), "f8E8M0FNU", row_tile=16)
NVFP4 = Scheme("f4E2M1FN", "f32", (1, 16), "f8E4M3FN", outer="f32")
INT8_CHANNEL = Scheme("i8", "f32", (1, -1), "f32")

# (name, weight scheme, M, int8 activations)
KINDS = [
    ("int4_g32_f16", INT4_G32_F16, 1, False),
    ("int4_g32_f16", INT4_G32_F16, 8, False),
    ("int4_g32_f16", INT4_G32_F16, 32, False),
    ("int4_g32_f16_i8act", INT4_G32_F16, 1, True),
    ("int4_g32_f16_i8act", INT4_G32_F16, 8, True),
    ("int4_g32_f16_i8act", INT4_G32_F16, 32, True),
    ("int4_g32_f16_tiled", INT4_G32_F16_TILED, 1, False),
    ("int4_g32_f16_i8act_tiled", INT4_G32_F16_TILED, 1, True),
    ("mxfp4", MXFP4, 1, False),
    ("mxfp4_i8act", MXFP4, 1, True),
    ("mxfp4_i8act_tiled", MXFP4_TILED, 1, True),
    ("nvfp4", NVFP4, 1, False),
    ("nvfp4_i8act", NVFP4, 1, True),
    ("int8_channel", INT8_CHANNEL, 1, False),
]


def make_case(rng, index, scheme, m, integer, flags, cancel):
    w_shape = [N, K]
    codes = dm.random_codes(rng, w_shape, scheme)
    scales = dm.random_scales(rng, scheme.scale_shape(w_shape), scheme.scale,
                              scheme.storage)
    x = (rng.standard_normal([m, K]) * 2).astype(np.float32)
    if cancel:
        x[:, K // 2:] = -x[:, :K // 2]
        codes = fm.mirror_k(codes, 1, True)
        scales = fm.mirror_k(scales, 1, scales.shape[1] > 1)
    outer_scales = None
    if scheme.outer:
        outer_scales = np.full(scheme.outer_shape(w_shape), 0.37, np.float32)
    case = dict(index=index, integer=integer, transpose=True, x=x,
                w_scheme=scheme, w_codes=codes,
                w_params=reference.Params(scales, None, outer_scales),
                out_shape=[m, N],
                cancel=cancel, propagate=None, flags=flags, acc="f32",
                lhs_method=None)
    if integer:
        # Activation blocks of the weight's size along K (16 for NVFP4).
        case.update(acc="i32", lhs_method="absmax",
                    lhs_scheme=Scheme("i8", "f32", (1, scheme.block[1]),
                                      "f32"))
    return case


def cases(rng):
    out = []
    for _, scheme, m, integer in KINDS:
        variants = [(None, False), ("fast", False), ("fast", True)]
        for flags, cancel in variants:
            out.append(make_case(rng, len(out), scheme, m, integer, flags,
                                 cancel))
    return out


def emit(case):
    return fm.emit(case) if case["flags"] else dm.emit(case)


def check(case, outputs):
    return fm.check(case, outputs) if case["flags"] else dm.check(case,
                                                                  outputs)


def main():
    args = harness.parse_args(__doc__, 0, 20261125)
    rng = np.random.default_rng(args.seed)
    return harness.execute(harness.select(cases(rng), args.only), emit, check,
                           "differential_bench", args)


if __name__ == "__main__":
    sys.exit(main())
