"""Inputs and checks of the GPU matmul kernel tests
(test/GPU/*/matmul-kernels.test, --quant-block-gpu-matmul-kernels).

`emit` prints a module with one function per covered weight kind, each a
quant_block.matmul with transpose_rhs and fastmath<reassoc> (one with
fastmath<fast>), and a `main` that packs weights from explicit codes and
prints every result as f32 bit patterns, one row per line.

`check GPU [CPU]` reads the outputs. Every result must lie within
docs/Numerics.md's reassoc bound of the float64 reference. The GPU's
results of the `reassoc` cases must also be the exact bits of the kernel's
documented order, modelled here in float32: lane l of 32 sums, from +0.0,
the products fl(x * w) of the codes of the row's chunks l, l + 32, ... (a
chunk is 4 words, or 2 or 1 where the row's word count is not a multiple
of 4; codes in increasing k), each product and sum rounded; the 32 lanes
are then added by the xor butterfly (offsets 16, 8, 4, 2, 1) and lane 0's
value is the result. With split-K (`check --split-k S`, or automatic for
`--workgroup-size W` as the pass chooses it) there are 32 S lanes, lane l
taking chunks l, l + 32 S, ...; each 32 are added as above, then the warps'
totals by the butterfly of offsets 32, 64, ..., 16 S. The CPU pipeline's
results (its own order) are held to the bound only.
"""

import sys

import numpy as np

U = 2.0**-24
E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
                 -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0], np.float32)


def e4m3(code):
    """The f32 value of an E4M3 code (no NaN codes are generated)."""
    sign = -1.0 if code & 0x80 else 1.0
    exponent = (code >> 3) & 0xF
    mantissa = code & 7
    if exponent == 0:
        return np.float32(sign * mantissa / 8.0 * 2.0**-6)
    return np.float32(sign * (1 + mantissa / 8.0) * 2.0**(exponent - 7))


