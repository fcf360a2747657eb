#!/usr/bin/python3
"""Writes the MLIR modules of the GPU GEMV benchmark (bench/gpu/run.sh).

  gen.py --out DIR [--form pipeline|hand] [--iters N] [--warmup N]
         [--copy-mib N] [--shapes 4096x4096,11008x4096]

For every case (scheme x shape, M = 1) it writes <case>.mlir and adds a line
to DIR/cases.txt: `case scheme n k weight_bytes expected_y`. weight_bytes is
the packed data plus the scales, the bytes a GEMV must read; expected_y is
the value every output element has (the inputs are constant fills, so that
the check needs no host reference), or `-` where the form does not print y.

Forms:
  pipeline  quant_block source: `@gemv` (quant_block.matmul, transpose_rhs,
            M = 1) called warmup + iters times from a `@main` that builds the
            weight with tensor.generate + quant_block.pack. Compiled by
            `quant-opt --quant-block-{nvvm,spirv}-pipeline`, which decides
            what runs on the device and inserts the host <-> device copies,
            so only the kernels' own GPU time (the CUDA wrapper's profile)
            measures the GEMV.
  hand      a GEMV kernel written in the gpu dialect (one warp per output
            row, 16-byte loads of packed words, one scale per lane and
            block, warp-shuffle reduction) and a host `@main` that fills
            device buffers with gpu.memset and launches it warmup + iters
            times back to back on one stream; lowered with upstream's
            gpu-lower-to-nvvm-pipeline. For developing the harness and as a
            reference point for the pipeline's kernels.

Also writes copy.mlir: the device memory bandwidth, a gpu.memcpy between two
gpu.alloc'ed buffers of --copy-mib MiB, each copy timed with rtclock between
gpu.wait's.

Every module prints `RESULT <name> <value>` lines (printString / printF64 of
libmlir_c_runner_utils), which run.sh reads.
"""

import argparse
import os
import struct

SCHEMES = ("int4_g32_f16", "mxfp4")
# The constant fills of the hand form: every packed word, every scale, every
# activation holds the same value.
WORD = 0x7F31A2C5  # int4: nibbles 5, c(-4), 2, a(-6), 1, 3, f(-1), 7
INT4_SCALE_F16 = 0x2C00  # 1/16
MXFP4_SCALE_E8M0 = 0x7E  # 2^-1
X_VALUE = 0.5


def signed_nibbles(word):
    values = []
    for n in range(8):
        v = (word >> (4 * n)) & 0xF
        values.append(v - 16 if v & 8 else v)
    return values


def e2m1(code):
    sign = -1.0 if code & 8 else 1.0
    e, m = (code >> 1) & 3, code & 1
    magnitude = m * 0.5 if e == 0 else (1 + m * 0.5) * 2.0 ** (e - 1)
    return sign * magnitude


def expected_hand_y(scheme, k):
    """Every y element of the hand form, computed in float64 (the kernel's
    f32 sums of these small dyadic values are exact)."""
    words_per_row = k // 8
    if scheme == "int4_g32_f16":
        scale = struct.unpack("<e", struct.pack("<H", INT4_SCALE_F16))[0]
        per_word = sum(signed_nibbles(WORD))
    else:
        scale = 2.0 ** (MXFP4_SCALE_E8M0 - 127)
        per_word = sum(e2m1((WORD >> (4 * n)) & 0xF) for n in range(8))
    return words_per_row * per_word * X_VALUE * scale


