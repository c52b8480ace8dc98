"""The older protobuf layouts of OpenTelemetry's profiles signal, written by hand.

opentelemetry-proto renumbered the profiles messages in every release before
v1.10.0; only the newest layout ships with the installed package. These
functions downgrade a v1.10.0 ``ProfilesData`` (a pb2 object of the installed
package) to the bytes of v1.9.0, v1.8.0 or v1.7.0 with the same content, so a
test can compare the reading of both. ``v1_7_from_profile`` writes a pprof
profile with several sample types as one v1.7.0 profile. ``fields``/``walk``
read any of them back without the generated classes.

What "the same content" takes per layout (the .proto of each tag):

- v1.9.0: only ``Sample`` is renumbered.
- v1.8.0: ``Profile`` is renumbered and has ``comment_strindices``: the
  ``pprof.profile.comment`` attribute goes there.
- v1.7.0: tables have no zero entries (index 0 is a real row, an absent
  optional ``mapping_index``/``link_index`` means none), so every row moves
  down one; stacks are ranges of the profile's ``location_indices``; attributes
  are ``KeyValue`` keyed by text with ``attribute_units`` per key; a sample has
  one value per sample type (v1.10.0's value/timestamp pairs become one sample
  each); ``is_folded``, the mapping's ``has_*`` flags, comments and the default
  sample type are fields (from their ``pprof.*``/``pprofcore.*`` attributes).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from wirebuild import LEN, field_values, fixed64, ld, packed, read_varint, vint

LAYOUTS = ("v1.7.0", "v1.8.0", "v1.9.0")

COMMENT = "pprof.profile.comment"
DEFAULT_TYPE = "pprofcore.default_sample_type"
FOLDED = "pprof.location.is_folded"
MAPPING_FLAGS = ("has_functions", "has_filenames", "has_line_numbers", "has_inline_frames")


# ------------------------------------------------------------------ fields


def _int(field: int, n: int) -> bytes:
    """A proto3 scalar varint field: omitted when zero."""
    return vint(field, n) if n else b""


def _bytes(field: int, b) -> bytes:
    if isinstance(b, str):
        b = b.encode()
    return ld(field, b) if b else b""


def _packed(field: int, nums: Sequence[int]) -> bytes:
    return packed(field, nums) if len(nums) else b""


def _packed_fixed64(field: int, nums: Sequence[int]) -> bytes:
    if not len(nums):
        return b""
    return ld(field, b"".join((n & ((1 << 64) - 1)).to_bytes(8, "little") for n in nums))


def _message(field: int, payload: bytes) -> bytes:
    """A message field, written even when empty (it is set)."""
    return ld(field, payload)


def _value_type(vt) -> bytes:
    # v1.8.0 and v1.7.0's aggregation_temporality (field 3) stays unset: pprof has no place for it.
    return _int(1, vt.type_strindex) + _int(2, vt.unit_strindex)


# --------------------------------------------------------- v1.9.0 / v1.8.0


def _sample_v1_9(s) -> bytes:
    # v1.9.0 and v1.8.0: {1 stack_index, 2 values, 3 attribute_indices, 4 link_index, 5 timestamps}.
    return (
        _int(1, s.stack_index)
        + _packed(2, s.values)
        + _packed(3, s.attribute_indices)
        + _int(4, s.link_index)
        + _packed_fixed64(5, s.timestamps_unix_nano)
    )


def _profile_head_v1_9(p) -> bytes:
    """Fields 1-6 of a Profile, as v1.8.0 and v1.9.0 both number them
    (sample type, samples, time, duration, period type, period)."""
    out = _message(1, _value_type(p.sample_type)) if p.HasField("sample_type") else b""
    out += b"".join(_message(2, _sample_v1_9(s)) for s in p.samples)
    out += fixed64(3, p.time_unix_nano) if p.time_unix_nano else b""
    out += _int(4, p.duration_nano)
    out += _message(5, _value_type(p.period_type)) if p.HasField("period_type") else b""
    return out + _int(6, p.period)


def _profile_v1_9(p) -> bytes:
    """A Profile of v1.9.0: v1.10.0's fields, its samples renumbered."""
    out = _profile_head_v1_9(p)
    out += _bytes(7, p.profile_id) + _int(8, p.dropped_attributes_count)
    out += _bytes(9, p.original_payload_format) + _bytes(10, p.original_payload)
    out += _packed(11, p.attribute_indices)
    return out


