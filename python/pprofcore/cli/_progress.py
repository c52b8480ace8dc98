"""A minimal progress bar for the CLI: drawn on stderr only when it is a terminal."""

from __future__ import annotations

import sys
import threading
import time


class Progress:
    def __init__(self, total: int, label: str, stream=None) -> None:
        self.total, self.label = total, label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self._lock = threading.Lock()
        self._last = 0.0
        self._t0 = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        with self._lock:
            if done < total and now - self._last < 0.1:
                return
            self._last = now
            width = 30
            filled = int(width * done / max(total, 1))
            self.stream.write(
                f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {now - self._t0:.1f}s"
            )
            if done >= total:
                self.stream.write("\n")
            self.stream.flush()
