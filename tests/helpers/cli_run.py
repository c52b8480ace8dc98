"""The command line run in this process, for the CLI tests that compare its
bytes with go tool pprof's (test_cli_dot, test_cli_outputs)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pprofcore
from pprofcore.cli import main

DATA = Path(pprofcore.__file__).parent / "data"
CPU = str(DATA / "example-cpu.pb.gz")
HEAP = str(DATA / "example-heap.pb.gz")


def run_cli(*argv: str):
    """``pprofcore ARGV`` in this process: (exit status, stdout bytes, stderr text)."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="\n", write_through=True)
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    out.flush()
    return rc, raw.getvalue(), err.getvalue()


def pprofcore_dot(*argv: str) -> str:
    rc, out, err = run_cli("-dot", *argv)
    assert rc == 0, err
    return out.decode("utf-8")
