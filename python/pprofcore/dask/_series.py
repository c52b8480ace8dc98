"""``pprofcore.dask.series``: the fleet series of many files as a Dask
DataFrame whose computed value equals :meth:`pprofcore.ProfileSet.series`.

Per profile, one partition per chunk of files: each task reduces its files
the way the local series does (``fleet._series``: local files straight from
the C++ reader, other URLs and ``errors="skip"`` decoded and aggregated with
the same node table); a small summary task then checks that every chunk
picked the same sample type and gives each partition its global row numbers,
so the computed frame (index, order, attrs) is the local one. With ``freq``,
chunks sum their rows per time bucket and the buckets combine in a tree into
one small partition."""

from __future__ import annotations

from typing import List, Optional, Sequence

import numpy as np

from .._io import DEFAULT_MAX_DECOMPRESSED_SIZE
from ..fleet import _series as local
from . import _client, _read
from ._read import Item, Skipped


class SeriesPart:
    """What a chunk's task returns: its rows (``frame`` per profile, or
    ``rows`` bucketed by time), its sample types, total and skipped files."""

    __slots__ = ("frame", "rows", "type_names", "total", "skipped")

    def __init__(self, frame=None, rows=None, type_names=frozenset(), total=0, skipped=None) -> None:
        self.frame, self.rows, self.type_names, self.total = frame, rows, set(type_names), total
        self.skipped = skipped if skipped is not None else Skipped()

    def __getstate__(self):
        return self.frame, self.rows, self.type_names, self.total, self.skipped

    def __setstate__(self, state) -> None:
        self.frame, self.rows, self.type_names, self.total, self.skipped = state


def _rows_getstate(r: local.Rows):
    return tuple(getattr(r, k) for k in local.Rows.__slots__)


def series_chunk(
    chunk: Sequence[Item],
    sample_type,
    by: str,
    value: str,
    freq,
    normalize: Optional[str],
    errors: str = "raise",
    max_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    buckets=None,
) -> SeriesPart:
    """Leaf task: the series rows of the files of ``chunk``."""
    skipped = Skipped()
    spec = local.parse_by(by, buckets)
    if errors == "raise" and not any(_read.is_remote(p) for _, p in chunk):
        # Local files: the C++ reader reduces each file straight to its rows
        # (the local series' way), raising for the first bad file as decode would.
        positions = [pos for pos, _ in chunk]
        paths = [_read.local_path(p) for _, p in chunk]
        rows = local.rows_from_files(paths, sample_type, spec, value, threads=1, max_size=max_size)
    else:
        positions = []
        profiles = []
        for pos, _, p in _read.decode(chunk, errors, skipped, max_size):
            profiles.append(p)
            positions.append(pos)
        rows = local.rows_from_profiles(profiles, sample_type, spec, value, threads=1)
    part = SeriesPart(type_names=rows.type_names, total=int(rows.totals.sum()), skipped=skipped)
    if freq is not None:
        part.rows = _Picklable(local.bucket(rows, freq))
        return part
    df = local.finish(rows, by=by, value=value, normalize=normalize, bucketed=False, buckets=buckets)
    df["profile"] = np.asarray(positions, dtype=np.int64)[df["profile"].to_numpy()]
    part.frame = df
    return part


class _Picklable:
    """Carries a ``fleet._series.Rows`` (slotted, no pickle support) between workers."""

    __slots__ = ("rows",)

    def __init__(self, rows: local.Rows) -> None:
        self.rows = rows

    def __getstate__(self):
        return _rows_getstate(self.rows)

    def __setstate__(self, state) -> None:
        self.rows = local.Rows(*state)


def combine_buckets(parts: List[SeriesPart], freq) -> SeriesPart:
    """Inner task (``freq``): bucket the rows of ``parts`` together."""
    rows = local.bucket(local.concat([x.rows.rows for x in parts]), freq)
    return SeriesPart(
        rows=_Picklable(rows),
        type_names=set().union(*(x.type_names for x in parts)),
        total=sum(x.total for x in parts),
        skipped=_read.concat_skipped([x.skipped for x in parts]),
    )


