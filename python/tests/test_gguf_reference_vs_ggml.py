"""The test oracles (quant_block/gguf_writer.py, ggml_reference.py) against
ggml itself.

The GGUF importer's tests trust two helpers written from the notes: a GGUF
writer/reader and a numpy decoder of ggml's blocks. This file checks them
against ggml's own code, through ctypes on the prebuilt ``libggml-base.so``
of the npm package ``@node-llama-cpp/linux-x64@3.22.1`` (no compiler, no
headers: the few prototypes needed are declared below from the notes,
section 3.1):

* every block type's decoding, bit for bit against ggml's ``to_float``, on
  ggml-quantized data (three inputs) and on random block bytes;
* the exotic scale bytes (MXFP4's 256 E8M0 exponents, NVFP4's 256 UE4M3
  bytes) and every F16 / BF16 bit pattern;
* a file from ``write_gguf`` read by ``gguf_init_from_file`` (metadata and
  data), and a file from ggml's writer read by ``read_gguf`` and rewritten
  by ``write_gguf`` byte for byte.

The library is looked up in QUANT_BLOCK_GGML_LIB_DIR, then
$QUANT_BLOCK_BINARY_DIR/npm/ggml/package/bins/linux-x64, then
/tmp/quant-block-ggml/package/bins/linux-x64; without it the ggml tests
skip (the writer/reader round trip still runs). Of quant_block it imports
only the pure-Python gguf_writer (which loads no library).
"""

import ctypes
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ggml_reference  # noqa: E402
from llamacpp import lib_dirs  # noqa: E402
from quant_block import gguf_writer as gw  # noqa: E402

LIB_NAME = "libggml-base.so"
NPM_PACKAGE = "@node-llama-cpp/linux-x64@3.22.1"

c_int64 = ctypes.c_int64
c_size_t = ctypes.c_size_t
c_void_p = ctypes.c_void_p
c_char_p = ctypes.c_char_p
c_bool = ctypes.c_bool
c_float_p = ctypes.POINTER(ctypes.c_float)


class GgmlTypeTraits(ctypes.Structure):
    """struct ggml_type_traits (ggml.h), returned by pointer."""
    _fields_ = [
        ("type_name", c_char_p),
        ("blck_size", c_int64),
        ("blck_size_interleave", c_int64),
        ("type_size", c_size_t),
        ("is_quantized", c_bool),
        ("to_float", c_void_p),
        ("from_float_ref", c_void_p),
    ]


class GgmlInitParams(ctypes.Structure):
    """struct ggml_init_params, passed by value to ggml_init."""
    _fields_ = [("mem_size", c_size_t), ("mem_buffer", c_void_p),
                ("no_alloc", c_bool)]


class GgufInitParams(ctypes.Structure):
    """struct gguf_init_params, passed by value to gguf_init_from_file."""
    _fields_ = [("no_alloc", c_bool), ("ctx", ctypes.POINTER(c_void_p))]


# void (*ggml_to_float_t)(const void *x, float *y, int64_t k)
ToFloat = ctypes.CFUNCTYPE(None, c_void_p, c_float_p, c_int64)

