"""zstd-compressed profiles (as Datadog's ddtrace writes them): detected by the
frame magic like gzip, decompressed with the same size limit, every frame of a
multi-frame file joined. Inputs are compressed by the real `zstd` command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from testenv import pprofcore_env
from wirebuild import ld, small

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
    bomb = _zstd(raw * ((2 << 20) // len(raw)))  # 2 MiB of profile fields in a few KiB
    with pytest.raises(GzipError, match="exceeds the limit"):
        pprofcore.loads(bomb, max_decompressed_size=1 << 20)


# The scripts read VmHWM, their own peak: ru_maxrss also counts the parent's pages at fork.
_BOMB = """
import resource, sys, pprofcore
from pprofcore import DecodeError
bomb = open(sys.argv[1], "rb").read()
before = int([x.split()[1] for x in open("/proc/self/status") if x.startswith("VmHWM:")][0])
try:
    pprofcore.loads(bomb)
    raise SystemExit("accepted a bomb")
except DecodeError as e:
    print(type(e).__name__, e, file=sys.stderr)
print((int([x.split()[1] for x in open("/proc/self/status") if x.startswith("VmHWM:")][0]) - before) // 1024)
"""


@pytest.mark.skipif("san" in os.environ.get("LD_PRELOAD", ""), reason="peak RSS means nothing under a sanitizer")
@pytest.mark.parametrize(
    "byte, message",
    [(b"\0", "decompresses to zero bytes"), (b"A", "wrong wire type for field number 8")],
    ids=["zeros", "letters"],
)
def test_bomb_is_rejected_from_its_first_bytes(tmp_path, byte, message):
    """512 MiB of one byte, in a few KiB: it used to be decompressed whole (and
    held twice over while the output grew) before the decoder saw that it could
    not be a profile. Now its first 64 KiB decide."""
    path = tmp_path / "bomb.zst"
    with open(path, "wb") as out:  # fed a MiB at a time: the test holds no 512 MiB either
        z = subprocess.Popen(["zstd", "-q", "-1", "-c"], stdin=subprocess.PIPE, stdout=out)
        chunk = byte * (1 << 20)
        for _ in range(512):
            z.stdin.write(chunk)
        z.stdin.close()
        assert z.wait() == 0
    assert path.stat().st_size < (1 << 20)
    r = subprocess.run(
        [sys.executable, "-c", _BOMB, str(path)], capture_output=True, text=True, timeout=120, env=pprofcore_env()
    )
    assert r.returncode == 0, r.stderr
    assert message in r.stderr
    grown_mib = int(r.stdout)
    assert grown_mib < 64, f"peak RSS grew by {grown_mib} MiB to reject a zstd bomb"


def test_zstd_inside_zstd_is_named(raw):
    with pytest.raises(GzipError, match="zstd inside zstd: the file was compressed twice"):
        pprofcore.loads(_zstd(_zstd(raw)))


@pytest.mark.parametrize("size", [4095, 4096, 4097, 65535, 65536, 65537, 262147])
@pytest.mark.parametrize("flags", [(), ("--no-content-size",)], ids=["sized", "no-size"])
def test_output_sizes_at_buffer_boundaries(size, flags):
    """The output buffer starts small and doubles, and stops once at 64 KiB to
    judge the start: sizes at those edges, in one frame or two, decompress
    whole, and the limit holds to the byte."""
    head = small()
    pad = next(f for k in range(2, 8) if len(f := ld(100, b"a" * (size - len(head) - k))) == size - len(head))
    raw = head + pad
    want = pprofcore.loads(raw)
    for data in (_zstd(raw, *flags), _zstd(raw[: size // 2], *flags) + _zstd(raw[size // 2 :], *flags)):
        assert pprofcore.loads(data) == want
        assert pprofcore.loads(data, max_decompressed_size=size) == want
        with pytest.raises(GzipError, match=f"exceeds the limit of {size - 1} bytes"):
            pprofcore.loads(data, max_decompressed_size=size - 1)