def finish_buckets(part: SeriesPart, by, value: str, normalize: Optional[str], buckets=None):
    return local.finish(part.rows.rows, by=by, value=value, normalize=normalize, bucketed=True, buckets=buckets)


class Summary:
    """Row offsets of the partitions, the sample type and total of the set."""

    __slots__ = ("offsets", "sample_type", "total", "skipped")

    def __init__(self, offsets, sample_type, total, skipped) -> None:
        self.offsets, self.sample_type, self.total, self.skipped = offsets, sample_type, total, skipped

    def __getstate__(self):
        return self.offsets, self.sample_type, self.total, self.skipped

    def __setstate__(self, state) -> None:
        self.offsets, self.sample_type, self.total, self.skipped = state


def part_info(part: SeriesPart):
    """The little a summary needs from a chunk (its frame stays on its worker)."""
    return len(part.frame), part.type_names, part.total, part.skipped


def summarize(infos: list) -> Summary:
    types = set().union(*(t for _, t, _, _ in infos)) if infos else set()
    if len(types) > 1:
        raise ValueError(f"series(): profiles picked different sample types {sorted(types)}; pass sample_type=")
    offsets = np.concatenate([[0], np.cumsum([n for n, _, _, _ in infos])]).astype(np.int64)
    return Summary(
        offsets,
        next(iter(types)) if types else None,
        int(sum(t for _, _, t, _ in infos)),
        _read.concat_skipped([s for _, _, _, s in infos]),
    )


def finish_part(part: SeriesPart, summary: Summary, k: int, by, value: str, normalize: Optional[str]):
    """Partition ``k``: its rows numbered as in the whole set, with the set's attrs."""
    import pandas as pd

    df = part.frame
    df.index = pd.RangeIndex(int(summary.offsets[k]), int(summary.offsets[k + 1]))
    df.attrs = {
        "sample_type": summary.sample_type,
        "total": summary.total,
        "value": value,
        "by": by,
        "normalize": normalize,
        "fill": None,
    }
    return df


def _meta(bucketed: bool, normalize: Optional[str], spec: local.By):
    import pandas as pd
    from dask.dataframe.utils import clear_known_categories

    cols = {} if bucketed else {"profile": pd.Series([], dtype="int64")}
    cols["time"] = pd.Series(pd.to_datetime(np.zeros(0, dtype=np.int64), unit="ns", utc=True))
    cols["name"] = pd.Series(pd.Categorical([]))
    cols["value"] = pd.Series([], dtype="float64" if normalize is not None else "int64")
    for column in spec.columns():
        cols[column] = pd.Series(pd.Categorical([]))
    return clear_known_categories(pd.DataFrame(cols))


