"""What the tests in this folder share: the quant_block package from this
checkout (not an installed one) on the import path, and where the external
conformance vectors are (test/Conformance/vectors)."""

import os
import sys

import pytest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))


@pytest.fixture
def conformance_dir():
    """The folder of the conformance JSON files: QUANT_BLOCK_CONFORMANCE_DIR
    (set by ctest), else the repository's test/Conformance/vectors."""
    return os.environ.get(
        "QUANT_BLOCK_CONFORMANCE_DIR",
        os.path.join(here, "..", "..", "test", "Conformance", "vectors"))
