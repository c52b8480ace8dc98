"""The fleet's Parquet store: write (and append) a ProfileSet as open tables,
query them with DuckDB, and rebuild profiles from them.

Layout of ``DIR`` (hive-style ``day=`` partitions, one file per written batch)::

    profiles/day=YYYY-MM-DD/*.parquet   one row per profile: header + metadata
    samples/day=YYYY-MM-DD/*.parquet    profile_id, sample, stack_id, values, labels
    stacks/*.parquet                    stack_id, location_ids (leaf first)
    locations/*.parquet                 location_id, mapping_id, address, is_folded, lines
    functions/*.parquet                 function_id, name, system_name, filename, start_line
    mappings/*.parquet                  mapping_id, memory_start, ... build_id, has_*

    _commits/*.json                     one per committed batch: the parts it made visible
    .lock                               held (flock) by the ingest writing, if any

Stack, location, function and mapping ids are content hashes (``_ids``), so
each distinct row is written once however many profiles share it. Parts are
written and made visible only through ``_commit`` (temporary names, renames,
one commit file last); a reader takes the files commits name, by name."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Dict, List, Optional, Tuple

import numpy as np

from .._optional import require_pandas, require_pyarrow
from . import _commit, _ids, _sql
from ._rebuild import HEADER_COLUMNS, rebuild

if TYPE_CHECKING:  # pragma: no cover
    from ._set import ProfileSet

TABLES = _commit.TABLES
PARTITIONED = ("profiles", "samples")
_ID_COLUMN = {"stacks": "stack_id", "locations": "location_id", "functions": "function_id", "mappings": "mapping_id"}
#: Profiles per written file (larger files, fewer of them).
WRITE_BATCH = 256
#: Profiles rebuilt per round of queries (each round scans the tables once).
REBUILD_BATCH = 128


def _require_duckdb():
    try:
        import duckdb
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("the fleet store's queries need duckdb: pip install 'pprofcore[fleet]'") from None
    return duckdb


def existing_ids(snap: "_commit.Snapshot", table: str) -> np.ndarray:
    """The ids of a content table's committed rows."""
    import pyarrow.parquet as pq

    col = "profile_id" if table == "profiles" else _ID_COLUMN[table]
    parts = [pq.read_table(f, columns=[col]).column(0).to_numpy() for f in snap.parts[table]]
    return np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)


def next_profile_id(snap: "_commit.Snapshot") -> int:
    """The first profile id after every committed one (call it under the
    store's lock: the ids stay free until this writer commits)."""
    ids = existing_ids(snap, "profiles")
    return int(ids.max()) + 1 if len(ids) else 0