def round_bf16(values):
    """float32 values rounded to bf16 (to nearest, ties to even; no NaNs
    here), as float32."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def dense(array, fmt="{}"):
    if array.ndim == 1:
        return "[" + ", ".join(fmt.format(v) for v in array) + "]"
    return "[" + ", ".join(dense(row, fmt) for row in array) + "]"


F = "{!r}"


class Case:
    """One product: its scheme, codes, parameters and activations."""

    def __init__(self, name, rng, storage, bits, n, k, block, m,
                 scale="f32", zero_point=None, outer=False, fast=False,
                 act="f32", dynamic_m=False):
        self.name, self.storage, self.bits = name, storage, bits
        self.n, self.k, self.block, self.m = n, k, block, m
        self.scale, self.zero_point, self.outer, self.fast = (
            scale, zero_point, outer, fast)
        # The activations' (and weights' expressed and result) type.
        self.act = act
        # The function takes a dynamic number of activation rows.
        self.dynamic_m = dynamic_m
        self.mt = "?" if dynamic_m else str(m)
        self.dtype = np.float16 if act == "f16" else np.float32
        blocks = k // block
        if storage in ("i4", "i8"):
            lo, hi = -(1 << (bits - 1)), 1 << (bits - 1)
            self.codes = rng.integers(lo, hi, size=(n, k))
        elif storage in ("ui4", "ui2", "ui8"):
            self.codes = rng.integers(0, 1 << bits, size=(n, k))
        elif storage == "f4E2M1FN":
            self.codes = rng.integers(0, 16, size=(n, k))
        else:  # f8E4M3FN without NaN codes (0x7F / 0xFF).
            self.codes = rng.integers(0, 0x7F, size=(n, k)) | (
                rng.integers(0, 2, size=(n, k)) << 7)
        if scale == "f8E8M0FNU":
            self.scale_codes = rng.integers(120, 132, size=(n, blocks))
            self.scales = np.float32(2.0)**(self.scale_codes - 127).astype(
                np.float32)
        elif scale == "f8E4M3FN":
            self.scale_codes = rng.integers(0x20, 0x58, size=(n, blocks))
            self.scales = np.vectorize(e4m3)(self.scale_codes).astype(
                np.float32)
        else:  # f16 / f32 scales with few significant bits.
            self.scales = (rng.integers(1, 64, size=(n, blocks)) /
                           64.0).astype(np.float32)
        if zero_point in ("ui4", "ui8"):
            self.zero_points = rng.integers(0, 1 << bits, size=(n, blocks))
        elif zero_point == "f32":
            self.zero_points = (rng.integers(-32, 32, size=(n, blocks)) /
                                16.0).astype(np.float32)
        self.outer_scale = np.float32(0.375)
        if act == "i8":  # Dynamically quantized activations, blocks of B.
            self.x_codes = rng.integers(-128, 128, size=(m, k))
            self.x_scales = (rng.integers(1, 64, size=(m, k // block)) /
                             256.0).astype(np.float32)
            self.dtype = np.float32
        else:
            self.x = self.round(rng.standard_normal((m, k)))

    def round(self, values):
        """`values` rounded to the activations' type (bf16 values are kept
        in float32: numpy has no bf16)."""
        if self.act == "bf16":
            return round_bf16(values)
        return np.asarray(values).astype(self.dtype)

    def weights(self):
        """The dequantized weights (f32 values), as quant_block.dequantize:
        computed in f32, rounded to the expressed type."""
        return self.round(self.weights_f32()).astype(np.float32)

    def weights_f32(self):
        s = np.repeat(self.scales, self.block, axis=1)
        if self.outer:
            s = (s * self.outer_scale).astype(np.float32)
        if self.storage == "f4E2M1FN":
            return (E2M1[self.codes] * s).astype(np.float32)
        if self.storage == "f8E4M3FN":
            values = np.vectorize(e4m3)(self.codes).astype(np.float32)
            return (values * s).astype(np.float32)
        q = self.codes.astype(np.float32)
        if self.zero_point in ("ui4", "ui8"):
            q = (self.codes - np.repeat(self.zero_points, self.block,
                                        axis=1)).astype(np.float32)
        elif self.zero_point == "f32":
            # fma(q, s, min): exact here (few significant bits).
            z = np.repeat(self.zero_points, self.block, axis=1)
            return (q.astype(np.float64) * s + z).astype(np.float32)
        return (q * s).astype(np.float32)

    def type(self):
        params = f"block = [1, {self.block}], scale = {self.scale}"
        if self.zero_point:
            params += f", zero_point = {self.zero_point}"
        if self.outer:
            params += ", outer = <f32>"
        return (f"!quant_block.tensor<{self.n}x{self.k}, "
                f"#quant_block.scheme<{self.storage} : "
                f"{'f32' if self.act == 'i8' else self.act}, "
                f"{params}>>")

    def lhs_type(self, rows=None):
        rows = self.mt if rows is None else rows
        return (f"!quant_block.tensor<{rows}x{self.k}, #quant_block.scheme<"
                f"i8 : f32, block = [1, {self.block}]>>")

    def function(self):
        flags = "fast" if self.fast else "reassoc"
        a = self.act
        if a == "i8":
            # accumulate(i32) keeps the contract's order for any flags.
            return f"""func.func @{self.name}(%x: {self.lhs_type()}, %w: {self.type()}) -> tensor<{self.mt}x{self.n}xf32> {{
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit fastmath<reassoc> : {self.lhs_type()}, {self.type()} -> tensor<{self.mt}x{self.n}xf32>
  return %y : tensor<{self.mt}x{self.n}xf32>
}}"""
        return f"""func.func @{self.name}(%x: tensor<{self.mt}x{self.k}x{a}>, %w: {self.type()}) -> tensor<{self.mt}x{self.n}x{a}> {{
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<{flags}> : tensor<{self.mt}x{self.k}x{a}>, {self.type()} -> tensor<{self.mt}x{self.n}x{a}>
  return %y : tensor<{self.mt}x{self.n}x{a}>
}}"""

    def call(self):
        n, k, m, name = self.n, self.k, self.m, self.name
        blocks = k // self.block
        lines = []
        if self.storage == "f4E2M1FN":
            lines.append(f"  %{name}_c = arith.constant dense<{dense(self.codes)}> : tensor<{n}x{k}xi4>")
            lines.append(f"  %{name}_d = arith.bitcast %{name}_c : tensor<{n}x{k}xi4> to tensor<{n}x{k}xf4E2M1FN>")
            data_type = f"tensor<{n}x{k}xf4E2M1FN>"
        elif self.storage == "f8E4M3FN":
            signed = np.where(self.codes > 127, self.codes - 256, self.codes)
            lines.append(f"  %{name}_c = arith.constant dense<{dense(signed)}> : tensor<{n}x{k}xi8>")
            lines.append(f"  %{name}_d = arith.bitcast %{name}_c : tensor<{n}x{k}xi8> to tensor<{n}x{k}xf8E4M3FN>")
            data_type = f"tensor<{n}x{k}xf8E4M3FN>"
        else:
            data_type = f"tensor<{n}x{k}x{self.storage}>"
            lines.append(f"  %{name}_d = arith.constant dense<{dense(self.codes)}> : {data_type}")
        scale_type = f"tensor<{n}x{blocks}x{self.scale}>"
        if self.scale in ("f8E8M0FNU", "f8E4M3FN"):
            signed = np.where(self.scale_codes > 127, self.scale_codes - 256,
                              self.scale_codes)
            lines.append(f"  %{name}_sc = arith.constant dense<{dense(signed)}> : tensor<{n}x{blocks}xi8>")
            lines.append(f"  %{name}_s = arith.bitcast %{name}_sc : tensor<{n}x{blocks}xi8> to {scale_type}")
        else:
            lines.append(f"  %{name}_s = arith.constant dense<{dense(self.scales, F)}> : {scale_type}")
        pack = f"  %{name}_w = quant_block.pack %{name}_d scales(%{name}_s : {scale_type})"
        if self.zero_point:
            zp_type = f"tensor<{n}x{blocks}x{self.zero_point}>"
            fmt = F if self.zero_point == "f32" else "{}"
            lines.append(f"  %{name}_z = arith.constant dense<{dense(self.zero_points, fmt)}> : {zp_type}")
            pack += f" zero_points(%{name}_z : {zp_type})"
        if self.outer:
            lines.append(f"  %{name}_o = arith.constant dense<[[{self.outer_scale!r}]]> : tensor<1x1xf32>")
            pack += f" outer_scales(%{name}_o : tensor<1x1xf32>)"
        lines.append(pack + f" : {data_type} -> {self.type()}")
        a = self.act
        if a == "i8":
            lhs = self.lhs_type()
            xs_type = f"tensor<{m}x{blocks}xf32>"
            lines.append(f"  %{name}_xc = arith.constant dense<{dense(self.x_codes)}> : tensor<{m}x{k}xi8>")
            lines.append(f"  %{name}_xs = arith.constant dense<{dense(self.x_scales, F)}> : {xs_type}")
            codes, scales = f"%{name}_xc", f"%{name}_xs"
            if self.dynamic_m:
                lines.append(f"  %{name}_xcd = tensor.cast %{name}_xc : tensor<{m}x{k}xi8> to tensor<?x{k}xi8>")
                lines.append(f"  %{name}_xsd = tensor.cast %{name}_xs : {xs_type} to tensor<?x{blocks}xf32>")
                codes, scales = f"%{name}_xcd", f"%{name}_xsd"
                xs_type = f"tensor<?x{blocks}xf32>"
            mt = self.mt
            lines.append(f"  %{name}_x = quant_block.pack {codes} scales({scales} : {xs_type}) : tensor<{mt}x{k}xi8> -> {lhs}")
            lines.append(f"  %{name}_y = func.call @{name}(%{name}_x, %{name}_w) : ({lhs}, {self.type()}) -> tensor<{mt}x{n}xf32>")
            a = "f32"
        else:
            x = self.x.astype(np.float32)
            lines.append(f"  %{name}_x = arith.constant dense<{dense(x, F)}> : tensor<{m}x{k}x{a}>")
            arg = f"%{name}_x"
            if self.dynamic_m:
                lines.append(f"  %{name}_xd = tensor.cast %{name}_x : tensor<{m}x{k}x{a}> to tensor<?x{k}x{a}>")
                arg = f"%{name}_xd"
            mt = self.mt
            lines.append(f"  %{name}_y = func.call @{name}({arg}, %{name}_w) : (tensor<{mt}x{k}x{a}>, {self.type()}) -> tensor<{mt}x{n}x{a}>")
        mt = self.mt
        if a == "f32":
            lines.append(f"  %{name}_b = arith.bitcast %{name}_y : tensor<{mt}x{n}xf32> to tensor<{mt}x{n}xi32>")
        else:  # The f16 or bf16 bits, zero-extended.
            lines.append(f"  %{name}_h = arith.bitcast %{name}_y : tensor<{mt}x{n}x{a}> to tensor<{mt}x{n}xi16>")
            lines.append(f"  %{name}_b = arith.extui %{name}_h : tensor<{mt}x{n}xi16> to tensor<{mt}x{n}xi32>")
        lines.append(f"  %{name}_u = tensor.cast %{name}_b : tensor<{mt}x{n}xi32> to tensor<*xi32>")
        lines.append(f"  func.call @printMemrefI32(%{name}_u) : (tensor<*xi32>) -> ()")
        return "\n".join(lines)

    def block_terms(self):
        """accumulate(i32): the exact block sums and the f32 scale products
        [m, n, block]."""
        q = self.codes
        if self.storage == "f4E2M1FN":  # Twice the values, integers.
            q = (2 * E2M1[self.codes]).astype(np.int64)
        if self.zero_point in ("ui4", "ui8"):
            q = q - np.repeat(self.zero_points, self.block, axis=1)
        blocks = self.k // self.block
        prods = (self.x_codes[:, None, :] * q[None, :, :]).reshape(
            self.m, self.n, blocks, self.block)
        isum = prods.sum(axis=3)
        weight_scales = self.scales
        if self.outer:  # The effective scale, rounded once.
            weight_scales = (weight_scales * self.outer_scale).astype(
                np.float32)
        scale = (self.x_scales[:, None, :] * weight_scales[None, :, :]).astype(
            np.float32)
        return isum, scale

    def sum_factor(self):
        """What a block sum is multiplied by (exactly) before its scales:
        1/2 for E2M1 weights, whose codes entered it doubled."""
        return np.float32(0.5 if self.storage == "f4E2M1FN" else 1.0)

    def chunk(self, chunk_words=2):
        """Words a lane loads at once: the most, up to chunk_words, that
        divide a row."""
        words = self.k * self.bits // 32
        chunk = 1
        while chunk * 2 <= chunk_words and words % (chunk * 2) == 0:
            chunk *= 2
        return chunk

    def split_k(self, workgroup_size, split_k, chunk_words=2):
        """The warps that share a row, as --quant-block-gpu-matmul-kernels
        chooses them (integer kernels: 1)."""
        if self.act == "i8":
            return 1
        if split_k:
            return split_k
        per_word = 32 // self.bits
        words = self.k // per_word
        chunks = words // self.chunk(chunk_words)
        warps = workgroup_size // 32
        s = 1
        while s * 2 <= warps and warps % (s * 2) == 0 and chunks >= 64 * s:
            s *= 2
        return s

    def kernel_order(self, split=1, chunk_words=2):
        """The kernel's result bits (see the module docstring), with
        `split` warps per row and lanes' chunks of up to `chunk_words`."""
        if self.act == "i8":
            # The contract's order: blocks in increasing order, each term
            # f32(isum) * (sl * sr) rounded, then added.
            isum, scale = self.block_terms()
            out = np.zeros((self.m, self.n), np.float32)
            for m in range(self.m):
                for n in range(self.n):
                    acc = np.float32(0.0)
                    for kb in range(isum.shape[2]):
                        term = np.float32(np.float32(isum[m, n, kb]) *
                                          self.sum_factor() *
                                          scale[m, n, kb])
                        acc = np.float32(acc + term)
                    out[m, n] = acc
            return out
        w = self.weights()
        x = self.x.astype(np.float32)
        per_word = 32 // self.bits
        words = self.k // per_word
        chunk = self.chunk(chunk_words)
        lanes_per_row = 32 * split
        # The k of each lane's codes, in its order.
        ks = [[k for first in range(lane * chunk, words,
                                    lanes_per_row * chunk)
               for k in range(first * per_word, (first + chunk) * per_word)]
              for lane in range(lanes_per_row)]
        offsets = [16, 8, 4, 2, 1]
        offset = 32
        while offset < lanes_per_row:
            offsets.append(offset)
            offset *= 2
        out = np.zeros((self.m, self.n), np.float32)
        for m in range(self.m):
            for n in range(self.n):
                lanes = np.zeros(lanes_per_row, np.float32)
                for lane in range(lanes_per_row):
                    acc = np.float32(0.0)
                    for kk in ks[lane]:
                        acc = np.float32(acc + np.float32(x[m, kk] * w[n, kk]))
                    lanes[lane] = acc
                for offset in offsets:
                    lanes = (lanes +
                             lanes[np.arange(lanes_per_row) ^ offset]).astype(
                                 np.float32)
                out[m, n] = lanes[0]
        return self.round(out)

    def bound_check(self, result):
        if self.act == "i8":
            isum, scale = self.block_terms()
            terms = isum.astype(np.float64) * self.sum_factor() * scale
            exact = terms.sum(axis=2)
            bound = (1.01 * (terms.shape[2] + 2) * U *
                     np.abs(terms).sum(axis=2))
            return np.abs(result.astype(np.float64) - exact) <= bound
        w = self.weights().astype(np.float64)
        terms = self.x.astype(np.float64)[:, None, :] * w[None, :, :]
        exact = terms.sum(axis=2)
        bound = 1.01 * self.k * U * np.abs(terms).sum(axis=2)
        if self.act == "f16":  # The result's one rounding to f16.
            bound += np.abs(exact) * 2.0**-11 + 2.0**-25
        elif self.act == "bf16":  # To bf16 (its subnormals: 2^-133).
            bound += np.abs(exact) * 2.0**-8 + 2.0**-134
        return np.abs(result.astype(np.float64) - exact) <= bound


