"""A small, independent GGUF v3 writer and reader, numpy quantizers of the
common ggml block types, and random-weight LLaMA files.

Written from the GGUF layout (ggml ``docs/gguf.md``; the project notes
``gguf.md`` section 1) with nothing but ``struct`` and numpy, so that the
project's own GGUF reader (C++ and ``quant_block.gguf``) is tested against
files it did not help to make. It imports nothing else from the project on
purpose (and never loads the project's C library): a bug shared by the
reader and the writer would otherwise cancel out.

``write_gguf`` lays files out the way ggml's writer does (tensor data
contiguous in info order, every tensor padded with zeros to the alignment,
the last one too; the data section starts at the end of the tensor infos
rounded up to the alignment), so what it writes is accepted by ggml's strict
reader (``gguf_init_from_file``);
``python/tests/test_gguf_reference_vs_ggml.py`` checks that. It does not
validate what it is given (a key may repeat, a tensor's bytes may be short,
a value type may be anything), so tests can also write malformed files on
purpose.

``read_gguf`` is the matching minimal reader, for checking files written by
ggml (or by the project) without the project's reader.

``random_blocks`` makes raw block bytes with random codes but finite block
parameters, the third input of the bit-exactness checks.

``quantize(type_id, x2d)`` turns float rows into valid ggml blocks (Q4_0,
Q5_0, Q8_0 as ggml's reference quantizers; Q4_K, Q6_K by a simple min/max
scheme of its own; MXFP4 as OCP; F16, F32), and ``write_random_llama``
writes a random-weight LLaMA model that llama.cpp loads, in the tensor type
mixes of llama.cpp's presets (``LLAMA_MIXES``).
"""

import dataclasses
import struct

import numpy as np

# --- enum gguf_type: the KV value types (ggml include/gguf.h). ---------------

UINT8 = 0
INT8 = 1
UINT16 = 2
INT16 = 3
UINT32 = 4
INT32 = 5
FLOAT32 = 6
BOOL = 7
STRING = 8
ARRAY = 9
UINT64 = 10
INT64 = 11
FLOAT64 = 12

GGUF_TYPE_UINT8 = UINT8
GGUF_TYPE_INT8 = INT8
GGUF_TYPE_UINT16 = UINT16
GGUF_TYPE_INT16 = INT16
GGUF_TYPE_UINT32 = UINT32
GGUF_TYPE_INT32 = INT32
GGUF_TYPE_FLOAT32 = FLOAT32
GGUF_TYPE_BOOL = BOOL
GGUF_TYPE_STRING = STRING
GGUF_TYPE_ARRAY = ARRAY
GGUF_TYPE_UINT64 = UINT64
GGUF_TYPE_INT64 = INT64
GGUF_TYPE_FLOAT64 = FLOAT64

# Fixed-size scalar value types: struct format (little-endian).
_SCALAR_FORMAT = {
    UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h",
    UINT32: "<I", INT32: "<i", FLOAT32: "<f", BOOL: "<B",
    UINT64: "<Q", INT64: "<q", FLOAT64: "<d",
}

GGUF_MAGIC = b"GGUF"
GGUF_DEFAULT_ALIGNMENT = 32
ALIGNMENT_KEY = "general.alignment"

# --- enum ggml_type (ggml include/ggml.h; the bundle's values 0..42). --------

GGML_TYPE_F32 = 0
GGML_TYPE_F16 = 1
GGML_TYPE_Q4_0 = 2
GGML_TYPE_Q4_1 = 3
GGML_TYPE_Q5_0 = 6
GGML_TYPE_Q5_1 = 7
GGML_TYPE_Q8_0 = 8
GGML_TYPE_Q8_1 = 9
GGML_TYPE_Q2_K = 10
GGML_TYPE_Q3_K = 11
GGML_TYPE_Q4_K = 12
GGML_TYPE_Q5_K = 13
GGML_TYPE_Q6_K = 14
GGML_TYPE_Q8_K = 15
GGML_TYPE_IQ2_XXS = 16
GGML_TYPE_IQ2_XS = 17
GGML_TYPE_IQ3_XXS = 18
GGML_TYPE_IQ1_S = 19
GGML_TYPE_IQ4_NL = 20
GGML_TYPE_IQ3_S = 21
GGML_TYPE_IQ2_S = 22
GGML_TYPE_IQ4_XS = 23
GGML_TYPE_I8 = 24
GGML_TYPE_I16 = 25
GGML_TYPE_I32 = 26
GGML_TYPE_I64 = 27
GGML_TYPE_F64 = 28
GGML_TYPE_IQ1_M = 29
GGML_TYPE_BF16 = 30
GGML_TYPE_TQ1_0 = 34
GGML_TYPE_TQ2_0 = 35
GGML_TYPE_MXFP4 = 39
GGML_TYPE_NVFP4 = 40
GGML_TYPE_Q1_0 = 41
GGML_TYPE_Q2_0 = 42
GGML_TYPE_COUNT = 43