class Writer:
    """Accumulates table pieces and writes one Parquet file per table per batch."""

    def __init__(self, directory: Path, snap: Optional["_commit.Snapshot"] = None, first_id: int = 0) -> None:
        # snap: the store's committed state, read under its lock (its content
        # ids are not written again, profiles are numbered after it); None:
        # a writer that knows nothing of the store (a distributed ingest
        # deduplicates content and numbers profiles itself)
        self.pa = require_pyarrow()
        self.dir = directory
        self.seen: Dict[str, set] = {
            t: set(existing_ids(snap, t).tolist()) if snap is not None else set() for t in _ID_COLUMN
        }
        self.string_ids = _ids.StringHashes()
        self.next_id = next_profile_id(snap) if snap is not None else first_id
        self.pending: Dict[str, list] = {t: [] for t in TABLES}

    def _new(self, table: str, ids: np.ndarray):
        """Rows (first index of each id) whose id was never written."""
        uniq, first = np.unique(ids, return_index=True)
        seen = self.seen[table]
        # a set lookup per distinct row (not per sample) keeps appends O(new rows)
        fresh = np.fromiter((x not in seen for x in uniq.tolist()), dtype=bool, count=len(uniq))
        seen.update(uniq[fresh].tolist())
        return np.sort(first[fresh])

    def add(self, p, facts: dict) -> None:
        pa = self.pa
        strs = list(p.strings)
        sh = self.string_ids(strs)
        sarr = np.asarray(strs, dtype=object)
        f, m, loc, ln = p.functions, p.mappings, p.locations, p.lines
        fid = _ids.as_id(_ids.rows(1, sh[f.name], sh[f.system_name], sh[f.filename], f.start_line))
        mid = _ids.as_id(
            _ids.rows(
                2,
                m.memory_start,
                m.memory_limit,
                m.file_offset,
                sh[m.filename],
                sh[m.build_id],
                m.has_functions,
                m.has_filenames,
                m.has_line_numbers,
                m.has_inline_frames,
            )
        )
        line_fn = fid[ln.function]
        line_h = _ids.rows(3, line_fn, ln.line, ln.column)
        has_map = loc.mapping >= 0
        loc_map = np.full(len(loc.mapping), -1, dtype=np.int64)
        loc_map[has_map] = mid[loc.mapping[has_map]]
        lid = _ids.as_id(_ids.rows(4, loc_map, loc.address, loc.is_folded, _ids.segments(5, line_h, loc.line_offsets)))
        sid = _ids.as_id(_ids.segments(6, lid[p.stack_locations], p.stack_offsets))
        pid = self.next_id
        self.next_id += 1
        day = facts["day"]

        rows = self._new("functions", fid)
        if len(rows):
            self.pending["functions"].append(
                pa.table(
                    {
                        "function_id": fid[rows],
                        "name": sarr[f.name[rows]],
                        "system_name": sarr[f.system_name[rows]],
                        "filename": sarr[f.filename[rows]],
                        "start_line": f.start_line[rows],
                    }
                )
            )
        rows = self._new("mappings", mid)
        if len(rows):
            self.pending["mappings"].append(
                pa.table(
                    {
                        "mapping_id": mid[rows],
                        "memory_start": m.memory_start[rows],
                        "memory_limit": m.memory_limit[rows],
                        "file_offset": m.file_offset[rows],
                        "filename": sarr[m.filename[rows]],
                        "build_id": sarr[m.build_id[rows]],
                        **{
                            k: m[k][rows].astype(bool)
                            for k in ("has_functions", "has_filenames", "has_line_numbers", "has_inline_frames")
                        },
                    }
                )
            )
        rows = self._new("locations", lid)
        if len(rows):
            lo = loc.line_offsets
            starts, ends = lo[rows], lo[rows + 1]
            lens = ends - starts
            take = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens) + np.arange(int(lens.sum()))
            off = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
            lst = lambda v: pa.ListArray.from_arrays(pa.array(off), pa.array(v))  # noqa: E731
            self.pending["locations"].append(
                pa.table(
                    {
                        "location_id": lid[rows],
                        "mapping_id": pa.array(loc_map[rows], mask=loc_map[rows] < 0),
                        "address": loc.address[rows],
                        "is_folded": loc.is_folded[rows].astype(bool),
                        "function_ids": lst(line_fn[take]),
                        "lines": lst(ln.line[take]),
                        "columns": lst(ln.column[take]),
                    }
                )
            )
        rows = self._new("stacks", sid)
        if len(rows):
            so = p.stack_offsets
            starts, lens = so[rows], so[rows + 1] - so[rows]
            take = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens) + np.arange(int(lens.sum()))
            off = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
            self.pending["stacks"].append(
                pa.table(
                    {
                        "stack_id": sid[rows],
                        "location_ids": pa.ListArray.from_arrays(pa.array(off), pa.array(lid[p.stack_locations[take]])),
                    }
                )
            )

        n, k = len(p), len(p.sample_types)
        lab = p.labels
        loff = pa.array(p.label_offsets.astype(np.int32))
        has_str = lab.str >= 0
        self.pending["samples"].append(
            pa.table(
                {
                    "day": pa.array([day] * n, pa.string()),
                    "profile_id": np.full(n, pid, dtype=np.int64),
                    "sample": np.arange(n, dtype=np.int32),
                    "stack_id": sid,
                    "values": pa.ListArray.from_arrays(
                        pa.array(np.arange(n + 1, dtype=np.int32) * k), pa.array(p.values.reshape(-1))
                    ),
                    "label_keys": pa.ListArray.from_arrays(loff, pa.array(sarr[lab.key], pa.string())),
                    "label_strs": pa.ListArray.from_arrays(
                        loff, pa.array(sarr[np.maximum(lab.str, 0)], pa.string(), mask=~has_str)
                    ),
                    "label_nums": pa.ListArray.from_arrays(loff, pa.array(lab.num)),
                    "label_units": pa.ListArray.from_arrays(loff, pa.array(sarr[lab.num_unit], pa.string())),
                }
            )
        )
        main = int(mid[0]) if len(mid) else None
        row = {"day": day, "profile_id": pid, "main_mapping_id": main, **facts["row"]}
        self.pending["profiles"].append(row)

    def flush(self, name: Optional[str] = None, *, commit: bool = True) -> List[str]:
        """Write the pending rows as one part per table (and day), each
        atomically; with ``commit``, then commit them as one batch. Returns
        the parts written, relative to the store."""
        pa = self.pa
        batch = _commit.new_batch()
        name = name or f"part-{batch}.parquet"
        written: List[str] = []
        if self.pending["profiles"]:
            pd = require_pandas()
            df = pd.DataFrame(self.pending["profiles"])
            self.pending["profiles"] = [pa.Table.from_pandas(df, preserve_index=False)]
        for table, pieces in self.pending.items():
            if not pieces:
                continue
            t = pa.concat_tables(pieces, promote_options="permissive")
            if table in PARTITIONED:
                days = t.column("day").to_pylist()
                for day in sorted(set(days)):
                    mask = pa.array([d == day for d in days])
                    rel = f"{table}/day={day}/{name}"
                    _commit.write_part(self.dir / rel, t.filter(mask).drop_columns(["day"]))
                    written.append(rel)
            else:
                rel = f"{table}/{name}"
                _commit.write_part(self.dir / rel, t)
                written.append(rel)
            self.pending[table] = []
        if commit and written:
            _commit.commit(self.dir, batch, written)
        return written


