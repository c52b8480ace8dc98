"""ProfileSet.series over files (C++ workers reduce each file to rows,
_core.series_files) against the same series over the same profiles already in
memory (one node table per Profile, the path Profile.top uses): the two must
give identical DataFrames and raise the same errors; by labels only, too,
where files take a lean tables pass of their own."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbprofile import valid_profiles
from testenv import corpus_glob
from wirebuild import ld, split_fields

import pprofcore

pd = pytest.importorskip("pandas")

CPU = corpus_glob("fleet/cpu/*.pb.gz")
HEAP = corpus_glob("fleet/heapseries/*.pb.gz")
GRANULARITIES = ["functions", "filefunctions", "files", "lines", "addresses"]


def both(paths, **kw):
    """(series from the files, series from the decoded profiles)."""
    from_files = pprofcore.ProfileSet(paths, threads=2).series(**kw)
    from_profiles = pprofcore.ProfileSet([pprofcore.load(p) for p in paths]).series(**kw)
    return from_files, from_profiles


def outcome(fn):
    try:
        return "ok", fn()
    except TypeError as e:
        return "TypeError", str(e)
    except ValueError as e:  # pprofcore's ProfileError and DecodeError are ValueErrors
        return "ValueError", str(e)


def assert_same_outcome(got, want):
    """Both series equal (frames and attrs), or both raised the same error."""
    assert got[0] == want[0], (got, want)
    if got[0] == "ok":
        pd.testing.assert_frame_equal(got[1], want[1])
        assert got[1].attrs == want[1].attrs
    else:
        assert got[1] == want[1]


@pytest.mark.skipif(not CPU or not HEAP, reason="no fleet corpus (shared or local; the local one needs Go)")
@pytest.mark.parametrize("by", GRANULARITIES)
@pytest.mark.parametrize("value", ["flat", "cum"])
@pytest.mark.parametrize("fleet", ["cpu", "heap"])
def test_files_path_equals_profiles_path_on_corpus(fleet, by, value):
    paths = (CPU if fleet == "cpu" else HEAP)[:12]
    a, b = both(paths, by=by, value=value)
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs == b.attrs
    assert len(a) > 0


@pytest.mark.skipif(not HEAP, reason="no fleet corpus (shared or local; the local one needs Go)")
@pytest.mark.parametrize("sample_type", [0, -1, "alloc_space", "inuse_objects"])
def test_sample_type_choice_matches(sample_type):
    a, b = both(HEAP[:6], sample_type=sample_type, normalize="share")
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs["sample_type"] == b.attrs["sample_type"]


def test_errors_match_and_name_the_file(tmp_path):
    path = tmp_path / "p.pb.gz"
    pprofcore.load(pprofcore.example_path("heap")).save(path)
    paths = [str(path)] * 3
    for bad in ["nope", 7, -9]:
        got = outcome(lambda: pprofcore.ProfileSet(paths).series(sample_type=bad))
        want = outcome(lambda: pprofcore.ProfileSet([pprofcore.load(path)] * 3).series(sample_type=bad))
        assert got == want and got[0] == "ValueError"
    with pytest.raises(TypeError, match="sample_type must be"):
        pprofcore.ProfileSet(paths).series(sample_type=1.5)
    broken = tmp_path / "broken.pb.gz"
    broken.write_bytes(path.read_bytes()[:40])
    with pytest.raises(pprofcore.DecodeError, match="broken.pb.gz"):
        pprofcore.ProfileSet([str(path), str(broken), "/nonexistent/x.pb.gz"]).series()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    msgs=st.lists(valid_profiles(), min_size=1, max_size=4),
    by=st.sampled_from(GRANULARITIES),
    value=st.sampled_from(["flat", "cum"]),
    sample_type=st.sampled_from([None, 0, -1, 1]),
)
def test_files_path_equals_profiles_path_on_random_profiles(tmp_path_factory, msgs, by, value, sample_type):
    d = tmp_path_factory.mktemp("series")
    paths = []
    for i, m in enumerate(msgs):
        p = d / f"{i}.pb"
        p.write_bytes(m.SerializeToString())
        paths.append(str(p))
    got = outcome(lambda: pprofcore.ProfileSet(paths, threads=2).series(sample_type, by=by, value=value))
    want = outcome(
        lambda: pprofcore.ProfileSet([pprofcore.load(p) for p in paths]).series(sample_type, by=by, value=value)
    )
    assert_same_outcome(got, want)


def test_default_sample_type_is_matched_by_bytes(tmp_path):
    """Two type names of invalid UTF-8 that show alike as ``str`` ("\\x80\\x80"
    and "\\x80\\x81" both show as two U+FFFD) are told apart by the default
    sample type, as pprof compares bytes: both paths pick the named type, or
    both refuse a default that names none (a case Hypothesis found)."""
    from pbprofile import profile_class

    def profile(default: bytes):
        strings = [b"", b"\x80\x81", b"\x80\x80"]
        if default not in strings:
            strings.append(default)
        m = profile_class()()
        m.string_table.extend(strings)
        for t in (1, 2):
            m.sample_type.add(type=t)
        m.sample.add(value=[5, 7])
        m.default_sample_type = strings.index(default)
        return m

    for default, want in ((b"\x80\x80", 1), (b"\x80\x81", 0), (b"\x80\x82", None)):
        path = tmp_path / "p.pb"
        path.write_bytes(profile(default).SerializeToString())
        p = pprofcore.load(path)
        got = outcome(lambda: pprofcore.ProfileSet([str(path)]).series())
        ref = outcome(lambda: pprofcore.ProfileSet([p]).series())
        assert got[0] == ref[0] and (got[0] == "ok" or got[1] == ref[1]), (got, ref)
        if want is None:
            assert got[0] == "ValueError" and "no sample_type" in got[1]
            with pytest.raises(ValueError, match="no sample_type"):
                p.sample_type_index()
        else:
            assert p.sample_type_index() == want
            assert got[1].attrs["total"] == [5, 7][want]  # the chosen type's total (no locations: no rows)


def renumbered(msg):
    """``msg`` with mapping, function and location ids 1..n in file order
    (references follow), the shape the labels-only lean pass reads itself."""
    mapping = {m.id: i + 1 for i, m in enumerate(msg.mapping)}
    function = {f.id: i + 1 for i, f in enumerate(msg.function)}
    location = {loc.id: i + 1 for i, loc in enumerate(msg.location)}
    for m in msg.mapping:
        m.id = mapping[m.id]
    for f in msg.function:
        f.id = function[f.id]
    for loc in msg.location:
        loc.id = location[loc.id]
        loc.mapping_id = mapping.get(loc.mapping_id, 0)
        for line in loc.line:
            line.function_id = function[line.function_id]
    for s in msg.sample:
        s.location_id[:] = [location[i] for i in s.location_id]
    return msg


def utf8_keys(msg) -> list:
    keys = set()
    for s in msg.string_table:
        try:
            keys.add(s.decode())
        except UnicodeDecodeError:
            pass
    return sorted(keys - {""}) or ["absent"]


def named(msg, duplicate: bool):
    """``msg`` with every function named by a string of its own and every
    location given a line: the shape the functions-granularity lean pass keys
    by string code. ``duplicate``: the last function's name is a second code
    of the first one's bytes (one node to pprof; the pass must step aside)."""
    for i, f in enumerate(msg.function):
        f.name = len(msg.string_table)
        msg.string_table.append(f"fn{i}".encode())
    if duplicate and len(msg.function) > 1:
        msg.function[-1].name = len(msg.string_table)
        msg.string_table.append(b"fn0")
    if msg.function:
        for loc in msg.location:
            if not loc.line:
                loc.line.add(function_id=msg.function[0].id)
    return msg


