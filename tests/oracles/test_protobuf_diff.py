"""Differential test against Python's `protobuf` package (a test-only dependency).

The schema is our own tests/proto/profile.proto; message classes are built at
run time from a FileDescriptorProto (no protoc, no generated code). For every
corpus file google/pprof accepts, and for random valid profiles (Hypothesis),
every field protobuf sees must equal pprofcore's columns: ids, resolved
references (row <-> id), string codes, header, labels (with pprof's all-zero
label quirk), values and stacks.
"""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("google.protobuf", reason="the differential test needs `pip install protobuf`")

from pbprofile import PROTO, field_names, parse_proto, profile_class, valid_profiles  # noqa: E402
from testenv import corpus_files, parses_with_pprof  # noqa: E402
from wirebuild import top_level  # noqa: E402

import pprofcore  # noqa: E402


def test_schema_matches_the_spec():
    _, messages = parse_proto(PROTO.read_text())
    numbers = {m: sorted(n for *_, n in fields) for m, fields in messages.items()}
    assert numbers == {
        "Profile": list(range(1, 16)),
        "ValueType": [1, 2],
        "Sample": [1, 2, 3],
        "Label": [1, 2, 3, 4],
        "Mapping": list(range(1, 11)),
        "Location": [1, 2, 3, 4, 5],
        "Line": [1, 2, 3],
        "Function": [1, 2, 3, 4, 5],
    }
    assert profile_class().DESCRIPTOR.fields_by_name["period_type"].message_type.name == "ValueType"


# ------------------------------------------------------------------ comparison


def _rows(ids, refs, none_zero: bool) -> np.ndarray:
    """Dense rows of `refs` (pprof ids) in the table whose ids are `ids`."""
    ids = np.asarray(ids, dtype=np.uint64)
    refs = np.asarray(refs, dtype=np.uint64)
    if np.array_equal(ids, np.arange(1, len(ids) + 1, dtype=np.uint64)) and (
        not none_zero or len(refs) == 0 or refs.min() > 0
    ):
        assert len(refs) == 0 or (refs.min() >= 1 and refs.max() <= len(ids)), "dangling reference"
        return refs.astype(np.int64) - 1
    order = np.argsort(ids, kind="stable")
    pos = np.searchsorted(ids[order], refs)
    pos = np.minimum(pos, max(len(ids) - 1, 0))
    rows = order[pos].astype(np.int64) if len(ids) else np.full(len(refs), -1, np.int64)
    found = (ids[rows] == refs) if len(ids) else np.zeros(len(refs), bool)
    if none_zero:
        rows = np.where(refs == 0, -1, rows)
        found |= refs == 0
    assert found.all(), "test input has a dangling reference"
    return rows


def _csr(lists) -> tuple:
    lens = np.fromiter((len(x) for x in lists), dtype=np.int64)
    offsets = np.zeros(len(lens) + 1, np.int64)
    np.cumsum(lens, out=offsets[1:])
    return offsets, list(itertools.chain.from_iterable(lists))