def header_row(p, path, extra: dict) -> dict:
    pd = require_pandas()
    t = p.time_nanos
    totals = p.values.sum(axis=0, dtype=np.int64) if len(p) else np.zeros(len(p.sample_types), np.int64)
    row = {
        "path": path,
        "time": pd.Timestamp(t, unit="ns", tz="UTC") if t else pd.NaT,
        "time_nanos": t,
        "duration_nanos": p.duration_nanos,
        "sample_types": [t for t, _ in p.sample_types],
        "sample_units": [u for _, u in p.sample_types],
        "totals": totals.tolist(),
        "period_type": p.period_type[0] if p.period_type else None,
        "period_unit": p.period_type[1] if p.period_type else None,
        "period": p.period,
        "comments": list(p.comments),
        "drop_frames": p.drop_frames,
        "keep_frames": p.keep_frames,
        "default_sample_type": p.default_sample_type,
        "doc_url": p.doc_url,
        "n_samples": len(p),
    }
    for k, v in extra.items():
        if k not in row and k not in ("profile_id", "day", "main_mapping_id"):
            row[k] = v
    return row


def _metadata_of(s: "ProfileSet", i: int, path) -> dict:
    """The metadata columns of profile ``i`` of ``s`` (without reading the
    whole ``profiles`` table, which would decode every file once more)."""
    md = s._metadata
    if md is None:
        if s._source.reader is None or s._table is None:
            return {}
        row = s._table.iloc[int(s._rows[i])]  # a set rebuilt from a store: its stored columns
        skip = {"path", "time", "duration", "sample_types", "sample_units", "totals", *HEADER_COLUMNS, "n_samples"}
        return {k: v for k, v in row.items() if k not in skip}
    if callable(md):
        return dict(md(path) or {})
    return dict(md.iloc[int(s._rows[i])])


def write_store(s: "ProfileSet", directory, *, progress: Optional[Callable[[int, int], None]] = None) -> "Store":
    """Write (append) the profiles of ``s`` to the store in ``directory``.

    Holds the store's lock throughout (a second ingest waits); each batch of
    ``WRITE_BATCH`` profiles is committed as a whole, so a kill loses at most
    the batch being written, never part of a profile. A set made with
    ``repairs=``/``symbolize=`` writes the repaired, symbolized profiles (the
    store keeps their functions: no query symbolizes again) and each one's
    report columns in its ``profiles`` row."""
    d = Path(os.fspath(directory))
    d.mkdir(parents=True, exist_ok=True)
    with _commit.Lock(d):
        w = Writer(d, _commit.prepare(d))
        paths = s.paths
        done = 0
        for pos, profiles in s.chunks():
            prep = s._source.prepare
            for i, p in zip(pos.tolist(), profiles):
                extra = _metadata_of(s, i, paths[i])
                if prep is not None:  # what symbolize and the repairs did, kept per profile
                    extra.update(prep.reports.get(int(s._rows[i]), {}))
                t = p.time_nanos
                day = np.datetime64(t, "ns").astype("datetime64[D]").astype(str) if t else "none"
                w.add(p, {"day": day, "row": header_row(p, paths[i], extra)})
                done += 1
                if done % WRITE_BATCH == 0:
                    w.flush()
                if progress is not None:
                    progress(done, len(s))
        w.flush()
    return Store(d)