def series(
    paths,
    sample_type=None,
    *,
    by="functions",
    value: str = "flat",
    freq=None,
    normalize: Optional[str] = None,
    buckets=None,
    client=None,
    chunk_size: Optional[int] = None,
    split_every: int = 8,
    errors: str = "raise",
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
):
    """The fleet series of many files as a lazy ``dask.dataframe.DataFrame``.

    Same parameters and columns as :meth:`pprofcore.ProfileSet.series`
    (``profile, time, name, value``; ``time, name, value`` with ``freq``; a
    column per label key with ``by="label:KEY"``; no ``fill``), and
    computing it gives exactly ``ProfileSet(paths).series(...)``: rows, order,
    index, dtypes and ``attrs``. ``profile`` is the position in ``paths``.
    Without ``freq`` there is one partition per chunk of files, in input
    order; with ``freq`` the buckets combine in a tree into one partition.

    Parameters
    ----------
    paths : iterable of path-like or URL, or a str glob pattern
        As :func:`pprofcore.dask.merge`.
    client : distributed.Client, optional
        Used to size the chunks; the frame is computed by whichever scheduler
        is active when you call ``.compute()``.
    chunk_size, split_every
        Files per task; children per bucket-combining task.
    errors : {"raise", "skip"}
        ``"skip"`` leaves unreadable files out (their ``profile`` positions are
        absent) and returns ``(frame, skipped)``, where ``skipped`` is a lazy
        one-partition DataFrame of the files left out: ``path``, ``error``
        (the name of the exception :func:`pprofcore.load` raises for it,
        e.g. ``DecodeError``) and ``message``.
        Compute both together, ``df, bad = dask.compute(frame, skipped)``, so
        each file is read once.

    Examples
    --------
    >>> from pprofcore import dask as pdask
    >>> paths = [pprofcore.example_path()] * 2
    >>> frame = pdask.series(paths)
    >>> bool(frame.compute()["value"].sum() == pprofcore.ProfileSet(paths).series()["value"].sum())
    True
    """
    dask = _client.require_dask()
    import dask.dataframe as dd

    local.require_pandas()
    spec = local.check_options(by, value, normalize, buckets)
    _read.check_errors(errors)
    items = _read.expand(paths)
    if not items:
        raise ValueError("series(): no files")
    size = _client.chunk_size(len(items), _client.resolve(client), chunk_size)
    token = dask.base.tokenize(
        items, sample_type, by, value, freq, normalize, buckets, errors, max_decompressed_size, size
    )
    name = f"pprofcore-series-{token}"
    delayed = dask.delayed
    parts = [
        delayed(series_chunk, pure=True)(
            c,
            sample_type,
            by,
            value,
            freq,
            normalize,
            errors,
            max_decompressed_size,
            buckets,
            dask_key_name=f"{name}-chunk-{k}",
        )
        for k, c in enumerate(_read.chunks(items, size))
    ]
    if freq is not None:
        root = _client.tree(parts, _Bucketer(freq), split_every, name)
        frame = delayed(finish_buckets, pure=True)(root, by, value, normalize, buckets, dask_key_name=f"{name}-finish")
        ddf = dd.from_delayed([frame], meta=_meta(True, normalize, spec), verify_meta=False)
        skipped = delayed(_skipped_frame, pure=True)(root, dask_key_name=f"{name}-skipped")
    else:
        infos = [delayed(part_info, pure=True)(p, dask_key_name=f"{name}-info-{k}") for k, p in enumerate(parts)]
        summary = delayed(summarize, pure=True)(infos, dask_key_name=f"{name}-summary")
        frames = [
            delayed(finish_part, pure=True)(p, summary, k, by, value, normalize, dask_key_name=f"{name}-part-{k}")
            for k, p in enumerate(parts)
        ]
        ddf = dd.from_delayed(frames, meta=_meta(False, normalize, spec), verify_meta=False)
        skipped = delayed(_skipped_frame, pure=True)(summary, dask_key_name=f"{name}-skipped")
    if errors == "raise":
        return ddf
    import pandas as pd

    meta = pd.DataFrame({k: pd.Series([], dtype=object) for k in ("path", "error", "message")})
    return ddf, dd.from_delayed([skipped], meta=meta, verify_meta=False)


class _Bucketer:
    """``combine_buckets`` with its ``freq`` (a picklable callable for the tree)."""

    def __init__(self, freq) -> None:
        self.freq = freq

    def __call__(self, parts: List[SeriesPart]) -> SeriesPart:
        return combine_buckets(parts, self.freq)


def _skipped_frame(x):
    """The skipped files of a root part or summary, as a DataFrame."""
    import pandas as pd

    errors = x.skipped.errors
    return pd.DataFrame(
        {
            "path": pd.Series(x.skipped.paths, dtype=object),
            "error": pd.Series([type(e).__name__ for e in errors], dtype=object),
            "message": pd.Series([str(e) for e in errors], dtype=object),
        }
    )
