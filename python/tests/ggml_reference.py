"""An independent numpy decoder of ggml's block types to f32.

The oracle for the GGUF importer's tests: it turns raw ggml block bytes into
the f32 values ggml's own ``to_float`` (``dequantize_row_*`` in ggml
``src/ggml-quants.c``) produces, bit for bit, without the project's code and
without ggml. It is written from the layouts and formulas of the notes
(``gguf.md`` sections 2.1 and 2.2) and checked against the ggml bundle by
``test_gguf_reference_vs_ggml.py``.

Bit-exactness comes from doing every step in float32 in ggml's order: the
products ggml forms (``d * sc``, ``d1 * q``, ``kv * d``) are exact in f32
except Q6_K's ``(d * sc) * q`` and IQ4_XS's ``(d * (ls - 32)) * kv``, which
round once, and the ``- m1`` / ``+ m`` of the affine types rounds once, so
numpy's separate float32 multiply and add give ggml's result whether or not
ggml's compiler fused them. One addition to the notes: an f16 NaN (an F16
element or a block parameter) becomes a *quiet* f32 NaN in ggml, payload
kept. NaN payloads are only reproducible where one NaN meets numbers (a
NaN parameter, or Inf * 0 from an overflowed f16 scale); where two NaNs
meet, which one ggml propagates depends on its compiler.

Block decoders below work on a ``(n_blocks, block_bytes)`` uint8 array and
return ``(n_blocks, block_elements)`` float32.
"""

import numpy as np

from quant_block.gguf_writer import (
    BLOCK, GGML_TYPE_BF16, GGML_TYPE_F16, GGML_TYPE_F32, GGML_TYPE_IQ4_NL,
    GGML_TYPE_IQ4_XS, GGML_TYPE_MXFP4, GGML_TYPE_NVFP4, GGML_TYPE_Q1_0,
    GGML_TYPE_Q2_0, GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_0,
    GGML_TYPE_Q4_1, GGML_TYPE_Q4_K, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,
    GGML_TYPE_Q5_K, GGML_TYPE_Q6_K, GGML_TYPE_Q8_0, GGML_TYPE_TQ1_0,
    GGML_TYPE_TQ2_0)

F32 = np.float32

# ggml-common.h kvalues_iq4nl: IQ4_NL / IQ4_XS's non-uniform codebook.
KVALUES_IQ4NL = np.array([-127, -104, -83, -65, -49, -35, -22, -10,
                          1, 13, 25, 38, 53, 69, 89, 113], dtype=F32)

# ggml-common.h kvalues_mxfp4: E2M1 doubled. Code 8 is +0 (an int 0 turned
# into float), not OCP's -0.
KVALUES_FP4 = np.array([0, 1, 2, 3, 4, 6, 8, 12,
                        0, -1, -2, -3, -4, -6, -8, -12], dtype=F32)


def e8m0_to_fp32_half(e):
    """ggml_e8m0_to_fp32_half: 2^(e-128) for every byte (subnormal for e <
    2, finite 2^127 for 0xFF). ldexp in float64 is exact and so is the cast:
    every 2^k with -149 <= k <= 127 is an f32."""
    return np.ldexp(1.0, np.asarray(e, dtype=np.int64) - 128).astype(F32)


def _ue4m3_table():
    """ggml_ue4m3_to_fp32 for the 256 bytes: 0x00 and 0x7F give 0; bit 7 is
    otherwise ignored (0x80 is 0 through its zero mantissa, 0xFF is 240);
    exponent bias 7, subnormals man * 2^-9; the result is halved because
    KVALUES_FP4 is doubled. All values are exact in f32."""
    table = np.zeros(256, dtype=np.float64)
    for x in range(256):
        if x in (0x00, 0x7F):
            continue
        exp, man = (x >> 3) & 0xF, x & 0x7
        raw = man * 2.0 ** -9 if exp == 0 else (1 + man / 8) * 2.0 ** (exp - 7)
        table[x] = raw * 0.5
    return table.astype(F32)


UE4M3_TO_FP32 = _ue4m3_table()


# --- field access ------------------------------------------------------------