class Store:
    """A fleet on disk (see ``ProfileSet.to_parquet``), queried with DuckDB.

    The six tables are views of the same names: ``profiles``, ``samples``,
    ``stacks``, ``locations``, ``functions``, ``mappings``, over the part
    files that the store's commits name (listed by name, so a store whose
    path holds ``[``, ``?`` or ``*`` reads its own files only).

    Opening checks each part's schema and that no profile id is in two parts,
    and raises :class:`~pprofcore.DecodeError` naming the file otherwise.
    Files no commit names (an ingest killed or still running, foreign files)
    are not read: they are listed in ``incomplete`` and reported with an
    :class:`IncompleteStoreWarning`.

    DuckDB runs with external access off unless ``external_access=True``:
    queries read the store's parts and nothing else, and cannot write files
    elsewhere, attach databases or load extensions. ``where`` arguments must
    be one SQL expression over ``profiles`` (no ``;``, comments or subqueries).

    A Store may be used from several threads at once: each call runs on its
    own DuckDB cursor (a connection to the same in-memory database), so calls
    neither wait for nor disturb one another.

    Examples
    --------
    >>> import pprofcore, tempfile
    >>> d = tempfile.mkdtemp()
    >>> store = pprofcore.ProfileSet([pprofcore.example_path()] * 2).to_parquet(d)
    >>> int(store.sql("select count(*) as n from profiles")["n"][0])
    2
    """

    #: The class :meth:`profile_set` builds. ``fleet._set`` sits above this
    #: module (``ProfileSet.to_parquet`` writes and returns a Store) and sets
    #: it to ProfileSet where that class is defined; every way to a Store goes
    #: through ``pprofcore.fleet``, which has imported ``fleet._set`` by then.
    set_class: ClassVar[Any] = None

    def __init__(self, directory, *, external_access: bool = False) -> None:
        if not isinstance(external_access, bool):
            raise TypeError(f"external_access must be True or False, not {external_access!r}")
        self.directory = Path(os.fspath(directory))
        d = self.directory
        if not (d / "profiles").is_dir() and not (d / _commit.COMMITS).is_dir():
            raise FileNotFoundError(f"{d}: not a pprofcore fleet store (no profiles/ table)")
        duckdb = _require_duckdb()
        snap = _commit.Snapshot(d)
        snap.warn()
        #: Files under the store that no commit names, not read (see the class doc).
        self.incomplete: List[Path] = list(snap.incomplete)
        for t in TABLES:
            for f in snap.parts[t]:
                _check_part(d, t, f)
        self._con = con = duckdb.connect()
        for t in TABLES:
            files = [str(f.resolve()) for f in snap.parts[t]]
            if not files:
                # nothing written yet (e.g. no profile has mappings): an empty table of the same columns
                con.register("_arrow_empty", _empty_table(t))
                con.execute(f"create table _empty_{t} as select * from _arrow_empty")
                con.unregister("_arrow_empty")
                con.execute(f"create view {t} as select * from _empty_{t}")
                continue
            hive = "true" if t in PARTITIONED else "false"
            opts = f"hive_partitioning={hive}, union_by_name=true"
            con.execute(f"create view {t} as select * from read_parquet({_sql.file_list(files)}, {opts})")
        _check_ids(d, con, snap)
        if not external_access:
            # the views read their files by these names: the glob-escaped one is what DuckDB checks
            allowed = sorted({x for f in snap.all_parts() for x in (str(f.resolve()), _sql.no_glob(str(f.resolve())))})
            con.execute("set allowed_paths = $1", [allowed])
            con.execute("set enable_external_access = false")
            con.execute("set lock_configuration = true")  # a query cannot turn it back on

    def __repr__(self) -> str:
        return f"<pprofcore.fleet.Store {self.directory}>"

    def sql(self, query: str, params=None):
        """Run a DuckDB query over the store's views; returns a pandas DataFrame.

        A query DuckDB rejects raises ``ValueError`` with DuckDB's message;
        so does one reading or writing a file outside the store, unless the
        store was opened with ``external_access=True``."""
        require_pandas()
        duckdb = _require_duckdb()
        cur = self._con.cursor()  # one per call: safe from several threads
        try:
            cur.execute(query, params or [])
            huge = [d[0] for d in cur.description or [] if str(d[1]) == "HUGEINT"]
            return _hugeint_as_int(_arrow(cur), huge) if huge else cur.df()
        except duckdb.Error as e:
            raise ValueError(f"fleet store {self.directory}: query failed: {e}") from None
        finally:
            cur.close()

    def _selected(self, where: Optional[str]):
        cur = self._con.cursor()
        try:
            cond = _sql.condition(cur, where)
        finally:
            cur.close()
        return self.sql(
            f"select * exclude (main_mapping_id) from profiles {f'where ({cond})' if cond else ''} order by profile_id"
        )

    def _rebuild(self, keys):
        cur = self._con.cursor()  # its own temp tables: rebuilds in several threads do not mix
        try:
            return rebuild(cur, keys)
        finally:
            cur.close()

    def selection(self, where: Optional[str] = None) -> Tuple[List[int], Callable[[list], list], Any]:
        """What :meth:`ProfileSet.from_store` builds a set from: the profile
        ids matching ``where`` (in the order they were written), a reader that
        rebuilds the profiles of a list of those ids, and their ``profiles``
        DataFrame (the columns of :attr:`ProfileSet.profiles`)."""
        table = self._selected(where)
        pd = require_pandas()
        facts = pd.DataFrame(
            {
                "path": table["path"],
                "time": pd.to_datetime(table["time"], utc=True),
                "duration": pd.to_timedelta(table["duration_nanos"], unit="ns"),
                "sample_types": [
                    ",".join(f"{t}/{u}" for t, u in zip(a, b))
                    for a, b in zip(table["sample_types"], table["sample_units"])
                ],
            }
        )
        for c in table.columns:
            if c not in facts.columns and c not in ("time_nanos", "duration_nanos"):
                facts[c] = table[c].to_numpy()
        return table["profile_id"].astype(np.int64).tolist(), self._rebuild, facts

    def profile_set(self, where: Optional[str] = None, *, repairs=None, symbolize=None) -> "ProfileSet":
        """The profiles matching the SQL condition ``where`` (one expression
        over the ``profiles`` view; ``None`` for all), rebuilt from the
        tables a chunk at a time. A ``where`` that is not one expression
        (``;``, comments, unbalanced parentheses, subqueries) raises ValueError.
        ``repairs`` and ``symbolize`` are applied as profiles are rebuilt (see
        :class:`ProfileSet`); to keep their work, ingest with them instead."""
        return self.set_class.from_store(self, where, repairs=repairs, symbolize=symbolize)

    def profile(self, where: Optional[str] = None):
        """The merge of the profiles matching ``where`` (a SQL condition over
        ``profiles``), in the order they were written: the same profile
        ``merge_files`` gives for the same files."""
        return self.profile_set(where).merge()

    def series(self, sample_type=None, *, where: Optional[str] = None, **kwargs):
        """:meth:`ProfileSet.series` of the profiles matching ``where``."""
        return self.profile_set(where).series(sample_type, **kwargs)

    def close(self) -> None:
        self._con.close()


