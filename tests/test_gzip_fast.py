"""level="fast": the fastest deflate of the build (ISA-L's level 1 when built
with it). Output must be a valid, deterministic gzip stream that Python's zlib
and every inflater of the build read back exactly."""

from __future__ import annotations

import gzip
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pprofcore
from pprofcore import _core

FAST = -2  # gzip::kFastestLevel
BACKENDS = (
    ["auto", "zlib"] + (["libdeflate"] if _core.have_libdeflate() else []) + (["isal"] if _core.have_isal() else [])
)


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
