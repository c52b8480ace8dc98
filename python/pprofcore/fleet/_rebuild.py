"""Profiles rebuilt from the store's tables: one DuckDB query per table for a
batch of profiles, encoded as ``profile.proto`` with the vectorized writer and
decoded by the C++ core.

A batch encodes its locations, functions and mappings once; each profile then
takes the messages of the rows it references, its own samples and header, its
own main mapping first (pprof's merge keeps the first profile's first mapping
first), and the batch's string table."""

from __future__ import annotations

from typing import List

import numpy as np

from .._io import loads
from .._proto_fields import (
    FunctionField,
    LabelField,
    LineField,
    LocationField,
    MappingField,
    ProfileField,
    SampleField,
    ValueTypeField,
)
from .._summary import HEADER_FIELDS
from .._wire import LEN, VARINT, tag, varint
from . import _pbwrite as w

#: The ``profiles`` columns that hold the profile's header (HEADER_FIELDS, with
#: ``period_type`` stored as two columns, ``period_type`` and ``period_unit``).
HEADER_COLUMNS = tuple(
    c for f in HEADER_FIELDS for c in (("period_type", "period_unit") if f == "period_type" else (f,))
)


def _arrow(con, query: str):
    rel = con.sql(query)
    # duckdb >= 1.4 names it to_arrow_table; older releases arrow().
    get = getattr(rel, "to_arrow_table", None) or rel.arrow
    return get()


class _Strings:
    """The batch's string table: "" first, then each distinct string once."""

    def __init__(self) -> None:
        self.values = [""]
        self.index = {"": 0}

    def codes(self, values) -> np.ndarray:
        out = np.empty(len(values), dtype=np.int64)
        idx, vals = self.index, self.values
        for i, s in enumerate(values):  # one per distinct row, not per sample
            if s is None:
                s = ""
            c = idx.get(s)
            if c is None:
                c = idx[s] = len(vals)
                vals.append(s)
            out[i] = c
        return out

    def arrow_codes(self, arr) -> np.ndarray:
        """Codes of an Arrow string array via its dictionary (one lookup per distinct value)."""
        import pyarrow as pa

        if len(arr) == 0:
            return np.zeros(0, dtype=np.int64)
        d = arr.dictionary_encode() if not pa.types.is_dictionary(arr.type) else arr
        if isinstance(d, pa.ChunkedArray):
            d = d.combine_chunks()
        dict_codes = self.codes(d.dictionary.to_pylist())
        if len(dict_codes) == 0:  # all null
            return np.full(len(d), -1, dtype=np.int64)
        idx = d.indices.to_numpy(zero_copy_only=False)
        valid = ~np.asarray(d.indices.is_null().to_numpy(zero_copy_only=False))
        return np.where(valid, dict_codes[np.where(valid, idx, 0).astype(np.int64)], -1)


def _flat(list_column):
    """``(values, offsets)`` of an Arrow list column."""
    import pyarrow as pa

    arr = list_column.combine_chunks() if isinstance(list_column, pa.ChunkedArray) else list_column
    if isinstance(arr, pa.ChunkedArray):  # empty chunked array
        arr = pa.array([], arr.type)
    off = arr.offsets.to_numpy()
    values = arr.values.slice(int(off[0]), int(off[-1] - off[0])) if len(arr) else arr.values.slice(0, 0)
    return values, (off - off[0]).astype(np.int64)


