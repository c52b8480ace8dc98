"""The decoded sources of one interactive session.

The shell runs every command through the one-shot command line; without this
cache each command would read and decode its files again. A local file is
kept under its path, modification time and size, so a file rewritten during
the session is read again; profiles are immutable, so a cached one is shared
by every command (``-base``, the filters and the reports make new ones).
URLs are not cached: the shell fetches once and reads the saved copy.
"""

from __future__ import annotations

import os
from typing import Callable, Dict, Tuple

Key = Tuple[str, int, int]


class SourceCache:
    """Decoded profiles by (absolute path, mtime_ns, size); ``loads`` counts the
    files actually read."""

    def __init__(self) -> None:
        self._profiles: Dict[Key, object] = {}
        self.loads = 0

    def load(self, path: str, read: Callable[[str], object]) -> object:
        """The profile of ``path``: the cached one while the file is unchanged,
        else ``read(path)``, kept for the next command."""
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
        cached = self._profiles.get(key)
        if cached is None:
            cached = read(path)
            self.loads += 1
            # one version per path: an older one is of no further use
            self._profiles = {k: v for k, v in self._profiles.items() if k[0] != key[0]}
            self._profiles[key] = cached
        return cached