def _arrow(cur):
    """The pending result as a pyarrow Table (DuckDB 1.x's name, then 2.x's,
    whose note about the copy does not matter for a query result)."""
    fetch = getattr(cur, "fetch_arrow_table", None)
    if fetch is not None:
        return fetch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return cur.to_arrow_table()


def _hugeint_as_int(table, columns):
    """DuckDB's SUM of integers is a 128-bit HUGEINT, which pandas would get
    as float: those ``columns`` as int64 where every value fits."""
    import pyarrow as pa

    for name in columns:
        i = table.schema.get_field_index(name)
        try:
            table = table.set_column(i, name, table.column(i).cast(pa.int64()))
        except (pa.ArrowInvalid, ValueError):
            pass  # beyond int64: left as DuckDB gives it
    return table.to_pandas()


# What each table's parts must hold: (column, kind, required). Kinds compare
# loosely (any integer width, string or large_string), and an all-null column
# (pyarrow's "null" type, e.g. comments no profile has) fits any kind.
_SCHEMA = {
    "profiles": [
        ("profile_id", "int", True),
        ("sample_types", "list<str>", True),
        ("sample_units", "list<str>", True),
        ("totals", "list<int>", True),
        ("time_nanos", "int", True),
        ("duration_nanos", "int", True),
        ("path", "str", False),
        ("period", "int", False),
        ("period_type", "str", False),
        ("period_unit", "str", False),
        ("comments", "list<str>", False),
        ("n_samples", "int", False),
        ("main_mapping_id", "int", False),
    ],
    "samples": [
        ("profile_id", "int", True),
        ("sample", "int", True),
        ("stack_id", "int", True),
        ("values", "list<int>", True),
        ("label_keys", "list<str>", True),
        ("label_strs", "list<str>", True),
        ("label_nums", "list<int>", True),
        ("label_units", "list<str>", True),
    ],
}


