"""Inputs that are not profile.proto are named by what they are (their magic
number), and a real profile with one damaged byte is not called foreign."""

from __future__ import annotations

import bz2
import io
import lzma
import shutil
import subprocess
import sys
import tarfile
import zipfile
import zlib

import pytest
import wirebuild as wb

import pprofcore
from pprofcore import DecodeError

PROFILE = wb.small()


def _tool(cmd: list, magic: bytes) -> bytes:
    """`cmd` compressing PROFILE when the tool is installed, else the format's
    magic number in front of the bytes (the sniffing only reads the magic)."""
    if shutil.which(cmd[0]):
        return subprocess.run(cmd, input=PROFILE, capture_output=True, check=True).stdout
    return magic + PROFILE


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("cpu.pprof", PROFILE)
    return buf.getvalue()


def _tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        info = tarfile.TarInfo("cpu.pprof")
        info.size = len(PROFILE)
        t.addfile(info, io.BytesIO(PROFILE))
    return buf.getvalue()


def _png() -> bytes:
    ihdr = b"\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    chunk = len(ihdr).to_bytes(4, "big") + b"IHDR" + ihdr + zlib.crc32(b"IHDR" + ihdr).to_bytes(4, "big")
    return b"\x89PNG\r\n\x1a\n" + chunk


def _elf() -> bytes:
    with open(sys.executable, "rb") as f:
        head = f.read(4096)
    if not head.startswith(b"\x7fELF"):
        pytest.skip("the Python executable is not an ELF file")
    return head


FOREIGN = [
    pytest.param(
        lambda: _tool(["zstd", "-q", "-c"], b"\x28\xb5\x2f\xfd"),
        "zstd-compressed",
        id="zstd",
        marks=pytest.mark.skipif(pprofcore._core.have_zstd(), reason="this build reads zstd (tests/core/test_zstd.py)"),
    ),
    pytest.param(lambda: lzma.compress(PROFILE), "xz-compressed", id="xz"),
    pytest.param(lambda: bz2.compress(PROFILE), "bzip2-compressed", id="bzip2"),
    pytest.param(lambda: _tool(["lz4", "-q", "-c"], b"\x04\x22\x4d\x18"), "lz4-compressed", id="lz4"),
    pytest.param(lambda: zlib.compress(PROFILE), "zlib stream", id="zlib"),
    pytest.param(lambda: zlib.compress(PROFILE, 9), "zlib stream", id="zlib-9"),
    pytest.param(_zip, "zip archive", id="zip"),
    pytest.param(_tar, "tar archive", id="tar"),
    pytest.param(_png, "PNG image", id="png"),
    pytest.param(_elf, "ELF binary", id="elf"),
    pytest.param(lambda: "goroutine profile: total 3\n1 @ 0x1\n".encode("utf-16"), "UTF-16 text", id="utf-16-bom"),
    pytest.param(
        lambda: "heap profile: 1: 2 [3: 4] @ heapprofile\n".encode("utf-16-le"), "UTF-16 text", id="utf-16-le"
    ),
    pytest.param(lambda: "--- contention ---\ncycles/second=1\n".encode("utf-16-be"), "UTF-16 text", id="utf-16-be"),
]


@pytest.mark.parametrize("make, name", FOREIGN)
def test_foreign_input_is_named(make, name):
    data = make()
    with pytest.raises(DecodeError, match=name):
        pprofcore.loads(data)
    # The same through gzip: the name comes from the decompressed bytes.
    with pytest.raises(DecodeError, match=name):
        pprofcore.loads(pprofcore._core.gzip(data, 1))


def _retagged_second_sample() -> tuple:
    """The small profile with its second sample's tag byte turned into a mapping's:
    still well-formed protobuf, but a mapping cannot hold a sample's fields."""
    fields = wb.top_level(PROFILE)
    start = [s for f, s, _ in fields if f == 2][1]
    assert PROFILE[start] == 0x12
    return PROFILE[:start] + b"\x1a" + PROFILE[start + 1 :], start


def test_profile_with_one_bad_byte_is_not_called_foreign():
    data, at = _retagged_second_sample()
    with pytest.raises(DecodeError) as info:
        pprofcore.loads(data)
    message = str(info.value)
    assert "wrong wire type" in message and "Profile.mapping" in message
    assert "protobuf but" not in message and "not profile.proto" not in message, message


def test_foreign_protobuf_whose_first_field_mismatches_keeps_the_hint():
    with pytest.raises(DecodeError, match="input is protobuf but its fields do not match profile.proto"):
        pprofcore.loads(wb.fixed32(1, 7) + wb.ld(3, b"xyz"))


def test_valid_profile_starting_like_a_zlib_header_still_decodes():
    # doc_url (field 15, varint) first: tag 0x78, as a zlib header starts; only
    # failing inputs are sniffed.
    data = wb.vint(15, 1) + PROFILE
    assert data[:2] == b"\x78\x01"
    assert pprofcore.loads(data).doc_url == wb.SMALL_STRINGS[1]
