"""Robustness at the edges of reading and batch work: callbacks that raise,
Ctrl-C, the size limit across gzip members and on raw input, memory on corrupt
gzip, and odd paths (NUL bytes, directories, a lone str for a list).

Where the old behaviour killed or hung the interpreter, the check runs in a
subprocess with a timeout (and an address-space cap where it could exhaust
memory), and asserts on its exit status and output."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import textwrap
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from testenv import pprofcore_env
from wirebuild import ld, small, top_level

import pprofcore
from pprofcore import DecodeError, GzipError
from pprofcore._build_info import inflaters

GOOD = small()
# Under tools/sanitize.sh the interpreter runs with a sanitizer preloaded: it
# reserves terabytes of address space and keeps freed memory in quarantine.
SANITIZED = "san" in os.environ.get("LD_PRELOAD", "")


def _inflaters():
    return ["auto", *inflaters()]


def run_isolated(code: str, *args: str, timeout: float = 60, memory_cap: int = 0) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter (argv[1:] = args) and returns the
    finished process; `memory_cap` bytes of address space at most, if given."""
    prelude = ""
    if memory_cap and not SANITIZED:
        prelude = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({memory_cap}, {memory_cap}))\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=pprofcore_env(),
    )


def assert_no_abort(r: subprocess.CompletedProcess) -> None:
    assert r.returncode >= 0, f"killed by signal {-r.returncode}; stderr:\n{r.stderr}"
    assert "terminate called" not in r.stderr, r.stderr


@pytest.fixture
def good_file(tmp_path):
    path = tmp_path / "good.pb"
    path.write_bytes(GOOD)
    return str(path)


# ------------------------------------------------ 1. progress callbacks that raise

_MERGE_WITH_CALLBACK = """
    import sys, pprofcore
    path, how = sys.argv[1], sys.argv[2]
    calls = []
    def cb(done, total):
        calls.append(done)
        if done == 3:
            if how == "raise":
                raise RuntimeError("stop at 3")
            if how == "exit":
                sys.exit(7)
            if how == "ctrl-c":
                raise KeyboardInterrupt
    progress = {"true": True, "core-str": "not callable"}.get(how, cb)
    try:
        if how.startswith("core"):
            pprofcore._core.merge_files([path] * 50, 2, 1 << 20, progress)
        else:
            pprofcore.merge_files([path] * 50, threads=2, progress=progress)
    except (RuntimeError, KeyboardInterrupt, TypeError) as e:
        print(type(e).__name__, e, "after", len(calls), "calls")
"""


@pytest.mark.parametrize(
    "how,out,code",
    [
        pytest.param("raise", "RuntimeError stop at 3 after 3 calls", 0, id="raises"),
        pytest.param("ctrl-c", "KeyboardInterrupt  after 3 calls", 0, id="keyboard-interrupt"),
        pytest.param("exit", "", 7, id="sys-exit"),
        pytest.param(
            "true",
            "TypeError progress must be a callable progress(done, total) or None, not bool after 0 calls",
            0,
            id="progress-true",
        ),
        pytest.param(
            "core-str",
            "TypeError progress must be a callable progress(done, total) or None, not str after 0 calls",
            0,
            id="core-progress-str",
        ),
    ],
)
def test_merge_files_progress_callback_exceptions_propagate(good_file, how, out, code):
    """An exception from progress stops the merge, the decoder threads are
    joined, and the exception reaches the caller (it used to abort the process:
    "terminate called without an active exception"). A progress that is not
    callable is refused before any work, by the Python API and the core alike."""
    r = run_isolated(_MERGE_WITH_CALLBACK, good_file, how)
    assert_no_abort(r)
    assert r.returncode == code, r.stderr
    assert r.stdout.strip() == out


def test_cli_merge_interrupted_in_the_progress_bar_exits_cleanly(good_file, tmp_path):
    """Ctrl-C while the CLI's progress bar draws: a one-line message and exit
    status 130, no traceback, no abort."""
    code = """
        import sys
        from pprofcore import cli
        from pprofcore.cli import _progress
        _progress.Progress.enabled = property(lambda self: True, lambda self, v: None)
        def draw(self, done, total):
            if done == 2:
                raise KeyboardInterrupt
        _progress.Progress.__call__ = draw
        sys.exit(cli.main(["merge", *sys.argv[1:]]))
    """
    r = run_isolated(code, *[good_file] * 20, "-o", str(tmp_path / "out.pb.gz"), "-j", "2")
    assert_no_abort(r)
    assert r.returncode == 130, r.stderr
    assert "Traceback" not in r.stderr
    assert r.stderr.strip() == "pprofcore merge: interrupted"
    assert not (tmp_path / "out.pb.gz").exists()