def cases():
    rng = np.random.default_rng(20261126)
    return [
        # Odd N (the last workgroup's second warp stores nothing), two
        # words per lane.
        Case("int4_g32_f16", rng, "i4", 4, 5, 512, 32, 1, scale="f16"),
        Case("int4_g32_f16_m3", rng, "i4", 4, 5, 512, 32, 3, scale="f16"),
        # ONNX MatMulNBits' layout: uint4 with uint4 zero points.
        Case("uint4_zp", rng, "ui4", 4, 4, 256, 32, 1, scale="f16",
             zero_point="ui4"),
        Case("int8_channel", rng, "i8", 8, 3, 128, 128, 2),
        Case("mxfp4", rng, "f4E2M1FN", 4, 6, 256, 32, 1, scale="f8E8M0FNU"),
        Case("nvfp4", rng, "f4E2M1FN", 4, 3, 128, 16, 1, scale="f8E4M3FN",
             outer=True),
        Case("mxfp8", rng, "f8E4M3FN", 8, 3, 128, 32, 1, scale="f8E8M0FNU"),
        Case("uint2_min", rng, "ui2", 2, 3, 64, 16, 1, zero_point="f32"),
        # 12 words per row: lanes 12-31 add nothing.
        Case("short_rows", rng, "i4", 4, 7, 96, 32, 2),
        # contract: products may fuse into FMAs (bound only).
        Case("int4_fast", rng, "i4", 4, 5, 512, 32, 1, scale="f16",
             fast=True),
        # f16 activations: weights rounded to f16, f32 sums, the result
        # rounded once to f16.
        Case("int4_f16_act", rng, "i4", 4, 6, 256, 32, 2, scale="f16",
             act="f16"),
        # M = 11: a tile of 8 rows and a partial one of 3 (rows 11-15 are
        # computed as row 10 and not stored).
        Case("int4_m11", rng, "i4", 4, 3, 256, 32, 11),
        # Blocks of 48 codes (6 words) in chunks of 4 words: a chunk spans
        # two blocks, each word reads its own block's scale.
        Case("int4_g48", rng, "i4", 4, 3, 192, 48, 1),
        # accumulate(i32) with i8 activations: exact block sums, the f32
        # sum over the blocks in the contract's order (two rounds of 32
        # blocks; one round with lanes past the last block).
        Case("int8act_int4", rng, "i4", 4, 5, 2048, 32, 2, scale="f16",
             act="i8"),
        Case("int8act_uint4_zp", rng, "ui4", 4, 3, 128, 32, 1, scale="f16",
             zero_point="ui4", act="i8"),
        Case("int8act_int8", rng, "i8", 8, 4, 96, 32, 3, act="i8"),
        # A dynamic M (the rows read from the buffer in the kernel): a tile
        # of 8 rows and a partial one, and a single partial tile with i8
        # activations.
        Case("int4_m11_dynamic", rng, "i4", 4, 3, 256, 32, 11,
             dynamic_m=True),
        Case("int8act_int4_dynamic", rng, "i4", 4, 5, 512, 32, 2,
             scale="f16", act="i8", dynamic_m=True),
        # Unsigned codes without zero points (the kernels build their f32
        # values from their bits, as for int4): 4 and 2 bits.
        Case("uint4_plain", rng, "ui4", 4, 6, 256, 32, 1, scale="f16"),
        Case("uint2_plain", rng, "ui2", 2, 5, 128, 16, 1),
        # accumulate(i32) with MXFP4 weights: twice the E2M1 values in the
        # exact block sums, each halved before its scales.
        Case("int8act_mxfp4", rng, "f4E2M1FN", 4, 6, 256, 32, 2,
             scale="f8E8M0FNU", act="i8"),
        # NVFP4 (E4M3 scales per 16, a per-tensor outer scale) with i8
        # activations in blocks of 16: each block's scale times the outer
        # one, rounded once.
        Case("int8act_nvfp4", rng, "f4E2M1FN", 4, 5, 128, 16, 2,
             scale="f8E4M3FN", outer=True, act="i8"),
        # Rows of 128 chunks: split-K by default (2 warps per row in
        # workgroups of 64, 4 in workgroups of 128), every lane of every
        # warp with chunks; MXFP4 with a partial tile of activation rows.
        Case("int4_long_k", rng, "i4", 4, 5, 4096, 32, 1, scale="f16"),
        Case("mxfp4_long_k_m3", rng, "f4E2M1FN", 4, 3, 4096, 32, 3,
             scale="f8E8M0FNU"),
        # accumulate(i32) with unsigned 8-bit codes and zero points (with
        # byte dot products: an unsigned-by-signed dot, minus the zero point
        # times the activations' sum).
        Case("int8act_uint8_zp", rng, "ui8", 8, 3, 128, 32, 2, scale="f16",
             zero_point="ui8", act="i8"),
        # 16 or more activation rows: the tensor-core kernel where it is
        # asked for (warp-level 16x8x32 products; the warp kernel
        # otherwise), the same contract order. N = 40: the second warp's
        # tiles past row 39 are row 39 again and store nothing.
        Case("int8act_int4_m16", rng, "i4", 4, 40, 256, 32, 16, scale="f16",
             act="i8"),
        # M = 19 (a tile of 16 and a partial one of 3), N = 12 (two tiles
        # of 8 rows per warp, the second partial), blocks of 64 codes (two
        # products per block).
        Case("int8act_int4_m19_g64", rng, "i4", 4, 12, 192, 64, 19,
             scale="f16", act="i8"),
        Case("int8act_int8_m24", rng, "i8", 8, 20, 128, 32, 24, act="i8"),
        # Unsigned codes (entering the products as q - 2^(bits-1)) with
        # zero points (ONNX MatMulNBits' uint4) and without: the block sums
        # corrected by (o - z) times the activations' sums.
        Case("int8act_uint4_zp_m16", rng, "ui4", 4, 24, 128, 32, 16,
             scale="f16", zero_point="ui4", act="i8"),
        Case("int8act_uint8_zp_m17", rng, "ui8", 8, 9, 64, 32, 17,
             scale="f16", zero_point="ui8", act="i8"),
        Case("int8act_uint4_m16", rng, "ui4", 4, 16, 64, 64, 16, act="i8"),
        # A dynamic M: the kernel is chosen at run time, the tensor-core
        # one for 19 rows, the warp kernel for 3.
        Case("int8act_int4_m19_dynamic", rng, "i4", 4, 12, 128, 32, 19,
             scale="f16", act="i8", dynamic_m=True),
        Case("int8act_int4_m3_dynamic", rng, "i4", 4, 12, 128, 32, 3,
             scale="f16", act="i8", dynamic_m=True),
        # f16 activations (fastmath<fast>): the f16 tensor-core kernel, each
        # weight dequantized and rounded to f16 in registers, the sums the
        # tensor cores' (within the bound only): int4, uint4 with zero
        # points (M = 19: a partial tile), MXFP4, int8.
        Case("f16_int4_m16", rng, "i4", 4, 24, 128, 32, 16, scale="f16",
             act="f16", fast=True),
        Case("f16_uint4_zp_m19", rng, "ui4", 4, 12, 64, 32, 19, scale="f16",
             zero_point="ui4", act="f16", fast=True),
        Case("f16_mxfp4_m16", rng, "f4E2M1FN", 4, 8, 64, 32, 16,
             scale="f8E8M0FNU", act="f16", fast=True),
        Case("f16_int8_m17", rng, "i8", 8, 9, 64, 32, 17, act="f16",
             fast=True),
        # bf16 activations: the warp kernel (reassoc: its order's bits),
        # then the bf16 tensor-core kernel (mma.m16n8k16 with bf16 inputs,
        # within the bound): int4, uint4 with zero points (M = 19), MXFP4.
        Case("int4_bf16_act", rng, "i4", 4, 5, 256, 32, 2, scale="f16",
             act="bf16"),
        Case("bf16_int4_m16", rng, "i4", 4, 16, 128, 32, 16, scale="f16",
             act="bf16", fast=True),
        Case("bf16_uint4_zp_m19", rng, "ui4", 4, 12, 64, 32, 19,
             scale="f16", zero_point="ui4", act="bf16", fast=True),
        Case("bf16_mxfp4_m16", rng, "f4E2M1FN", 4, 8, 64, 32, 16,
             scale="f8E8M0FNU", act="bf16", fast=True),
    ]