def rebuild(con, profile_ids: List[int]):
    """The profiles with these ids, in this order, as pprofcore Profiles."""
    if not profile_ids:
        return []
    con.execute("create or replace temp table _sel as select unnest($1::bigint[]) as profile_id", [profile_ids])
    prof = _arrow(con, ("select p.* from profiles p join _sel using (profile_id)"))
    samples = _arrow(
        con,
        (
            "select s.profile_id, s.stack_id, s.values, s.label_keys, s.label_strs, s.label_nums, s.label_units "
            "from samples s join _sel using (profile_id) order by s.profile_id, s.sample"
        ),
    )
    con.execute(
        "create or replace temp table _stk as select distinct stack_id from samples s join _sel using (profile_id)"
    )
    stacks = _arrow(
        con, ("select t.stack_id, t.location_ids from stacks t join _stk using (stack_id) order by t.stack_id")
    )
    con.execute(
        "create or replace temp table _loc as select distinct unnest(location_ids) as location_id "
        "from stacks join _stk using (stack_id)"
    )
    locs = _arrow(con, ("select l.* from locations l join _loc using (location_id) order by l.location_id"))
    funcs = _arrow(
        con,
        (
            "select f.* from functions f join (select distinct unnest(function_ids) as function_id from locations "
            "join _loc using (location_id)) using (function_id) order by f.function_id"
        ),
    )
    maps = _arrow(
        con,
        (
            "select m.* from mappings m where m.mapping_id in (select mapping_id from locations join _loc "
            "using (location_id) union select main_mapping_id from profiles join _sel using (profile_id)) "
            "order by m.mapping_id"
        ),
    )

    strings = _Strings()
    shared = _shared_tables(strings, locs, funcs, maps)
    map_ids = maps.column("mapping_id").to_numpy()
    loc_ids = locs.column("location_id").to_numpy()

    # samples of the whole batch, encoded at once, then cut per profile
    stack_ids = stacks.column("stack_id").to_numpy()
    stack_locs, stack_off = _flat(stacks.column("location_ids"))
    stack_rows = np.searchsorted(loc_ids, stack_locs.to_numpy()) + 1
    s_stack = np.searchsorted(stack_ids, samples.column("stack_id").to_numpy())
    s_len = np.diff(stack_off)[s_stack]
    s_off = np.concatenate([[0], np.cumsum(s_len)]).astype(np.int64)
    take = np.repeat(stack_off[s_stack] - s_off[:-1], s_len) + np.arange(int(s_off[-1]))
    vals, v_off = _flat(samples.column("values"))
    keys, l_off = _flat(samples.column("label_keys"))
    lstr, _ = _flat(samples.column("label_strs"))
    lnum, _ = _flat(samples.column("label_nums"))
    lunit, _ = _flat(samples.column("label_units"))
    key_c, unit_c = strings.arrow_codes(keys), strings.arrow_codes(lunit)
    str_c = strings.arrow_codes(lstr)
    lnum = lnum.to_numpy(zero_copy_only=False).astype(np.int64)
    label_msgs = w.concat(
        [
            w.field_varint(LabelField.KEY, key_c),
            w.field_varint(LabelField.STR, np.maximum(str_c, 0)),
            w.field_varint(LabelField.NUM, lnum),
            w.field_varint(LabelField.NUM_UNIT, unit_c),
        ]
    )
    sample_msgs = w.field_bytes(
        ProfileField.SAMPLE,
        w.concat(
            [
                w.field_packed(SampleField.LOCATION_ID, stack_rows[take], s_off),
                w.field_packed(SampleField.VALUE, vals.to_numpy(zero_copy_only=False).astype(np.int64), v_off),
                w.repeated(SampleField.LABEL, label_msgs, l_off),
            ]
        ),
    )
    s_pid = samples.column("profile_id").to_numpy()

    rows = {pid: i for i, pid in enumerate(prof.column("profile_id").to_pylist())}
    header = prof.select([c for c in ("sample_types", "sample_units", *HEADER_COLUMNS, "main_mapping_id")]).to_pylist()
    loc_seq = stack_rows[take] - 1  # location row of every frame of every sample, batch order
    out = []
    for pid in profile_ids:
        h = header[rows[pid]]
        lo, hi = np.searchsorted(s_pid, pid, "left"), np.searchsorted(s_pid, pid, "right")
        samples_bytes = sample_msgs.buf[int(sample_msgs.off[lo]) : int(sample_msgs.off[hi])].tobytes()
        # only the rows this profile references, so its cost does not grow with the batch
        lrows = np.unique(loc_seq[int(s_off[lo]) : int(s_off[hi])])
        lo_l, hi_l = shared["line_off"][lrows], shared["line_off"][lrows + 1]
        n_l = hi_l - lo_l
        lines = np.repeat(lo_l - np.concatenate([[0], np.cumsum(n_l)[:-1]]), n_l) + np.arange(int(n_l.sum()))
        frows = np.unique(shared["line_fn"][lines])
        mrows = shared["loc_map"][lrows]
        mrows = np.unique(mrows[mrows >= 0])
        if h["main_mapping_id"] is not None:
            first = int(np.searchsorted(map_ids, h["main_mapping_id"]))
            mrows = np.concatenate([[first], mrows[mrows != first]])
        out.append(
            [
                _header(strings, h),
                samples_bytes,
                w.select(shared["mappings"], mrows),
                w.select(shared["locations"], lrows),
                w.select(shared["functions"], frows),
            ]
        )
    # every string is known now: one string table for the batch
    table = w.one(w.field_bytes(ProfileField.STRING_TABLE, w.strings(strings.values)))
    return [loads(b"".join(parts) + table) for parts in out]