# {type_id: (elements per block, bytes per block)}: the notes' table 2.1,
# the plain types, and the lattice IQ types (sizes as the bundle's
# ggml_get_type_traits reports them; the ggml test checks every entry).
BLOCK = {
    GGML_TYPE_F32: (1, 4),
    GGML_TYPE_F16: (1, 2),
    GGML_TYPE_Q4_0: (32, 18),
    GGML_TYPE_Q4_1: (32, 20),
    GGML_TYPE_Q5_0: (32, 22),
    GGML_TYPE_Q5_1: (32, 24),
    GGML_TYPE_Q8_0: (32, 34),
    GGML_TYPE_Q8_1: (32, 36),
    GGML_TYPE_Q2_K: (256, 84),
    GGML_TYPE_Q3_K: (256, 110),
    GGML_TYPE_Q4_K: (256, 144),
    GGML_TYPE_Q5_K: (256, 176),
    GGML_TYPE_Q6_K: (256, 210),
    GGML_TYPE_Q8_K: (256, 292),
    GGML_TYPE_IQ2_XXS: (256, 66),
    GGML_TYPE_IQ2_XS: (256, 74),
    GGML_TYPE_IQ3_XXS: (256, 98),
    GGML_TYPE_IQ1_S: (256, 50),
    GGML_TYPE_IQ4_NL: (32, 18),
    GGML_TYPE_IQ3_S: (256, 110),
    GGML_TYPE_IQ2_S: (256, 82),
    GGML_TYPE_IQ4_XS: (256, 136),
    GGML_TYPE_I8: (1, 1),
    GGML_TYPE_I16: (1, 2),
    GGML_TYPE_I32: (1, 4),
    GGML_TYPE_I64: (1, 8),
    GGML_TYPE_F64: (1, 8),
    GGML_TYPE_IQ1_M: (256, 56),
    GGML_TYPE_BF16: (1, 2),
    GGML_TYPE_TQ1_0: (256, 54),
    GGML_TYPE_TQ2_0: (256, 66),
    GGML_TYPE_MXFP4: (32, 17),
    GGML_TYPE_NVFP4: (64, 36),
    GGML_TYPE_Q1_0: (128, 18),
    GGML_TYPE_Q2_0: (64, 18),
}


def tensor_nbytes(type_id, ne):
    """Bytes of a tensor of ggml type ``type_id`` and shape ``ne`` (ggml
    order): whole blocks along ne[0], rows back to back (notes 1.1)."""
    elements, nbytes = BLOCK[type_id]
    if ne[0] % elements:
        raise ValueError(f"ne[0] = {ne[0]} is not a multiple of the block "
                         f"size {elements} of type {type_id}")
    rows = 1
    for n in ne[1:]:
        rows *= n
    return ne[0] // elements * nbytes * rows


def _align(n, alignment):
    return (n + alignment - 1) // alignment * alignment


# --- writing -----------------------------------------------------------------

def _string(s):
    """A GGUF string: uint64 byte length + the bytes (no NUL)."""
    data = s.encode("utf-8") if isinstance(s, str) else bytes(s)
    return struct.pack("<Q", len(data)) + data


def _value(gguf_type, value):
    """The encoding of one value of ``gguf_type`` (no type tag)."""
    if gguf_type == STRING:
        return _string(value)
    if gguf_type == ARRAY:
        elem_type, values = value
        out = [struct.pack("<IQ", elem_type, len(values))]
        out += [_value(elem_type, v) for v in values]
        return b"".join(out)
    fmt = _SCALAR_FORMAT.get(gguf_type)
    if fmt is None:
        raise ValueError(f"unknown gguf value type {gguf_type}")
    if gguf_type == BOOL:
        value = int(value)  # ints other than 0/1 stay writable on purpose
    return struct.pack(fmt, value)


def _layout(metadata, infos, alignment, version):
    """The bytes before the data section of a file with ``metadata`` and
    tensor ``infos`` = ``[(name, ne, type_id, nbytes)]``: returns ``(head,
    alignment, data_offset, offsets, padded sizes)``, ``head`` including
    the padding up to ``data_offset``."""
    for key, gguf_type, value in metadata:
        if key == ALIGNMENT_KEY and gguf_type == UINT32 and value > 0:
            alignment = value
    header = [GGUF_MAGIC, struct.pack("<IQQ", version, len(infos),
                                      len(metadata))]
    for key, gguf_type, value in metadata:
        header.append(_string(key) + struct.pack("<I", gguf_type)
                      + _value(gguf_type, value))
    offsets = []
    padded = []
    offset = 0
    for name, ne, type_id, nbytes in infos:
        header.append(_string(name) + struct.pack("<I", len(ne))
                      + struct.pack(f"<{len(ne)}q", *ne)
                      + struct.pack("<iQ", type_id, offset))
        offsets.append(offset)
        padded.append(_align(nbytes, alignment))
        offset += padded[-1]
    head = b"".join(header)
    # ggml's writer pads the infos to the alignment even without tensors
    # (its reader then ignores the padding: data_offset is the infos' end).
    data_offset = _align(len(head), alignment)
    head += bytes(data_offset - len(head))
    return head, alignment, data_offset, offsets, padded


def write_gguf(path, metadata, tensors, alignment=GGUF_DEFAULT_ALIGNMENT,
               version=3):
    """Write a GGUF file laid out as ggml's writer lays it out.

    metadata: list of ``(key, gguf_type, value)`` in file order; an array is
        ``(key, ARRAY, (elem_type, [values]))``; strings may be ``str`` or
        ``bytes``. ``general.alignment`` is written only when listed here,
        and then (if it is a positive UINT32, even one that is not a power
        of two) it is the alignment used, as readers take it from that key.
    tensors: list of ``(name, ne, ggml_type_id, raw_bytes)``, ``ne`` in ggml
        order (ne[0] = the contiguous row length); ``raw_bytes`` is any
        bytes-like object (or numpy array) written as is.
    alignment: the alignment to use when metadata has no UINT32
        ``general.alignment`` (a reader then assumes 32: passing another
        value here makes a file that readers must misread or refuse).
    version: the version field (3; 1 and 2 are for malformed-file tests).

    Returns a dict: ``alignment``, ``data_offset`` (absolute start of the
    data section: the end of the infos rounded up, as written; with no
    tensors ggml's reader reports the end of the infos instead),
    ``offsets`` (each tensor's offset relative to it) and ``size`` (file
    size).
    """
    raws = [memoryview(raw.tobytes() if isinstance(raw, np.ndarray)
                       else bytes(raw)) for _, _, _, raw in tensors]
    infos = [(name, ne, type_id, len(raw))
             for (name, ne, type_id, _), raw in zip(tensors, raws)]
    head, alignment, data_offset, offsets, padded = _layout(
        metadata, infos, alignment, version)
    with open(path, "wb") as f:
        f.write(head)
        for raw, size in zip(raws, padded):
            f.write(raw)
            f.write(bytes(size - len(raw)))
    return {"alignment": alignment, "data_offset": data_offset,
            "offsets": offsets, "size": data_offset + sum(padded)}