def written(tmp_path_factory, msg, data, renumber=None, rewrite=None) -> str:
    """``msg`` (its ids renumbered 1..n or not; None: drawn; its bytes passed
    through ``rewrite`` if given) written to a file as it is, cut short, or
    with one byte changed; the path."""
    if renumber if renumber is not None else data.draw(st.booleans(), label="renumber"):
        msg = renumbered(msg)
    raw = msg.SerializeToString()
    if rewrite:
        raw = rewrite(raw)
    change = data.draw(st.sampled_from(["none", "cut", "flip"]), label="change")
    if change != "none" and raw:
        at = data.draw(st.integers(0, len(raw) - 1), label="at")
        flipped = bytes([raw[at] ^ data.draw(st.sampled_from([0x01, 0x80, 0xFF]), label="bits")])
        raw = raw[:at] if change == "cut" else raw[:at] + flipped + raw[at + 1 :]
    path = str(tmp_path_factory.mktemp("lean") / "p.pb")
    with open(path, "wb") as f:
        f.write(raw)
    return path


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(msg=valid_profiles(), data=st.data())
def test_label_series_of_files_equals_decoded_profiles(tmp_path_factory, msg, data):
    """By labels only, files are read by a lean tables pass of their own
    (``scan_labels.cpp``, ids 1..n in file order; other ids go to the full
    scan): on generated profiles with string and numeric labels, and on the
    same bytes cut short or with one byte changed, it gives the series of the
    decoded profiles, or the same error."""
    path = written(tmp_path_factory, msg, data)
    keys = data.draw(st.lists(st.sampled_from(utf8_keys(msg)), min_size=1, max_size=2, unique=True), label="keys")
    by = [f"label:{k}" for k in keys]
    got = outcome(lambda: pprofcore.ProfileSet([path]).series(by=by))
    want = outcome(lambda: pprofcore.ProfileSet([pprofcore.load(path)]).series(by=by))
    assert_same_outcome(got, want)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(msg=valid_profiles(), data=st.data(), value=st.sampled_from(["flat", "cum"]))
