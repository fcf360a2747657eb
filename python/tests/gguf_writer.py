"""A small, independent GGUF v3 writer and reader for the tests.

Written from the GGUF layout (ggml ``docs/gguf.md``; the project notes
``gguf.md`` section 1) with nothing but ``struct``, so that the project's own
GGUF reader (C++ and ``quant_block.gguf``) is tested against files it did not
help to make. It imports nothing from the project on purpose: a bug shared by
the reader and the writer would otherwise cancel out.

``write_gguf`` lays files out the way ggml's writer does (tensor data
contiguous in info order, every tensor padded with zeros to the alignment,
the last one too; the data section starts at the end of the tensor infos
rounded up to the alignment), so what it writes is accepted by ggml's strict
reader (``gguf_init_from_file``); ``test_gguf_reference_vs_ggml.py`` checks
that. It does not validate what it is given (a key may repeat, a tensor's
bytes may be short, a value type may be anything), so tests can also write
malformed files on purpose.

``read_gguf`` is the matching minimal reader, for checking files written by
ggml (or by the project) without the project's reader.

``random_blocks`` makes raw block bytes with random codes but finite block
parameters, the third input of the bit-exactness checks.
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
    for key, gguf_type, value in metadata:
        if key == ALIGNMENT_KEY and gguf_type == UINT32 and value > 0:
            alignment = value
    header = [GGUF_MAGIC, struct.pack("<IQQ", version, len(tensors),
                                      len(metadata))]
    for key, gguf_type, value in metadata:
        header.append(_string(key) + struct.pack("<I", gguf_type)
                      + _value(gguf_type, value))

    offsets = []
    blobs = []
    offset = 0
    for name, ne, type_id, raw in tensors:
        raw = raw.tobytes() if isinstance(raw, np.ndarray) else bytes(raw)
        header.append(_string(name) + struct.pack("<I", len(ne))
                      + struct.pack(f"<{len(ne)}q", *ne)
                      + struct.pack("<iQ", type_id, offset))
        padded = _align(len(raw), alignment)
        offsets.append(offset)
        blobs.append(raw + bytes(padded - len(raw)))
        offset += padded

    head = b"".join(header)
    # ggml's writer pads the infos to the alignment even without tensors
    # (its reader then ignores the padding: data_offset is the infos' end).
    data_offset = _align(len(head), alignment)
    with open(path, "wb") as f:
        f.write(head)
        f.write(bytes(data_offset - len(head)))
        for blob in blobs:
            f.write(blob)
    return {"alignment": alignment, "data_offset": data_offset,
            "offsets": offsets, "size": data_offset + offset}


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