# --- reading -----------------------------------------------------------------

@dataclasses.dataclass
class TensorInfo:
    """One tensor info of a GGUF file, with its bytes (None when the type's
    size is unknown here)."""
    name: str
    ne: list
    type_id: int
    offset: int
    data: bytes


@dataclasses.dataclass
class GGUFFile:
    """What ``read_gguf`` returns. ``metadata`` uses ``write_gguf``'s
    representation, so ``write_gguf(p, f.metadata, ...)`` round-trips."""
    version: int
    metadata: list
    tensors: list
    alignment: int
    data_offset: int

    @property
    def kv(self):
        """The metadata as ``{key: value}`` (the last one wins)."""
        return {key: value for key, _, value in self.metadata}

    def tensor(self, name):
        """The TensorInfo called ``name``."""
        for info in self.tensors:
            if info.name == name:
                return info
        raise KeyError(name)


class _Cursor:
    """Sequential little-endian reads over a bytes object."""

    def __init__(self, data):
        self.data = data
        self.pos = 0

    def take(self, n):
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError(f"truncated GGUF: {n} bytes wanted at "
                             f"{self.pos}, file has {len(self.data)}")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self):
        return self.take(self.unpack("<Q")).decode("utf-8")

    def value(self, gguf_type):
        if gguf_type == STRING:
            return self.string()
        if gguf_type == ARRAY:
            elem_type = self.unpack("<I")
            count = self.unpack("<Q")
            return elem_type, [self.value(elem_type) for _ in range(count)]
        fmt = _SCALAR_FORMAT.get(gguf_type)
        if fmt is None:
            raise ValueError(f"unknown gguf value type {gguf_type}")
        v = self.unpack(fmt)
        return bool(v) if gguf_type == BOOL else v


def read_gguf(path):
    """Parse a little-endian GGUF file (v2/v3) into a ``GGUFFile``.

    Minimal and independent of the project and of ggml: it follows the
    layout of notes section 1 and checks only what it needs to find the
    data (magic, truncation, known value types, a power-of-two alignment
    as ggml requires). Tensor bytes are sliced
    from ``data_offset + offset`` using ``BLOCK`` sizes.
    """
    with open(path, "rb") as f:
        cur = _Cursor(f.read())
    if cur.take(4) != GGUF_MAGIC:
        raise ValueError(f"{path}: not a GGUF file (bad magic)")
    version = cur.unpack("<I")
    n_tensors = cur.unpack("<q")
    n_kv = cur.unpack("<q")
    metadata = []
    for _ in range(n_kv):
        key = cur.string()
        gguf_type = cur.unpack("<I")
        metadata.append((key, gguf_type, cur.value(gguf_type)))
    infos = []
    for _ in range(n_tensors):
        name = cur.string()
        n_dims = cur.unpack("<I")
        ne = [cur.unpack("<q") for _ in range(n_dims)]
        type_id = cur.unpack("<i")
        offset = cur.unpack("<Q")
        infos.append((name, ne, type_id, offset))

    alignment = GGUF_DEFAULT_ALIGNMENT
    for key, gguf_type, value in metadata:
        if key == ALIGNMENT_KEY and gguf_type == UINT32:
            alignment = value
    if alignment <= 0 or alignment & (alignment - 1):
        raise ValueError(f"{path}: alignment {alignment} is not a power "
                         "of two")
    data_offset = _align(cur.pos, alignment) if infos else cur.pos
    tensors = []
    for name, ne, type_id, offset in infos:
        data = None
        if type_id in BLOCK:
            start = data_offset + offset
            size = tensor_nbytes(type_id, ne)
            if start + size > len(cur.data):
                raise ValueError(f"{path}: tensor {name!r} runs past the "
                                 "end of the file")
            data = cur.data[start:start + size]
        tensors.append(TensorInfo(name, ne, type_id, offset, data))
    return GGUFFile(version, metadata, tensors, alignment, data_offset)


# --- random block bytes ------------------------------------------------------

# Byte offsets of the IEEE f16 block parameters (d, dmin, m, s) per type
# (notes table 2.1). Random bytes there could be Inf/NaN, whose propagation
# says nothing about the decoding order being tested, so they are replaced.
_F16_FIELDS = {
    GGML_TYPE_Q4_0: (0,),
    GGML_TYPE_Q4_1: (0, 2),
    GGML_TYPE_Q5_0: (0,),
    GGML_TYPE_Q5_1: (0, 2),
    GGML_TYPE_Q8_0: (0,),
    GGML_TYPE_Q8_1: (0, 2),
    GGML_TYPE_Q2_K: (80, 82),
    GGML_TYPE_Q3_K: (108,),
    GGML_TYPE_Q4_K: (0, 2),
    GGML_TYPE_Q5_K: (0, 2),
    GGML_TYPE_Q6_K: (208,),
    GGML_TYPE_IQ4_NL: (0,),
    GGML_TYPE_IQ4_XS: (0,),
    GGML_TYPE_TQ1_0: (52,),
    GGML_TYPE_TQ2_0: (64,),
    GGML_TYPE_Q1_0: (0,),
    GGML_TYPE_Q2_0: (0,),
}


