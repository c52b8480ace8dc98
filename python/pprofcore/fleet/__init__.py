"""Fleets: many profiles over time.

:class:`ProfileSet` reads a set of files (or Profiles) in parallel, in bounded
memory, and gives their timeline (:meth:`~ProfileSet.series`), what moved
between two windows (:meth:`~ProfileSet.movers`) and their merge. A Parquet
store (:meth:`ProfileSet.to_parquet`, :func:`open_store`) keeps a fleet on disk
in an open layout that DuckDB queries with SQL. pandas is needed for the
tables, pyarrow for the store and duckdb for its queries (``pprofcore[fleet]``).
"""

from ._set import ProfileSet


def open_store(directory, *, external_access: bool = False):
    """Open the Parquet store in ``directory`` (see :class:`Store`).

    Its DuckDB queries read the store's own files only; ``external_access=True``
    lets :meth:`Store.sql` read and write other files, attach databases and
    load extensions, as a plain DuckDB connection does."""
    from ._store import Store

    return Store(directory, external_access=external_access)


def __getattr__(name):
    if name == "Store":
        from ._store import Store

        return Store
    if name == "IncompleteStoreWarning":
        from ._commit import IncompleteStoreWarning

        return IncompleteStoreWarning
    if name in ("series", "movers", "heatmap", "lines"):
        from . import _movers, _plots, _series

        return {"series": _series.series, "movers": _movers.movers, "heatmap": _plots.heatmap, "lines": _plots.lines}[
            name
        ]
    raise AttributeError(name)


__all__ = ["IncompleteStoreWarning", "ProfileSet", "Store", "open_store", "series", "movers", "heatmap", "lines"]