def weight_bytes(scheme, n, k):
    data = n * k // 2
    scales = n * (k // 32) * (2 if scheme == "int4_g32_f16" else 1)
    return data + scales


class Module:
    """Collects a module's text; RESULT labels become small functions that
    print them, so that the main body stays readable."""

    def __init__(self):
        self.labels = []

    def label(self, name):
        if name not in self.labels:
            self.labels.append(name)
        return f"func.call @label_{name}() : () -> ()"

    def label_functions(self):
        out = []
        for name in self.labels:
            text = f"RESULT {name} "
            size = len(text) + 1
            out.append(f"""  llvm.mlir.global internal constant @str_{name}("{text}\\00") {{addr_space = 0 : i32}} : !llvm.array<{size} x i8>
  func.func private @label_{name}() {{
    %p = llvm.mlir.addressof @str_{name} : !llvm.ptr
    llvm.call @printString(%p) : (!llvm.ptr) -> ()
    return
  }}""")
        return "\n".join(out)


RUNTIME_DECLS = """  func.func private @rtclock() -> f64
  func.func private @printF64(f64)
  func.func private @printNewline()
  llvm.func @printString(!llvm.ptr)"""


def copy_module(copy_mib, warmup, iters):
    """Device-to-device copies of copy_mib MiB, each timed alone."""
    elements = copy_mib * 1024 * 1024 // 4
    m = Module()
    ty = f"memref<{elements}xf32>"
    body = [
        "    %zero = arith.constant 0.0 : f32",
        "    %t0 = gpu.wait async",
        f"    %a, %t1 = gpu.alloc async [%t0] () : {ty}",
        f"    %b, %t2 = gpu.alloc async [%t1] () : {ty}",
        f"    %t3 = gpu.memset async [%t2] %a, %zero : {ty}, f32",
        "    gpu.wait [%t3]",
    ]
    for i in range(warmup + iters):
        timed = i >= warmup
        body.append(f"    %s{i} = gpu.wait async")
        if timed:
            body.append(f"    %b{i} = func.call @rtclock() : () -> f64")
        body.append(f"    %c{i} = gpu.memcpy async [%s{i}] %b, %a : {ty}, {ty}")
        body.append(f"    gpu.wait [%c{i}]")
        if timed:
            body.append(f"    %e{i} = func.call @rtclock() : () -> f64")
            body.append(f"    %d{i} = arith.subf %e{i}, %b{i} : f64")
            body.append("    " + m.label("copy_s"))
            body.append(f"    func.call @printF64(%d{i}) : (f64) -> ()")
            body.append("    func.call @printNewline() : () -> ()")
    body += [
        "    %f0 = gpu.wait async",
        f"    %f1 = gpu.dealloc async [%f0] %a : {ty}",
        f"    %f2 = gpu.dealloc async [%f1] %b : {ty}",
        "    gpu.wait [%f2]",
    ]
    nbytes = elements * 4
    return f"""// Device memory bandwidth: {warmup} + {iters} copies of {copy_mib} MiB
// ({nbytes} bytes) between two gpu.alloc'ed buffers, each timed with rtclock
// between gpu.wait's. Generated by bench/gpu/gen.py.
module attributes {{gpu.container_module}} {{
{RUNTIME_DECLS}
{m.label_functions()}
  func.func @main() {{
{chr(10).join(body)}
    return
  }}
}}
"""


def hand_kernel(scheme, n, k):
    """One warp per row, 4 warps per block; lane l handles the blocks of 32
    elements l, l + 32, ..., each with one 16-byte load of 4 packed words and
    one scale. The K / 1024 iterations are unrolled, so that the loads of all
    of a lane's blocks can be in flight together."""
    words, blocks = n * k // 8, n * k // 32
    scale_ty = "f16" if scheme == "int4_g32_f16" else "i8"
    lines = []
    a = lines.append
    a(f"    gpu.func @gemv_{scheme}(%wq: memref<{words}xi32>, %sc: memref<{blocks}x{scale_ty}>, %x: memref<{k}xf32>, %y: memref<{n}xf32>) kernel attributes {{known_block_size = array<i32: 128, 1, 1>}} {{")
    a("      %c0 = arith.constant 0 : index")
    a("      %c4 = arith.constant 4 : index")
    a("      %c32 = arith.constant 32 : index")
    a(f"      %cwords = arith.constant {k // 8} : index")
    a(f"      %cblocks = arith.constant {k // 32} : index")
    a("      %zero = arith.constant 0.0 : f32")
    a("      %width = arith.constant 32 : i32")
    a("      %tid = gpu.thread_id x")
    a("      %bid = gpu.block_id x")
    a("      %lane = arith.remui %tid, %c32 : index")
    a("      %warp = arith.divui %tid, %c32 : index")
    a("      %row0 = arith.muli %bid, %c4 : index")
    a("      %row = arith.addi %row0, %warp : index")
    a("      %wbase = arith.muli %row, %cwords : index")
    a("      %sbase = arith.muli %row, %cblocks : index")
    consts = set()

    def const(value):
        name = f"%k{value}".replace("-", "m")
        if name not in consts:
            consts.add(name)
            a(f"      {name} = arith.constant {value} : i32")
        return name

    acc = "%zero"
    # All of the lane's packed words and scales are loaded first.
    for it in range(k // 1024):
        t = f"_{it}"
        a(f"      %bo{t} = arith.constant {32 * it} : index")
        a(f"      %b{t} = arith.addi %lane, %bo{t} : index")
        a(f"      %b4{t} = arith.muli %b{t}, %c4 : index")
        a(f"      %widx{t} = arith.addi %wbase, %b4{t} : index")
        a(f"      %words{t} = vector.load %wq[%widx{t}] {{alignment = 16}} : memref<{words}xi32>, vector<4xi32>")
        a(f"      %sidx{t} = arith.addi %sbase, %b{t} : index")
        a(f"      %sraw{t} = memref.load %sc[%sidx{t}] : memref<{blocks}x{scale_ty}>")
        if scheme == "int4_g32_f16":
            a(f"      %s{t} = arith.extf %sraw{t} : f16 to f32")
        else:
            # E8M0: 2^(e - 127) is the f32 with exponent field e (e = 0,
            # 2^-127, is flushed to 0 here; the fills never use it).
            a(f"      %s32{t} = arith.extui %sraw{t} : i8 to i32")
            a(f"      %sbits{t} = arith.shli %s32{t}, {const(23)} : i32")
            a(f"      %s{t} = arith.bitcast %sbits{t} : i32 to f32")
        a(f"      %xb{t} = arith.muli %b{t}, %c32 : index")
    # Then the arithmetic, block by block.
    for it in range(k // 1024):
        t = f"_{it}"
        partial = "%zero"
        for j in range(4):
            a(f"      %w{t}_{j} = vector.extract %words{t}[{j}] : i32 from vector<4xi32>")
            for half in range(2):
                h = f"{t}_{j}_{half}"
                a(f"      %xo{h} = arith.constant {j * 8 + half * 4} : index")
                a(f"      %xi{h} = arith.addi %xb{t}, %xo{h} : index")
                a(f"      %xv{h} = vector.load %x[%xi{h}] {{alignment = 16}} : memref<{k}xf32>, vector<4xf32>")
                for q in range(4):
                    nib = half * 4 + q
                    v = f"{t}_{j}_{nib}"
                    w = f"%w{t}_{j}"
                    if scheme == "int4_g32_f16":
                        # Sign-extend nibble `nib`: shift it to the top, then
                        # arithmetic-shift it back down.
                        a(f"      %sh{v} = arith.shli {w}, {const(28 - 4 * nib)} : i32")
                        a(f"      %n{v} = arith.shrsi %sh{v}, {const(28)} : i32")
                        a(f"      %f{v} = arith.sitofp %n{v} : i32 to f32")
                    else:
                        # E2M1 to f32 bits: exponent e = c[2:1], mantissa
                        # m = c[0]; e > 0: ((e + 126) << 23) | (m << 22);
                        # e = 0: m * 0.5 (0x3F000000); sign c[3] to bit 31.
                        a(f"      %cs{v} = arith.shrui {w}, {const(4 * nib)} : i32")
                        a(f"      %c{v} = arith.andi %cs{v}, {const(15)} : i32")
                        a(f"      %e0{v} = arith.shrui %c{v}, {const(1)} : i32")
                        a(f"      %e{v} = arith.andi %e0{v}, {const(3)} : i32")
                        a(f"      %m{v} = arith.andi %c{v}, {const(1)} : i32")
                        a(f"      %eb{v} = arith.addi %e{v}, {const(126)} : i32")
                        a(f"      %ebs{v} = arith.shli %eb{v}, {const(23)} : i32")
                        a(f"      %ms{v} = arith.shli %m{v}, {const(22)} : i32")
                        a(f"      %nm{v} = arith.ori %ebs{v}, %ms{v} : i32")
                        a(f"      %sub{v} = arith.muli %m{v}, {const(0x3F000000)} : i32")
                        a(f"      %ez{v} = arith.cmpi eq, %e{v}, {const(0)} : i32")
                        a(f"      %mag{v} = arith.select %ez{v}, %sub{v}, %nm{v} : i32")
                        a(f"      %sg{v} = arith.andi %c{v}, {const(8)} : i32")
                        a(f"      %sgs{v} = arith.shli %sg{v}, {const(28)} : i32")
                        a(f"      %bits{v} = arith.ori %mag{v}, %sgs{v} : i32")
                        a(f"      %f{v} = arith.bitcast %bits{v} : i32 to f32")
                    a(f"      %xe{v} = vector.extract %xv{h}[{q}] : f32 from vector<4xf32>")
                    a(f"      %p{v} = arith.mulf %f{v}, %xe{v} fastmath<contract> : f32")
                    a(f"      %q{v} = arith.addf {partial}, %p{v} fastmath<contract> : f32")
                    partial = f"%q{v}"
        a(f"      %scaled{t} = arith.mulf {partial}, %s{t} fastmath<contract> : f32")
        a(f"      %acc{t} = arith.addf {acc}, %scaled{t} fastmath<contract> : f32")
        acc = f"%acc{t}"
    value = acc
    for i, offset in enumerate((16, 8, 4, 2, 1)):
        a(f"      %off{i} = arith.constant {offset} : i32")
        a(f"      %shf{i}, %ok{i} = gpu.shuffle xor {value}, %off{i}, %width : f32")
        a(f"      %r{i} = arith.addf {value}, %shf{i} : f32")
        value = f"%r{i}"
    a("      %first = arith.cmpi eq, %lane, %c0 : index")
    a("      scf.if %first {")
    a(f"        memref.store {value}, %y[%row] : memref<{n}xf32>")
    a("      }")
    a("      gpu.return")
    a("    }")
    return "\n".join(lines)


def hand_module(scheme, n, k, warmup, iters):
    assert n % 4 == 0 and k % 1024 == 0, "the hand kernel wants N % 4 == 0, K % 1024 == 0"
    words, blocks = n * k // 8, n * k // 32
    scale_ty = "f16" if scheme == "int4_g32_f16" else "i8"
    m = Module()
    w_ty, s_ty = f"memref<{words}xi32>", f"memref<{blocks}x{scale_ty}>"
    x_ty, y_ty = f"memref<{k}xf32>", f"memref<{n}xf32>"
    # gpu.memset of the i8 scales goes through a 16-bit view (two scales).
    if scheme == "int4_g32_f16":
        scale_fill = [f"    %sfill = arith.constant {struct.unpack('<e', struct.pack('<H', INT4_SCALE_F16))[0]!r} : f16",
                      f"    %t5 = gpu.memset async [%t4] %sc, %sfill : {s_ty}, f16"]
    else:
        scale_fill = [f"    %sfill = arith.constant {MXFP4_SCALE_E8M0 * 257} : i16",
                      f"    %sc16 = memref.view %scb[%c0][] : memref<{blocks}xi8> to memref<{blocks // 2}xi16>",
                      f"    %t5 = gpu.memset async [%t4] %sc16, %sfill : memref<{blocks // 2}xi16>, i16"]
    word_signed = WORD - (1 << 32) if WORD & 0x80000000 else WORD
    body = [
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        f"    %cgrid = arith.constant {n // 4} : index",
        "    %c128 = arith.constant 128 : index",
        f"    %cn1 = arith.constant {n - 1} : index",
        f"    %wfill = arith.constant {word_signed} : i32",
        f"    %xfill = arith.constant {X_VALUE} : f32",
        "    %t0 = gpu.wait async",
        f"    %wq, %t1 = gpu.alloc async [%t0] () : {w_ty}",
    ]
    if scheme == "int4_g32_f16":
        body.append(f"    %sc, %t2 = gpu.alloc async [%t1] () : {s_ty}")
    else:
        body.append(f"    %scb, %t2 = gpu.alloc async [%t1] () : memref<{blocks}xi8>")
        body.append(f"    %sc = memref.view %scb[%c0][] : memref<{blocks}xi8> to {s_ty}")
    body += [
        f"    %x, %t3 = gpu.alloc async [%t2] () : {x_ty}",
        f"    %y, %t3b = gpu.alloc async [%t3] () : {y_ty}",
        f"    %t4 = gpu.memset async [%t3b] %wq, %wfill : {w_ty}, i32",
    ] + scale_fill + [
        f"    %t6 = gpu.memset async [%t5] %x, %xfill : {x_ty}, f32",
        "    gpu.wait [%t6]",
    ]
    launch = (f"@kernels::@gemv_{scheme} blocks in (%cgrid, %c1, %c1) "
              f"threads in (%c128, %c1, %c1) args(%wq : {w_ty}, %sc : {s_ty}, "
              f"%x : {x_ty}, %y : {y_ty})")
    # Warm-up, then the timed launches back to back on one stream: the
    # batch's wall time over iters is the time per GEMV.
    body.append("    %u0 = gpu.wait async")
    prev = "%u0"
    for i in range(warmup):
        body.append(f"    %u{i + 1} = gpu.launch_func async [{prev}] {launch}")
        prev = f"%u{i + 1}"
    body.append(f"    gpu.wait [{prev}]")
    body.append("    %v0 = gpu.wait async")
    body.append("    %begin = func.call @rtclock() : () -> f64")
    prev = "%v0"
    for i in range(iters):
        body.append(f"    %v{i + 1} = gpu.launch_func async [{prev}] {launch}")
        prev = f"%v{i + 1}"
    body.append(f"    gpu.wait [{prev}]")
    body += [
        "    %end = func.call @rtclock() : () -> f64",
        "    %elapsed = arith.subf %end, %begin : f64",
        "    " + m.label("batch_s"),
        "    func.call @printF64(%elapsed) : (f64) -> ()",
        "    func.call @printNewline() : () -> ()",
        f"    %yh = memref.alloc() : {y_ty}",
        "    %g0 = gpu.wait async",
        f"    %g1 = gpu.memcpy async [%g0] %yh, %y : {y_ty}, {y_ty}",
        "    gpu.wait [%g1]",
        f"    %y0 = memref.load %yh[%c0] : {y_ty}",
        f"    %yl = memref.load %yh[%cn1] : {y_ty}",
        "    %y0d = arith.extf %y0 : f32 to f64",
        "    %yld = arith.extf %yl : f32 to f64",
        "    " + m.label("y_first"),
        "    func.call @printF64(%y0d) : (f64) -> ()",
        "    func.call @printNewline() : () -> ()",
        "    " + m.label("y_last"),
        "    func.call @printF64(%yld) : (f64) -> ()",
        "    func.call @printNewline() : () -> ()",
        f"    memref.dealloc %yh : {y_ty}",
        "    %h0 = gpu.wait async",
        f"    %h1 = gpu.dealloc async [%h0] %wq : {w_ty}",
        f"    %h2 = gpu.dealloc async [%h1] %{'sc' if scheme == 'int4_g32_f16' else 'scb'} : {s_ty if scheme == 'int4_g32_f16' else f'memref<{blocks}xi8>'}",
        f"    %h3 = gpu.dealloc async [%h2] %x : {x_ty}",
        f"    %h4 = gpu.dealloc async [%h3] %y : {y_ty}",
        "    gpu.wait [%h4]",
    ]
    return f"""// {scheme} GEMV, M = 1, N = {n}, K = {k}: a hand-written gpu-dialect kernel
// launched {warmup} + {iters} times on constant fills. Generated by
// bench/gpu/gen.py (form `hand`); lower with gpu-lower-to-nvvm-pipeline.
module attributes {{gpu.container_module}} {{
  gpu.module @kernels {{
{hand_kernel(scheme, n, k)}
  }}
{RUNTIME_DECLS}
{m.label_functions()}
  func.func @main() {{
{chr(10).join(body)}
    return
  }}
}}
"""


def pipeline_module(scheme, n, k, warmup, iters):
    """quant_block source; the pipeline under test maps it to the GPU."""
    m = Module()
    if scheme == "int4_g32_f16":
        w_ty = f"!quant_block.tensor<{n}x{k}, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>"
        data_elem, scale_elem = "i4", "f16"
        data_gen = [
            # (i + 3 j) mod 16 - 8 as a signed nibble.
            "      %j3 = arith.muli %j, %c3 : index",
            "      %s = arith.addi %i, %j3 : index",
            "      %r = arith.remui %s, %c16 : index",
            "      %ri = arith.index_cast %r : index to i32",
            "      %v = arith.subi %ri, %c8i : i32",
            "      %e = arith.trunci %v : i32 to i4",
        ]
        scale_gen = [
            # 2^-(1 + (i + j) mod 4): exact in f16.
            "      %s = arith.addi %i, %j : index",
            "      %r = arith.remui %s, %c4 : index",
            "      %ri = arith.index_cast %r : index to i32",
            # Built from its bits, (126 - r) << 23: math.exp2 would need
            # libdevice on NVVM and has no SPIR-V lowering.
            "      %c126 = arith.constant 126 : i32",
            "      %c23 = arith.constant 23 : i32",
            "      %ex = arith.subi %c126, %ri : i32",
            "      %bits = arith.shli %ex, %c23 : i32",
            "      %q = arith.bitcast %bits : i32 to f32",
            "      %e = arith.truncf %q : f32 to f16",
        ]
    else:
        w_ty = f"!quant_block.tensor<{n}x{k}, #quant_block.scheme<mxfp4>>"
        data_elem, scale_elem = "f4E2M1FN", "f8E8M0FNU"
        data_gen = [
            # Codes (i + 3 j) mod 11: not sign-symmetric, so that sums are
            # not all zero.
            "      %j3 = arith.muli %j, %c3 : index",
            "      %s = arith.addi %i, %j3 : index",
            "      %r = arith.remui %s, %c11 : index",
            "      %ri = arith.index_cast %r : index to i32",
            "      %t = arith.trunci %ri : i32 to i4",
            "      %e = arith.bitcast %t : i4 to f4E2M1FN",
        ]
        scale_gen = [
            # 2^(e - 127) for e in 124 .. 127.
            "      %s = arith.addi %i, %j : index",
            "      %r = arith.remui %s, %c4 : index",
            "      %ri = arith.index_cast %r : index to i32",
            "      %b = arith.addi %ri, %c124i : i32",
            "      %t = arith.trunci %b : i32 to i8",
            "      %e = arith.bitcast %t : i8 to f8E8M0FNU",
        ]
    nb = k // 32
    body = [
        "    %c0 = arith.constant 0 : index",
        "    %c3 = arith.constant 3 : index",
        "    %c4 = arith.constant 4 : index",
        "    %c11 = arith.constant 11 : index",
        "    %c16 = arith.constant 16 : index",
        "    %c8i = arith.constant 8 : i32",
        "    %c124i = arith.constant 124 : i32",
        "    %half = arith.constant 0.5 : f32",
        "    %zero = arith.constant 0.0 : f32",
        f"    %d = tensor.generate {{",
        "    ^bb0(%i: index, %j: index):",
    ] + data_gen + [
        f"      tensor.yield %e : {data_elem}",
        f"    }} : tensor<{n}x{k}x{data_elem}>",
        f"    %sc = tensor.generate {{",
        "    ^bb0(%i: index, %j: index):",
    ] + scale_gen + [
        f"      tensor.yield %e : {scale_elem}",
        f"    }} : tensor<{n}x{nb}x{scale_elem}>",
        f"    %w = quant_block.pack %d scales(%sc : tensor<{n}x{nb}x{scale_elem}>) : tensor<{n}x{k}x{data_elem}> -> !w",
        # x[j] = ((j mod 8) - 3) / 8: exact, not zero-mean.
        f"    %x = tensor.generate {{",
        "    ^bb0(%i: index, %j: index):",
        "      %c8 = arith.constant 8 : index",
        "      %r = arith.remui %j, %c8 : index",
        "      %ri = arith.index_cast %r : index to i32",
        "      %v = arith.subi %ri, %c3i : i32",
        "      %f = arith.sitofp %v : i32 to f32",
        "      %e = arith.mulf %f, %eighth : f32",
        "      tensor.yield %e : f32",
        f"    }} : tensor<1x{k}xf32>",
    ]
    body.insert(7, "    %c3i = arith.constant 3 : i32")
    body.insert(8, "    %eighth = arith.constant 0.125 : f32")
    # Every call's y[0, 0] and y[0, N-1] go into a checksum, so that no call
    # is dead code.
    body.append(f"    %cn1 = arith.constant {n - 1} : index")
    acc = "%zero"
    for i in range(warmup + iters):
        if i == warmup:
            body.append("    %begin = func.call @rtclock() : () -> f64")
        body.append(f"    %y{i} = func.call @gemv(%x, %w) : (tensor<1x{k}xf32>, !w) -> tensor<1x{n}xf32>")
        body.append(f"    %a{i} = tensor.extract %y{i}[%c0, %c0] : tensor<1x{n}xf32>")
        body.append(f"    %b{i} = tensor.extract %y{i}[%c0, %cn1] : tensor<1x{n}xf32>")
        body.append(f"    %s{i} = arith.addf {acc}, %a{i} : f32")
        body.append(f"    %t{i} = arith.addf %s{i}, %b{i} : f32")
        acc = f"%t{i}"
    body += [
        "    %end = func.call @rtclock() : () -> f64",
        "    %elapsed = arith.subf %end, %begin : f64",
        "    " + m.label("batch_s"),
        "    func.call @printF64(%elapsed) : (f64) -> ()",
        "    func.call @printNewline() : () -> ()",
        f"    %cd = arith.extf {acc} : f32 to f64",
        "    " + m.label("checksum"),
        "    func.call @printF64(%cd) : (f64) -> ()",
        "    func.call @printNewline() : () -> ()",
    ]
    return f"""// {scheme} GEMV, M = 1, N = {n}, K = {k}, through a quant_block pipeline:
// @gemv called {warmup} + {iters} times. Generated by bench/gpu/gen.py (form
// `pipeline`).
!w = {w_ty}

func.func @gemv(%x: tensor<1x{k}xf32>, %w: !w) -> tensor<1x{n}xf32> {{
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc>
         : tensor<1x{k}xf32>, !w -> tensor<1x{n}xf32>
  return %y : tensor<1x{n}xf32>
}}

{RUNTIME_DECLS}
{m.label_functions()}
func.func @main() {{
{chr(10).join(body)}
  return
}}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--form", choices=("pipeline", "hand"), default="pipeline")
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--copy-mib", type=int, default=1024)
    parser.add_argument("--shapes", default="4096x4096,11008x4096",
                        help="comma-separated NxK (weight [N, K], y = x W^T)")
    parser.add_argument("--schemes", default=",".join(SCHEMES))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "copy.mlir"), "w") as f:
        f.write(copy_module(args.copy_mib, min(args.warmup, 3), min(args.iters, 10)))
    cases = []
    for scheme in args.schemes.split(","):
        if scheme not in SCHEMES:
            parser.error(f"unknown scheme {scheme}; expected one of {SCHEMES}")
        for shape in args.shapes.split(","):
            n, k = (int(v) for v in shape.split("x"))
            name = f"gemv_{scheme}_{n}x{k}"
            if args.form == "hand":
                text = hand_module(scheme, n, k, args.warmup, args.iters)
                expected = repr(expected_hand_y(scheme, k))
            else:
                text = pipeline_module(scheme, n, k, args.warmup, args.iters)
                expected = "-"
            with open(os.path.join(args.out, name + ".mlir"), "w") as f:
                f.write(text)
            cases.append(f"{name} {scheme} {n} {k} {weight_bytes(scheme, n, k)} {expected}")
    with open(os.path.join(args.out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")
    with open(os.path.join(args.out, "params.txt"), "w") as f:
        f.write(f"warmup {args.warmup}\niters {args.iters}\n"
                f"copy_bytes {args.copy_mib * 1024 * 1024}\ncopy_iters {min(args.iters, 10)}\n")


if __name__ == "__main__":
    main()
