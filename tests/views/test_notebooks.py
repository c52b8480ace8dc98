"""Every notebook's code cells run top to bottom without errors (executed in
plain Python, so Jupyter is not needed to keep the notebooks honest)."""

from __future__ import annotations

import json

import pytest
from testenv import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, monkeypatch):
    pytest.importorskip("pandas")
    cells = json.loads(path.read_text())["cells"]
    code = [
        ("".join(c["source"]) if isinstance(c["source"], list) else c["source"])
        for c in cells
        if c["cell_type"] == "code"
    ]
    assert code, f"{path.name} has no code cells"
    monkeypatch.chdir(path.parent)
    namespace: dict = {"__name__": "__notebook__"}
    for i, src in enumerate(code):
        try:
            exec(compile(src, f"{path.name}[cell {i}]", "exec"), namespace)
        except Exception as e:  # pragma: no cover - the message is the point
            pytest.fail(f"{path.name} cell {i} failed: {type(e).__name__}: {e}\n{src}")


def test_notebooks_have_outputs():
    # Committed notebooks are executed, so readers see results without running them.
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text())["cells"]
        assert any(c.get("outputs") for c in cells if c["cell_type"] == "code"), path.name
