"""Runs the Python snippets of docs/Embedding.md as written, so that the
documentation cannot drift from the package."""

import os
import re

import pytest

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs",
                   "Embedding.md")


def python_snippets():
    with open(DOC) as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


@pytest.mark.parametrize("index", range(len(python_snippets())))
def test_embedding_doc_snippet_runs(index):
    snippet = python_snippets()[index]
    if "import onnx" in snippet or "from onnx" in snippet:
        pytest.importorskip("onnx", reason="needs python3-onnx")
    exec(compile(snippet, f"docs/Embedding.md snippet {index}", "exec"), {})