def expected_columns(msg) -> dict:
    """pprofcore's columns as derived from a protobuf Profile message."""
    e = {}
    e["sample_type.type"] = [v.type for v in msg.sample_type]
    e["sample_type.unit"] = [v.unit for v in msg.sample_type]
    n_types = len(msg.sample_type)
    samples = msg.sample
    # One pass over the samples (the corpus has a 500k-sample file).
    vals, stack, stack_lens, labels, label_lens = [], [], [], [], []
    for smp in samples:
        locs = smp.location_id
        stack_lens.append(len(locs))
        stack.extend(locs)
        vals.extend(smp.value)
        if len(smp.label):
            # Labels: pprof drops labels with str == num == num_unit == 0; str 0 -> -1.
            kept = [lb for lb in smp.label if lb.str or lb.num or lb.num_unit]
            labels.extend(kept)
            label_lens.append(len(kept))
        else:
            label_lens.append(0)
    e["values"] = np.array(vals, dtype=np.int64).reshape(len(samples), n_types)
    e["stack_offsets"] = np.concatenate([[0], np.cumsum(stack_lens, dtype=np.int64)])
    loc_ids = [loc.id for loc in msg.location]
    e["stack_locations"] = _rows(loc_ids, np.array(stack, dtype=np.uint64), none_zero=False)
    e["label_offsets"] = np.concatenate([[0], np.cumsum(label_lens, dtype=np.int64)])
    e["labels.key"] = [lb.key for lb in labels]
    e["labels.str"] = [lb.str if lb.str else -1 for lb in labels]
    e["labels.num"] = [lb.num for lb in labels]
    e["labels.num_unit"] = [lb.num_unit for lb in labels]
    e["locations.id"] = loc_ids
    e["locations.mapping"] = _rows([m.id for m in msg.mapping], [loc.mapping_id for loc in msg.location], True)
    e["locations.address"] = [loc.address for loc in msg.location]
    e["locations.is_folded"] = [int(loc.is_folded) for loc in msg.location]
    e["locations.line_offsets"], lines = _csr([loc.line for loc in msg.location])
    e["lines.function"] = _rows([f.id for f in msg.function], [ln.function_id for ln in lines], False)
    e["lines.line"] = [ln.line for ln in lines]
    e["lines.column"] = [ln.column for ln in lines]
    for col in field_names("Function"):
        e[f"functions.{col}"] = [getattr(f, col) for f in msg.function]
    for col in field_names("Mapping"):
        e[f"mappings.{col}"] = [int(getattr(m, col)) for m in msg.mapping]
    e["comments"] = list(msg.comment)
    return e


def actual_column(p: pprofcore.Profile, name: str) -> np.ndarray:
    """A column through the public API where there is one."""
    table, _, col = name.partition(".")
    if col and table in ("labels", "locations", "lines", "functions", "mappings"):
        return getattr(getattr(p, table), col)
    if not col:
        return getattr(p, name) if name != "comments" else p._cols["comments"]
    return p._cols[name]


def assert_profile_matches(p: pprofcore.Profile, msg) -> None:
    strings = list(msg.string_table)
    # String table, byte-exact.
    assert len(p.strings) == len(strings)
    data = p.strings.data.tobytes()
    offs = p.strings.offsets
    assert [data[offs[i] : offs[i + 1]] for i in range(len(strings))] == strings
    assert list(p.strings) == [s.decode("utf-8", "replace") for s in strings]
    # Header.
    s = lambda code: strings[code].decode("utf-8", "replace")  # noqa: E731
    assert p.sample_types == [(s(v.type), s(v.unit)) for v in msg.sample_type]
    if msg.HasField("period_type"):
        assert p.period_type == (s(msg.period_type.type), s(msg.period_type.unit))
        assert p._core.period_type_codes == (msg.period_type.type, msg.period_type.unit)
    else:
        assert p.period_type is None
    assert p.period == msg.period
    assert p.time_nanos == msg.time_nanos
    assert p.duration_nanos == msg.duration_nanos
    assert p.comments == [s(c) for c in msg.comment]
    for name in ("drop_frames", "keep_frames", "default_sample_type", "doc_url"):
        assert getattr(p._core, name + "_code") == getattr(msg, name), name
        assert getattr(p, name) == s(getattr(msg, name)), name
    assert len(p) == len(msg.sample)
    # Every column.
    for name, want in expected_columns(msg).items():
        got = actual_column(p, name)
        # Build from Python ints in the column's dtype (a float detour would lose uint64 bits).
        want = want if isinstance(want, np.ndarray) else np.array(want, dtype=got.dtype)
        assert got.shape == want.shape or (got.size == 0 and want.size == 0), (name, got.shape, want.shape)
        if got.size:
            np.testing.assert_array_equal(got, want, err_msg=name, strict=False)


# ------------------------------------------------------------------ corpus


def _raw_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


@pytest.mark.parametrize("row", corpus_files(parses_with_pprof))
def test_corpus_file_agrees_with_protobuf(row, corpus_dir):
    raw = _raw_bytes(corpus_dir / row["file"])
    msg = profile_class()()
    msg.ParseFromString(raw)
    p = pprofcore.loads(raw)
    assert_profile_matches(p, msg)


# ------------------------------------------------------------------ random valid profiles