def _comment_texts(d, attribute_indices) -> Tuple[List[str], List[int]]:
    """The pprof.profile.comment texts among a profile's attributes, and the other attributes."""
    texts, rest = [], []
    for i in attribute_indices:
        a = d.attribute_table[i]
        if d.string_table[a.key_strindex] != COMMENT:
            rest.append(i)
        elif a.value.WhichOneof("value") == "array_value":
            texts.extend(v.string_value for v in a.value.array_value.values)
        else:
            texts.append(a.value.string_value)
    return texts, rest


class _Strings:
    """The message's string table, grown by the texts a downgrade moves there."""

    def __init__(self, table):
        self.table = list(table)
        self.codes: Dict[str, int] = {}
        for i, s in enumerate(self.table):
            self.codes.setdefault(s, i)

    def code(self, s: str) -> int:
        if s not in self.codes:
            self.codes[s] = len(self.table)
            self.table.append(s)
        return self.codes[s]


def _profile_v1_8(p, d, strings: _Strings) -> bytes:
    comments, attrs = _comment_texts(d, p.attribute_indices)
    out = _profile_head_v1_9(p)
    out += _packed(7, [strings.code(c) for c in comments])
    out += _bytes(8, p.profile_id) + _int(9, p.dropped_attributes_count)
    out += _bytes(10, p.original_payload_format) + _bytes(11, p.original_payload)
    out += _packed(12, attrs)
    return out


def _dictionary_v1_9(d, strings: Optional[_Strings] = None) -> bytes:
    """v1.10.0, v1.9.0 and v1.8.0 share the dictionary; only its strings may grow."""
    if strings is None or len(strings.table) == len(d.string_table):
        return d.SerializeToString()
    copy = type(d)()
    copy.CopyFrom(d)
    copy.string_table.extend(strings.table[len(d.string_table) :])
    return copy.SerializeToString()


def _envelope(m, profiles_of) -> bytes:
    """ResourceProfiles and ScopeProfiles (unchanged since v1.7.0) around the
    profiles that ``profiles_of(scope_profiles)`` writes."""
    out = b""
    for rp in m.resource_profiles:
        body = _message(1, rp.resource.SerializeToString()) if rp.HasField("resource") else b""
        for sp in rp.scope_profiles:
            scope = _message(1, sp.scope.SerializeToString()) if sp.HasField("scope") else b""
            scope += b"".join(_message(2, prof) for prof in profiles_of(sp))
            body += _message(2, scope + _bytes(3, sp.schema_url))
        out += _message(1, body + _bytes(3, rp.schema_url))
    return out


def to_v1_9(m) -> bytes:
    """A v1.10.0 ProfilesData as v1.9.0 bytes."""
    out = _envelope(m, lambda sp: [_profile_v1_9(p) for p in sp.profiles])
    return out + (_message(2, _dictionary_v1_9(m.dictionary)) if m.HasField("dictionary") else b"")


def to_v1_8(m) -> bytes:
    """A v1.10.0 ProfilesData as v1.8.0 bytes (comments in comment_strindices)."""
    strings = _Strings(m.dictionary.string_table)
    out = _envelope(m, lambda sp: [_profile_v1_8(p, m.dictionary, strings) for p in sp.profiles])
    return out + _message(2, _dictionary_v1_9(m.dictionary, strings))


# ------------------------------------------------------------------ v1.7.0


def _key_value(key: str, value_bytes: bytes) -> bytes:
    # common.v1.KeyValue {1 key, 2 value}
    return _bytes(1, key) + _message(2, value_bytes)


def _shift(i: int, what: str) -> int:
    """A v1.10.0 index as v1.7.0's (the zero entry gone)."""
    if i <= 0:
        raise ValueError(f"{what} {i} names v1.10.0's zero entry: v1.7.0 cannot say that")
    return i - 1


