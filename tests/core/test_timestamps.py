"""Time inside a profile: Profile.timestamps from the `timestamp_ns` label (the
readers' convention), Datadog's `end_timestamp_ns`, or a label the user names
(units converted); Profile.window over every kind of bound; to_pandas's time
column; OTLP timestamps landing in `timestamp_ns`."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from pbprofile import profile_class

import pprofcore
from pprofcore import _timestamps

NAT = np.iinfo(np.int64).min
BASE = 1_700_000_000_000_000_000  # 2023-11-14T22:13:20Z


def _profile(labels_per_sample) -> pprofcore.Profile:
    """One sample per entry of labels_per_sample: a list of (key, num, unit)."""
    msg = profile_class(True)()
    strings = [b"", b"samples", b"count", b"f"]

    def s(text: str) -> int:
        b = text.encode()
        if b not in strings:
            strings.append(b)
        return strings.index(b)

    msg.sample_type.add(type=1, unit=2)
    msg.function.add(id=1, name=3)
    msg.location.add(id=1).line.add(function_id=1)
    for i, labels in enumerate(labels_per_sample):
        smp = msg.sample.add(location_id=[1], value=[i + 1])
        for key, num, unit in labels:
            smp.label.add(key=s(key), num=num, num_unit=s(unit) if unit else 0)
    msg.string_table.extend(strings)
    return pprofcore.loads(msg.SerializeToString())


def test_timestamp_ns_label_is_the_column():
    p = _profile([[("timestamp_ns", BASE + 5, "nanoseconds")], [], [("timestamp_ns", BASE, "nanoseconds")]])
    assert p.timestamps.dtype == np.int64
    assert p.timestamps.tolist() == [BASE + 5, NAT, BASE]


def test_datadog_end_timestamp_ns_is_the_fallback():
    p = _profile([[("end_timestamp_ns", BASE, "")], [("end_timestamp_ns", BASE + 1, "")]])
    assert p.timestamps.tolist() == [BASE, BASE + 1]
    both = _profile([[("end_timestamp_ns", 1, ""), ("timestamp_ns", 2, "nanoseconds")]])
    assert both.timestamps.tolist() == [2]  # timestamp_ns wins


def test_no_timestamps_is_none():
    p = _profile([[("bytes", 3, "bytes")]])
    assert p.timestamps is None and p.timestamps_from("missing") is None
    with pytest.raises(ValueError, match="no timestamps"):
        p.window(0, 1)


def test_named_label_with_units():
    p = _profile([[("when", 1_700_000_000_000, "milliseconds")], [("when", 3, "")]])
    assert p.timestamps is None
    assert p.timestamps_from("when").tolist() == [BASE, 3]  # milliseconds converted; no unit = ns


@pytest.mark.parametrize(
    "start, end",
    [
        (BASE + 1, BASE + 3),
        (np.datetime64(BASE + 1, "ns"), np.datetime64(BASE + 3, "ns")),
        (dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=0), None),
    ],
    ids=["int", "datetime64", "datetime"],
)
def test_window_keeps_the_range(start, end):
    p = _profile([[("timestamp_ns", BASE + k, "nanoseconds")] for k in range(5)] + [[]])
    w = p.window(start, end)
    kept = w.timestamps.tolist()
    lo = _timestamps.to_nanoseconds(start)
    hi = _timestamps.to_nanoseconds(end)
    assert kept == [BASE + k for k in range(5) if BASE + k >= lo and (hi is None or BASE + k < hi)]
    assert NAT not in kept  # samples without a time are dropped


def test_window_with_pandas_and_named_label():
    pd = pytest.importorskip("pandas")
    p = _profile([[("when", k, "seconds")] for k in range(4)])
    w = p.window(pd.Timestamp(1, unit="s"), pd.Timestamp(3, unit="s"), label="when")
    assert w.values[:, 0].tolist() == [2, 3]
    with pytest.raises(TypeError, match="time bound"):
        p.window("yesterday", label="when")


def test_to_pandas_has_a_datetime_column():
    pd = pytest.importorskip("pandas")
    p = _profile([[("timestamp_ns", BASE, "nanoseconds")], []])
    df = p.to_pandas()
    assert str(df["time"].dtype) == "datetime64[ns]"
    assert df["time"].iloc[0] == pd.Timestamp(BASE, unit="ns") and pd.isna(df["time"].iloc[1])
    assert "time" not in _profile([[]]).to_pandas().columns


def test_otlp_timestamps_are_the_column_and_survive_a_round_trip():
    p = _profile([[("timestamp_ns", BASE + 7, "nanoseconds")], [("timestamp_ns", BASE, "nanoseconds")]])
    q = pprofcore.loads(p.to_otlp())
    assert q.timestamps.tolist() == [BASE + 7, BASE]