def _f16_to_f32(b):
    """Little-endian f16 bytes (..., 2k) -> (..., k) float32, as ggml
    converts: exact for numbers, and a NaN keeps its payload but comes out
    quiet (ggml's conversion sets the f32 quiet bit 22, as F16C does;
    numpy's astype leaves a signalling NaN signalling)."""
    h = np.ascontiguousarray(b).view("<f2")
    f = h.astype(F32)
    nan = np.isnan(h)
    if nan.any():
        bits = f.view(np.uint32)
        bits[nan] |= np.uint32(0x00400000)
    return f


def _f16(b, off):
    """The f16 field at byte ``off`` of every block, as (n, 1) float32."""
    return _f16_to_f32(b[:, off:off + 2])


def _split_nibbles(qs):
    """Q4_0's order: (n, k) bytes -> (n, 2k) codes, byte j's low nibble is
    element j and its high nibble element j + k."""
    return np.concatenate([qs & 15, qs >> 4], axis=-1)


def _two_bit_128(qs):
    """Q2_K / Q3_K / TQ2_0's order: 32 bytes per 128 elements, element
    ``32t + l`` of a 128-chunk is bits 2t..2t+1 of byte l."""
    n, nbytes = qs.shape
    shifts = np.arange(0, 8, 2, dtype=np.uint8).reshape(1, 1, 4, 1)
    q = (qs.reshape(n, nbytes // 32, 1, 32) >> shifts) & 3
    return q.reshape(n, nbytes * 4)


def _high_bits(qh, planes):
    """Q3_K's hmask / Q5_K's qh: element ``32k + l`` is bit k of byte l."""
    n = qh.shape[0]
    shifts = np.arange(planes, dtype=np.uint8).reshape(1, planes, 1)
    return ((qh.reshape(n, 1, 32) >> shifts) & 1).reshape(n, planes * 32)


def _per(values, group):
    """Repeat each sub-block parameter over its ``group`` elements."""
    return np.repeat(values, group, axis=1)


# --- block decoders ----------------------------------------------------------

def _q4_0(b):
    q = _split_nibbles(b[:, 2:18]).astype(F32) - F32(8)
    return q * _f16(b, 0)


def _q4_1(b):
    q = _split_nibbles(b[:, 4:20]).astype(F32)
    return q * _f16(b, 0) + _f16(b, 2)


def _q5_qh(b, off):
    """The 32 fifth bits: bit e of the little-endian uint32 at ``off``."""
    qh = np.ascontiguousarray(b[:, off:off + 4]).view("<u4")
    return ((qh >> np.arange(32, dtype=np.uint32)) & 1).astype(np.uint8)


def _q5_0(b):
    q = _split_nibbles(b[:, 6:22]) | (_q5_qh(b, 2) << 4)
    return (q.astype(F32) - F32(16)) * _f16(b, 0)


def _q5_1(b):
    q = _split_nibbles(b[:, 8:24]) | (_q5_qh(b, 4) << 4)
    return q.astype(F32) * _f16(b, 0) + _f16(b, 2)


def _q8_0(b):
    return b[:, 2:34].view(np.int8).astype(F32) * _f16(b, 0)


def _q2_k(b):
    scales = b[:, 0:16]
    d, dmin = _f16(b, 80), _f16(b, 82)
    dl = d * (scales & 15).astype(F32)
    ml = dmin * (scales >> 4).astype(F32)
    q = _two_bit_128(b[:, 16:80]).astype(F32)
    return _per(dl, 16) * q - _per(ml, 16)


def _q3_k_scales(s):
    """The 16 6-bit scales packed in 12 bytes (ggml's kmask1/kmask2 dance):
    low 4 bits from s[j] (j < 8) or s[j-8] >> 4, high 2 bits from
    s[8 + j%4] >> 2*(j/4)."""
    s = s.astype(np.int32)
    j = np.arange(16)
    lo = np.where(j < 8, s[:, j % 8] & 15, s[:, j % 8] >> 4)
    hi = (s[:, 8 + j % 4] >> (2 * (j // 4))) & 3
    return lo | (hi << 4)


def _q3_k(b):
    d = _f16(b, 108)
    dl = d * (_q3_k_scales(b[:, 96:108]) - 32).astype(F32)
    low = _two_bit_128(b[:, 32:96]).astype(np.int32)
    high = _high_bits(b[:, 0:32], 8).astype(np.int32)
    q = (low - 4 * (1 - high)).astype(F32)
    return _per(dl, 16) * q


def _scale_min_k4(s):
    """ggml's get_scale_min_k4 for j = 0..7 over the 12 scale bytes: the
    (n, 8) 6-bit scales and mins."""
    s = s.astype(np.int32)
    sc = np.empty((s.shape[0], 8), dtype=np.int32)
    m = np.empty_like(sc)
    sc[:, :4] = s[:, 0:4] & 63
    m[:, :4] = s[:, 4:8] & 63
    sc[:, 4:] = (s[:, 8:12] & 15) | ((s[:, 0:4] >> 6) << 4)
    m[:, 4:] = (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)
    return sc, m


def _q4_k_codes(qs):
    """Q4_K / Q5_K's low 4 bits: each 64-element chunk is 32 bytes, its
    first 32 elements in the low nibbles, the next 32 in the high ones."""
    n = qs.shape[0]
    q = qs.reshape(n, 4, 1, 32)
    return np.concatenate([q & 15, q >> 4], axis=2).reshape(n, 256)


def _k_affine(b, q):
    """Q4_K / Q5_K: ``d1 * q - m1`` with d1 = d*sc, m1 = dmin*m per 32."""
    d, dmin = _f16(b, 0), _f16(b, 2)
    sc, m = _scale_min_k4(b[:, 4:16])
    d1 = d * sc.astype(F32)
    m1 = dmin * m.astype(F32)
    return _per(d1, 32) * q.astype(F32) - _per(m1, 32)


def _q4_k(b):
    return _k_affine(b, _q4_k_codes(b[:, 16:144]))


def _q5_k(b):
    q = _q4_k_codes(b[:, 48:176]) | (_high_bits(b[:, 16:48], 8) << 4)
    return _k_affine(b, q)


def _q6_k(b):
    n = b.shape[0]
    ql = b[:, 0:128].reshape(n, 2, 2, 32)      # [half, t & 1, l]
    lo = np.concatenate([ql & 15, ql >> 4], axis=2)   # [half, t, l]
    shifts = np.arange(0, 8, 2, dtype=np.uint8).reshape(1, 1, 4, 1)
    hi = (b[:, 128:192].reshape(n, 2, 1, 32) >> shifts) & 3
    q = ((lo | (hi << 4)).astype(np.int32) - 32).reshape(n, 256)
    sc = b[:, 192:208].view(np.int8).astype(F32)
    # ggml: d * sc[is] * q == (d * sc) * q, the second product rounds.
    return _per(_f16(b, 208) * sc, 16) * q.astype(F32)


def _iq4_nl(b):
    return _f16(b, 0) * KVALUES_IQ4NL[_split_nibbles(b[:, 2:18])]


def _iq4_xs(b):
    n = b.shape[0]
    scales_h = np.ascontiguousarray(b[:, 2:4]).view("<u2").astype(np.int32)
    scales_l = b[:, 4:8].astype(np.int32)
    ib = np.arange(8)
    ls = (((scales_l[:, ib // 2] >> (4 * (ib % 2))) & 15)
          | (((scales_h >> (2 * ib)) & 3) << 4))
    dl = _f16(b, 0) * (ls - 32).astype(F32)
    codes = _split_nibbles(b[:, 8:136].reshape(n, 8, 16)).reshape(n, 256)
    return _per(dl, 32) * KVALUES_IQ4NL[codes]


def _tq1_0_positions():
    """For each of TQ1_0's 256 elements: the byte holding it and its trit
    index n (5 trits per byte in qs[0:48], 4 in qh[48:52])."""
    e = np.arange(256)
    byte = np.where(e < 160, e % 32,
                    np.where(e < 240, 32 + (e - 160) % 16,
                             48 + (e - 240) % 4))
    trit = np.where(e < 160, e // 32,
                    np.where(e < 240, (e - 160) // 16, (e - 240) // 4))
    return byte, trit


_TQ1_BYTE, _TQ1_TRIT = _tq1_0_positions()


def _tq1_0(b):
    # ggml: q = (uint8)(byte * 3^n); trit = ((uint16)q * 3) >> 8.
    pow3 = (3 ** _TQ1_TRIT).astype(np.uint32)
    q = (b[:, _TQ1_BYTE].astype(np.uint32) * pow3) & 0xFF
    t = ((q * 3) >> 8).astype(np.int32)
    return (t - 1).astype(F32) * _f16(b, 52)


def _tq2_0(b):
    q = _two_bit_128(b[:, 0:64]).astype(np.int32)
    return (q - 1).astype(F32) * _f16(b, 64)


def _mxfp4(b):
    d = e8m0_to_fp32_half(b[:, 0:1])
    return KVALUES_FP4[_split_nibbles(b[:, 1:17])] * d


def _nvfp4(b):
    # ggml: kvalues_mxfp4[c] * ggml_ue4m3_to_fp32(d[s]) (which holds the
    # 0.5), per 16-element sub-block, Q4_0's order inside each over 8 bytes.
    n = b.shape[0]
    d = UE4M3_TO_FP32[b[:, 0:4]]
    codes = _split_nibbles(b[:, 4:36].reshape(n, 4, 8)).reshape(n, 64)
    return KVALUES_FP4[codes] * _per(d, 16)


def _q1_0(b):
    bits = (b[:, 2:18, None] >> np.arange(8, dtype=np.uint8)) & 1
    d = _f16(b, 0)
    return np.where(bits.reshape(-1, 128) != 0, d, -d)


def _q2_0(b):
    shifts = np.arange(0, 8, 2, dtype=np.uint8)
    q = ((b[:, 2:18, None] >> shifts) & 3).reshape(-1, 64).astype(np.int32)
    return (q - 1).astype(F32) * _f16(b, 0)


def _f32(b):
    return np.ascontiguousarray(b).view("<f4").astype(F32)


def _bf16(b):
    bits = np.ascontiguousarray(b).view("<u2").astype(np.uint32) << 16
    return bits.view(F32)


_DECODERS = {
    GGML_TYPE_F32: _f32,
    GGML_TYPE_F16: _f16_to_f32,
    GGML_TYPE_BF16: _bf16,
    GGML_TYPE_Q4_0: _q4_0,
    GGML_TYPE_Q4_1: _q4_1,
    GGML_TYPE_Q5_0: _q5_0,
    GGML_TYPE_Q5_1: _q5_1,
    GGML_TYPE_Q8_0: _q8_0,
    GGML_TYPE_Q2_K: _q2_k,
    GGML_TYPE_Q3_K: _q3_k,
    GGML_TYPE_Q4_K: _q4_k,
    GGML_TYPE_Q5_K: _q5_k,
    GGML_TYPE_Q6_K: _q6_k,
    GGML_TYPE_IQ4_NL: _iq4_nl,
    GGML_TYPE_IQ4_XS: _iq4_xs,
    GGML_TYPE_MXFP4: _mxfp4,
    GGML_TYPE_NVFP4: _nvfp4,
    GGML_TYPE_TQ1_0: _tq1_0,
    GGML_TYPE_TQ2_0: _tq2_0,
    GGML_TYPE_Q1_0: _q1_0,
    GGML_TYPE_Q2_0: _q2_0,
}

# The ggml type ids ``dequantize`` decodes.
TYPES = tuple(_DECODERS)


def dequantize(type_id, raw_bytes, ne):
    """Decode a ggml tensor to float32 exactly as ggml's ``to_float``.

    type_id: a ggml type id in ``TYPES``; raw_bytes: the tensor's bytes
    (bytes-like or numpy array), rows of whole blocks back to back; ne: the
    shape in ggml order (ne[0] = row length, a multiple of the block size).
    Returns an array of shape ``ne[::-1]`` (row-major), dtype float32.
    """
    if type_id not in _DECODERS:
        raise ValueError(f"ggml type {type_id} has no reference decoder")
    elements, nbytes = BLOCK[type_id]
    ne = [int(n) for n in ne]
    if not ne or ne[0] % elements:
        raise ValueError(f"ne = {ne}: ne[0] must be a multiple of {elements}")
    if isinstance(raw_bytes, np.ndarray):
        raw = np.ascontiguousarray(raw_bytes).reshape(-1).view(np.uint8)
    else:
        raw = np.frombuffer(raw_bytes, dtype=np.uint8)
    n_blocks = int(np.prod(ne)) // elements
    if raw.size != n_blocks * nbytes:
        raise ValueError(f"{raw.size} bytes for {n_blocks} blocks of "
                         f"{nbytes} bytes")
    # Inf / NaN parameters (an f16 d overflowed by ggml's quantizer) give
    # Inf / NaN as in ggml; numpy's warnings about them are noise here.
    with np.errstate(over="ignore", invalid="ignore"):
        values = _DECODERS[type_id](raw.reshape(n_blocks, nbytes))
    return np.ascontiguousarray(values, dtype=F32).reshape(ne[::-1])
