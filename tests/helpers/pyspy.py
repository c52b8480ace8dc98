"""py-spy, the real producer, recording a small script for the tests of the
readers of its outputs (tests/core/test_read_collapsed.py, test_read_speedscope.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

#: Skips a test where py-spy is not installed.
needs_pyspy = pytest.mark.skipif(
    not shutil.which("py-spy"), reason="py-spy is not installed (pip install py-spy; Linux, ptrace)"
)


def record(tmp_path, script: str, fmt: str, out) -> subprocess.CompletedProcess:
    """py-spy records ``script`` (run from ``tmp_path``) at 200 Hz in format
    ``fmt`` into ``out``; skips the test when py-spy cannot attach (ptrace)."""
    (tmp_path / "work.py").write_text(script)
    r = subprocess.run(
        ["py-spy", "record", "--format", fmt, "-r", "200", "-o", str(out), "--", sys.executable, "work.py"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    if r.returncode != 0:
        pytest.skip(f"py-spy record failed (ptrace not permitted?): {r.stderr[-200:]!r}")
    return r