def emit(selection="default"):
    all_cases = selected_cases(selection)
    print("// Generated by test/GPU/Inputs/gpu_matmul_kernels.py emit.")
    for case in all_cases:
        print(case.function())
        print()
    print("func.func @main() {")
    for case in all_cases:
        print(case.call())
    print("  return\n}\nfunc.func private @printMemrefI32(tensor<*xi32>)")


# The cases of 16 or more activation rows (the tensor-core kernel's): in
# a set of their own, whose kernels the other tests need not run (the warp
# kernel's lane-0 sum of 16-24 rows takes minutes on lavapipe).
TENSOR_CORE_CASES = ("int8act_int4_m16", "int8act_int4_m19_g64",
                     "int8act_int8_m24", "int8act_uint4_zp_m16",
                     "int8act_uint8_zp_m17", "int8act_uint4_m16",
                     "int8act_int4_m19_dynamic", "int8act_int4_m3_dynamic",
                     "f16_int4_m16", "f16_uint4_zp_m19", "f16_mxfp4_m16",
                     "f16_int8_m17", "bf16_int4_m16", "bf16_uint4_zp_m19",
                     "bf16_mxfp4_m16")


def selected_cases(selection="default"):
    """The cases of `selection`, in the order of cases(): "default" (all
    but TENSOR_CORE_CASES) or "tensor-cores" (those)."""
    if selection not in ("default", "tensor-cores"):
        sys.exit(f"unknown case selection: {selection}")
    tensor_cores = selection == "tensor-cores"
    return [case for case in cases()
            if (case.name in TENSOR_CORE_CASES) == tensor_cores]