class _V17Dictionary:
    """v1.10.0's dictionary as v1.7.0's: rows shifted down one, attributes keyed by
    text with their units per key, the pprof.* attributes of locations and
    mappings turned into fields."""

    def __init__(self, d, strings: _Strings):
        self.d, self.strings = d, strings

    def _flag(self, i: int) -> Tuple[str, bool]:
        a = self.d.attribute_table[i]
        return self.d.string_table[a.key_strindex], a.value.bool_value

    def _attrs(self, indices, flags: Dict[str, str]) -> Tuple[List[int], Dict[str, bool]]:
        kept, set_flags = [], {}
        for i in indices:
            k, on = self._flag(i)
            if k in flags:
                set_flags[flags[k]] = on
            else:
                kept.append(_shift(i, "attribute index"))
        return kept, set_flags

    def encode(self) -> bytes:
        d = self.d
        out = b""
        mapping_flags = {f"pprof.mapping.{f}": f for f in MAPPING_FLAGS}
        for m in d.mapping_table[1:]:
            attrs, flags = self._attrs(m.attribute_indices, mapping_flags)
            body = _int(1, m.memory_start) + _int(2, m.memory_limit) + _int(3, m.file_offset)
            body += _int(4, m.filename_strindex) + _packed(5, attrs)
            body += b"".join(_int(6 + k, int(flags.get(f, False))) for k, f in enumerate(MAPPING_FLAGS))
            out += _message(1, body)
        for loc in d.location_table[1:]:
            attrs, flags = self._attrs(loc.attribute_indices, {FOLDED: "is_folded"})
            body = vint(1, _shift(loc.mapping_index, "mapping_index")) if loc.mapping_index else b""
            body += _int(2, loc.address)
            for ln in loc.lines:
                line = _int(1, _shift(ln.function_index, "function_index")) + _int(2, ln.line) + _int(3, ln.column)
                body += _message(3, line)
            body += _int(4, int(flags.get("is_folded", False))) + _packed(5, attrs)
            out += _message(2, body)
        for f in d.function_table[1:]:
            out += _message(3, f.SerializeToString())  # Function is unchanged
        for link in d.link_table[1:]:
            out += _message(4, link.SerializeToString())
        units: Dict[int, int] = {}
        rows = b""
        for a in d.attribute_table[1:]:
            key = d.string_table[a.key_strindex]
            if a.unit_strindex:
                if units.setdefault(self.strings.code(key), a.unit_strindex) != a.unit_strindex:
                    raise ValueError(f"attribute {key!r} has two units: v1.7.0 gives one per key")
            rows += _message(6, _key_value(key, a.value.SerializeToString()))
        # Strings last but one: the downgrade may have added some (comments, keys).
        out += b"".join(ld(5, s.encode()) for s in self.strings.table)
        out += rows
        out += b"".join(_message(7, _int(1, k) + _int(2, u)) for k, u in units.items())
        return out


def _sample_v1_7(start: int, length: int, values, attrs, link: int, times) -> bytes:
    # v1.7.0 Sample {1 start, 2 length, 3 value, 4 attribute_indices, 5 optional link_index, 6 timestamps (varints)}
    out = _int(1, start) + _int(2, length) + _packed(3, values) + _packed(4, attrs)
    out += vint(5, link) if link >= 0 else b""
    return out + _packed(6, times)


def _observations(group, j: int) -> List[Tuple[List[int], List[int]]]:
    """Sample j of a group of v1.10.0 profiles (one per sample type) as v1.7.0
    samples: (one value per type, timestamps). Values paired with timestamps
    and values alone give one sample each; timestamps alone stay one sample
    without values where the profile has one type (v1.7.0 counts each), and
    become one sample of value 1 per timestamp otherwise."""
    first = group[0].samples[j]
    times = list(first.timestamps_unix_nano)
    if not first.values:
        if len(group) == 1:
            return [([], times)]
        return [([1] * len(group), [t]) for t in times]
    out = []
    for k in range(len(first.values)):
        values = [p.samples[j].values[k] for p in group]
        out.append((values, [times[k]] if times else []))
    return out


def _groups(sp, join: bool) -> List[List[int]]:
    """Runs of profiles of a scope that become one v1.7.0 profile: each alone,
    or (join) the runs whose headers and samples match but for their values."""
    if not join:
        return [[i] for i in range(len(sp.profiles))]

    def header(p):
        return (
            p.time_unix_nano,
            p.duration_nano,
            p.period,
            p.HasField("period_type"),
            p.period_type.SerializeToString(),
            p.profile_id,
            list(p.attribute_indices),
            p.dropped_attributes_count,
            p.original_payload_format,
            p.original_payload,
            len(p.samples),
        )

    def key(s):
        return s.stack_index, list(s.attribute_indices), s.link_index, list(s.timestamps_unix_nano), len(s.values)

    out, i, profiles = [], 0, sp.profiles
    while i < len(profiles):
        k = i + 1
        while (
            k < len(profiles)
            and header(profiles[k]) == header(profiles[i])
            and all(key(a) == key(b) for a, b in zip(profiles[i].samples, profiles[k].samples))
        ):
            k += 1
        out.append(list(range(i, k)))
        i = k
    return out