def _finite_f16(rng, n):
    """``n`` random finite f16 values, magnitudes in [2^-8, 2^4], either
    sign, as little-endian bytes of shape (n, 2)."""
    values = rng.choice([-1.0, 1.0], n) * np.exp2(rng.uniform(-8, 4, n))
    return values.astype("<f2").view(np.uint8).reshape(n, 2)


def random_blocks(type_id, n_blocks, rng, kind="random"):
    """Raw bytes of ``n_blocks`` blocks of ``type_id``.

    kind "random": uniformly random bytes (so every code, scale nibble and
    high bit pattern occurs, unlike with ggml's quantizers), except the
    block parameters, kept finite so the results are comparable bit for
    bit: every f16 field (and F16 / BF16 / F32 elements, Q8_K's f32 d) is a
    finite value of magnitude 2^-8..2^4; the MXFP4 E8M0 exponent is in
    100..150 (0xFF is ggml's 2^127 but NaN in OCP); the NVFP4 UE4M3 scales
    are in 0x08..0x7E (bit 7 clear: ggml ignores it; 0x7F is ggml's 0 but
    NaN in E4M3).

    rng is a ``numpy.random.Generator``. Returns ``bytes``.
    """
    if kind != "random":
        raise ValueError(f"unknown kind {kind!r} (only 'random')")
    if type_id not in BLOCK:
        raise ValueError(f"unknown ggml type {type_id}")
    _, nbytes = BLOCK[type_id]
    raw = rng.integers(0, 256, (n_blocks, nbytes), dtype=np.uint8)
    n = n_blocks
    if type_id == GGML_TYPE_F16:
        raw[:] = _finite_f16(rng, n)
    elif type_id == GGML_TYPE_BF16:
        values = rng.choice([-1.0, 1.0], n) * np.exp2(rng.uniform(-8, 4, n))
        # Truncating a finite f32 to its top 16 bits gives a finite bf16.
        bits = values.astype("<f4").view("<u4") >> 16
        raw[:] = bits.astype("<u2").view(np.uint8).reshape(n, 2)
    elif type_id in (GGML_TYPE_F32, GGML_TYPE_Q8_K):
        values = rng.choice([-1.0, 1.0], n) * np.exp2(rng.uniform(-8, 4, n))
        raw[:, 0:4] = values.astype("<f4").view(np.uint8).reshape(n, 4)
    elif type_id == GGML_TYPE_F64:
        values = rng.choice([-1.0, 1.0], n) * np.exp2(rng.uniform(-8, 4, n))
        raw[:] = values.astype("<f8").view(np.uint8).reshape(n, 8)
    elif type_id == GGML_TYPE_MXFP4:
        raw[:, 0] = rng.integers(100, 151, n)
    elif type_id == GGML_TYPE_NVFP4:
        raw[:, 0:4] = rng.integers(0x08, 0x7F, (n, 4))
    elif type_id in _F16_FIELDS:
        for off in _F16_FIELDS[type_id]:
            raw[:, off:off + 2] = _finite_f16(rng, n)
    # Integer types and the lattice IQ types: plain random bytes.
    return raw.tobytes()


# --- quantizers: float rows -> ggml blocks -----------------------------------

_F32 = np.float32


def _f16_bytes(values):
    """(n, 1) float values -> (n, 2) uint8, IEEE f16 little-endian, rounded
    to nearest even as GGML_FP32_TO_FP16 does (overflow gives Inf, as in
    ggml)."""
    with np.errstate(over="ignore"):
        h = np.ascontiguousarray(values, dtype=_F32).astype("<f2")
    return h.view(np.uint8).reshape(-1, 2)


def _round_half_away(x):
    """C's roundf (halves away from zero) of float32 values, exactly:
    np.rint rounds halves to even, so a half that rint took toward zero
    (x - rint(x) = +0.5 for x > 0, -0.5 for x < 0; the difference is
    exact) moves one away. (floor(|x| + 0.5) in float32 would round some
    numbers just below a half up.)"""
    r = np.rint(x)
    d = x - r
    r += (d == _F32(0.5)) & (x > 0)
    r -= (d == _F32(-0.5)) & (x < 0)
    return r


def _split_nibble_pack(codes):
    """Q4_0's order, the inverse of the split-halves decoding: (n, 2k)
    4-bit codes -> (n, k) bytes, element j in the low nibble of byte j and
    element j + k in its high nibble."""
    k = codes.shape[1] // 2
    return (codes[:, :k] | (codes[:, k:] << 4)).astype(np.uint8)


def _signed_max(b):
    """Per row of (n, 32) float32: the element of largest magnitude, the
    first one on ties (ggml's ``if (amax < fabsf(v))`` scan)."""
    i = np.argmax(np.abs(b), axis=1)
    return np.take_along_axis(b, i[:, None], axis=1)


def _quantize_q4_0(b):
    """ggml quantize_row_q4_0_ref: d = max / -8 (max = the signed element
    of largest magnitude), code = min(15, (int8)(x * (1/d) + 8.5)), all in
    float32 with the reciprocal of the unrounded d, d stored as f16."""
    d = _signed_max(b) / _F32(-8)
    with np.errstate(divide="ignore"):
        idd = np.where(d != 0, _F32(1) / d, _F32(0)).astype(_F32)
    q = np.minimum(np.floor(b * idd + _F32(8.5)), _F32(15)).astype(np.uint8)
    return np.concatenate([_f16_bytes(d), _split_nibble_pack(q)], axis=1)


