#!/usr/bin/env python3
"""Compares a GPU run's output with the CPU pipeline's (bench/gpu/bundle.sh).

  bundle_compare.py [--relative TOL [--f32-bits]] EXPECTED ACTUAL

Without --relative the two outputs must be the same text, but for buffer
addresses and NaN bits: integers that are both f32 NaN bit patterns (or
two `nan`s) are equal, as the bits of a NaN result are the target's
(docs/Numerics.md, "NaN results"). With it, they
must have the same text between numbers and the same count of numbers, and
each number may differ from the expected one by TOL times its magnitude
(for sums under fastmath<reassoc>, whose order is the target's); with
--f32-bits, integers are the bit patterns of f32 values and those values
are compared. Prints a
one-line verdict; exits 1 on a mismatch.
"""

import re
import struct
import sys

# Buffer addresses differ from run to run.
ADDRESS = re.compile(r"base@ = 0x[0-9a-f]+")
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)")


def is_nan(token):
    if token == "nan":
        return True
    if not re.fullmatch(r"[-+]?\d+", token):
        return False
    bits = int(token) & 0xFFFFFFFF
    return (bits & 0x7F800000) == 0x7F800000 and (bits & 0x7FFFFF) != 0


def value(token, bits):
    if bits and re.fullmatch(r"[-+]?\d+", token):
        return struct.unpack("<f", struct.pack("<i", int(token)))[0]
    return float(token)


def main(argv):
    tolerance = None
    bits = False
    if len(argv) > 1 and argv[1] == "--relative":
        tolerance = float(argv[2])
        argv = argv[:1] + argv[3:]
        if len(argv) > 1 and argv[1] == "--f32-bits":
            bits = True
            argv = argv[:1] + argv[2:]
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        expected = ADDRESS.sub("base@ = ?", f.read())
    with open(argv[2]) as f:
        actual = ADDRESS.sub("base@ = ?", f.read())
    if expected == actual:
        print(f"identical ({len(expected.splitlines())} lines)")
        return 0
    if tolerance is None:
        pairs = list(zip(NUMBER.findall(expected), NUMBER.findall(actual)))
        if (NUMBER.split(expected) == NUMBER.split(actual) and
                all(e == a or (is_nan(e) and is_nan(a)) for e, a in pairs)):
            nans = sum(e != a for e, a in pairs)
            print(f"identical but for {nans} NaN bit patterns "
                  f"({len(expected.splitlines())} lines)")
            return 0
        for number, (e, a) in enumerate(
                zip(expected.splitlines(), actual.splitlines()), 1):
            if e != a:
                print(f"line {number} differs: expected {e[:120]!r}, "
                      f"got {a[:120]!r}")
                return 1
        print(f"line counts differ: expected {len(expected.splitlines())}, "
              f"got {len(actual.splitlines())}")
        return 1
    if NUMBER.split(expected) != NUMBER.split(actual):
        print("the text between the numbers differs")
        return 1
    worst = 0.0
    differing = 0
    for e, a in zip(NUMBER.findall(expected), NUMBER.findall(actual)):
        if e == a:
            continue
        differing += 1
        e, a = value(e, bits), value(a, bits)
        error = abs(a - e) / max(abs(e), 1e-30)
        worst = max(worst, error)
        if not error <= tolerance:
            print(f"{e!r} expected, {a!r} printed (relative {error:.3g})")
            return 1
    print(f"{differing} numbers differ, at most {worst:.3g} relative "
          f"(tolerance {tolerance:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
