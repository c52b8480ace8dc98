"""Writing a view to a file whose extension picks the format (flame graphs,
call graphs)."""

from __future__ import annotations

import os
from typing import Callable, Dict

from .. import _atomic


def save_by_extension(path, writers: Dict[str, Callable[[], str]], formats: str) -> None:
    """Writes ``writers[ext]()`` to ``path`` as UTF-8 text, atomically (a
    temporary file renamed over ``path``); an unknown extension raises
    ValueError naming the ``formats`` that are understood."""
    p = os.fspath(path)
    ext = os.path.splitext(p)[1].lower()
    if ext not in writers:
        raise ValueError(f"cannot tell the format of {p!r}: use {formats}")
    text = writers[ext]()
    _atomic.write_text(p, text)