# ------------------------------------------------ 2. the limit holds across gzip members


def _members(raw: bytes, parts: int) -> bytes:
    """`raw` split at top-level field boundaries into about `parts` gzip members."""
    cuts = sorted({s for _, s, _ in top_level(raw)} | {len(raw)})
    step = max(1, len(cuts) // parts)
    bounds = [0] + cuts[step::step]
    if bounds[-1] != len(raw):
        bounds.append(len(raw))
    return b"".join(gzip.compress(raw[a:b], mtime=0) for a, b in zip(bounds, bounds[1:]))


def _entry_points(tmp_path, data: bytes, limit: int, inflater: str):
    """Every way to decode `data` with a limit, as zero-argument callables."""
    path = tmp_path / "input.pb.gz"
    path.write_bytes(data)
    p = str(path)

    def merger_add_file():
        pprofcore.Merger().add_file(p, max_decompressed_size=limit)

    def load_fileobj():
        with open(p, "rb") as f:
            return pprofcore.load(f, max_decompressed_size=limit, inflater=inflater)

    def load_many():
        (item,) = pprofcore.load_many([p], errors="return", max_decompressed_size=limit, inflater=inflater)
        if isinstance(item, Exception):
            raise item
        return item

    return {
        "loads": lambda: pprofcore.loads(data, max_decompressed_size=limit, inflater=inflater),
        "loads-repair": lambda: pprofcore.loads(data, max_decompressed_size=limit, inflater=inflater, repair=True),
        "load": lambda: pprofcore.load(p, max_decompressed_size=limit, inflater=inflater),
        "load-repair": lambda: pprofcore.load(p, max_decompressed_size=limit, inflater=inflater, repair=True),
        "load-fileobj": load_fileobj,
        "load_many": load_many,
        "merge_files": lambda: pprofcore.merge_files([p, p], max_decompressed_size=limit),
        "Merger.add_file": merger_add_file,
        "delta_bytes": lambda: pprofcore.DeltaComputer().delta_bytes(data, max_decompressed_size=limit),
    }


ENTRY_POINTS = [
    "loads",
    "loads-repair",
    "load",
    "load-repair",
    "load-fileobj",
    "load_many",
    "merge_files",
    "Merger.add_file",
    "delta_bytes",
]


@pytest.mark.parametrize("inflater", _inflaters())
@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_limit_holds_over_all_gzip_members(tmp_path, entry, inflater):
    """A profile in many members, each far under the limit, all together over
    it: refused, on every path (libdeflate used to check each member alone)."""
    data = _members(GOOD, 24)
    assert data.count(b"\x1f\x8b\x08") >= 12
    under = _entry_points(tmp_path, data, len(GOOD), inflater)[entry]
    under()  # exactly at the limit: accepted
    over = _entry_points(tmp_path, data, len(GOOD) - 1, inflater)[entry]
    with pytest.raises(GzipError, match=f"exceeds the limit of {len(GOOD) - 1} bytes"):
        over()


@pytest.mark.parametrize("inflater", _inflaters())
def test_limit_holds_over_many_members_of_zeros(inflater):
    """The issue's shape: many members of zeros, each under the limit, stop at
    the limit instead of inflating all of them."""
    member = gzip.compress(b"\0" * 300_000, mtime=0)
    with pytest.raises(GzipError, match="exceeds the limit of 400000 bytes"):
        pprofcore.loads(member * 40, max_decompressed_size=400_000, inflater=inflater)
    with pytest.raises(GzipError, match="exceeds the limit of 400000 bytes"):
        pprofcore._core.gunzip(member * 40, 400_000, inflater)


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=3000), cuts=st.lists(st.integers(0, 3000), max_size=12), slack=st.integers(-3000, 3000))
def test_limit_is_on_the_total_for_any_split(data, cuts, slack):
    """Property: `data` cut into gzip members at any points inflates back to
    `data` when the limit is at least its length, and fails with the limit
    error below that, in every backend (Python's gzip module as the oracle for
    the joined bytes)."""
    bounds = sorted({0, len(data), *(c for c in cuts if c <= len(data))})
    stream = b"".join(gzip.compress(data[a:b], mtime=0) for a, b in zip(bounds, bounds[1:])) or gzip.compress(b"")
    assert gzip.decompress(stream) == data
    limit = max(0, len(data) + slack)
    for inflater in _inflaters():
        if limit >= len(data):
            assert pprofcore._core.gunzip(stream, limit, inflater) == data
        else:
            with pytest.raises(GzipError, match=f"exceeds the limit of {limit} bytes"):
                pprofcore._core.gunzip(stream, limit, inflater)


