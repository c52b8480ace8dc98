"""The collector's way into a store: profiles handed over one at a time are
committed in batches by the store's own path (``_store.Writer``, ``_commit``),
each batch under the store's lock, so an ingest or a second collector can run
between two batches and a kill leaves whole batches or nothing.

Not here: fetching (``_collect``), the push endpoint (``_receive``)."""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from . import _commit
from ._store import Writer, header_row

#: The columns of ``profiles`` that every stored row has (``_store.header_row``
#: and the writer's own); a label may not take one of these names.
STORE_COLUMNS = frozenset(
    {
        "profile_id",
        "day",
        "main_mapping_id",
        "path",
        "time",
        "time_nanos",
        "duration_nanos",
        "sample_types",
        "sample_units",
        "totals",
        "period_type",
        "period_unit",
        "period",
        "comments",
        "drop_frames",
        "keep_frames",
        "default_sample_type",
        "doc_url",
        "n_samples",
    }
)
_LABEL_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")

#: Tries to commit a profile before it is given up (and reported).
MAX_TRIES = 5
#: Seconds between tries after a failed commit.
RETRY_PAUSE = 1.0


@dataclass
class Handed:
    """One profile waiting for its commit; ``done`` is set once it is
    committed (``ok``) or given up."""

    profile: Any  # a pprofcore.Profile
    path: str
    labels: Dict[str, str]
    collected_ns: int
    urgent: bool = False
    tries: int = 0
    done: threading.Event = field(default_factory=threading.Event)
    ok: bool = False