def _profile_v1_7(group, d, strings: _Strings) -> bytes:
    first = group[0]
    comments, attrs = _comment_texts(d, first.attribute_indices)
    default, kept = None, []
    for i in attrs:
        a = d.attribute_table[i]
        if d.string_table[a.key_strindex] == DEFAULT_TYPE:
            default = a.value.string_value
        else:
            kept.append(i)
    type_names = [d.string_table[p.sample_type.type_strindex] for p in group]
    if default is not None and default not in type_names:
        kept = list(attrs)  # names no type of this profile: stays an attribute
        default = None
    out = b"".join(_message(1, _value_type(p.sample_type)) for p in group)
    location_indices: List[int] = []
    starts: Dict[int, int] = {}
    samples = b""
    for j, s in enumerate(first.samples):
        stack = d.stack_table[s.stack_index].location_indices
        if s.stack_index not in starts:
            starts[s.stack_index] = len(location_indices)
            location_indices.extend(_shift(x, "location index") for x in stack)
        sample_attrs = [_shift(i, "attribute index") for i in s.attribute_indices]
        link = _shift(s.link_index, "link_index") if s.link_index else -1
        for values, times in _observations(group, j):
            samples += _message(2, _sample_v1_7(starts[s.stack_index], len(stack), values, sample_attrs, link, times))
    out += samples + _packed(3, location_indices)
    out += _int(4, first.time_unix_nano) + _int(5, first.duration_nano)
    out += _message(6, _value_type(first.period_type)) if first.HasField("period_type") else b""
    out += _int(7, first.period)
    out += _packed(8, [strings.code(c) for c in comments])
    out += vint(9, type_names.index(default)) if default is not None else b""
    out += _bytes(10, first.profile_id) + _int(11, first.dropped_attributes_count)
    out += _bytes(12, first.original_payload_format) + _bytes(13, first.original_payload)
    return out + _packed(14, [_shift(i, "attribute index") for i in kept])


def to_v1_7(m, join: bool = False) -> bytes:
    """A v1.10.0 ProfilesData as v1.7.0 bytes: each profile a v1.7.0 profile
    of one sample type, or (``join``) each run of profiles that match but for
    their values one profile with their sample types."""
    d = m.dictionary
    strings = _Strings(d.string_table)
    for a in d.attribute_table[1:]:
        strings.code(d.string_table[a.key_strindex])  # attribute_units name keys by string index
    out = _envelope(m, lambda sp: [_profile_v1_7([sp.profiles[i] for i in g], d, strings) for g in _groups(sp, join)])
    return out + _message(2, _V17Dictionary(d, strings).encode())


def _length_delimited(buf: bytes):
    """(field, payload, the whole field) of each field of a message whose fields are all length-delimited."""
    for field, wt, payload, start, end in field_values(buf):
        assert wt == LEN, "every field of ProfilesData and ProfilesDictionary is length-delimited"
        yield field, payload, buf[start:end]


def v1_7_to_v1_6(v1_7: bytes) -> bytes:
    """v1.7.0 bytes in v1.6.0's layout: the dictionary's tables (ProfilesData
    field 2) lifted into ProfilesData, each one field number higher."""
    out = b""
    for field, payload, whole in _length_delimited(v1_7):
        if field != 2:
            out += whole
            continue
        for table, entry, _ in _length_delimited(payload):
            out += ld(table + 1, entry)
    return out


def downgrade(m, layout: str) -> bytes:
    """``m`` (v1.10.0) in ``layout`` (one of LAYOUTS)."""
    return {"v1.7.0": to_v1_7, "v1.8.0": to_v1_8, "v1.9.0": to_v1_9}[layout](m)


# ------------------------------------------------------- pprof -> v1.7.0


