"""level="fast": the fastest deflate of the build (ISA-L's level 1 when built
with it). Output must be a valid, deterministic gzip stream that Python's zlib
and every inflater of the build read back exactly."""

from __future__ import annotations

import gzip
import os
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pprof_oracle import rawdumps
from testenv import requires_go

import pprofcore
from pprofcore import _core
from pprofcore._build_info import inflaters

FAST = -2  # gzip::kFastestLevel
BACKENDS = ["auto", *inflaters()]


@settings(max_examples=80, deadline=None)
@given(
    data=st.binary(max_size=5000)
    | st.builds(lambda b, n: b * n, st.binary(min_size=1, max_size=50), st.integers(1, 4000))
)
def test_fast_gzip_round_trips(data):
    z = _core.gzip(data, FAST)
    assert gzip.decompress(z) == data
    assert z[:4] == b"\x1f\x8b\x08\x00" and z[4:8] == b"\0\0\0\0"  # no name, mtime 0: deterministic
    assert _core.gzip(data, FAST) == z
    for b in BACKENDS:
        assert _core.gunzip(z, backend=b) == data


@pytest.mark.skipif(not _core.have_isal(), reason="this build has no ISA-L")
def test_isal_backend_deflates_large_inputs():
    # incompressible and compressible parts: the output buffer must grow past its first guess
    data = os.urandom(3 << 20) + bytes(5 << 20) + os.urandom(1 << 20)
    z = _core.gzip(data, 6, backend="isal")
    assert gzip.decompress(z) == data


def test_profile_to_bytes_fast_level():
    p = pprofcore.load(pprofcore.example_path("heap"))
    fast = p.to_bytes(level="fast")
    assert pprofcore.loads(fast) == p
    assert fast == p.to_bytes(level="fast")
    assert gzip.decompress(fast) == p.to_bytes(compress=False)
    with pytest.raises(ValueError, match="'fast'"):
        p.to_bytes(level=13)
    with pytest.raises(TypeError):
        p.to_bytes(level="slow")


def _large_profile_bytes(n_samples: int = 80_000) -> bytes:
    """An uncompressed profile of several MiB, encoded by the test's own wire
    builder: 300 locations over 60 functions, stacks of 1-30 frames, values of
    every width, 0-4 labels (string and numeric) per sample."""
    import random

    import wirebuild as wb

    rnd = random.Random(17)
    strings = ["", "samples", "count", "space", "bytes", "zone", "host", "size"]
    strings += [f"pkg.fn{i}" for i in range(60)] + [f"z{i}" for i in range(20)]
    fn0, z0 = 8, 68
    functions = [wb.function(i + 1, name=fn0 + i, system_name=fn0 + i, filename=fn0 + (i * 7) % 60) for i in range(60)]
    locations = [
        wb.location(i + 1, address=0x1000 + 16 * i, lines=[wb.line(1 + rnd.randrange(60), rnd.randrange(1, 5000))])
        for i in range(300)
    ]
    samples = []
    for _ in range(n_samples):
        stack = [1 + rnd.randrange(300) for _ in range(rnd.randint(1, 30))]
        values = [rnd.getrandbits(rnd.randint(1, 62)), rnd.getrandbits(rnd.randint(1, 40))]
        labels = []
        for _ in range(rnd.randint(0, 4)):
            if rnd.random() < 0.7:
                labels.append(wb.label(rnd.choice((5, 6)), z0 + rnd.randrange(20)))
            else:
                labels.append(wb.label(7, num=rnd.getrandbits(30) + 1, num_unit=4))
        samples.append(wb.sample(stack, values, labels))
    return wb.profile(
        sample_types=[wb.value_type(1, 2), wb.value_type(3, 4)],
        samples=samples,
        locations=locations,
        functions=functions,
        strings=strings,
        period_type=wb.value_type(3, 4),
        period=524288,
    )


@requires_go
@pytest.mark.parametrize("level", ["fast", None])
def test_large_profile_gzip_is_read_by_pprof(tmp_path, level):
    """A profile of several MiB goes through the paths small ones never take:
    samples written by several threads into stretches sized beforehand, and
    the deflate (ISA-L's level 1, libdeflate's default level) in independent
    1 MiB pieces joined into one gzip member. The bytes equal the test's own
    encoder's; the member is one stream, read whole by zlib (which stops
    after a first member), by every inflater, and by Go's gzip reader and
    pprof."""
    raw = _large_profile_bytes()
    assert len(raw) > 4 << 20  # samples sized over 2 MiB: 2 threads or more
    p = pprofcore.loads(raw)
    assert p.to_bytes(compress=False) == raw
    gz = p.to_bytes(level=level)
    assert gz == p.to_bytes(level=level)
    assert gzip.decompress(gz) == raw
    one = zlib.decompressobj(31)
    assert one.decompress(gz) == raw and one.eof and one.unused_data == b""
    for b in BACKENDS:
        assert _core.gunzip(gz, backend=b) == raw
    (tmp_path / "raw.pb").write_bytes(raw)
    (tmp_path / "out.pb.gz").write_bytes(gz)
    dumps = rawdumps([tmp_path / "raw.pb", tmp_path / "out.pb.gz"])
    assert not dumps[str(tmp_path / "raw.pb")].startswith("ERROR")
    assert dumps[str(tmp_path / "out.pb.gz")] == dumps[str(tmp_path / "raw.pb")]
