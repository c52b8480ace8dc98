"""zstd-compressed profiles (as Datadog's ddtrace writes them): detected by the
frame magic like gzip, decompressed with the same size limit, every frame of a
multi-frame file joined. Inputs are compressed by the real `zstd` command."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import pprofcore
from pprofcore import DecodeError, GzipError

pytestmark = [
    pytest.mark.skipif(shutil.which("zstd") is None, reason="needs the zstd command (apt-get install zstd)"),
    pytest.mark.skipif(
        not pprofcore._core.have_zstd(), reason="this build has no libzstd (apt-get install libzstd-dev)"
    ),
]


def _zstd(data: bytes, *flags: str) -> bytes:
    return subprocess.run(["zstd", "-q", "-c", *flags], input=data, capture_output=True, check=True).stdout


@pytest.fixture(scope="module")
def raw() -> bytes:
    return pprofcore.load(pprofcore.example_path("heap")).to_bytes(compress=False)


@pytest.mark.parametrize("flags", [(), ("-19",), ("--no-content-size",)], ids=["default", "level19", "no-size"])
def test_zstd_profile_loads_like_the_raw_one(raw, flags, tmp_path):
    z = _zstd(raw, *flags)
    assert z[:4] == b"\x28\xb5\x2f\xfd"
    assert pprofcore.loads(z) == pprofcore.loads(raw)
    path = tmp_path / "p.pb.zst"
    path.write_bytes(z)
    assert pprofcore.load(path) == pprofcore.loads(raw)
    assert pprofcore.load_many([path, path]) == [pprofcore.loads(raw)] * 2


def test_concatenated_frames_are_joined(raw):
    half = len(raw) // 2
    assert pprofcore.loads(_zstd(raw[:half]) + _zstd(raw[half:])) == pprofcore.loads(raw)


def test_zstd_legacy_text_is_read():
    text = b"goroutine profile: total 2\n2 @ 0x401001 0x402002\n"
    assert pprofcore.loads(_zstd(text)) == pprofcore.loads(text)


@pytest.mark.parametrize("cut", [4, 10, -5], ids=["magic-only", "header", "tail"])
def test_truncated_zstd_raises(raw, cut):
    z = _zstd(raw)
    with pytest.raises(GzipError, match="zstd"):
        pprofcore.loads(z[:cut])


def test_corrupt_zstd_raises(raw):
    z = bytearray(_zstd(raw))
    z[len(z) // 2] ^= 0xFF
    with pytest.raises(DecodeError):
        pprofcore.loads(bytes(z))


def test_size_limit_holds(raw):
    with pytest.raises(GzipError, match="exceeds the limit of 1000 bytes"):
        pprofcore.loads(_zstd(raw * 20), max_decompressed_size=1000)
    bomb = _zstd(b"\0" * (64 << 20))  # 64 MiB of zeros in a few KiB
    with pytest.raises(GzipError, match="exceeds the limit"):
        pprofcore.loads(bomb, max_decompressed_size=1 << 20)
