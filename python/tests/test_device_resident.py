"""Device-resident arguments through the Python runner on Vulkan (lavapipe
here): compile() with the GPU runtime, Executable.upload once, calls that
copy only the activations and the results (the runtime's copy counts), the
same bits as the CPU pipeline, and the errors for a host array where a
device one is expected, and the reverse."""


import numpy as np
import pytest

import quant_block as qb

try:
    VULKAN = qb.gpu_runtime_library("vulkan")
except (FileNotFoundError, ImportError) as error:
    VULKAN = None
    REASON = str(error)

pytestmark = pytest.mark.skipif(
    VULKAN is None, reason=f"no Vulkan runtime: {REASON if VULKAN is None else ''}")

N, K = 48, 128


def gemv_module(resident):
    attribute = " {quant_block.device_resident}" if resident else ""
    scheme = "#quant_block.scheme<i4 : f32, block = [1, 32]>"
    return f"""
!w = !quant_block.tensor<{N}x{K}, {scheme}>
func.func @gemv(%x: tensor<1x{K}xf32>, %w: !w{attribute}) -> tensor<1x{N}xf32> {{
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<1x{K}xf32>, !w -> tensor<1x{N}xf32>
  return %y : tensor<1x{N}xf32>
}}
"""


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, K)).astype(np.float32)
    data = rng.integers(0, 256, (N, K // 2)).astype(np.uint8)
    scales = rng.uniform(0.01, 0.1, (N, K // 32)).astype(np.float32)
    return x, data, scales


def host_to_device_bytes(executable):
    return executable.copy_stats()["host_to_device"][1]


def test_resident_weights_cross_once(inputs):
    x, data, scales = inputs
    gpu = qb.compile(gemv_module(True), "quant-block-spirv-pipeline",
                     libraries=[VULKAN])
    assert gpu.gemv.device_resident_arguments() == [1, 2]
    before = host_to_device_bytes(gpu)
    weights = [gpu.upload(data), gpu.upload(scales)]
    assert host_to_device_bytes(gpu) - before == data.nbytes + scales.nbytes

    before = host_to_device_bytes(gpu)
    results = [gpu.gemv(x, *weights) for _ in range(4)]
    resident = host_to_device_bytes(gpu) - before

    plain = qb.compile(gemv_module(False), "quant-block-spirv-pipeline",
                       libraries=[VULKAN])
    before = host_to_device_bytes(plain)
    plain_results = [plain.gemv(x, data, scales) for _ in range(4)]
    copied = host_to_device_bytes(plain) - before
    # Host arguments cross every call; the resident ones never do.
    assert copied - resident == 4 * (data.nbytes + scales.nbytes)
    assert resident < 4 * (data.nbytes + scales.nbytes)

    cpu = qb.compile(gemv_module(False)).gemv(x, data, scales)
    for result in results + plain_results:
        assert result.tobytes() == cpu.tobytes()


def test_launch_stats_count_each_call(inputs):
    """The runtime's launch counts: each call launches the kernels its host
    code has (one gpu.launch_func here, straight-line code) and waits for
    its stream once."""
    x, data, scales = inputs
    module = qb.Module.parse(gemv_module(True))
    module.run_passes("quant-block-spirv-pipeline")
    launches_per_call = str(module).count("gpu.launch_func")
    assert launches_per_call >= 1
    gpu = qb.compile(gemv_module(True), "quant-block-spirv-pipeline",
                     libraries=[VULKAN])
    weights = [gpu.upload(data), gpu.upload(scales)]
    before = gpu.launch_stats()
    for _ in range(3):
        gpu.gemv(x, *weights)
    after = gpu.launch_stats()
    assert after["kernels"] - before["kernels"] == 3 * launches_per_call
    assert after["synchronizations"] - before["synchronizations"] == 3


def test_wrong_kind_of_buffer_is_refused(inputs):
    x, data, scales = inputs
    gpu = qb.compile(gemv_module(True), "quant-block-spirv-pipeline",
                     libraries=[VULKAN])
    with pytest.raises(qb.MLIRError, match="is device-resident"):
        gpu.gemv(x, data, scales)
    weights = [gpu.upload(data), gpu.upload(scales)]
    with pytest.raises(qb.MLIRError,
                       match="is a host argument but was given a device buffer"):
        gpu.gemv(gpu.upload(x), *weights)
    freed = gpu.upload(data)
    freed.free()
    with pytest.raises(ValueError, match="freed"):
        gpu.gemv(x, freed, weights[1])


def test_upload_needs_a_gpu_runtime(inputs):
    cpu = qb.compile(gemv_module(False))
    assert cpu.copy_stats() is None
    assert cpu.launch_stats() is None
    with pytest.raises(qb.MLIRError, match="loaded no GPU runtime"):
        cpu.upload(inputs[1])
