"""Profiles recorded by node (Debian package nodejs) for the V8 readers'
tests: a script run with ``--cpu-prof`` or ``--heap-prof``, the test skipped
with a clear message where node is not installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import pprofcore


def record(tmp: Path, kind: str, script: str, *flags: str) -> Path:
    """Runs ``script`` under ``node --{kind}-prof`` (``kind``: ``cpu`` or
    ``heap``) in ``tmp``; returns the written ``w.{kind}profile``."""
    suffix = f"{kind}profile"
    if not shutil.which("node"):
        pytest.skip(f"node is not installed (Debian package nodejs): no real .{suffix} to read")
    (tmp / "work.js").write_text(script)
    prof = f"--{kind}-prof"
    command = ["node", prof, f"{prof}-dir=.", f"{prof}-name=w.{suffix}", *flags, "work.js"]
    subprocess.run(command, cwd=tmp, check=True, timeout=60)
    return tmp / f"w.{suffix}"


def assert_refused(path: Path, text: str, fmt: str, says: str) -> None:
    """``load`` of ``text`` written at ``path`` raises a DecodeError naming
    the format (a regex), what is wrong and the path."""
    path.write_text(text)
    with pytest.raises(pprofcore.DecodeError, match=fmt) as e:
        pprofcore.load(path)
    assert says in str(e.value)
    assert e.value.path == str(path)
