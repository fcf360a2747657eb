"""Writes the GGUF files of the quant-import-gguf tests into a folder: one
valid file with a tensor of several types, and hostile files that each
break one rule of the reader (names say which). Byte by byte with struct,
independent of the reader under test.

    make-gguf.py OUT_DIR
"""

import os
import struct
import sys

ALIGN = 32


def string(text):
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def kv_string(key, value):
    return string(key) + struct.pack("<I", 8) + string(value)


def kv_u32(key, value):
    return string(key) + struct.pack("<II", 4, value)


def info(name, ne, type_id, offset):
    return (string(name) + struct.pack("<I", len(ne)) +
            b"".join(struct.pack("<q", n) for n in ne) +
            struct.pack("<IQ", type_id, offset))


def gguf(kvs, infos, data, version=3, n_tensors=None, n_kv=None):
    head = b"GGUF" + struct.pack(
        "<Iqq", version, len(infos) if n_tensors is None else n_tensors,
        len(kvs) if n_kv is None else n_kv)
    body = head + b"".join(kvs) + b"".join(infos)
    body += bytes(-len(body) % ALIGN)
    return body + data


def q4_0_block(d=0x3C00):
    return struct.pack("<H", d) + bytes(range(16))


def main(out):
    os.makedirs(out, exist_ok=True)

    def write(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    arch = [kv_string("general.architecture", "llama")]
    # A valid file: F32 norm, Q4_0 and Q6_K weights, an IQ2_XXS tensor.
    norm = struct.pack("<64f", *range(64))
    q4 = b"".join(q4_0_block() for _ in range(2 * 64 // 32))
    q6 = bytes(210 * 2)
    iq2 = bytes(66)
    blobs = [norm, q4, q6, iq2]
    offsets, data = [], b""
    for blob in blobs:
        offsets.append(len(data))
        data += blob + bytes(-len(blob) % ALIGN)
    write("valid.gguf", gguf(arch + [kv_u32("llama.block_count", 1)], [
        info("blk.0.attn_norm.weight", [64], 0, offsets[0]),
        info("blk.0.attn_q.weight", [64, 2], 2, offsets[1]),
        info("output.weight", [256, 2], 14, offsets[2]),
        info("blk.0.ffn_up.weight", [256], 16, offsets[3])], data))

    one = [info("w", [32], 2, 0)]
    block = q4_0_block() + bytes(14)
    write("bad-magic.gguf", b"GGUL" + gguf(arch, one, block)[4:])
    write("bad-version.gguf", gguf(arch, one, block, version=1))
    write("truncated.gguf", gguf(arch, one, block)[:30])
    write("huge-kv-count.gguf", gguf(arch, one, block, n_kv=1 << 40))
    write("negative-tensor-count.gguf", gguf(arch, one, block, n_tensors=-2))
    write("long-string.gguf",
          b"GGUF" + struct.pack("<IqqQ", 3, 0, 1, 1 << 20) + bytes(40))
    write("unknown-value-type.gguf",
          gguf([string("k") + struct.pack("<IB", 17, 0)], one, block))
    write("negative-dimension.gguf", gguf(arch, [info("w", [-32], 2, 0)], block))
    write("overflowing-dimensions.gguf",
          gguf(arch, [info("w", [1 << 40, 1 << 40], 2, 0)], block))
    write("unknown-type.gguf", gguf(arch, [info("w", [32], 36, 0)], block))
    write("partial-block.gguf", gguf(arch, [info("w", [48], 2, 0)], block))
    write("unaligned-offset.gguf", gguf(arch, [info("w", [32], 2, 8)], block))
    write("outside-file.gguf", gguf(arch, [info("w", [32], 2, 64)], block))
    write("overlap.gguf", gguf(arch, [info("w", [64], 2, 0),
                                      info("v", [32], 2, 32)], block * 3))
    write("bad-alignment.gguf",
          gguf(arch + [kv_u32("general.alignment", 48)], one, block))


if __name__ == "__main__":
    main(sys.argv[1])