def _interleave(draw, data: bytes) -> bytes:
    """Reorders top-level fields (keeping the order among equal field numbers),
    e.g. strings before samples: a valid encoding of the same message."""
    chunks = [(f, data[s:e]) for f, s, e in top_level(data)]
    queues = {}
    for f, c in chunks:
        queues.setdefault(f, []).append(c)
    out = []
    fields = list(queues)
    while fields:
        f = draw(st.sampled_from(fields))
        out.append(queues[f].pop(0))
        if not queues[f]:
            fields.remove(f)
    return b"".join(out)


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.data())
def test_random_valid_profile_agrees_with_protobuf(data):
    msg = data.draw(valid_profiles())
    wire = msg.SerializeToString()
    if data.draw(st.booleans()):
        wire = _interleave(data.draw, wire)
    p = pprofcore.loads(wire)
    assert_profile_matches(p, msg)
    # Our encoding parses with protobuf to the same message (modulo dropped all-zero labels).
    back = profile_class()()
    back.ParseFromString(p.to_bytes(compress=False))
    assert_profile_matches(p, back)


@SETTINGS
@given(valid_profiles())
def test_random_valid_profile_round_trips(msg):
    p = pprofcore.loads(msg.SerializeToString())
    raw = p.to_bytes(compress=False)
    assert pprofcore.loads(raw) == p
    assert pprofcore.loads(p.to_bytes()) == p
    assert p.to_bytes(compress=False) == raw, "to_bytes is not deterministic"
    assert pprofcore.loads(raw).to_bytes(compress=False) == raw, "re-encoding changed the bytes"
    assert p.to_bytes(level=1) == p.to_bytes(level=1)


# ------------------------------------------------------------------ labels on the wire

# String codes around the varint widths (1, 2 and 3 bytes): the decoder's short
# path for labels (08 key 10 str, a payload of 4 to 6 bytes) takes some of
# these labels, the general loop the others.
_CODES = st.sampled_from([1, 2, 126, 127, 128, 129, 255, 16382, 16383, 16384, 16385, 20999])
_N_STRINGS = 21000


@st.composite
def _label_bytes(draw) -> bytes:
    """A Label message with its fields in any order, some written twice or as
    explicit zeros, the way other encoders may write them."""
    from wirebuild import vint

    fields = [(1, draw(_CODES)), (2, draw(st.sampled_from([0, 1, 127, 128, 16383, 16384])))]
    if draw(st.booleans()):
        fields.append((3, draw(st.sampled_from([0, 1, 300, (1 << 63) + 5]))))
    if draw(st.booleans()):
        fields.append((4, draw(st.sampled_from([0, 3, 130]))))
    if draw(st.booleans()):
        fields.append(draw(st.sampled_from(fields)))  # a repeated field: the last one wins
    order = draw(st.permutations(fields))
    return b"".join(vint(f, v) for f, v in order)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_label_bytes(), max_size=5), min_size=1, max_size=6))
def test_labels_in_any_field_order_agree_with_protobuf(samples):
    """Every way of writing a label decodes as protobuf reads it, whether or not
    it takes the decoder's short path, with pprof's all-zero labels dropped."""
    import wirebuild as wb

    strings = [""] + [f"s{i}" for i in range(1, _N_STRINGS)]
    wire = wb.profile(
        sample_types=[wb.value_type(1, 2)],
        samples=[wb.sample([1], [7], labels) for labels in samples],
        locations=[wb.location(1, address=0x10)],
        strings=strings,
    )
    msg = profile_class()()
    msg.ParseFromString(wire)
    assert_profile_matches(pprofcore.loads(wire), msg)


def test_label_string_code_error_is_the_same_on_both_paths():
    """An out-of-range string code in a label is reported with the same field
    and offset whether the label takes the short path or the general one."""
    import wirebuild as wb

    def offset_of_error(label: bytes) -> tuple:
        wire = wb.profile(
            sample_types=[wb.value_type(1, 2)],
            samples=[wb.sample([1], [7], [label])],
            locations=[wb.location(1)],
            strings=["", "a", "b"],
        )
        with pytest.raises(pprofcore.DecodeError) as e:
            pprofcore.loads(wire)
        return str(e.value), e.value.field, e.value.offset

    for key, value in ((1, 300), (300, 1), (1, 20000)):
        short = wb.vint(1, key) + wb.vint(2, value)
        general = short + wb.vint(3, 0)  # an explicit zero num: the general loop
        assert offset_of_error(short) == offset_of_error(general)
