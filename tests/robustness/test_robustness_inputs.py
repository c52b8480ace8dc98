"""Damaged input of every format the readers know raises only the documented
errors, from every entry point: `loads`, `load` (path, bytes path, file object)
and `load_many(errors="return")`, which hands the error objects back instead of
aborting the batch. The mutations are the ones real damage makes: a flipped
byte, bytes that are not UTF-8 dropped into a line, a cut. A message quotes the
input's bytes as \\xNN, never as a `UnicodeDecodeError`.

Also here: messages that name the problem (gzip inside gzip, a UTF-8 byte-order
mark, which wire type which field expected) and file names that are not UTF-8.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wirebuild import fixed32, small

import pprofcore
from pprofcore import DecodeError, GzipError

RAW = small()
GO_DUMP = (
    b"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/tmp/x/main.go:4 +0x25\n"
    b"created by main.start in goroutine 1\n\t/tmp/x/main.go:9 +0x1d\nexit status 2\n"
)
_JAVA_FRAMES = b"0x00000003 com.example.Main.run (Main.java:12)\n0x00000004 com.example.Main.main (Main.java)\n"
_CPU_WORDS = [0, 3, 0, 10000, 0, 1, 1, 0x401000, 0, 1, 0]

# One seed per input format (and per refusal the sniffer names).
SEEDS = {
    "proto": RAW,
    "proto-gzip": gzip.compress(RAW, mtime=0),
    "heap": b"heap profile: 1: 2 [3: 4] @ heap/8192\n1: 2 [3: 4] @ 0x401001 0x402002\n",
    "jemalloc-heap-v2": b"heap_v2/524288\n t*: 1: 2 [3: 4]\n t0: 1: 2 [3: 4]\n@ 0x401001 0x402002\n t*: 1: 2 [3: 4]\n",
    "growthz": b"heap profile: 2: 4096 [ 2: 4096] @ growthz\n 1: 2048 [ 1: 2048] @ 0x401001 0x402002\n",
    "go-goroutine-debug1": b"goroutine profile: total 2\n2 @ 0x401001 0x402002\n#\t0x401001\tmain.f+0x1\tx.go:3\n",
    "go-mutex": b"--- mutex:\ncycles/second=2494226000\nsampling period=1\n12 3 @ 0x401001 0x402002\n",
    "go-block": b"--- contention:\ncycles/second=2494226000\n12 3 @ 0x401001 0x402002\n",
    "contentionz-cpp": (
        b"--- contentionz 1 ---\ncycles/second = 2000000000\nsampling period = 10\n"
        b"  200 3 @ 0x401001 0x402002\n--- Memory map: ---\n00400000-00500000 r-xp 0 00:00 0 /bin/srv\n"
    ),
    "java-heapz": b"--- heapz 1 ---\nformat = java\nresolution = bytes\n  7048  1 @ 0x00000003 0x00000004\n"
    + _JAVA_FRAMES,
    "java-contentionz": b"--- contentionz 1 ---\nformat = java\nresolution = microseconds\nsampling period = 100\n"
    b"  1  1 @ 0x00000003 0x00000004\n" + _JAVA_FRAMES,
    "threadz": b"--- threadz 1 ---\n\n--- Thread 7f79 (name: main/14748) stack: ---\n  PC:  0x00bc8f1c: helper\n"
    b"  0x0040be31: main\n--- Memory map: ---\n  00400000-00fcb000: /srv/server_main\n",
    "gperftools-cpu": b"".join(w.to_bytes(8, "little") for w in _CPU_WORDS)
    + b"00400000-00500000 r-xp 00000000 08:01 1 /srv/main\n",
    "goroutine-dump": GO_DUMP,
    "folded": b"main;work;leaf 10\nmain;idle 3\n",
    "json": b'{"traceEvents": []}\n',
    "json-bom": b'\xef\xbb\xbf{"nodes": [], "timeDeltas": []}\n',
    "jfr": b"FLR\0\0\x02\0\0" + b"\0" * 24,
}
if shutil.which("zstd") and pprofcore._core.have_zstd():
    SEEDS["proto-zstd"] = subprocess.run(["zstd", "-q", "-c"], input=RAW, capture_output=True, check=True).stdout
    SEEDS["go-mutex-zstd"] = subprocess.run(
        ["zstd", "-q", "-c"], input=SEEDS["go-mutex"], capture_output=True, check=True
    ).stdout


def _mutate(data: bytes, ops) -> bytes:
    """Applies (kind, position, byte) edits: flip a byte's bits, insert a byte
    that is not UTF-8 (0x80..0xff), or cut the input there."""
    out = bytearray(data)
    for kind, pos, b in ops:
        if not out:
            break
        pos %= len(out) + (kind == "insert")
        if kind == "flip":
            out[pos % len(out)] ^= b or 0x80
        elif kind == "insert":
            out[pos:pos] = bytes([0x80 | b])
        else:
            del out[max(pos, 1) :]
    return bytes(out)


_OPS = st.lists(
    st.tuples(st.sampled_from(["flip", "insert", "insert", "cut"]), st.integers(0, 1 << 16), st.integers(0, 255)),
    min_size=1,
    max_size=4,
)


def _check_error(e: BaseException, what: str) -> None:
    """The documented error: a DecodeError whose text fields are str."""
    assert isinstance(e, DecodeError), f"{what}: {type(e).__name__}: {e!r}"
    assert isinstance(str(e), str) and isinstance(e.reason, str) and isinstance(e.field, str)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(SEEDS)), ops=_OPS)
def test_damaged_input_raises_only_documented_errors(tmp_path, name, ops):
    data = _mutate(SEEDS[name], ops)
    try:
        pprofcore.loads(data)
    except Exception as e:  # noqa: BLE001 -- the test is which exceptions escape
        _check_error(e, f"loads({name})")
    path = tmp_path / "p"
    path.write_bytes(data)
    for how, source in [("load(path)", path), ("load(file)", io.BytesIO(data))]:
        try:
            pprofcore.load(source)
        except Exception as e:  # noqa: BLE001
            _check_error(e, f"{how} of {name}")
    [item] = pprofcore.load_many([path], threads=1, errors="return")
    if not isinstance(item, pprofcore.Profile):
        _check_error(item, f"load_many({name})")
        assert item.path == str(path)


# ------------------------------------------------- bytes that are not UTF-8

NOT_UTF8_LINES = [
    pytest.param(b"--- contention:\nbogus\xff=1\n", 'unknown attribute "bogus\\xff"', id="contention-attribute"),
    pytest.param(b"--- mutex:\nsampling \xfe\xffperiod=1\n", "\\xfe\\xff", id="mutex-attribute"),
]


@pytest.mark.parametrize("data, shown", NOT_UTF8_LINES)
def test_non_utf8_header_bytes_are_escaped_in_the_message(data, shown, tmp_path):
    with pytest.raises(DecodeError) as info:
        pprofcore.loads(data)
    assert shown in str(info.value) and shown in info.value.reason
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    [item] = pprofcore.load_many([path, path], errors="return")[:1]
    assert isinstance(item, DecodeError) and shown in str(item)
    assert pprofcore.load_many([path], errors="skip") == []


# ------------------------------------------------------- file names

NAME = b"prof-\xff\xfe.pb"


@pytest.fixture
def odd_name(tmp_path):
    """A profile saved under a name that is not UTF-8, as bytes."""
    path = os.fsencode(tmp_path) + b"/" + NAME
    with open(path, "wb") as f:
        f.write(RAW)
    return path


def test_non_utf8_file_name_loads_as_bytes_and_as_fsdecoded_str(odd_name):
    want = pprofcore.loads(RAW)
    assert pprofcore.load(odd_name) == want
    assert pprofcore.load(os.fsdecode(odd_name)) == want
    assert pprofcore.load_many([odd_name, os.fsdecode(odd_name)]) == [want, want]


def test_errors_name_a_non_utf8_file_as_fsdecode_does(odd_name):
    with open(odd_name, "wb") as f:
        f.write(fixed32(2, 1))
    for source in (odd_name, os.fsdecode(odd_name)):
        with pytest.raises(DecodeError) as info:
            pprofcore.load(source)
        assert info.value.path == os.fsdecode(odd_name)
        assert "prof-\\xff\\xfe.pb" in str(info.value)
        str(info.value).encode("utf-8")  # printable: no lone surrogates in the message
    [item] = pprofcore.load_many([odd_name], errors="return")
    assert isinstance(item, DecodeError) and item.path == os.fsdecode(odd_name)
    missing = odd_name + b".missing"
    with pytest.raises(FileNotFoundError) as info:
        pprofcore.load(missing)
    assert info.value.filename == os.fsdecode(missing)
    [item] = pprofcore.load_many([os.fsdecode(missing)], errors="return")
    assert isinstance(item, FileNotFoundError) and item.filename == os.fsdecode(missing)


def test_bytes_that_are_data_not_a_path_are_still_refused():
    for data in (gzip.compress(RAW), RAW, b"heap profile: 1: 2 [3: 4] @ heap/8192\n1: 2 [3: 4] @ 0x1\n"):
        with pytest.raises(TypeError, match="loads"):
            pprofcore.load(data)


# ------------------------------------------------------- named problems


def test_gzip_inside_gzip_is_named():
    twice = gzip.compress(gzip.compress(RAW))
    with pytest.raises(GzipError, match="gzip inside gzip: the file was compressed twice"):
        pprofcore.loads(twice)
    # Once decompressed, it is the profile.
    assert pprofcore.loads(gzip.decompress(twice)) == pprofcore.loads(RAW)


@pytest.mark.skipif(not (shutil.which("zstd") and pprofcore._core.have_zstd()), reason="needs zstd and libzstd")
def test_gzip_inside_zstd_is_named():
    z = subprocess.run(["zstd", "-q", "-c"], input=gzip.compress(RAW), capture_output=True, check=True).stdout
    with pytest.raises(GzipError, match="gzip inside zstd"):
        pprofcore.loads(z)


def test_json_with_a_byte_order_mark_is_named():
    with pytest.raises(DecodeError, match="UTF-8 byte-order mark") as info:
        pprofcore.loads(SEEDS["json-bom"])
    assert "V8/Chrome CPU profile" in str(info.value)
    # Any number of marks is one mark to skip (not one call each).
    with pytest.raises(DecodeError, match="UTF-8 byte-order mark"):
        pprofcore.loads(b"\xef\xbb\xbf" * 400_000 + b"{}")


# Each top-level field of profile.proto with the wire type it is not: the
# message says the field's number, what it expected and what it found.
_MESSAGES = {1: "sample_type", 2: "sample", 3: "mapping", 4: "location", 5: "function", 6: "string_table"}
_SCALARS = {9: "time_nanos", 10: "duration_nanos", 12: "period", 14: "default_sample_type"}


@pytest.mark.parametrize("field", sorted({**_MESSAGES, **_SCALARS}))
def test_wrong_wire_type_says_what_was_expected_where(field):
    expected = "length-delimited (2)" if field in _MESSAGES else "varint (0)"
    data = RAW + fixed32(field, 7)
    with pytest.raises(DecodeError) as info:
        pprofcore.loads(data)
    e = info.value
    assert e.reason == f"wrong wire type for field number {field}: expected {expected}, found fixed32 (5)"
    assert e.field == "Profile." + {**_MESSAGES, **_SCALARS}[field] and e.offset == len(RAW)