def _shared_tables(strings: _Strings, locs, funcs, maps) -> dict:
    func_ids = funcs.column("function_id").to_numpy()
    map_ids = maps.column("mapping_id").to_numpy()
    nf, nm, nl = len(func_ids), len(map_ids), locs.num_rows
    fmsg = w.field_bytes(
        ProfileField.FUNCTION,
        w.concat(
            [
                w.field_varint(FunctionField.ID, np.arange(1, nf + 1)),
                w.field_varint(FunctionField.NAME, strings.arrow_codes(funcs.column("name"))),
                w.field_varint(FunctionField.SYSTEM_NAME, strings.arrow_codes(funcs.column("system_name"))),
                w.field_varint(FunctionField.FILENAME, strings.arrow_codes(funcs.column("filename"))),
                w.field_varint(FunctionField.START_LINE, funcs.column("start_line").to_numpy()),
            ]
        ),
    )
    col = lambda t, c: t.column(c).to_numpy(zero_copy_only=False)  # noqa: E731
    mmsg = w.field_bytes(
        ProfileField.MAPPING,
        w.concat(
            [
                w.field_varint(MappingField.ID, np.arange(1, nm + 1)),
                w.field_varint(MappingField.MEMORY_START, col(maps, "memory_start")),
                w.field_varint(MappingField.MEMORY_LIMIT, col(maps, "memory_limit")),
                w.field_varint(MappingField.FILE_OFFSET, col(maps, "file_offset")),
                w.field_varint(MappingField.FILENAME, strings.arrow_codes(maps.column("filename"))),
                w.field_varint(MappingField.BUILD_ID, strings.arrow_codes(maps.column("build_id"))),
                *[
                    w.field_varint(f, col(maps, c).astype(np.int64))
                    for f, c in (
                        (MappingField.HAS_FUNCTIONS, "has_functions"),
                        (MappingField.HAS_FILENAMES, "has_filenames"),
                        (MappingField.HAS_LINE_NUMBERS, "has_line_numbers"),
                        (MappingField.HAS_INLINE_FRAMES, "has_inline_frames"),
                    )
                ],
            ]
        ),
    )
    fn, l_off = _flat(locs.column("function_ids"))
    ln, _ = _flat(locs.column("lines"))
    cl, _ = _flat(locs.column("columns"))
    fn_rows = np.searchsorted(func_ids, fn.to_numpy()) + 1
    line_msgs = w.concat(
        [
            w.field_varint(LineField.FUNCTION_ID, fn_rows),
            w.field_varint(LineField.LINE, ln.to_numpy()),
            w.field_varint(LineField.COLUMN, cl.to_numpy()),
        ]
    )
    mapping = locs.column("mapping_id")
    has_map = ~np.asarray(mapping.is_null().to_numpy(zero_copy_only=False)) if nl else np.zeros(0, bool)
    m_vals = np.asarray(mapping.fill_null(0).to_numpy(), dtype=np.int64) if nl else np.zeros(0, np.int64)
    m_rows = np.where(has_map, np.searchsorted(map_ids, m_vals) + 1, 0)
    lmsg = w.field_bytes(
        ProfileField.LOCATION,
        w.concat(
            [
                w.field_varint(LocationField.ID, np.arange(1, nl + 1)),
                w.field_varint(LocationField.MAPPING_ID, m_rows),
                w.field_varint(LocationField.ADDRESS, col(locs, "address")),
                w.repeated(LocationField.LINE, line_msgs, l_off),
                w.field_varint(LocationField.IS_FOLDED, col(locs, "is_folded").astype(np.int64)),
            ]
        ),
    )
    return {
        "functions": fmsg,
        "locations": lmsg,
        "mappings": mmsg,
        "line_off": l_off,
        "line_fn": fn_rows - 1,
        "loc_map": m_rows - 1,
    }


def _field(field: int, n: int) -> bytes:
    return tag(field, VARINT) + varint(n) if n else b""


def _message(field: int, body: bytes) -> bytes:
    return tag(field, LEN) + varint(len(body)) + body


def _header(strings: _Strings, h: dict) -> bytes:
    """The profile's own fields (a dozen scalars per profile: plain Python)."""
    code = lambda x: int(strings.codes([x])[0])  # noqa: E731
    parts = [
        _message(ProfileField.SAMPLE_TYPE, _field(ValueTypeField.TYPE, code(t)) + _field(ValueTypeField.UNIT, code(u)))
        for t, u in zip(h["sample_types"] or [], h["sample_units"] or [])
    ]
    parts += [
        _field(ProfileField.DROP_FRAMES, code(h["drop_frames"])),
        _field(ProfileField.KEEP_FRAMES, code(h["keep_frames"])),
        _field(ProfileField.TIME_NANOS, int(h["time_nanos"] or 0)),
        _field(ProfileField.DURATION_NANOS, int(h["duration_nanos"] or 0)),
        _field(ProfileField.PERIOD, int(h["period"] or 0)),
        _field(ProfileField.DEFAULT_SAMPLE_TYPE, code(h["default_sample_type"])),
        _field(ProfileField.DOC_URL, code(h["doc_url"])),
    ]
    if h["period_type"] is not None:
        pt, pu = code(h["period_type"]), code(h["period_unit"])
        parts.append(
            _message(ProfileField.PERIOD_TYPE, _field(ValueTypeField.TYPE, pt) + _field(ValueTypeField.UNIT, pu))
        )
    for c in h["comments"] or []:  # one varint each: comment need not be packed
        parts.append(tag(ProfileField.COMMENT, VARINT) + varint(code(c)))
    return b"".join(parts)
