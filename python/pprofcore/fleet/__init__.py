"""Fleets: many profiles over time.

:class:`ProfileSet` reads a set of files (or Profiles) in parallel, in bounded
memory, and gives their timeline (:meth:`~ProfileSet.series`), what moved
between two windows (:meth:`~ProfileSet.movers`, :meth:`~ProfileSet.compare`),
by code or by label (``by="label:endpoint"``, :meth:`~ProfileSet.labels`), and
their merge. A Parquet store (:meth:`ProfileSet.to_parquet`, :func:`open_store`)
keeps a fleet on disk in an open layout that DuckDB queries with SQL; :func:`collect`
fills one from running programs (their ``/debug/pprof`` endpoints, or profiles
they push). pandas is needed for the
tables, pyarrow for the store and duckdb for its queries (``pprofcore[fleet]``).
:func:`example_fleet` writes a made-up fleet whose functions and labels drift.
"""

from ..display.fleet import heatmap, lines
from ._collect import Collector, collect
from ._commit import IncompleteStoreWarning
from ._example import example_fleet
from ._label_shares import label_shares
from ._movers import compare, movers
from ._series import series
from ._set import ProfileSet
from ._store import Store


def open_store(directory, *, external_access: bool = False):
    """Open the Parquet store in ``directory`` (see :class:`Store`).

    Its DuckDB queries read the store's own files only; ``external_access=True``
    lets :meth:`Store.sql` read and write other files, attach databases and
    load extensions, as a plain DuckDB connection does.

    Examples
    --------
    >>> s = pprofcore.ProfileSet([pprofcore.example_path()] * 2)
    >>> s.to_parquet("store").close()
    >>> store = pprofcore.open_store("store")
    >>> store.sql("select count(*) as n from profiles")["n"].tolist()
    [2]
    >>> store.profile() == pprofcore.merge_files([pprofcore.example_path()] * 2)
    True
    >>> store.close()
    """
    return Store(directory, external_access=external_access)


__all__ = [
    "Collector",
    "IncompleteStoreWarning",
    "ProfileSet",
    "Store",
    "collect",
    "open_store",
    "series",
    "movers",
    "compare",
    "label_shares",
    "example_fleet",
    "heatmap",
    "lines",
]