def test_function_series_of_files_equals_decoded_profiles(tmp_path_factory, msg, data, value):
    """By function, files of the common shape (ids 1..n, every function named
    by a string of its own) are summed per name code, the node table built
    from the lean tables pass (``NameNodes`` in ``series.cpp``): it gives the
    series of the decoded profiles, or the same error, also on the bytes cut
    short or with one byte changed, and where two codes hold one name."""
    shape = data.draw(st.sampled_from(["as drawn", "named", "duplicate"]), label="shape")
    if shape != "as drawn":
        msg = named(msg, duplicate=shape == "duplicate")
    path = written(tmp_path_factory, msg, data, renumber=True if shape != "as drawn" else None)
    got = outcome(lambda: pprofcore.ProfileSet([path]).series(value=value))
    want = outcome(lambda: pprofcore.ProfileSet([pprofcore.load(path)]).series(value=value))
    assert_same_outcome(got, want)


def reordered(raw: bytes, how: str) -> bytes:
    """A profile's bytes with the fields of each Location and Function written
    in another order than protobuf's (reversed, or the Lines' own fields
    reversed), or the id written twice: the lean pass reads the usual order
    straight through and must hand any other to its general walk."""

    def rewrite(message: int, payload: bytes) -> bytes:
        fields = split_fields(payload)
        if how == "reversed":
            fields = fields[::-1]
        elif how == "id twice":
            fields = fields + [f for f in fields if f[0] == 1]
        elif how == "lines reversed" and message == 4:
            fields = [
                (n, ld(n, b"".join(f[1] for f in split_fields(v)[::-1])) if n == 4 else b, v) for n, b, v in fields
            ]
        return b"".join(b for _, b, _ in fields)

    # top-level Location (4) and Function (5) messages rewritten, the rest kept
    return b"".join(ld(n, rewrite(n, v)) if n in (4, 5) else b for n, b, v in split_fields(raw))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    msg=valid_profiles(),
    data=st.data(),
    how=st.sampled_from(["reversed", "id twice", "lines reversed"]),
    by=st.sampled_from(["functions", "label"]),
)
def test_tables_in_another_field_order_equal_decoded_profiles(tmp_path_factory, msg, data, how, by):
    """Locations and Functions whose fields are not in protobuf's order (the
    usual one, read straight through) give the decoded profiles' series or the
    same error, by function and by label, also cut short or with a byte changed."""
    msg = named(msg, duplicate=False)
    path = written(tmp_path_factory, msg, data, renumber=True, rewrite=lambda raw: reordered(raw, how))
    kw = {"by": f"label:{utf8_keys(msg)[0]}"} if by == "label" else {}
    got = outcome(lambda: pprofcore.ProfileSet([path]).series(**kw))
    want = outcome(lambda: pprofcore.ProfileSet([pprofcore.load(path)]).series(**kw))
    assert_same_outcome(got, want)