# ------------------------------------------------ 3. memory follows what really inflates

# The scripts read VmHWM, their own peak: ru_maxrss also counts the parent's pages at fork.
_TRUNCATED_MEMORY = """
    import os, resource, sys, pprofcore
    from pprofcore import GzipError
    inflater, files = sys.argv[1], sys.argv[2:]
    before = int([x.split()[1] for x in open("/proc/self/status") if x.startswith("VmHWM:")][0])
    if inflater == "load_many":
        out = pprofcore.load_many(files, threads=2, errors="return")
        assert all(isinstance(e, GzipError) for e in out), out
    else:
        data = open(files[0], "rb").read()
        try:
            pprofcore.loads(data, inflater=inflater)
            raise SystemExit("accepted a truncated stream")
        except GzipError as e:
            pass
    print((int([x.split()[1] for x in open("/proc/self/status") if x.startswith("VmHWM:")][0]) - before) // 1024)
"""


def _truncated_with_large_isize(tmp_path, name: str, seed: int) -> str:
    """A 256 KiB truncated gzip download whose last 4 bytes (read as ISIZE)
    claim 2 GiB: deflate's ratio allows ~260 MiB for its length."""
    import random

    rnd = random.Random(seed)
    raw = bytes(rnd.getrandbits(8) for _ in range(256 << 10))
    data = bytearray(gzip.compress(raw, compresslevel=1, mtime=0)[: -(4 << 10)])
    data[-4:] = (2 << 30).to_bytes(4, "little")
    path = tmp_path / name
    path.write_bytes(bytes(data))
    return str(path)


@pytest.mark.skipif(SANITIZED, reason="peak RSS means nothing under a sanitizer")
@pytest.mark.parametrize("inflater", _inflaters() + ["load_many"])
def test_corrupt_gzip_costs_what_inflates_not_what_it_claims(tmp_path, inflater):
    """The output buffer used to be zero-filled to min(ISIZE, 1032 x input,
    limit) before the stream was found broken: ~260 MiB here, per file."""
    files = [
        _truncated_with_large_isize(tmp_path, f"cut{i}.pb.gz", i) for i in range(2 if inflater == "load_many" else 1)
    ]
    r = run_isolated(_TRUNCATED_MEMORY, inflater, *files, memory_cap=6 << 30)
    assert_no_abort(r)
    assert r.returncode == 0, r.stderr
    grown_mib = int(r.stdout.strip())
    assert grown_mib < 64, f"peak RSS grew by {grown_mib} MiB to reject {len(files)} truncated 256 KiB file(s)"


_LYING_ISIZE = """
    import sys, pprofcore
    from pprofcore import GzipError
    inflater, path = sys.argv[1], sys.argv[2]
    try:
        if inflater == "load":
            pprofcore.load(path)
        else:
            pprofcore.loads(open(path, "rb").read(), inflater=inflater)
        raise SystemExit("accepted a corrupt stream")
    except GzipError as e:
        print(e)
"""


