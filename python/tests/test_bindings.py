"""The Python bindings over the C API: contexts and modules, pass pipelines
and their diagnostics, compiled functions on numpy arrays, schemes, and
quantize / dequantize through compiled kernels (checked against the numpy
reference, which never loads the library)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import quant_block
from quant_block import (Context, MLIRError, Module, Scheme, compile,
                         cpu_target, dequantize, quantize, reference,
                         release_compiler_memory)

DCAST = """
func.func @dcast(%q: tensor<2x4xi8>) -> tensor<2x4xf32> {
  %0 = quant.scast %q : tensor<2x4xi8> to tensor<2x4x!quant.uniform<i8:f32, 0.5:-3>>
  %1 = quant.dcast %0 : tensor<2x4x!quant.uniform<i8:f32, 0.5:-3>> to tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
"""


def test_parse_print_verify():
    module = Module.parse(DCAST, Context())
    assert module.verify()
    assert "quant.dcast" in module.print()
    assert str(module) == module.print()


def test_parse_error_carries_the_location():
    with pytest.raises(MLIRError) as error:
        Module.parse("func.func @f() {\n  %x = arith.constant 1 : i32\n"
                     "  return %y : i32\n}\n")
    diagnostics = error.value.diagnostics
    assert diagnostics, str(error.value)
    assert diagnostics[0].severity == "error"
    assert ":3:" in diagnostics[0].location


def test_verifier_errors_raise_with_location_and_notes():
    # The parser verifies too: an op outside its parent is reported there.
    with pytest.raises(MLIRError) as error:
        Module.parse('"func.return"() : () -> ()')
    (diagnostic,) = error.value.diagnostics
    assert "expects parent op 'func.func'" in diagnostic.message
    assert diagnostic.location == 'loc("-":1:1)'
    assert diagnostic.notes and diagnostic.notes[0].severity == "note"


def test_run_passes_raises_upstream_quant_ops():
    module = Module.parse(DCAST)
    module.run_passes("quant-block-raise")
    text = module.print()
    assert "quant_block.dequantize" in text and "quant.dcast" not in text
    module.run_passes("builtin.module(canonicalize,cse)")


def test_run_passes_errors_carry_diagnostics_and_locations():
    with pytest.raises(MLIRError, match="no-such-pass"):
        Module.parse(DCAST).run_passes("no-such-pass")
    module = Module.parse(
        "!q = !quant_block.tensor<4, #quant_block.scheme<i12 : f32>>\n"
        "func.func @f(%q: !q) -> tensor<4xf32> {\n"
        "  %x = quant_block.dequantize %q : !q -> tensor<4xf32>\n"
        "  return %x : tensor<4xf32>\n}\n")
    with pytest.raises(MLIRError) as error:
        module.run_passes("convert-quant-block-to-linalg")
    (diagnostic,) = error.value.diagnostics
    assert diagnostic.message.startswith("cannot lower to linalg: storage of "
                                         "12 bits")
    assert ":3:8" in diagnostic.location


def test_compile_and_call_with_strided_arrays():
    kernels = compile(DCAST)
    q = np.array([[-3, 1], [-1, 3], [0, 5], [2, 7]], dtype=np.int8).T
    assert not q.flags.c_contiguous
    y = kernels.dcast(q)
    np.testing.assert_array_equal(y, (q.astype(np.float32) + 3) * 0.5)
    assert y.dtype == np.float32 and y.shape == (2, 4)
    with pytest.raises(MLIRError, match="expects i8"):
        kernels.dcast(q.astype(np.float32))
    with pytest.raises(AttributeError, match="no func.func @missing"):
        kernels.missing


def test_compile_error_raises_with_diagnostics():
    with pytest.raises(MLIRError) as error:
        compile("!q = !quant_block.tensor<4, #quant_block.scheme<i12 : f32>>\n"
                "func.func @f(%q: !q) -> tensor<4xf32> {\n"
                "  %x = quant_block.dequantize %q : !q -> tensor<4xf32>\n"
                "  return %x : tensor<4xf32>\n}\n")
    assert any("cannot lower to linalg" in d.message
               for d in error.value.diagnostics)


def test_compile_for_a_target_cpu():
    """The CPU pipeline's target options (docs/CPU.md): target-cpu=host
    gives the portable code's bits, and a module compiled with a feature the
    host lacks is refused at compile time, naming it, instead of faulting."""
    q = np.array([[-3, 1, 0, 2], [-1, 3, 5, 7]], dtype=np.int8)
    portable = compile(DCAST)
    host = compile(DCAST, "quant-block-cpu-pipeline{target-cpu=host}")
    np.testing.assert_array_equal(host.dcast(q), portable.dcast(q))
    # AMX-FP8 (Diamond Rapids): no machine of this project's kind has it.
    try:
        compile(DCAST, "quant-block-cpu-pipeline{target-features=+amx-fp8}")
    except MLIRError as error:
        text = str(error) + " ".join(d.message for d in error.diagnostics)
        assert "cannot run on this target" in text and "amx-fp8" in text
    else:
        pytest.skip("this host has AMX-FP8: nothing to refuse")
    with pytest.raises(MLIRError, match="cannot compile") as error:
        compile(DCAST, "quant-block-cpu-pipeline{target-cpu=bogus}")
    assert any("'bogus' is not a processor LLVM knows" in d.message
               for d in error.value.diagnostics)


# A 32 MiB temporary made in each of 4 iterations (by a call, which no
# fusion removes): glibc maps a block this large afresh for every malloc.
_TEMPORARY_PER_ITERATION = """
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func private @shifted(%x: tensor<2048x4096xf32>, %c: f32) -> tensor<2048x4096xf32> {
  %e = tensor.empty() : tensor<2048x4096xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2048x4096xf32>) outs(%e : tensor<2048x4096xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = arith.addf %v, %c : f32
    linalg.yield %w : f32
  } -> tensor<2048x4096xf32>
  return %t : tensor<2048x4096xf32>
}
func.func @four_temporaries(%x: tensor<2048x4096xf32>) -> tensor<2048xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2048xf32>) -> tensor<2048xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %sums = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %acc) -> tensor<2048xf32> {
    %t = func.call @shifted(%x, %one) {no_inline} : (tensor<2048x4096xf32>, f32) -> tensor<2048x4096xf32>
    %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%t : tensor<2048x4096xf32>) outs(%a : tensor<2048xf32>) {
    ^bb0(%v: f32, %o: f32):
      %w = arith.addf %o, %v : f32
      linalg.yield %w : f32
    } -> tensor<2048xf32>
    scf.yield %r : tensor<2048xf32>
  }
  return %sums : tensor<2048xf32>
}
"""


def test_reuse_buffers():
    """compile(reuse_buffers=True): a block the compiled code frees is handed
    again, pages mapped, to the same call's next request of its size (the
    4 iterations' temporaries fault their 8192 pages once, not 4 times), and
    released when the call returns (the next call faults them again); the
    results are the same."""
    import resource
    x = np.random.default_rng(0).standard_normal((2048, 4096)).astype(
        np.float32)
    pages = 32 * 1024 * 1024 // resource.getpagesize()

    def faults(function):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        result = function(x)
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before, \
            result

    plain = compile(_TEMPORARY_PER_ITERATION).four_temporaries
    reused = compile(_TEMPORARY_PER_ITERATION,
                     reuse_buffers=True).four_temporaries
    plain_faults, want = faults(plain)
    first_faults, got = faults(reused)
    second_faults, again = faults(reused)
    assert plain_faults >= 3.5 * pages
    assert 0.9 * pages <= first_faults <= 1.5 * pages
    assert 0.9 * pages <= second_faults <= 1.5 * pages
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(again, want)
    np.testing.assert_allclose(want, (x + 1).sum(axis=1) * 4, rtol=1e-4)


_AXPY = """
func.func @axpy(%a: tensor<4xf32>, %x: tensor<4xf32>, %y: tensor<4xf32>)
    -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
      affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = ["parallel"]}
      ins(%a, %x, %y : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      outs(%e : tensor<4xf32>) {
  ^bb0(%va: f32, %vx: f32, %vy: f32, %out: f32):
    %p = arith.mulf %va, %vx : f32
    %s = arith.addf %p, %vy : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def test_bind():
    """Function.bind fixes arguments from a position on: the bound function
    takes the others in order, gives what the plain call gives, sees the
    bound arrays' contents as they are at each call, and checks counts and
    the free arguments' types."""
    axpy = compile(_AXPY).axpy
    a = np.array([1, 2, 3, 4], np.float32)
    x = np.array([10, 20, 30, 40], np.float32)
    y = np.array([0.5, 0.25, -1, 2], np.float32)
    np.testing.assert_array_equal(axpy.bind(1, x, y)(a), axpy(a, x, y))
    middle = axpy.bind(1, x)
    np.testing.assert_array_equal(middle(a, y), a * x + y)
    x[0] = -10  # updated in place: the next call sees it
    np.testing.assert_array_equal(middle(a, y), a * x + y)
    np.testing.assert_array_equal(axpy.bind(0, a, x, y)(), a * x + y)
    with pytest.raises(TypeError, match="with 2 arguments bound takes 1"):
        axpy.bind(1, x, y)(a, a)
    with pytest.raises(TypeError, match="cannot bind 2 from #2"):
        axpy.bind(2, x, y)
    with pytest.raises(MLIRError, match="expects f32"):
        axpy.bind(1, x, y)(a.astype(np.int32))


def _compiler_library_rss():
    """KiB of this process's resident pages in the mappings of libMLIR and
    libLLVM (/proc/self/smaps)."""
    total, inside = 0, False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5:
                inside = len(fields) > 5 and (
                    "libMLIR" in fields[5] or "libLLVM" in fields[5])
            elif inside and fields[0] == "Rss:":
                total += int(fields[1])
    return total


def test_release_compiler_memory():
    """release_compiler_memory() after compiling: the pages the compiler
    libraries had resident leave the resident set (MADV_PAGEOUT; pages
    another process maps too may stay), the compiled functions give the
    same results, and compiling again works."""
    if not os.path.exists("/proc/self/smaps"):
        pytest.skip("needs Linux's /proc/self/smaps")
    x = np.random.default_rng(1).standard_normal((2048, 4096)).astype(
        np.float32)
    kernels = compile(_TEMPORARY_PER_ITERATION)
    want = kernels.four_temporaries(x)
    before = _compiler_library_rss()
    released = release_compiler_memory()
    if released == 0:
        pytest.skip("the kernel took no MADV_PAGEOUT advice (Linux before "
                    "5.4), or the compiler is linked into the program")
    after = _compiler_library_rss()
    assert after < before, (before, after)
    np.testing.assert_array_equal(kernels.four_temporaries(x), want)
    again = compile(_TEMPORARY_PER_ITERATION).four_temporaries
    np.testing.assert_array_equal(again(x), want)


def test_cpu_target():
    """What the CPU kernels may use, from LLVM's tables: none of the x86
    options on x86-64-v2, AVX-512 (and what is added) on x86-64-v4; the
    host's as the JIT resolves it; unknown names are errors."""
    v2 = cpu_target("x86-64-v2")
    assert (v2.avx512f, v2.avx512_vnni, v2.amx_int8, v2.amx_bf16, v2.f16c,
            v2.vector_bits) == (False, False, False, False, False, 128)
    assert cpu_target("x86-64-v3").vector_bits == 256
    v4 = cpu_target("x86-64-v4")
    assert v4.avx512f and not v4.avx512_vnni and v4.vector_bits == 512
    assert cpu_target("x86-64-v4", "+avx512vnni").avx512_vnni
    amx = cpu_target("x86-64-v4", "+avx512vnni,+amx-tile,+amx-int8")
    assert amx.amx_int8
    # AMX without VNNI (the kernels' rows left over need it) is not usable.
    assert not cpu_target("x86-64-v3", "+amx-tile,+amx-int8").amx_int8
    # AMX-BF16 needs no VNNI (its rows left over take float kernels).
    bf16 = cpu_target("x86-64-v3", "+amx-tile,+amx-bf16")
    assert bf16.amx_bf16 and not bf16.amx_int8
    assert cpu_target("sapphirerapids").amx_bf16
    host = cpu_target()
    assert host.vector_bits in (128, 256, 512)
    with pytest.raises(MLIRError, match="'bogus' is not a processor"):
        cpu_target("bogus")
    with pytest.raises(MLIRError, match="bogus"):
        cpu_target("x86-64-v3", "+bogus")


def test_quantized_arguments_as_parts():
    kernels = compile(
        "!q = !quant_block.tensor<2x4, #quant_block.scheme<i8 : f32, block = [2]>>\n"
        "func.func @dequant(%q: !q) -> tensor<2x4xf32> {\n"
        "  %x = quant_block.dequantize %q : !q -> tensor<2x4xf32>\n"
        "  return %x : tensor<2x4xf32>\n}\n")
    data = np.array([[1, 2, 3, 4], [-1, -2, -3, -4]], dtype=np.int8)
    scales = np.array([[1.0, 0.5], [2.0, 0.25]], dtype=np.float32)
    np.testing.assert_array_equal(
        kernels.dequant(data, scales), data * np.repeat(scales, 2, axis=1))


SCHEMES = [
    "#quant_block.scheme<i4 : f32, block = [32], scale = f16>",
    "#quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, zero_point = ui4>",
    "#quant_block.scheme<mxfp4>",
    "#quant_block.scheme<nvfp4 : bf16>",
    "#quant_block.scheme<i8 : f32, block = [*], range = [-127, 127], "
    "rounding = half_away_from_zero>",
]


@pytest.mark.parametrize("text", SCHEMES)
def test_scheme_round_trips(text):
    scheme = Scheme(text)
    assert Scheme(str(scheme)) == scheme
    assert Scheme(scheme.text).text == scheme.text


def test_scheme_fields():
    s = Scheme("#quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, "
               "zero_point = ui4>")
    assert (s.storage, s.expressed, s.block, s.scale, s.zero_point) == (
        "ui4", "f32", (1, 32), "f16", "ui4")
    assert (s.qmin, s.qmax, s.rounding, s.saturate, s.scale_rounding) == (
        0, 15, "half_to_even", True, "floor")
    assert s.outer is None and s.standard_name is None
    mx = Scheme.named("mxfp4")
    assert mx.standard_name == "mxfp4" and mx.scale == "f8E8M0FNU"
    nv = Scheme.named("nvfp4")
    assert nv.outer == {"scale": "f32", "block": (), "min": None}
    assert Scheme("i8 : f32, block = [*]").block == ("*",)
    assert s.row_tile == 0
    tiled = Scheme("i4 : f32, block = [1, 32], row_tile = 16")
    assert tiled.row_tile == 16 and str(tiled).endswith("row_tile = 16>")
    assert Scheme("mxfp4, row_tile = 16").text == \
        "#quant_block.scheme<mxfp4, row_tile = 16>"
    with pytest.raises(MLIRError):
        Scheme("#quant_block.scheme<i4 : f32, block = [0]>")


def unpack_nibbles(data, count, signed):
    """4-bit codes from bytes, first element in the low nibble
    (docs/Packing.md)."""
    low, high = data & 0xF, data >> 4
    codes = np.stack([low, high], axis=-1).reshape(*data.shape[:-1], -1)
    codes = codes[..., :count].astype(np.int64)
    return np.where(codes >= 8, codes - 16, codes) if signed else codes


def test_quantize_int4_block_32_matches_the_reference():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 64)).astype(np.float32)
    scheme = Scheme("#quant_block.scheme<i4 : f32, block = [32]>")
    parts = quantize(w, scheme)
    assert parts.data.shape == (8, 32) and parts.scales.shape == (8, 2)
    codes, params = reference.quantize_dynamic(
        w, "absmax", reference.Scheme("i4", block=(32,)))
    np.testing.assert_array_equal(
        unpack_nibbles(parts.data.view(np.uint8), 64, signed=True), codes)
    np.testing.assert_array_equal(parts.scales, params.scales)
    np.testing.assert_array_equal(
        dequantize(parts, scheme),
        reference.dequantize_scheme(codes, reference.Scheme("i4", block=(32,)),
                                    params))


