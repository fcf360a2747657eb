"""Checks that a wrapper library exports every mgpu* function a module calls.

Usage: check-exports.py LIBRARY MODULE.ll...

Collects the mgpu* functions that the LLVM IR files declare (the host code
that gpu-to-llvm and the gpu.binary translation emitted), lists the dynamic
symbols LIBRARY defines (nm -D --defined-only) and prints one line per
function, `exported NAME` or `MISSING NAME`, sorted; exits 1 if any is
missing or if the modules call none (a check that checks nothing).
"""

import re
import subprocess
import sys


def main():
    library, modules = sys.argv[1], sys.argv[2:]
    called = set()
    for path in modules:
        with open(path) as f:
            called |= set(re.findall(r"^declare [^@]*@(mgpu\w+)\(", f.read(),
                                     re.MULTILINE))
    if not called:
        print("error: the modules declare no mgpu* function")
        return 1
    nm = subprocess.run(["nm", "-D", "--defined-only", library],
                        capture_output=True, text=True, check=True)
    defined = {fields[-1] for fields in
               (line.split() for line in nm.stdout.splitlines())
               if len(fields) >= 3 and fields[-2] in "TW"}
    missing = sorted(called - defined)
    for name in sorted(called):
        print(("MISSING " if name in missing else "exported ") + name)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
