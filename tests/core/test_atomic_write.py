"""Every file the package writes goes through ``pprofcore._atomic``: a failed
write leaves the target as it was (issue 27, item 2: "a failed write over the
input loses it"), and no temporary file stays behind.

The failure is real, not mocked: a child process runs the writer under
``RLIMIT_FSIZE`` (with SIGXFSZ ignored, a write past the limit fails with
EFBIG), as a full disk would."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pprofcore
from pprofcore import _atomic

resource = pytest.importorskip("resource")

LIMIT = 256  # bytes: less than any output below

# Each case: the expression the child evaluates with ``target`` set (the file to overwrite)
WRITERS = {
    "Profile.save": "pprofcore.load(src).save(target)",
    "cli filter -o over its input": "main(['filter', target, '-o', target])",
    "cli merge -o": "main(['merge', src, src, '-o', target])",
    "cli callgrind -o": "main(['callgrind', src, '-o', target])",
    "cli flamegraph -o .html": "main(['flamegraph', src, '-o', target])",
    "FlameGraph.save_speedscope": "pprofcore.load(src).flamegraph().save_speedscope(target)",
}
SUFFIX = {"cli flamegraph -o .html": ".html", "FlameGraph.save_speedscope": ".json"}


def _run_limited(code: str, src: str, target: str) -> subprocess.CompletedProcess:
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        import pprofcore
        from pprofcore.cli import main
        src, target = {src!r}, {target!r}
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT}))
        try:
            rc = {code}
        except OSError as e:
            print("failed:", e, file=sys.stderr)
            sys.exit(3)
        sys.exit(rc or 0)  # the CLI reports the error and returns non-zero
        """
    )
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("case", sorted(WRITERS))
def test_failed_write_leaves_target_untouched(tmp_path: Path, case: str):
    src = pprofcore.example_path()
    target = tmp_path / ("out" + SUFFIX.get(case, ".pb.gz"))
    original = Path(src).read_bytes()  # an existing file the write must not lose
    target.write_bytes(original)
    r = _run_limited(WRITERS[case], src, str(target))
    assert r.returncode != 0, f"the write should have failed under RLIMIT_FSIZE={LIMIT}: {r.stderr}"
    assert target.read_bytes() == original, f"{case}: a failed write damaged the existing file"
    assert sorted(os.listdir(tmp_path)) == [target.name], "a temporary file was left behind"


@pytest.mark.parametrize("case", sorted(WRITERS))
def test_write_succeeds_and_keeps_mode(tmp_path: Path, case: str):
    from pprofcore.cli import main  # noqa: F401  (the cases call it)

    src = pprofcore.example_path()
    target = tmp_path / ("out" + SUFFIX.get(case, ".pb.gz"))
    before = Path(src).read_bytes()
    target.write_bytes(before)
    os.chmod(target, 0o640)
    rc = eval(WRITERS[case], {"pprofcore": pprofcore, "main": main, "src": src, "target": str(target)})
    assert not rc
    assert target.stat().st_size > 0
    assert (os.stat(target).st_mode & 0o777) == 0o640
    assert sorted(os.listdir(tmp_path)) == [target.name]


@settings(max_examples=50, deadline=None)
@given(old=st.binary(max_size=300), new=st.binary(max_size=300), fail=st.booleans())
def test_write_with_is_all_or_nothing(tmp_path_factory, old: bytes, new: bytes, fail: bool):
    d = tmp_path_factory.mktemp("atomic")
    target = d / "f"
    target.write_bytes(old)

    def fill(tmp: str) -> None:
        with open(tmp, "wb") as f:
            f.write(new[: len(new) // 2])
            if fail:
                raise RuntimeError("writer died")
            f.write(new[len(new) // 2 :])

    if fail:
        with pytest.raises(RuntimeError):
            _atomic.write_with(target, fill)
    else:
        _atomic.write_with(target, fill)
    assert target.read_bytes() == (old if fail else new)
    assert os.listdir(d) == ["f"]


def test_new_file_gets_umask_mode(tmp_path: Path):
    mask = os.umask(0o022)
    try:
        _atomic.write_bytes(tmp_path / "new", b"x")
    finally:
        os.umask(mask)
    assert (os.stat(tmp_path / "new").st_mode & 0o777) == 0o644


def test_a_symlink_keeps_pointing_at_the_written_file(tmp_path: Path):
    real = tmp_path / "real"
    real.write_bytes(b"old")
    (tmp_path / "link").symlink_to(real)
    _atomic.write_bytes(tmp_path / "link", b"new")
    assert (tmp_path / "link").is_symlink() and real.read_bytes() == b"new"
