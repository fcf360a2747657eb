"""What the tests in this folder share: the quant_block package (the copy
ctest staged in the build tree, found through PYTHONPATH; run by hand, the
one beside these tests), and where the conformance vectors are
(test/Conformance/vectors)."""

import os
import sys

import pytest

here = os.path.dirname(os.path.abspath(__file__))
try:
    import quant_block  # noqa: F401  (ctest: the package staged in the build)
except ImportError:
    # Run from the source tree: the package beside these tests.
    sys.path.insert(0, os.path.join(here, ".."))


@pytest.fixture
def conformance_dir():
    """The folder of the conformance JSON files: QUANT_BLOCK_CONFORMANCE_DIR
    (set by ctest), else the repository's test/Conformance/vectors."""
    return os.environ.get(
        "QUANT_BLOCK_CONFORMANCE_DIR",
        os.path.join(here, "..", "..", "test", "Conformance", "vectors"))