@pytest.mark.skipif(SANITIZED, reason="an address-space cap means nothing under a sanitizer")
@pytest.mark.parametrize("inflater", _inflaters() + ["load"])
def test_lying_isize_reserves_what_the_input_can_justify(tmp_path, inflater):
    """A 4 MB corrupt download whose ISIZE claims 4 GiB used to reserve
    min(ISIZE, 1032 x input) = 4 GiB of address space up front: MemoryError
    under a 2.5 GB RLIMIT_AS. The first buffer now holds at most 64 x input."""
    import random

    rnd = random.Random(4)  # incompressible strings: a valid start, so nothing judges it early
    raw = b"".join(ld(6, rnd.randbytes(1000)) for _ in range(4 << 10))
    data = bytearray(gzip.compress(raw, compresslevel=1, mtime=0))
    data[len(data) // 2] ^= 0xFF  # corrupt in the middle
    data[-4:] = (0xFFFFFFF0).to_bytes(4, "little")
    path = tmp_path / "lying.pb.gz"
    path.write_bytes(bytes(data))
    r = run_isolated(_LYING_ISIZE, inflater, str(path), memory_cap=int(2.5 * (1 << 30)))
    assert_no_abort(r)
    assert r.returncode == 0, r.stderr
    assert "gzip" in r.stdout


_GZIP_BOMB = """
    import resource, sys, pprofcore
    from pprofcore import DecodeError
    data = open(sys.argv[2], "rb").read()
    before = int([x.split()[1] for x in open("/proc/self/status") if x.startswith("VmHWM:")][0])
    try:
        pprofcore.loads(data, inflater=sys.argv[1])
        raise SystemExit("accepted a bomb")
    except DecodeError as e:
        print(e, file=sys.stderr)
    print((int([x.split()[1] for x in open("/proc/self/status") if x.startswith("VmHWM:")][0]) - before) // 1024)
"""


@pytest.mark.skipif(SANITIZED, reason="peak RSS means nothing under a sanitizer")
@pytest.mark.parametrize("inflater", _inflaters())
def test_gzip_bomb_is_rejected_from_its_first_bytes(tmp_path, inflater):
    """256 MiB of zeros in 256 KB: its first 64 KiB cannot start a profile, so
    it is refused before the rest is inflated (it used to be inflated whole,
    then refused by the decoder for its missing string table)."""
    import zlib

    c = zlib.compressobj(9, zlib.DEFLATED, 16 + 15)
    chunk = bytes(1 << 20)
    bomb = b"".join(c.compress(chunk) for _ in range(256)) + c.flush()
    path = tmp_path / "bomb.gz"
    path.write_bytes(bomb)
    r = run_isolated(_GZIP_BOMB, inflater, str(path))
    assert_no_abort(r)
    assert r.returncode == 0, r.stderr
    assert "decompresses to zero bytes" in r.stderr
    assert int(r.stdout) < 64, f"peak RSS grew by {r.stdout.strip()} MiB to reject a gzip bomb"


# ------------------------------------------------ 4. Ctrl-C between files

_INTERRUPT_BATCH = """
    import os, signal, sys, threading, time, _thread, pprofcore
    call, threads, good, handler = sys.argv[1], int(sys.argv[2]), open(sys.argv[3], "rb").read(), sys.argv[4]
    fifos = sys.argv[5:]
    class Stop(Exception):
        pass
    if handler == "custom":  # what any handler raises must come through, not only KeyboardInterrupt
        def on_sigint(signum, frame):
            raise Stop("from the handler")
        signal.signal(signal.SIGINT, on_sigint)
    else:  # Python's own handler, even when a parent (a background job) ignores SIGINT
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # One FIFO per worker holds it until the interrupt is in; the next FIFO has
    # no writer: opening it would block for ever, so reaching it means the
    # batch went on after Ctrl-C.
    def feed():
        time.sleep(0.1)
        _thread.interrupt_main()  # as if SIGINT arrived while the workers read
        time.sleep(0.5)
        for fifo in fifos[:threads]:
            with open(fifo, "wb") as f:
                f.write(good)
    batch = getattr(pprofcore, call)  # its imports done before the interrupt, which must find the workers reading
    threading.Thread(target=feed, daemon=True).start()
    try:
        batch(fifos, threads=threads)
        print("finished")
    except KeyboardInterrupt:
        print("interrupted")
    except Stop as e:
        print("stopped", e)
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("call", ["merge_files", "load_many"])
@pytest.mark.parametrize("handler,out", [("default", "interrupted"), ("custom", "stopped from the handler")])
def test_ctrl_c_cancels_batches_between_files(tmp_path, good_file, call, threads, handler, out):
    """SIGINT while the workers read: the batch stops at the next file and the
    handler's exception is raised (it used to run only once all files were done)."""
    fifos = []
    for i in range(threads + 1):
        fifos.append(str(tmp_path / f"fifo{i}"))
        os.mkfifo(fifos[-1])
    try:
        r = run_isolated(_INTERRUPT_BATCH, call, str(threads), good_file, handler, *fifos, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{call} went on to the next file after Ctrl-C (blocked opening a FIFO nobody writes)")
    assert_no_abort(r)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == out


# ------------------------------------------------ 6. NUL bytes in paths


def _path_calls():
    return {
        "load": lambda p: pprofcore.load(p),
        "load-repair": lambda p: pprofcore.load(p, repair=True),
        "load_many": lambda p: pprofcore.load_many([p]),
        "merge_files": lambda p: pprofcore.merge_files([p]),
        "Merger.add_file": lambda p: pprofcore.Merger().add_file(p),
    }


@pytest.mark.parametrize("call", list(_path_calls()))
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_nul_byte_in_path_is_refused_like_open(good_file, call, as_bytes):
    """`good.pb\\0/../x` used to load good.pb: the OS stops at the NUL."""
    path = good_file + "\0/../x"
    with pytest.raises(ValueError, match="embedded null byte"):
        open(path, "rb")
    if as_bytes:
        if call.startswith("load") and call != "load_many":
            pytest.skip("load() takes bytes as data, not as a path")
        path = os.fsencode(path)
    with pytest.raises(ValueError, match="^embedded null byte$"):
        _path_calls()[call](path)


def test_nul_byte_refused_by_the_core_too(good_file):
    """The C++ reader refuses it as well, whoever calls it."""
    for call in (
        lambda p: pprofcore._core.decode_file(p, 1 << 20),
        lambda p: pprofcore._core.merge_files([p], 1, 1 << 20),
        lambda p: pprofcore._core.Merger().add_file(p, 1 << 20),
    ):
        with pytest.raises(ValueError, match="embedded null byte"):
            call(good_file + "\0")
    (item,) = pprofcore._core.load_many([good_file + "\0"], 1, 1 << 20)
    assert isinstance(item, ValueError) and str(item) == "embedded null byte"


# ------------------------------------------------ 12. directories and a lone str


@pytest.mark.parametrize("call", list(_path_calls()))
def test_directory_raises_is_a_directory_error_naming_it(tmp_path, call):
    with pytest.raises(IsADirectoryError) as info:
        _path_calls()[call](str(tmp_path))
    assert info.value.filename == str(tmp_path)
    assert "basic_string" not in str(info.value)


def test_load_many_returns_os_error_subclasses(tmp_path, good_file):
    out = pprofcore.load_many([good_file, str(tmp_path), str(tmp_path / "missing")], errors="return")
    assert isinstance(out[0], pprofcore.Profile)
    assert isinstance(out[1], IsADirectoryError) and out[1].filename == str(tmp_path)
    assert isinstance(out[2], FileNotFoundError) and out[2].filename == str(tmp_path / "missing")


def test_cli_directory_is_a_one_line_error(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "pprofcore", "info", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=pprofcore_env(),
    )
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "basic_string" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Is a directory" in lines[0] and str(tmp_path) in lines[0], r.stderr


@pytest.mark.parametrize("call", ["load_many", "merge_files"])
@pytest.mark.parametrize("single", ["str", "bytes", "Path"])
def test_batch_calls_refuse_a_single_path(good_file, call, single):
    """A str used to be iterated one character at a time."""
    from pathlib import Path

    arg = {"str": good_file, "bytes": os.fsencode(good_file), "Path": Path(good_file)}[single]
    with pytest.raises(TypeError, match=rf"{call}\(\) takes an iterable of paths, not a single path"):
        getattr(pprofcore, call)(arg)


# ------------------------------------------------ 7. raw input has a limit too


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_raw_input_over_the_limit_is_refused(tmp_path, entry):
    path = tmp_path / "input.pb"
    path.write_bytes(GOOD)
    calls = _entry_points(tmp_path, GOOD, len(GOOD), "auto")
    calls[entry]()  # exactly at the limit: accepted
    calls = _entry_points(tmp_path, GOOD, len(GOOD) - 1, "auto")
    with pytest.raises(DecodeError, match=f"input is larger than the limit of {len(GOOD) - 1} bytes") as info:
        calls[entry]()
    assert not isinstance(info.value, GzipError)


_DEV_ZERO = """
    import sys, pprofcore
    try:
        pprofcore.load(sys.argv[1], max_decompressed_size=int(sys.argv[2]))
    except pprofcore.DecodeError as e:
        print(e.reason)
"""


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_stops_at_the_limit():
    """/dev/zero used to be read until the OOM killer came (capped here). Zero
    bytes are tags of field 0, which pprof skips like unknown fields, so nothing
    in its first bytes refuses it: the limit stops it, one byte past it."""
    r = run_isolated(_DEV_ZERO, "/dev/zero", str(64 << 20), memory_cap=1 << 30, timeout=60)
    assert_no_abort(r)
    assert r.returncode == 0, r.stderr
    assert "input is larger than the limit of 67108864 bytes" in r.stdout


def _writer(fifo: str, chunk: bytes, total: int, hold: threading.Event) -> threading.Thread:
    """Writes `total` bytes of `chunk` into `fifo`, then keeps it open until
    `hold` (10 s at most). The thread's `.completed` says whether everything was
    written: False when the reader closed the pipe first."""

    def run():
        try:
            with open(fifo, "wb") as f:
                written = 0
                while written < total:
                    f.write(chunk)
                    written += len(chunk)
                f.flush()
                t.completed = True
                hold.wait(10)
        except BrokenPipeError:  # the reader stopped: what the tests want
            pass

    t = threading.Thread(target=run, daemon=True)
    t.completed = False
    t.start()
    return t


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_pipe_stops_at_the_limit(tmp_path):
    """A pipe of plausible protobuf (comment fields) longer than the limit
    is refused once the limit is passed, without waiting for its end."""
    fifo = str(tmp_path / "pipe")
    os.mkfifo(fifo)
    hold = threading.Event()
    t = _writer(fifo, bytes([13 << 3, 1]) * 4096, 8 << 20, hold)
    try:
        with pytest.raises(DecodeError, match="input is larger than the limit of 100000 bytes"):
            pprofcore.load(fifo, max_decompressed_size=100_000)
    finally:
        hold.set()
        t.join(30)
    assert not t.completed, "the reader took all 8 MiB of the pipe"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_non_profile_is_judged_before_it_is_read_whole(tmp_path):
    """A stream whose first bytes cannot be profile.proto is refused at once,
    with the decoder's own message, while the writer still holds it open."""
    fifo = str(tmp_path / "pipe")
    os.mkfifo(fifo)
    hold = threading.Event()
    text = b"--- heap profile: this is text, not profile.proto\n"
    t = _writer(fifo, text, 4 << 20, hold)  # far more than the prefix and a pipe's buffer
    try:
        with pytest.raises(DecodeError) as info:
            pprofcore.load(fifo)
    finally:
        hold.set()
        t.join(30)
    assert not t.completed, "the reader took the whole stream before judging it"
    with pytest.raises(DecodeError) as whole:
        pprofcore.loads(text * 2000)
    assert info.value.reason == whole.value.reason and info.value.offset == whole.value.offset == 0


def test_file_over_the_limit_is_judged_by_its_size(tmp_path):
    """A sparse 8 GiB file is refused from its size: only its first bytes are
    read. (The old reader read it whole; hence the subprocess, capped at 2 GiB.)"""
    path = tmp_path / "sparse.pb"
    with open(path, "wb") as f:
        f.truncate(8 << 30)
    code = """
        import sys, pprofcore
        try:
            pprofcore.load(sys.argv[1])
        except pprofcore.DecodeError as e:
            print(e.reason)
        (item,) = pprofcore.load_many([sys.argv[1]], errors="return")
        print(type(item).__name__, item.reason)
    """
    r = run_isolated(code, str(path), memory_cap=2 << 30)
    assert_no_abort(r)
    assert r.returncode == 0, r.stderr
    message = "input is larger than the limit of 4294967296 bytes (raise max_decompressed_size to allow it)"
    assert r.stdout.splitlines() == [message, "DecodeError " + message]
