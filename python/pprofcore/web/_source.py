"""Where the Source view may read files from.

pprof resolves a listing's file names as they are when absolute, and relative
ones under ``-source_path`` (default the current directory). The explorer
serves those files to a browser, so it is stricter: a relative name that
leaves its root through ``..`` or through a symlink is refused, and so is a
name found only by pprof's walk up the parents of the root. The roots are
fixed when the explorer starts; no request can change them.
"""

from __future__ import annotations

import os
from typing import List, Optional

from ..reports.listing import trim_source_path


class SourceGuard:
    """The source roots of one explorer (``source_path``: ``os.pathsep``-separated)."""

    def __init__(self, source_path: Optional[str], trim_path: str = ""):
        self.search_path = source_path if source_path is not None else os.getcwd()
        self.trim = trim_path
        self.roots: List[str] = [os.path.realpath(d) for d in self.search_path.split(os.pathsep) if d]

    def refusal(self, name: str) -> str:
        """Why ``name`` (a listing's file) may not be shown, or "" when it may."""
        rel = trim_source_path(name, self.trim, self.search_path)
        if os.path.isabs(rel):
            return ""  # absolute names are read as they are, as pprof does
        if ".." in rel.replace("\\", "/").split("/"):
            return f"refused: {rel} leaves the source root through '..'"
        # The candidates in the order pprof's reader tries them (each root, then its
        # parents): the first that exists is the one listed, and it must be inside its root.
        for root in self.roots:
            d = root
            while True:
                path = os.path.join(d, rel)
                if os.path.lexists(path):
                    if d != root:
                        return f"refused: {rel} is found only above the source root {root}"
                    real = os.path.realpath(path)
                    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
                        return f"refused: {rel} leaves the source root through a symlink"
                    return ""
                parent = os.path.dirname(d)
                if parent == d:
                    break
                d = parent
        return f"could not find file {rel} under the source path"