def _kind(t) -> str:
    import pyarrow as pa

    if pa.types.is_null(t):
        return "null"
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "str"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"list<{_kind(t.value_type)}>"
    return str(t)


def _fits(have: str, want: str) -> bool:
    return have == want or have == "null" or (want.startswith("list<") and have == "list<null>")


def _expected(table: str):
    if table in _SCHEMA:
        return _SCHEMA[table]
    return [(f.name, _kind(f.type), True) for f in _empty_table(table).schema]


def _check_part(d: Path, table: str, f: Path) -> None:
    """A DecodeError naming ``f`` unless it is a Parquet file with the table's columns."""
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(f)
    except Exception as e:  # pyarrow raises several types for a damaged file
        raise _commit.store_error(d, f, f"not a readable Parquet file of the {table} table ({e})") from None
    for name, want, required in _expected(table):
        i = schema.get_field_index(name)
        if i < 0:
            if required:
                raise _commit.store_error(d, f, f"not a part of the {table} table: no column {name!r}")
            continue
        have = _kind(schema.field(i).type)
        if not _fits(have, want):
            raise _commit.store_error(d, f, f"column {name!r} of the {table} table is {have}, expected {want}")


def _check_ids(d: Path, con, snap: "_commit.Snapshot") -> None:
    """A DecodeError naming the files when a profile id is in two parts (two
    writers that numbered their profiles alike, before the store had a lock)."""
    files = [str(f.resolve()) for f in snap.parts["profiles"]]
    if not files:
        return
    dup = con.execute(
        "select profile_id, list(distinct filename order by filename) from "
        f"read_parquet({_sql.file_list(files)}, filename=true, union_by_name=true) "
        "group by profile_id having count(*) > 1 order by profile_id limit 3"
    ).fetchall()
    if dup:
        pid, where = dup[0]
        raise _commit.store_error(
            d,
            where[0],
            f"profile id {pid} is in more than one row (files: {', '.join(where)}); "
            "the store was written by two ingests at once and its profiles are mixed",
        )


def _empty_table(table: str):
    """A zero-row Arrow table with the columns a written ``table`` has."""
    pa = require_pyarrow()
    ints, strs = pa.list_(pa.int64()), pa.list_(pa.string())
    schemas = {
        "profiles": [
            ("profile_id", pa.int64()),
            ("main_mapping_id", pa.int64()),
            ("path", pa.string()),
            ("time", pa.timestamp("ns", tz="UTC")),
            ("time_nanos", pa.int64()),
            ("duration_nanos", pa.int64()),
            ("sample_types", strs),
            ("sample_units", strs),
            ("totals", ints),
            ("period_type", pa.string()),
            ("period_unit", pa.string()),
            ("period", pa.int64()),
            ("comments", strs),
            ("drop_frames", pa.string()),
            ("keep_frames", pa.string()),
            ("default_sample_type", pa.string()),
            ("doc_url", pa.string()),
            ("n_samples", pa.int64()),
            ("day", pa.string()),
        ],
        "samples": [
            ("profile_id", pa.int64()),
            ("sample", pa.int32()),
            ("stack_id", pa.int64()),
            ("values", ints),
            ("label_keys", strs),
            ("label_strs", strs),
            ("label_nums", ints),
            ("label_units", strs),
            ("day", pa.string()),
        ],
        "stacks": [("stack_id", pa.int64()), ("location_ids", ints)],
        "locations": [
            ("location_id", pa.int64()),
            ("mapping_id", pa.int64()),
            ("address", pa.uint64()),
            ("is_folded", pa.bool_()),
            ("function_ids", ints),
            ("lines", ints),
            ("columns", ints),
        ],
        "functions": [
            ("function_id", pa.int64()),
            ("name", pa.string()),
            ("system_name", pa.string()),
            ("filename", pa.string()),
            ("start_line", pa.int64()),
        ],
        "mappings": [
            ("mapping_id", pa.int64()),
            ("memory_start", pa.uint64()),
            ("memory_limit", pa.uint64()),
            ("file_offset", pa.uint64()),
            ("filename", pa.string()),
            ("build_id", pa.string()),
            ("has_functions", pa.bool_()),
            ("has_filenames", pa.bool_()),
            ("has_line_numbers", pa.bool_()),
            ("has_inline_frames", pa.bool_()),
        ],
    }
    return pa.schema(schemas[table]).empty_table()