# name: (restype, argtypes). Enums (ggml_type, gguf_type) are ints.
_PROTOTYPES = {
    "ggml_version": (c_char_p, []),
    "ggml_get_type_traits": (ctypes.POINTER(GgmlTypeTraits), [ctypes.c_int]),
    "ggml_row_size": (c_size_t, [ctypes.c_int, c_int64]),
    "ggml_quantize_chunk": (c_size_t, [ctypes.c_int, c_float_p, c_void_p,
                                       c_int64, c_int64, c_int64,
                                       c_float_p]),
    "ggml_init": (c_void_p, [GgmlInitParams]),
    "ggml_free": (None, [c_void_p]),
    "ggml_new_tensor_1d": (c_void_p, [c_void_p, ctypes.c_int, c_int64]),
    "ggml_new_tensor_2d": (c_void_p, [c_void_p, ctypes.c_int, c_int64,
                                      c_int64]),
    "ggml_set_name": (c_void_p, [c_void_p, c_char_p]),
    "ggml_get_tensor": (c_void_p, [c_void_p, c_char_p]),
    "ggml_get_data": (c_void_p, [c_void_p]),
    "ggml_nbytes": (c_size_t, [c_void_p]),
    "gguf_init_empty": (c_void_p, []),
    "gguf_init_from_file": (c_void_p, [c_char_p, GgufInitParams]),
    "gguf_free": (None, [c_void_p]),
    "gguf_get_version": (ctypes.c_uint32, [c_void_p]),
    "gguf_get_alignment": (c_size_t, [c_void_p]),
    "gguf_get_data_offset": (c_size_t, [c_void_p]),
    "gguf_get_n_kv": (c_int64, [c_void_p]),
    "gguf_get_key": (c_char_p, [c_void_p, c_int64]),
    "gguf_get_kv_type": (ctypes.c_int, [c_void_p, c_int64]),
    "gguf_get_arr_type": (ctypes.c_int, [c_void_p, c_int64]),
    "gguf_get_arr_n": (c_size_t, [c_void_p, c_int64]),
    "gguf_get_arr_data": (c_void_p, [c_void_p, c_int64]),
    "gguf_get_arr_str": (c_char_p, [c_void_p, c_int64, c_size_t]),
    "gguf_get_val_str": (c_char_p, [c_void_p, c_int64]),
    "gguf_get_n_tensors": (c_int64, [c_void_p]),
    "gguf_get_tensor_name": (c_char_p, [c_void_p, c_int64]),
    "gguf_get_tensor_type": (ctypes.c_int, [c_void_p, c_int64]),
    "gguf_get_tensor_offset": (c_size_t, [c_void_p, c_int64]),
    "gguf_get_tensor_size": (c_size_t, [c_void_p, c_int64]),
    "gguf_get_tensor_ne": (ctypes.POINTER(c_int64), [c_void_p, c_int64]),
    "gguf_set_val_str": (None, [c_void_p, c_char_p, c_char_p]),
    "gguf_set_arr_data": (None, [c_void_p, c_char_p, ctypes.c_int,
                                 c_void_p, c_size_t]),
    "gguf_set_arr_str": (None, [c_void_p, c_char_p,
                                ctypes.POINTER(c_char_p), c_size_t]),
    "gguf_add_tensor": (None, [c_void_p, c_void_p]),
    "gguf_write_to_file": (c_bool, [c_void_p, c_char_p, c_bool]),
}

# Scalar KV types: (suffix of gguf_{get,set}_val_*, ctypes type, numpy
# dtype of array elements).
_SCALARS = {
    gw.UINT8: ("u8", ctypes.c_uint8, "<u1"),
    gw.INT8: ("i8", ctypes.c_int8, "<i1"),
    gw.UINT16: ("u16", ctypes.c_uint16, "<u2"),
    gw.INT16: ("i16", ctypes.c_int16, "<i2"),
    gw.UINT32: ("u32", ctypes.c_uint32, "<u4"),
    gw.INT32: ("i32", ctypes.c_int32, "<i4"),
    gw.FLOAT32: ("f32", ctypes.c_float, "<f4"),
    gw.BOOL: ("bool", c_bool, "<u1"),
    gw.UINT64: ("u64", ctypes.c_uint64, "<u8"),
    gw.INT64: ("i64", ctypes.c_int64, "<i8"),
    gw.FLOAT64: ("f64", ctypes.c_double, "<f8"),
}
for _type, (_suffix, _ctype, _) in _SCALARS.items():
    _PROTOTYPES[f"gguf_get_val_{_suffix}"] = (_ctype, [c_void_p, c_int64])
    _PROTOTYPES[f"gguf_set_val_{_suffix}"] = (None, [c_void_p, c_char_p,
                                                     _ctype])


@pytest.fixture(scope="module")
def ggml():
    """libggml-base.so with the prototypes above declared; skips the test
    when the bundle is not there."""
    dirs = lib_dirs()
    for d in dirs:
        path = os.path.join(d, LIB_NAME)
        if os.path.isfile(path):
            break
    else:
        pytest.skip(
            f"{LIB_NAME} not found in {dirs}: run `npm pack {NPM_PACKAGE}`, "
            "unpack it (tar xzf) into /tmp/quant-block-ggml, or point "
            "QUANT_BLOCK_GGML_LIB_DIR at its package/bins/linux-x64")
    lib = ctypes.CDLL(path)
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


