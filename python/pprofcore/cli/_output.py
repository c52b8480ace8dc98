"""``-output=FILE`` for every pprof report: what the report prints to stdout
(text or bytes) goes to FILE instead, written whole or not at all, and stderr
says "Generating report in FILE" as pprof does. Nothing is written when the
report fails."""

from __future__ import annotations

import contextlib
import io
import sys
from typing import Iterator, List, Optional

from .. import _atomic


@contextlib.contextmanager
def report_output(path: Optional[str], status: List[int]) -> Iterator[None]:
    """Redirects stdout (``sys.stdout.buffer`` too) to ``path`` while the block
    runs; writes the file when ``status[0]`` is 0 afterwards. No-op without a path."""
    if not path:
        yield
        return
    raw = io.BytesIO()
    text = io.TextIOWrapper(raw, encoding="utf-8", newline="\n", write_through=True)
    with contextlib.redirect_stdout(text):
        yield
    text.flush()
    if status and status[0] == 0:
        _atomic.write_bytes(path, raw.getvalue())
        print(f"Generating report in {path}", file=sys.stderr)


def stdout_bytes(data: bytes) -> None:
    """Writes bytes to stdout (or to the ``-output`` file being collected)."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (the shell's output in tests): SVG and DOT are text
        sys.stdout.write(data.decode("utf-8", "replace"))
        return
    buffer.write(data)
    buffer.flush()


# What pprof never writes to a terminal (or the shell's screen): the file
# suffix of each such report (its awayFromTTY).
AWAY_FROM_TTY = {
    "svg": "svg",
    "png": "png",
    "pdf": "pdf",
    "ps": "ps",
    "gif": "gif",
    "callgrind": "callgraph.out",
    "proto": "pb.gz",
    "topproto": "pb.gz",
}


def report_bytes(data: bytes, report: str) -> None:
    """Writes a report's bytes to stdout; when stdout is a terminal and pprof
    would not write this report there, to a new ``profileNNN.<suffix>`` instead,
    saying so on stderr as pprof does."""
    suffix = AWAY_FROM_TTY.get(report)
    if suffix is not None and sys.stdout.isatty():
        path = new_report_file(suffix)
        with open(path, "wb") as f:
            f.write(data)
        print(f"Generating report in {path}", file=sys.stderr)
        return
    stdout_bytes(data)


def new_report_file(fmt: str, directory: str = "") -> str:
    """A new ``profileNNN.<fmt>`` in ``directory`` (the current one by default),
    created empty so no other writer takes it: where pprof puts an image that
    would otherwise go to a terminal, or to the shell's screen."""
    return _atomic.claim_numbered(directory, "profile", f".{fmt}")