def _quantize_q5_0(b):
    """ggml quantize_row_q5_0_ref: d = max / -16, code = min(31, (int8)(x
    * (1/d) + 16.5)), low nibbles as Q4_0, fifth bits in the little-endian
    uint32 qh (bit e for element e)."""
    d = _signed_max(b) / _F32(-16)
    with np.errstate(divide="ignore"):
        idd = np.where(d != 0, _F32(1) / d, _F32(0)).astype(_F32)
    q = np.minimum(np.floor(b * idd + _F32(16.5)), _F32(31)).astype(np.uint32)
    qh = ((q >> 4) << np.arange(32, dtype=np.uint32)).sum(
        axis=1, dtype=np.uint32)
    qh = qh.astype("<u4").view(np.uint8).reshape(-1, 4)
    return np.concatenate([_f16_bytes(d), qh,
                           _split_nibble_pack((q & 15).astype(np.uint8))],
                          axis=1)


def _quantize_q8_0(b):
    """ggml quantize_row_q8_0_ref: d = amax / 127, code = roundf(x *
    (1/d)), float32, d stored as f16."""
    d = np.max(np.abs(b), axis=1, keepdims=True) / _F32(127)
    with np.errstate(divide="ignore"):
        idd = np.where(d != 0, _F32(1) / d, _F32(0)).astype(_F32)
    q = _round_half_away(b * idd).astype(np.int8).view(np.uint8)
    return np.concatenate([_f16_bytes(d), q], axis=1)


def _f16_round(x):
    """float32 values rounded through f16 (as the stored d, dmin)."""
    return x.astype(np.float16).astype(_F32)


def _quantize_q4_k(b):
    """Q4_K by a plain min/max scheme (not ggml's make_qkx2 search): per
    32-element sub-block, scale = (max - min) / 15 and offset = -min with
    min <= 0; the super-block's d = max scale / 63 and dmin = max offset /
    63 (f16), sub-block scale and offset codes = round(./d) in 0..63; codes
    q = clamp(round((x + dmin*m) / (d*sc)), 0, 15), so that x ~ d*sc*q -
    dmin*m, the value ggml decodes."""
    n = b.shape[0]
    sub = b.reshape(n, 8, 32)
    lo = np.minimum(sub.min(axis=2), _F32(0))
    hi = sub.max(axis=2)
    scale = (hi - lo) / _F32(15)
    offset = -lo
    d = _f16_round(scale.max(axis=1, keepdims=True) / _F32(63))
    dmin = _f16_round(offset.max(axis=1, keepdims=True) / _F32(63))
    with np.errstate(divide="ignore", invalid="ignore"):
        sc = np.where(d > 0, np.rint(scale / d), 0)
        m = np.where(dmin > 0, np.rint(offset / dmin), 0)
    sc = np.clip(sc, 0, 63).astype(np.uint8)
    m = np.clip(m, 0, 63).astype(np.uint8)
    d1 = d * sc.astype(_F32)
    m1 = dmin * m.astype(_F32)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(d1[:, :, None] > 0,
                     np.rint((sub + m1[:, :, None]) / d1[:, :, None]), 0)
    q = np.clip(q, 0, 15).astype(np.uint8).reshape(n, 4, 2, 32)
    qs = (q[:, :, 0] | (q[:, :, 1] << 4)).reshape(n, 128)
    # get_scale_min_k4 inverted: 6-bit sc/m of sub-blocks 0..3 in the low 6
    # bits of bytes 0..3 / 4..7; those of 4..7 split into low nibbles (bytes
    # 8..11) and their top two bits (bits 6..7 of bytes 0..7).
    s = np.empty((n, 12), dtype=np.uint8)
    s[:, 0:4] = sc[:, 0:4] | ((sc[:, 4:8] >> 4) << 6)
    s[:, 4:8] = m[:, 0:4] | ((m[:, 4:8] >> 4) << 6)
    s[:, 8:12] = (sc[:, 4:8] & 15) | ((m[:, 4:8] & 15) << 4)
    return np.concatenate([_f16_bytes(d), _f16_bytes(dmin), s, qs], axis=1)