def v1_7_from_profile(p, resource: Optional[Dict[str, str]] = None) -> bytes:
    """A pprofcore Profile as one v1.7.0 profile with all its sample types: the
    multi-type shape later layouts split. Labels become attributes (string
    labels string values, numeric ones int values with their unit in
    attribute_units), the sample's timestamp its one timestamp; every row of
    the tables is written (v1.7.0 has no zero entries)."""
    strings = _Strings(list(p.strings))
    code = strings.code
    s = p._s
    dictionary = b""
    attributes: Dict[Tuple, int] = {}
    rows = b""

    def attribute(k: str, kind: str, value) -> int:
        nonlocal rows
        if (k, kind, value) not in attributes:
            attributes[k, kind, value] = len(attributes)
            any_value = _bytes(1, value) if kind == "s" else _int(3, value)  # AnyValue string / int
            rows += _message(6, _key_value(k, any_value))
        return attributes[k, kind, value]

    mp = p.mappings
    for i in range(len(mp.id)):
        body = _int(1, int(mp.memory_start[i])) + _int(2, int(mp.memory_limit[i])) + _int(3, int(mp.file_offset[i]))
        body += _int(4, code(s(mp.filename[i])))
        if s(mp.build_id[i]):
            body += _packed(5, [attribute("process.executable.build_id.gnu", "s", s(mp.build_id[i]))])
        body += b"".join(_int(6 + k, int(bool(getattr(mp, f)[i]))) for k, f in enumerate(MAPPING_FLAGS))
        dictionary += _message(1, body)
    loc, ln = p.locations, p.lines
    for i in range(len(loc.id)):
        body = vint(1, int(loc.mapping[i])) if int(loc.mapping[i]) >= 0 else b""
        body += _int(2, int(loc.address[i]))
        for k in range(int(loc.line_offsets[i]), int(loc.line_offsets[i + 1])):
            body += _message(3, _int(1, int(ln.function[k])) + _int(2, int(ln.line[k])) + _int(3, int(ln.column[k])))
        body += _int(4, int(bool(loc.is_folded[i])))
        dictionary += _message(2, body)
    fn = p.functions
    for i in range(len(fn.id)):
        body = _int(1, code(s(fn.name[i]))) + _int(2, code(s(fn.system_name[i])))
        body += _int(3, code(s(fn.filename[i]))) + _int(4, int(fn.start_line[i]))
        dictionary += _message(3, body)
    units: Dict[int, int] = {}
    samples = b""
    lab = p.labels
    location_indices: List[int] = []
    for i in range(len(p)):
        stack = [int(x) for x in p.stack(i)]
        start = len(location_indices)
        location_indices.extend(stack)
        attrs = []
        times = p.timestamps
        stamp = [] if times is None or int(times[i]) < 0 else [int(times[i])]
        for r in range(int(p.label_offsets[i]), int(p.label_offsets[i + 1])):
            k = s(lab.key[r])
            if stamp and k == "timestamp_ns" and lab.str[r] < 0 and int(lab.num[r]) == stamp[0]:
                continue  # written as the sample's timestamp, which reads back as this label
            if lab.str[r] >= 0:
                attrs.append(attribute(k, "s", s(lab.str[r])))
                continue
            unit = s(lab.num_unit[r])
            if unit and units.setdefault(code(k), code(unit)) != code(unit):
                raise ValueError(f"label {k!r} has two units: v1.7.0 gives one per key")
            attrs.append(attribute(k, "n", int(lab.num[r])))
        samples += _message(2, _sample_v1_7(start, len(stack), [int(v) for v in p.values[i]], attrs, -1, stamp))
    prof = b"".join(_message(1, _int(1, code(t)) + _int(2, code(u))) for t, u in p.sample_types)
    prof += samples + _packed(3, location_indices)
    prof += _int(4, p.time_nanos) + _int(5, p.duration_nanos)
    if p.period_type is not None:
        prof += _message(6, _int(1, code(p.period_type[0])) + _int(2, code(p.period_type[1])))
    prof += _int(7, p.period) + _packed(8, [code(c) for c in p.comments])
    if p.default_sample_type:
        prof += vint(9, [t for t, _ in p.sample_types].index(p.default_sample_type))
    dictionary += b"".join(ld(5, t.encode()) for t in strings.table)
    dictionary += rows + b"".join(_message(7, _int(1, k) + _int(2, u)) for k, u in units.items())
    res = b""
    for k, v in (resource or {}).items():
        res += _message(1, _key_value(k, _bytes(1, v)))
    scope = _message(2, prof)
    rp = (_message(1, res) if resource else b"") + _message(2, scope)
    return _message(1, rp) + _message(2, dictionary)


# ---------------------------------------------------------------- reading


def fields(buf: bytes) -> List[Tuple[int, int, object]]:
    """(field, wire type, value) of each field of a well-formed message: an int
    for varints and fixed widths, the payload bytes for length-delimited."""
    return [(f, wt, v) for f, wt, v, _, _ in field_values(buf)]


def ints(wt: int, v) -> List[int]:
    """A repeated integer field's entry: one varint, or a packed run of them."""
    if wt != LEN:
        return [v]
    out, i = [], 0
    while i < len(v):
        n, i = read_varint(v, i)
        out.append(n - (1 << 64) if n >= 1 << 63 else n)
    return out


def walk(buf: bytes, *path: int) -> List[bytes]:
    """The payloads at a path of message fields: walk(data, 1, 2, 2) is every
    profile of every scope of every resource."""
    level = [buf]
    for f in path:
        level = [v for b in level for (n, wt, v) in fields(b) if n == f and wt == LEN]  # type: ignore[misc]
    return level  # type: ignore[return-value]