# --- helpers -----------------------------------------------------------------

ROWS, ROW = 4, 512
# Every type the reference decodes that has a to_float (F32 has none).
DEQUANT_TYPES = [t for t in ggml_reference.TYPES if t != gw.GGML_TYPE_F32]
TYPE_NAMES = {v: k[len("GGML_TYPE_"):] for k, v in vars(gw).items()
              if k.startswith("GGML_TYPE_") and k != "GGML_TYPE_COUNT"}


def _float_input(kind, rng):
    """(ROWS, ROW) float32 inputs for ggml_quantize_chunk.

    "moderate": standard normal. "spread": each element's magnitude in
    2^-20..2^20, either sign; every block then holds values near 2^20, so
    f16 block scales overflow to Inf for most types (ggml's results are
    then Inf / NaN, which the reference must reproduce too). "binades":
    standard normal times 2^-20..2^12 drawn per 32 elements, so the block
    and sub-block scales of one row span many binades yet stay finite.
    """
    shape = (ROWS, ROW)
    normal = rng.standard_normal(shape)
    if kind == "moderate":
        return normal.astype(np.float32)
    if kind == "spread":
        sign = rng.choice([-1.0, 1.0], shape)
        return (sign * np.exp2(rng.uniform(-20, 20, shape))).astype(
            np.float32)
    scale = np.repeat(np.exp2(rng.uniform(-20, 12, (ROWS, ROW // 32))), 32,
                      axis=1)
    return (normal * scale).astype(np.float32)


def _quantize(ggml, type_id, x):
    """x (rows, n) float32 -> ggml_quantize_chunk's bytes."""
    rows, n = x.shape
    size = ggml.ggml_row_size(type_id, n) * rows
    dst = ctypes.create_string_buffer(size)
    src = np.ascontiguousarray(x, dtype=np.float32)
    written = ggml.ggml_quantize_chunk(
        type_id, src.ctypes.data_as(c_float_p), dst, 0, rows, n, None)
    assert written == size
    return dst.raw


def _ggml_to_float(ggml, type_id, raw, ne):
    """ggml's to_float, row by row, into a (rows, ne[0]) float32 array."""
    traits = ggml.ggml_get_type_traits(type_id).contents
    assert traits.to_float, TYPE_NAMES[type_id]
    to_float = ToFloat(traits.to_float)
    n = ne[0]
    rows = len(raw) * traits.blck_size // traits.type_size // n
    row_bytes = n // traits.blck_size * traits.type_size
    buf = ctypes.create_string_buffer(bytes(raw), len(raw))
    out = np.empty((rows, n), dtype=np.float32)
    for r in range(rows):
        to_float(ctypes.addressof(buf) + r * row_bytes,
                 out[r].ctypes.data_as(c_float_p), n)
    return out


def _assert_bit_exact(type_id, raw, ne, ggml):
    """The reference equals ggml's to_float bit for bit."""
    want = _ggml_to_float(ggml, type_id, raw, ne)
    got = ggml_reference.dequantize(type_id, raw, ne).reshape(want.shape)
    bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    if bad.size:
        i = bad[0]
        where = np.unravel_index(i, got.shape)
        g, w = got.view(np.uint32).flat[i], want.view(np.uint32).flat[i]
        pytest.fail(f"{TYPE_NAMES[type_id]}: {bad.size} of {got.size} "
                    f"elements differ; first at {where}: reference "
                    f"{got.flat[i]!r} (0x{g:08x}), ggml {want.flat[i]!r} "
                    f"(0x{w:08x})")


# --- block decoding ----------------------------------------------------------

def test_block_table_matches_ggml(ggml):
    """gguf_writer.BLOCK (block elements, block bytes) is ggml's traits."""
    for type_id, (elements, nbytes) in gw.BLOCK.items():
        traits = ggml.ggml_get_type_traits(type_id).contents
        assert (traits.blck_size, traits.type_size) == (elements, nbytes), \
            TYPE_NAMES[type_id]


@pytest.mark.parametrize("kind", ["moderate", "spread", "binades",
                                  "random"])
@pytest.mark.parametrize("type_id", DEQUANT_TYPES,
                         ids=[TYPE_NAMES[t] for t in DEQUANT_TYPES])
def test_dequantize_matches_ggml(ggml, type_id, kind):
    """ggml_reference.dequantize == ggml's to_float, bit for bit, on ggml's
    own quantization of three float inputs and on random block bytes."""
    rng = np.random.default_rng([type_id, len(kind)])
    ne = [ROW, ROWS]
    if kind == "random":
        elements, _ = gw.BLOCK[type_id]
        raw = gw.random_blocks(type_id, ROW * ROWS // elements, rng)
    else:
        raw = _quantize(ggml, type_id, _float_input(kind, rng))
    _assert_bit_exact(type_id, raw, ne, ggml)


def test_mxfp4_every_exponent(ggml):
    """All 256 E8M0 bytes (0 and 1: ggml's subnormal 2^-128, 2^-127; 0xFF:
    2^127, not NaN) with all 16 codes (code 8: +0)."""
    j = np.arange(16, dtype=np.uint8)
    blocks = np.empty((256, 17), dtype=np.uint8)
    blocks[:, 0] = np.arange(256)
    blocks[:, 1:] = j | ((15 - j) << 4)
    _assert_bit_exact(gw.GGML_TYPE_MXFP4, blocks.tobytes(), [32, 256], ggml)


def test_nvfp4_every_scale_byte(ggml):
    """All 256 UE4M3 bytes (0x7F: 0; bit 7 ignored but for 0xFF = 240 and
    0x80 = 0) with all 16 codes, so also 0 * code with a sign."""
    j = np.arange(8, dtype=np.uint8)
    blocks = np.empty((64, 36), dtype=np.uint8)
    blocks[:, 0:4] = np.arange(256).reshape(64, 4)
    blocks[:, 4:] = np.tile(j | ((j + 8) << 4), 4)
    _assert_bit_exact(gw.GGML_TYPE_NVFP4, blocks.tobytes(), [64, 64], ggml)


@pytest.mark.parametrize("type_id", [gw.GGML_TYPE_F16, gw.GGML_TYPE_BF16],
                         ids=["F16", "BF16"])
def test_every_16_bit_pattern(ggml, type_id):
    """Every F16 / BF16 bit pattern, NaNs included: ggml keeps a NaN's
    payload, and makes an F16 signalling NaN quiet (sets f32 bit 22; the
    BF16 conversion is a plain shift and leaves it as is)."""
    raw = np.arange(65536, dtype="<u2").tobytes()
    _assert_bit_exact(type_id, raw, [65536], ggml)


# --- GGUF files --------------------------------------------------------------

# Every KV type, arrays of numbers, strings and bools. Floats are exact in
# f32 so that read-back values compare equal.
METADATA = [
    ("general.architecture", gw.STRING, "llama"),
    ("general.quantization_version", gw.UINT32, 2),
    ("general.name", gw.STRING, "tiny \u00e9\u00e8 test"),
    ("test.u8", gw.UINT8, 200),
    ("test.i8", gw.INT8, -100),
    ("test.u16", gw.UINT16, 60000),
    ("test.i16", gw.INT16, -30000),
    ("test.i32", gw.INT32, -2000000000),
    ("llama.rope.freq_base", gw.FLOAT32, 10000.0),
    ("test.bool", gw.BOOL, True),
    ("test.u64", gw.UINT64, 2 ** 63 + 5),
    ("test.i64", gw.INT64, -2 ** 62),
    ("test.f64", gw.FLOAT64, 0.1),
    ("test.empty_string", gw.STRING, ""),
    ("tokenizer.ggml.tokens", gw.ARRAY, (gw.STRING, ["<s>", "</s>", "a"])),
    ("tokenizer.ggml.scores", gw.ARRAY, (gw.FLOAT32, [0.0, -1.5, 2.25])),
    ("test.arr_i16", gw.ARRAY, (gw.INT16, [-3, 0, 7])),
    ("test.arr_bool", gw.ARRAY, (gw.BOOL, [True, False, True])),
    ("test.arr_empty", gw.ARRAY, (gw.UINT32, [])),
]


def _tensors(rng):
    """Tensors of several types and ranks (ne in ggml order)."""
    specs = [
        ("blk.0.attn_q.weight", [256, 4], gw.GGML_TYPE_Q4_K),
        ("output_norm.weight", [40], gw.GGML_TYPE_F32),
        ("blk.0.ffn_up.weight", [64, 2, 3], gw.GGML_TYPE_NVFP4),
        ("token_embd.weight", [32, 3, 1, 2], gw.GGML_TYPE_Q8_0),
        ("blk.0.attn_v.weight", [256, 1], gw.GGML_TYPE_Q6_K),
        ("odd", [17, 3], gw.GGML_TYPE_F16),
    ]
    out = []
    for name, ne, type_id in specs:
        elements, _ = gw.BLOCK[type_id]
        n_blocks = int(np.prod(ne)) // elements
        out.append((name, ne, type_id,
                    gw.random_blocks(type_id, n_blocks, rng)))
    return out


def _ggml_kv_value(ggml, ctx, i, gguf_type):
    """The value of KV ``i`` through ggml's typed getters, in write_gguf's
    representation."""
    if gguf_type == gw.STRING:
        return ggml.gguf_get_val_str(ctx, i).decode("utf-8")
    if gguf_type != gw.ARRAY:
        return getattr(ggml, f"gguf_get_val_{_SCALARS[gguf_type][0]}")(ctx, i)
    elem_type = ggml.gguf_get_arr_type(ctx, i)
    n = ggml.gguf_get_arr_n(ctx, i)
    if elem_type == gw.STRING:
        values = [ggml.gguf_get_arr_str(ctx, i, k).decode("utf-8")
                  for k in range(n)]
    else:
        dtype = np.dtype(_SCALARS[elem_type][2])
        data = ggml.gguf_get_arr_data(ctx, i) if n else None
        raw = ctypes.string_at(data, n * dtype.itemsize) if n else b""
        values = np.frombuffer(raw, dtype=dtype).tolist()
        if elem_type == gw.BOOL:
            values = [bool(v) for v in values]
    return elem_type, values


@pytest.mark.parametrize("alignment", [None, 64])
def test_write_gguf_read_by_ggml(ggml, tmp_path, alignment):
    """A write_gguf file, read by gguf_init_from_file: header, every key,
    its type and value, every tensor info, the data offset and the bytes."""
    rng = np.random.default_rng(7)
    metadata = list(METADATA)
    if alignment is not None:
        metadata.insert(1, (gw.ALIGNMENT_KEY, gw.UINT32, alignment))
    tensors = _tensors(rng)
    path = str(tmp_path / "w.gguf")
    layout = gw.write_gguf(path, metadata, tensors)
    assert layout["alignment"] == (alignment or 32)
    assert os.path.getsize(path) == layout["size"]

    ctx = ggml.gguf_init_from_file(path.encode(),
                                   GgufInitParams(True, None))
    assert ctx, "gguf_init_from_file refused the file"
    try:
        assert ggml.gguf_get_version(ctx) == 3
        assert ggml.gguf_get_alignment(ctx) == layout["alignment"]
        assert ggml.gguf_get_data_offset(ctx) == layout["data_offset"]
        assert ggml.gguf_get_n_kv(ctx) == len(metadata)
        for i, (key, gguf_type, value) in enumerate(metadata):
            assert ggml.gguf_get_key(ctx, i).decode() == key
            assert ggml.gguf_get_kv_type(ctx, i) == gguf_type, key
            assert _ggml_kv_value(ggml, ctx, i, gguf_type) == value, key
        assert ggml.gguf_get_n_tensors(ctx) == len(tensors)
        for i, (name, ne, type_id, raw) in enumerate(tensors):
            assert ggml.gguf_get_tensor_name(ctx, i).decode() == name
            assert ggml.gguf_get_tensor_type(ctx, i) == type_id
            assert ggml.gguf_get_tensor_offset(ctx, i) == \
                layout["offsets"][i]
            assert ggml.gguf_get_tensor_size(ctx, i) == len(raw)
            got_ne = ggml.gguf_get_tensor_ne(ctx, i)[:4]
            assert got_ne == ne + [1] * (4 - len(ne)), name
    finally:
        ggml.gguf_free(ctx)

    # Load the data too (no_alloc = false): ggml's tensors hold our bytes.
    ggml_ctx = c_void_p()
    ctx = ggml.gguf_init_from_file(
        path.encode(), GgufInitParams(False, ctypes.pointer(ggml_ctx)))
    assert ctx and ggml_ctx.value
    try:
        for name, _, _, raw in tensors:
            t = ggml.ggml_get_tensor(ggml_ctx, name.encode())
            assert t, name
            assert ggml.ggml_nbytes(t) == len(raw)
            assert ctypes.string_at(ggml.ggml_get_data(t), len(raw)) == raw
    finally:
        ggml.gguf_free(ctx)
        ggml.ggml_free(ggml_ctx)


def test_ggml_writer_read_by_read_gguf(ggml, tmp_path):
    """A file from ggml's gguf writer, parsed by read_gguf: KVs in order
    with their types and values, tensor infos (ggml drops trailing 1s of
    ne), offsets, data offset, bytes; the Q4_K tensor then decodes through
    the reference as through to_float, and write_gguf rewrites the file
    byte for byte."""
    path = str(tmp_path / "g.gguf")
    g = ggml.gguf_init_empty()
    ctx = ggml.ggml_init(GgmlInitParams(16 << 20, None, False))
    assert g and ctx
    expected_kv = []
    try:
        for key, gguf_type, value in METADATA:
            k = key.encode()
            if gguf_type == gw.STRING:
                ggml.gguf_set_val_str(g, k, value.encode("utf-8"))
            elif gguf_type != gw.ARRAY:
                getattr(ggml, f"gguf_set_val_{_SCALARS[gguf_type][0]}")(
                    g, k, value)
            elif value[0] == gw.STRING:
                strings = (c_char_p * len(value[1]))(
                    *[s.encode("utf-8") for s in value[1]])
                ggml.gguf_set_arr_str(g, k, strings, len(value[1]))
            else:
                elem_type, values = value
                arr = np.array(values, dtype=_SCALARS[elem_type][2])
                ggml.gguf_set_arr_data(g, k, elem_type,
                                       arr.ctypes.data if arr.size else None,
                                       arr.size)
            expected_kv.append((key, gguf_type, value))

        rng = np.random.default_rng(11)
        specs = [("blk.0.attn_q.weight", gw.GGML_TYPE_Q4_K, [ROW, ROWS]),
                 ("blk.0.attn_norm.weight", gw.GGML_TYPE_F32, [ROW, 1]),
                 ("blk.0.ffn_down.weight", gw.GGML_TYPE_Q8_0, [64, 3])]
        written = {}
        for name, type_id, ne in specs:
            t = ggml.ggml_new_tensor_2d(ctx, type_id, ne[0], ne[1])
            ggml.ggml_set_name(t, name.encode())
            x = _float_input("moderate", rng)[:ne[1], :ne[0]]
            raw = _quantize(ggml, type_id, x) if type_id != \
                gw.GGML_TYPE_F32 else x.tobytes()
            ctypes.memmove(ggml.ggml_get_data(t), raw, len(raw))
            ggml.gguf_add_tensor(g, t)
            written[name] = raw
        assert ggml.gguf_write_to_file(g, path.encode(), False)
    finally:
        ggml.gguf_free(g)
        ggml.ggml_free(ctx)

    f = gw.read_gguf(path)
    assert f.version == 3
    assert f.metadata == expected_kv
    assert f.alignment == 32 and f.data_offset % 32 == 0
    assert [t.name for t in f.tensors] == [s[0] for s in specs]
    offset = 0
    for info, (name, type_id, ne) in zip(f.tensors, specs):
        assert info.type_id == type_id
        assert info.ne == (ne if ne[1] != 1 else ne[:1]), name
        assert info.offset == offset, name
        assert info.data == written[name], name
        offset += -(-len(info.data) // 32) * 32
    assert os.path.getsize(path) == f.data_offset + offset

    # ggml's own reader agrees on the data offset.
    rctx = ggml.gguf_init_from_file(path.encode(), GgufInitParams(True, None))
    assert rctx
    try:
        assert ggml.gguf_get_data_offset(rctx) == f.data_offset
    finally:
        ggml.gguf_free(rctx)

    q = f.tensor("blk.0.attn_q.weight")
    _assert_bit_exact(q.type_id, q.data, q.ne, ggml)

    # write_gguf, given what read_gguf found, writes ggml's file byte for
    # byte.
    again = str(tmp_path / "again.gguf")
    gw.write_gguf(again, f.metadata,
                  [(t.name, t.ne, t.type_id, t.data) for t in f.tensors])
    with open(path, "rb") as a, open(again, "rb") as b:
        assert a.read() == b.read()


# --- without ggml ------------------------------------------------------------

@pytest.mark.parametrize("alignment", [None, 32, 64, 1])
def test_write_read_round_trip(tmp_path, alignment):
    """read_gguf(write_gguf(...)) gives back metadata, tensors and layout
    (runs without the ggml bundle)."""
    metadata = list(METADATA)
    if alignment is not None:
        metadata.append((gw.ALIGNMENT_KEY, gw.UINT32, alignment))
    tensors = _tensors(np.random.default_rng(3))
    path = str(tmp_path / "r.gguf")
    layout = gw.write_gguf(path, metadata, tensors)
    f = gw.read_gguf(path)
    assert f.version == 3
    assert f.metadata == metadata
    assert f.alignment == layout["alignment"] == (alignment or 32)
    assert f.data_offset == layout["data_offset"]
    assert f.data_offset % f.alignment == 0
    for info, (name, ne, type_id, raw), offset in zip(
            f.tensors, tensors, layout["offsets"]):
        assert (info.name, info.ne, info.type_id, info.offset, info.data) \
            == (name, ne, type_id, offset, raw)
        assert offset % f.alignment == 0
    assert os.path.getsize(path) == layout["size"]


def test_write_gguf_without_tensors(tmp_path):
    """No tensors: the file is still padded to the alignment (as ggml's
    writer does), but readers put the data offset at the end of the KVs
    (as ggml's reader does; checked below when the bundle is there)."""
    path = str(tmp_path / "kv.gguf")
    layout = gw.write_gguf(path, METADATA[:2], [])
    assert layout["data_offset"] == layout["size"] == os.path.getsize(path)
    assert layout["size"] % 32 == 0
    f = gw.read_gguf(path)
    assert f.metadata == METADATA[:2] and f.tensors == []
    assert f.data_offset == 4 + 4 + 8 + 8 + sum(
        8 + len(key) + 4 + (8 + len(v) if t == gw.STRING else 4)
        for key, t, v in METADATA[:2])


def test_no_tensors_like_ggml(ggml, tmp_path):
    """ggml's writer and write_gguf give the same bytes for a file without
    tensors, and ggml's reader agrees with read_gguf on its data offset."""
    ours = str(tmp_path / "ours.gguf")
    theirs = str(tmp_path / "theirs.gguf")
    gw.write_gguf(ours, METADATA[:2], [])
    g = ggml.gguf_init_empty()
    try:
        ggml.gguf_set_val_str(g, METADATA[0][0].encode(),
                              METADATA[0][2].encode())
        ggml.gguf_set_val_u32(g, METADATA[1][0].encode(), METADATA[1][2])
        assert ggml.gguf_write_to_file(g, theirs.encode(), False)
    finally:
        ggml.gguf_free(g)
    with open(ours, "rb") as a, open(theirs, "rb") as b:
        assert a.read() == b.read()
    ctx = ggml.gguf_init_from_file(ours.encode(), GgufInitParams(True, None))
    assert ctx
    try:
        assert ggml.gguf_get_data_offset(ctx) == gw.read_gguf(ours).data_offset
    finally:
        ggml.gguf_free(ctx)