def _quantize_q6_k(b):
    """Q6_K by a plain symmetric scheme: per 16-element sub-block, scale =
    amax / 31; d = max scale / 127 (f16), int8 sub-block scales sc =
    round(scale / d), codes q = clamp(round(x / (d*sc)), -32, 31); ggml
    decodes (d*sc)*q. Packed as ggml's quarters: ql (low nibbles), qh (two
    high bits per element), scales, d."""
    n = b.shape[0]
    sub = b.reshape(n, 16, 16)
    scale = np.abs(sub).max(axis=2) / _F32(31)
    d = _f16_round(scale.max(axis=1, keepdims=True) / _F32(127))
    with np.errstate(divide="ignore", invalid="ignore"):
        sc = np.where(d > 0, np.rint(scale / d), 0)
    sc = np.clip(sc, 0, 127).astype(np.int8)
    d1 = (d * sc.astype(_F32))[:, :, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(d1 > 0, np.rint(sub / d1), 0)
    q = (np.clip(q, -32, 31) + 32).astype(np.uint8).reshape(n, 2, 4, 32)
    low, high = q & 15, q >> 4                      # [half, t, l]
    ql = (low[:, :, 0:2] | (low[:, :, 2:4] << 4)).reshape(n, 128)
    shifts = np.arange(0, 8, 2, dtype=np.uint8).reshape(1, 1, 4, 1)
    qh = (high << shifts).sum(axis=2, dtype=np.uint8).reshape(n, 64)
    return np.concatenate([ql, qh, sc.view(np.uint8), _f16_bytes(d)], axis=1)


def _quantize_mxfp4(b):
    """MXFP4 as OCP MX v1.0: shared exponent e = floor(log2(amax)) - 2
    (E2M1's emax), stored as the E8M0 byte e + 127 (ggml decodes it as
    2^(byte-127) times the E2M1 value); elements y = |x| / 2^e rounded to
    the nearest E2M1 magnitude {0, .5, 1, 1.5, 2, 3, 4, 6}, ties to the
    even code, saturating at 6 (three exact float32 grids: steps of 0.5
    below 2, 1 below 4, 2 above, each rounded by rint, which breaks ties
    to even); codes in Q4_0's split-nibble order. Never emits code 8
    (-0): ggml and OCP disagree on it."""
    amax = np.abs(b).max(axis=1, keepdims=True)
    _, exp = np.frexp(amax)               # amax = m * 2^exp, m in [0.5, 1)
    e = np.where(amax > 0, exp.astype(np.int32) - 1 - 2, -127)
    e8 = np.clip(e + 127, 0, 254)
    # 2^-(e8-127) as float32 (the clip keeps it finite and normal for
    # every e8 that occurs with a nonzero amax of a float32 block).
    inv = np.ldexp(np.float64(1), 127 - e8).astype(np.float32)
    y = np.abs(b) * inv
    c = np.where(y < 2, np.rint(y * _F32(2)),
                 np.where(y < 4, _F32(4) + np.rint(y - _F32(2)),
                          np.minimum(_F32(6) + np.rint((y - _F32(4))
                                                        * _F32(0.5)),
                                     _F32(7))))
    c = c.astype(np.uint8)
    c = np.where((b < 0) & (c != 0), c | 8, c).astype(np.uint8)
    return np.concatenate([e8.astype(np.uint8), _split_nibble_pack(c)],
                          axis=1)


_QUANTIZERS = {
    GGML_TYPE_Q4_0: _quantize_q4_0,
    GGML_TYPE_Q5_0: _quantize_q5_0,
    GGML_TYPE_Q8_0: _quantize_q8_0,
    GGML_TYPE_Q4_K: _quantize_q4_k,
    GGML_TYPE_Q6_K: _quantize_q6_k,
    GGML_TYPE_MXFP4: _quantize_mxfp4,
}

# The ggml types ``quantize`` produces.
QUANTIZE_TYPES = (GGML_TYPE_F32, GGML_TYPE_F16) + tuple(_QUANTIZERS)


def quantize(type_id, x2d):
    """Quantize float rows into ggml blocks of ``type_id``.

    x2d: a 2-D float array ``[N, K]`` (a weight with ggml ``ne = {K, N}``;
    a 1-D array is one row), K a multiple of the type's block size. Each
    row is cut into blocks along K. Returns the tensor's bytes (rows of
    whole blocks back to back), ``tensor_nbytes(type_id, [K, N])`` long.

    Q4_0, Q5_0 and Q8_0 follow ggml's reference quantizers
    (``quantize_row_*_ref``) in float32, so they give ggml's bytes; Q4_K
    and Q6_K use a simple min/max scheme of their own (valid blocks, not
    ggml's search); MXFP4 is OCP's (floor(log2(amax)) - 2, nearest, ties
    to even); F16 rounds to nearest even; F32 is a cast.
    """
    x = np.asarray(x2d, dtype=_F32)
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim != 2:
        raise ValueError(f"quantize wants a 2-D array, got shape {x.shape}")
    if type_id == GGML_TYPE_F32:
        return np.ascontiguousarray(x, dtype="<f4").tobytes()
    if type_id == GGML_TYPE_F16:
        with np.errstate(over="ignore"):
            return np.ascontiguousarray(x.astype("<f2")).tobytes()
    if type_id not in _QUANTIZERS:
        raise ValueError(f"no quantizer for ggml type {type_id}")
    elements, nbytes = BLOCK[type_id]
    n, k = x.shape
    if k % elements:
        raise ValueError(f"row length {k} is not a multiple of the block "
                         f"size {elements} of type {type_id}")
    blocks = _QUANTIZERS[type_id](np.ascontiguousarray(x).reshape(-1,
                                                                  elements))
    assert blocks.shape == (n * k // elements, nbytes), blocks.shape
    return blocks.tobytes()


# --- random-weight LLaMA models ----------------------------------------------

# The tensor type mixes of write_random_llama (see llama_tensor_types).
LLAMA_MIXES = ("F32", "Q8_0", "Q4_0", "Q4_K_M", "MXFP4")

# general.file_type (enum llama_ftype, llama.h) written for each mix.
LLAMA_FTYPE = {"F32": 0, "Q4_0": 2, "Q8_0": 7, "Q4_K_M": 15, "MXFP4": 38}

# llama.cpp's per-tensor fallback when ne[0] is not a multiple of 256
# (src/llama-quant.cpp tensor_type_fallback), for the types used here.
_K_FALLBACK = {GGML_TYPE_Q4_K: GGML_TYPE_Q5_0, GGML_TYPE_Q6_K: GGML_TYPE_Q8_0}


def _use_more_bits(i_layer, n_layers):
    """llama-quant.cpp use_more_bits: the layers whose attn_v / ffn_down a
    Q4_K_M / Q5_K_M file widens to Q6_K."""
    return (i_layer < n_layers // 8 or i_layer >= 7 * n_layers // 8
            or (i_layer - n_layers // 8) % 3 == 2)


def llama_tensor_names(n_layer, tie_output=False):
    """The tensor names of a LLaMA GGUF (notes gguf.md section 5) in the
    order write_random_llama writes them."""
    names = ["token_embd.weight"]
    for i in range(n_layer):
        p = f"blk.{i}."
        names += [p + "attn_norm.weight", p + "attn_q.weight",
                  p + "attn_k.weight", p + "attn_v.weight",
                  p + "attn_output.weight", p + "ffn_norm.weight",
                  p + "ffn_gate.weight", p + "ffn_up.weight",
                  p + "ffn_down.weight"]
    names.append("output_norm.weight")
    if not tie_output:
        names.append("output.weight")
    return names


def llama_tensor_shapes(*, n_vocab, n_embd, n_layer, n_ff, n_head,
                        n_head_kv, tie_output=False):
    """``{name: ne}`` (ggml order, ne[0] = the row length K) of every
    tensor of a LLaMA GGUF, as llama.cpp's loader creates them."""
    hd = n_embd // n_head
    shapes = {}
    for name in llama_tensor_names(n_layer, tie_output):
        kind = name.split(".")[-2]
        shapes[name] = {
            "token_embd": [n_embd, n_vocab],
            "output": [n_embd, n_vocab],
            "output_norm": [n_embd],
            "attn_norm": [n_embd],
            "ffn_norm": [n_embd],
            "attn_q": [n_embd, n_head * hd],
            "attn_k": [n_embd, n_head_kv * hd],
            "attn_v": [n_embd, n_head_kv * hd],
            "attn_output": [n_head * hd, n_embd],
            "ffn_gate": [n_embd, n_ff],
            "ffn_up": [n_embd, n_ff],
            "ffn_down": [n_ff, n_embd],
        }[kind]
    return shapes


def llama_tensor_types(shapes, mix, n_layer):
    """``{name: ggml type}`` for the tensors ``shapes`` of a ``mix``.

    Norms are always F32. The 2-D tensors:

    * "F32": F32 (for exactness tests).
    * "Q8_0": Q8_0, token_embd and output too (llama.cpp's Q8_0 preset).
    * "Q4_0": Q4_0, token_embd too; output.weight Q6_K (llama.cpp's rule
      for every preset but Q8_0; Q8_0 when n_embd % 256 != 0); a tied
      token_embd is treated as the output.
    * "Q4_K_M": Q4_K, token_embd too; Q6_K for output.weight and for
      attn_v / ffn_down of the layers llama.cpp's ``use_more_bits`` picks
      (the first and last eighth and every third between). Not reproduced:
      the preset's Q5_K promotions (attn_v when n_gqa >= 4, some 70B
      rules). Rows whose length is not a multiple of 256 fall back as
      llama.cpp does: Q4_K -> Q5_0, Q6_K -> Q8_0.
    * "MXFP4": MXFP4, token_embd and output too (llama.cpp has no dense
      MXFP4 preset; its MXFP4_MOE applies to experts only).
    """
    if mix not in LLAMA_MIXES:
        raise ValueError(f"unknown mix {mix!r} (one of {LLAMA_MIXES})")
    tied = "output.weight" not in shapes
    types = {}
    for name, ne in shapes.items():
        if len(ne) == 1:
            types[name] = GGML_TYPE_F32
            continue
        is_output = name == "output.weight" or (
            tied and name == "token_embd.weight")
        kind = name.split(".")[-2]
        layer = int(name.split(".")[1]) if name.startswith("blk.") else -1
        if mix == "F32":
            t = GGML_TYPE_F32
        elif mix == "Q8_0":
            t = GGML_TYPE_Q8_0
        elif mix == "MXFP4":
            t = GGML_TYPE_MXFP4
        elif mix == "Q4_0":
            t = GGML_TYPE_Q4_0
            if is_output:
                t = GGML_TYPE_Q6_K if ne[0] % 256 == 0 else GGML_TYPE_Q8_0
        else:  # Q4_K_M
            t = GGML_TYPE_Q4_K
            if is_output or (kind in ("attn_v", "ffn_down")
                             and _use_more_bits(layer, n_layer)):
                t = GGML_TYPE_Q6_K
            if ne[0] % 256:
                t = _K_FALLBACK[t]
        elements, _ = BLOCK[t]
        if ne[0] % elements:
            raise ValueError(f"{name}: row length {ne[0]} is not a multiple "
                             f"of the block size {elements} of mix {mix}")
        types[name] = t
    return types


def llama_tokenizer_metadata(n_vocab):
    """A minimal SentencePiece ("llama") vocabulary of ``n_vocab`` tokens
    that llama.cpp's vocab loader accepts: ``<unk>`` = 0, ``<s>`` = 1 (BOS),
    ``</s>`` = 2 (EOS), then the 256 byte tokens ``<0x00>``..``<0xFF>`` (as
    far as they fit; a file without them loads too, with a warning that the
    newline token is missing) and unique dummy tokens ``tok_N``; scores are
    -N, types UNKNOWN (2) / CONTROL (3) / BYTE (6) / NORMAL (1)."""
    if n_vocab < 3:
        raise ValueError("a llama vocabulary needs at least 3 tokens")
    tokens = ["<unk>", "<s>", "</s>"]
    types = [2, 3, 3]
    for byte in range(min(256, n_vocab - 3)):
        tokens.append(f"<0x{byte:02X}>")
        types.append(6)
    for i in range(len(tokens), n_vocab):
        tokens.append(f"tok_{i}")
        types.append(1)
    scores = [0.0, 0.0, 0.0] + [-float(i) for i in range(3, n_vocab)]
    return [
        ("tokenizer.ggml.model", STRING, "llama"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
        ("tokenizer.ggml.scores", ARRAY, (FLOAT32, scores)),
        ("tokenizer.ggml.token_type", ARRAY, (INT32, types)),
        ("tokenizer.ggml.bos_token_id", UINT32, 1),
        ("tokenizer.ggml.eos_token_id", UINT32, 2),
        ("tokenizer.ggml.unknown_token_id", UINT32, 0),
        ("tokenizer.ggml.add_bos_token", BOOL, True),
        ("tokenizer.ggml.add_eos_token", BOOL, False),
    ]


def _llama_rows(name, ne, seed, index):
    """Yield ``(first_row, float32 rows)`` of tensor ``name`` in row chunks
    of about 4 Mi elements (a 1-D tensor is one chunk): the one definition
    of the random weights (see ``random_llama_tensor``)."""
    rng = np.random.default_rng([seed, index])
    if len(ne) == 1:
        yield 0, (1 + 0.05 * rng.standard_normal(ne[0])).astype(_F32)
        return
    k, n = ne
    std = _F32(1.0 if name == "token_embd.weight" else 1 / np.sqrt(k))
    chunk = max(1, (1 << 22) // k)
    for r0 in range(0, n, chunk):
        rows = rng.standard_normal((min(chunk, n - r0), k), dtype=_F32)
        rows *= std
        yield r0, rows


def random_llama_tensor(name, ne, seed, index):
    """The float32 weights write_random_llama writes for tensor ``name``
    (position ``index`` in the file), before quantization, as a row-major
    ``ne[::-1]`` array: norms 1 + N(0, 0.05^2); token_embd N(0, 1); the
    other matrices N(0, 1/K) (K = ne[0], the fan-in), so activations stay
    O(1) through the layers. Each tensor has its own stream
    (``default_rng([seed, index])``), so every mix of one seed holds the
    same weights before quantization."""
    parts = [rows for _, rows in _llama_rows(name, ne, seed, index)]
    return parts[0] if len(ne) == 1 else np.concatenate(parts, axis=0)


def llama_metadata(*, n_vocab, n_embd, n_layer, n_ff, n_head, n_head_kv,
                   n_ctx=4096, mix="Q4_0", freq_base=10000.0, eps=1e-5,
                   name="quant-block random llama"):
    """The metadata of write_random_llama: general.* (architecture llama,
    file_type, quantization_version 2), the llama.* hyperparameters as
    gguf-py writes them (u32 ints, f32 floats) and the tokenizer."""
    hd = n_embd // n_head
    return [
        ("general.architecture", STRING, "llama"),
        ("general.name", STRING, name),
        ("general.file_type", UINT32, LLAMA_FTYPE[mix]),
        ("general.quantization_version", UINT32, 2),
        ("llama.vocab_size", UINT32, n_vocab),
        ("llama.context_length", UINT32, n_ctx),
        ("llama.embedding_length", UINT32, n_embd),
        ("llama.block_count", UINT32, n_layer),
        ("llama.feed_forward_length", UINT32, n_ff),
        ("llama.rope.dimension_count", UINT32, hd),
        ("llama.attention.head_count", UINT32, n_head),
        ("llama.attention.head_count_kv", UINT32, n_head_kv),
        ("llama.attention.layer_norm_rms_epsilon", FLOAT32, eps),
        ("llama.rope.freq_base", FLOAT32, freq_base),
    ] + llama_tokenizer_metadata(n_vocab)


def write_random_llama(path, *, n_vocab, n_embd, n_layer, n_ff, n_head,
                       n_head_kv, n_ctx=4096, mix="Q4_0", seed=0,
                       freq_base=10000.0, eps=1e-5, tie_output=False):
    """Write a random-weight LLaMA GGUF that llama.cpp loads.

    Metadata: ``llama_metadata`` (general.architecture = llama, every
    llama.* key, a minimal "llama" SentencePiece vocabulary of ``n_vocab``
    tokens). Tensors: names and shapes of notes gguf.md section 5
    (``llama_tensor_shapes``), types per ``mix`` (``llama_tensor_types``:
    "F32", "Q8_0", "Q4_0", "Q4_K_M", "MXFP4"), weights
    ``random_llama_tensor`` (gaussian, std 1/sqrt(fan-in); norms ~1).
    ``tie_output`` leaves out output.weight (llama.cpp then uses
    token_embd). n_embd must divide by n_head and n_head by n_head_kv.

    Tensor data is generated, quantized and written in row chunks, so
    memory stays small whatever the model size. Returns write_gguf's dict
    plus ``types`` ({name: ggml type}) and ``shapes`` ({name: ne}).
    """
    if n_embd % n_head or n_head % n_head_kv:
        raise ValueError(f"n_embd {n_embd}, n_head {n_head}, n_head_kv "
                         f"{n_head_kv}: heads must divide evenly")
    shapes = llama_tensor_shapes(n_vocab=n_vocab, n_embd=n_embd,
                                 n_layer=n_layer, n_ff=n_ff, n_head=n_head,
                                 n_head_kv=n_head_kv, tie_output=tie_output)
    types = llama_tensor_types(shapes, mix, n_layer)
    metadata = llama_metadata(n_vocab=n_vocab, n_embd=n_embd,
                              n_layer=n_layer, n_ff=n_ff, n_head=n_head,
                              n_head_kv=n_head_kv, n_ctx=n_ctx, mix=mix,
                              freq_base=freq_base, eps=eps)
    infos = [(name, ne, types[name], tensor_nbytes(types[name], ne))
             for name, ne in shapes.items()]
    head, alignment, data_offset, offsets, padded = _layout(
        metadata, infos, GGUF_DEFAULT_ALIGNMENT, 3)
    with open(path, "wb") as f:
        f.write(head)
        for index, (name, ne, type_id, nbytes) in enumerate(infos):
            written = 0
            for _, rows in _llama_rows(name, ne, seed, index):
                raw = quantize(type_id, rows)
                f.write(raw)
                written += len(raw)
            assert written == nbytes, (name, written, nbytes)
            f.write(bytes(padded[index] - nbytes))
    return {"alignment": alignment, "data_offset": data_offset,
            "offsets": offsets, "size": data_offset + sum(padded),
            "types": types, "shapes": shapes}