class Sink:
    """Commits handed profiles to the store in ``directory``: when the oldest
    has waited ``commit_every`` seconds, when ``batch`` are waiting, or at
    once for a waiter (:meth:`put` with ``wait``). :meth:`close` commits what
    is left."""

    def __init__(
        self, directory, *, commit_every: float, batch: int = 256, say: Callable[[str], None] = lambda _: None
    ) -> None:
        self.dir = Path(os.fspath(getattr(directory, "directory", directory)))  # a folder or an open Store
        self.dir.mkdir(parents=True, exist_ok=True)
        self.commit_every = commit_every
        self.batch = batch
        self.say = say
        self.committed = 0
        self.commits = 0
        self.dropped = 0
        self._pending: List[Handed] = []
        self._urgent = 0  # pending items someone waits on
        self.max_pending = 2 * batch
        self._cond = threading.Condition()
        self._closing = False
        self._writer: Optional[Writer] = None
        self._known: Optional[set] = None
        self._thread = threading.Thread(target=self._run, name="pprofcore-collect-commit", daemon=True)
        self._thread.start()

    def put(self, profile, path: str, labels: Dict[str, str], *, urgent: bool = False) -> Optional[Handed]:
        """Hand over a profile; None once the sink is closing (the profile is
        not taken). ``urgent``: commit soon, for a caller waiting on ``done``."""
        item = Handed(profile, path, labels, time.time_ns(), urgent)
        with self._cond:
            # a store slower than the targets: the fetchers wait here (rounds are
            # skipped) rather than profiles piling up in memory
            while len(self._pending) >= self.max_pending and not self._closing:
                self._cond.wait()
            if self._closing:
                return None
            self._pending.append(item)
            self._urgent += urgent
            self._cond.notify_all()
        return item

    def close(self, timeout: Optional[float] = None) -> bool:
        """Commit what is pending and stop; False when that did not end
        within ``timeout`` (the batch then commits whole or not at all)."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout)
        return not self._thread.is_alive()

    # ------------------------------------------------------------------ the thread
    def _due(self) -> Optional[float]:
        """Seconds until the pending profiles must be committed (0: now)."""
        if not self._pending:
            return None
        if self._closing or self._urgent or len(self._pending) >= self.batch:
            return 0.0
        age = time.time_ns() - self._pending[0].collected_ns
        return max(0.0, self.commit_every - age / 1e9)

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    due = self._due()
                    if due == 0.0:
                        break
                    if due is None and self._closing:
                        return
                    self._cond.wait(due)
                items, self._pending = self._pending[: self.batch], self._pending[self.batch :]
                self._urgent -= sum(i.urgent for i in items)
                self._cond.notify_all()  # room for the fetchers
            try:
                self._commit(items)
            except Exception as e:  # a full disk, a store another program broke: keep the profiles, try again
                self._writer = None  # its ids may name rows that were never written
                self.say(f"collect: could not write to {self.dir}: {e}")
                self._keep(items)
                with self._cond:
                    if self._closing:
                        for item in self._pending:
                            item.done.set()
                        self.dropped += len(self._pending)
                        self.say(f"collect: {len(self._pending)} profile(s) not written")
                        self._pending = []
                        return
                time.sleep(RETRY_PAUSE)
                continue
            for item in items:
                item.ok = True
                item.done.set()

    def _keep(self, items: List[Handed]) -> None:
        """Put a failed batch back in front, less what was tried too often or
        does not fit."""
        for item in items:
            item.tries += 1
        again = [i for i in items if i.tries < MAX_TRIES]
        with self._cond:
            self._pending[:0] = again
            over = max(0, len(self._pending) - self.max_pending)
            lost = [i for i in items if i.tries >= MAX_TRIES] + self._pending[:over]
            del self._pending[:over]
            self._urgent = sum(i.urgent for i in self._pending)
        for item in lost:
            item.done.set()
        if lost:
            self.dropped += len(lost)
            self.say(f"collect: gave up {len(lost)} profile(s) the store would not take")

    def _commit(self, items: List[Handed]) -> None:
        """One batch: under the lock, numbered after every committed profile."""
        with _commit.Lock(self.dir):
            commits = _commit_names(self.dir)
            if self._writer is None or commits != self._known:
                # first batch, or someone else committed since ours: start from the store as it is
                self._writer = Writer(self.dir, _commit.prepare(self.dir))
            w = self._writer
            for item in items:
                w.add(item.profile, _facts(item))
            w.flush()
            self._known = _commit_names(self.dir)
        self.committed += len(items)
        self.commits += 1
        self.say(f"collect: committed {len(items)} profile(s), {self.committed} in all")


def check_labels(labels, what: str, taken=frozenset()) -> Dict[str, str]:
    """``labels`` (a mapping, ``KEY=VALUE`` strings or pairs) as a dict of columns:
    each key a SQL name (letters, digits, ``_``) that is neither a column of
    the store nor in ``taken``, each value a string. ValueError names the
    bad one, saying where it came from (``what``)."""
    if labels is None:
        return {}
    if isinstance(labels, str):
        labels = [labels]
    if not hasattr(labels, "items"):
        pairs = []
        for item in labels:
            if isinstance(item, tuple) and len(item) == 2:
                pairs.append(item)
                continue
            if not isinstance(item, str) or "=" not in item:
                raise ValueError(f"{what}: {item!r} is not KEY=VALUE")
            key, value = item.split("=", 1)
            pairs.append((key.strip(), value))
        labels = dict(pairs)
    out: Dict[str, str] = {}
    for key, value in labels.items():
        if not isinstance(key, str) or not _LABEL_KEY.match(key):
            raise ValueError(
                f"{what}: label name {key!r} must start with a letter or _, then letters, digits or _ "
                "(at most 64), so that SQL can name the column"
            )
        if key in STORE_COLUMNS or key in taken:
            raise ValueError(f"{what}: label name {key!r} is a column the store fills itself")
        if not isinstance(value, (str, int, float, bool)):
            raise ValueError(f"{what}: label {key!r} must be a string, not {type(value).__name__}")
        out[key] = str(value)
    return out


def _commit_names(d: Path) -> set:
    folder = d / _commit.COMMITS
    return set(os.listdir(folder)) if folder.is_dir() else set()


def _facts(item: Handed) -> dict:
    """The store's row of a collected profile: its header, its labels, and
    the time it was collected when the profile has none."""
    p = item.profile
    row = header_row(p, item.path, item.labels)
    t = p.time_nanos or item.collected_ns
    if not p.time_nanos:
        import pandas as pd

        row["time"], row["time_nanos"] = pd.Timestamp(t, unit="ns", tz="UTC"), t
    day = np.datetime64(t, "ns").astype("datetime64[D]").astype(str)
    return {"day": day, "row": row}