def results(path, all_cases):
    rows = []
    for line in open(path):
        line = line.strip().lstrip("[").rstrip("],")
        if not line or not line[0] in "-0123456789":
            continue
        rows.append(np.array([int(v) for v in line.split(",")],
                             dtype=np.int64))
    outputs = []
    for case in all_cases:
        if len(rows) < case.m:
            sys.exit(f"{path}: too few result rows for {case.name}")
        block, rows = rows[:case.m], rows[case.m:]
        bits = np.stack(block)
        if case.act == "f16":
            result = bits.astype(np.uint16).view(np.float16)
        elif case.act == "bf16":  # The top half of an f32.
            result = (bits.astype(np.uint32) << 16).view(np.float32)
        else:
            result = bits.astype(np.uint32).view(np.float32)
        if result.shape != (case.m, case.n):
            sys.exit(f"{path}: {case.name}: shape {result.shape}")
        outputs.append(result)
    if rows:
        sys.exit(f"{path}: {len(rows)} rows left over")
    return outputs


def check(paths, workgroup_size=128, split_k=0, chunk_words=2,
          selection="default"):
    all_cases = selected_cases(selection)
    ok = True
    for target, path in zip(("gpu", "cpu"), paths):
        for case, result in zip(all_cases, results(path, all_cases)):
            within = case.bound_check(result)
            line = (f"{target} {case.name}: {within.size} results within "
                    f"the reassoc bound: {bool(within.all())}")
            ok &= bool(within.all())
            # accumulate(i32) has one order on every target.
            if (target == "gpu" or case.act == "i8") and not case.fast:
                model = case.kernel_order(
                    case.split_k(workgroup_size, split_k, chunk_words)
                    if target == "gpu" else 1,
                    chunk_words if target == "gpu" else 4)
                same = (result.view(np.uint16 if case.act == "f16" else
                                    np.uint32) ==
                        model.view(np.uint16 if case.act == "f16" else
                                   np.uint32))
                line += (f"; {int(same.sum())} of {same.size} bit-exact in "
                         f"the kernel's order")
                ok &= bool(same.all())
            print(line)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def main(args):
    # --cases tensor-cores: the cases of 16 or more activation rows.
    selection = "default"
    if args[:1] in (["emit"], ["check"]) and args[1:2] == ["--cases"]:
        if len(args) < 3:
            sys.exit("--cases needs default or tensor-cores")
        selection = args[2]
        args = args[:1] + args[3:]
    if args == ["emit"]:
        emit(selection)
        return 0
    if args[:1] == ["check"]:
        args = args[1:]
        # The pipelines' matmul-workgroup-size by default.
        options = {"--workgroup-size": 128, "--split-k": 0,
                   "--chunk-words": 2}
        while len(args) >= 2 and args[0] in options:
            options[args[0]] = int(args[1])
            args = args[2:]
        if len(args) in (1, 2):
            return check(args, options["--workgroup-size"],
                         options["--split-k"], options["--chunk-words"],
                         selection)
    sys.exit("usage: gpu_matmul_kernels.py emit [--cases SELECTION] | check "
             "[--cases SELECTION] [--workgroup-size W] [--split-k S] "
             "[--chunk-words C] GPU_OUTPUT [CPU_OUTPUT]")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
