"""Inputs and checks of the device-resident GEMV tests
(test/GPU/{SPIRV,CUDA}/device-resident.test).

    device_resident.py inputs DIR
        writes DIR/x.npy (1 x 256 f32), DIR/w_data.npy (64 x 128 packed
        int4 codes) and DIR/w_scales.npy (64 x 8 f32)
    device_resident.py copies RESIDENT_LOG PLAIN_LOG CALLS
        compares the runtime's copy counts (QUANT_BLOCK_GPU_COPY_STATS=1) of
        CALLS calls with the weight device-resident and of the same calls
        with the weight a host argument: the resident run uploads the
        weight once, the plain one copies it to the device every call, and
        nothing else differs
    device_resident.py same A.npy B.npy
        the two arrays are identical, bit for bit
"""

import re
import sys

import numpy as np

WEIGHT_BYTES = 64 * 128 + 64 * 8 * 4

COPIES = re.compile(r"quant-block-gpu-copies: host-to-device (\d+) \((\d+) "
                    r"bytes\), device-to-host (\d+) \((\d+) bytes\), "
                    r"device-to-device (\d+) \((\d+) bytes\)")


def inputs(directory):
    rng = np.random.default_rng(7)
    np.save(f"{directory}/x.npy",
            rng.standard_normal((1, 256)).astype(np.float32))
    np.save(f"{directory}/w_data.npy",
            rng.integers(0, 256, (64, 128)).astype(np.uint8))
    np.save(f"{directory}/w_scales.npy",
            rng.uniform(0.01, 0.1, (64, 8)).astype(np.float32))


def counts(path):
    with open(path) as log:
        found = COPIES.findall(log.read())
    if len(found) != 1:
        sys.exit(f"{path}: expected one copy report, found {len(found)}")
    return [int(value) for value in found[0]]


def copies(resident_log, plain_log, calls):
    calls = int(calls)
    resident, plain = counts(resident_log), counts(plain_log)
    print(f"resident: host-to-device {resident[0]} ({resident[1]} bytes)")
    print(f"plain:    host-to-device {plain[0]} ({plain[1]} bytes)")
    # The plain run copies both parts every call; the resident one once.
    expected = [plain[0] - 2 * (calls - 1), plain[1] - WEIGHT_BYTES * (calls - 1)]
    if resident[:2] != expected:
        sys.exit(f"FAIL: resident host-to-device {resident[:2]}, expected "
                 f"{expected}: the weight was copied per call")
    if resident[2:] != plain[2:]:
        sys.exit(f"FAIL: other copies differ: {resident[2:]} vs {plain[2:]}")
    per_call = (resident[1] - WEIGHT_BYTES) / calls
    print(f"OK: the weight ({WEIGHT_BYTES} bytes) crossed once in {calls} "
          f"calls; {per_call:.0f} bytes to the device per call")


def same(first, second):
    a, b = np.load(first), np.load(second)
    if a.shape != b.shape or a.dtype != b.dtype or a.tobytes() != b.tobytes():
        sys.exit(f"FAIL: {first} and {second} differ")
    print(f"OK: identical {a.dtype} {a.shape}")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"inputs": inputs, "copies": copies, "same": same}[command](*args)