def test_quantize_mxfp4_matches_the_reference():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((4, 64)).astype(np.float32)
    parts = quantize(w, "#quant_block.scheme<mxfp4>")
    assert len(parts) == 2
    assert parts.data.shape == (4, 32) and parts.scales.shape == (4, 2)
    ref_scheme = reference.Scheme("f4E2M1FN", block=(32,), scale="f8E8M0FNU")
    codes, params = reference.quantize_dynamic(w, "mx", ref_scheme)
    np.testing.assert_array_equal(
        unpack_nibbles(parts.data.view(np.uint8), 64, signed=False), codes)
    np.testing.assert_array_equal(
        reference.decode_e8m0(parts.scales.view(np.uint8)), params.scales)
    np.testing.assert_array_equal(
        dequantize(parts), reference.dequantize_scheme(codes, ref_scheme, params))


def test_reference_is_independent_of_the_library():
    code = ("import sys, quant_block.reference; "
            "assert not any('QuantBlockCAPI' in str(m) for m in "
            "[getattr(quant_block._capi, '_library', None)])")
    env = dict(os.environ, QUANT_BLOCK_CAPI_LIBRARY="/nonexistent")
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_package_is_importable_from_the_build_tree():
    binary_dir = os.environ.get("QUANT_BLOCK_BINARY_DIR")
    if not binary_dir:
        pytest.skip("QUANT_BLOCK_BINARY_DIR is not set (run through ctest)")
    code = ("import quant_block, os; "
            "print(os.path.dirname(quant_block.__file__)); "
            "print(quant_block.Scheme.named('mxint8').storage)")
    env = {k: v for k, v in os.environ.items()
           if k not in ("QUANT_BLOCK_CAPI_LIBRARY", "QUANT_BLOCK_BINARY_DIR")}
    env["PYTHONPATH"] = os.path.join(binary_dir, "python")
    out = subprocess.run([sys.executable, "-c", code], check=True, env=env,
                         capture_output=True, text=True, cwd="/").stdout
    assert out.splitlines() == [os.path.join(binary_dir, "python", "quant_block"),
                                "i8"]
