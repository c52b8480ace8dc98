"""Round trips over the whole corpus.

- Through our own encoder: ``loads(p.to_bytes()) == p`` and re-encoding is
  byte-identical.
- Through google/pprof: for every file pprof accepts, ``profile.Parse`` of our
  re-encoded bytes prints the same dump (``go tool pprof -raw``'s text) as the
  original. One Go process handles every file (tools/goref/rawdump).
"""

from __future__ import annotations

import difflib
import subprocess

import pytest
from pprof_oracle import split_rawdump
from testenv import corpus_files, corpus_manifest, go_helper, parses_with_pprof, requires_go

import pprofcore
from pprofcore._summary import HEADER_FIELDS

ACCEPTED = corpus_files(parses_with_pprof)


@pytest.mark.parametrize("row", ACCEPTED)
def test_encode_decode_round_trip(row, corpus_dir):
    p = pprofcore.load(corpus_dir / row["file"])
    raw = p.to_bytes(compress=False)
    q = pprofcore.loads(raw)
    assert q == p
    q._core.check_invariants()
    assert q.to_bytes(compress=False) == raw, "re-encoding a decoded encoding changed the bytes"
    assert p.to_bytes(compress=False) == raw, "to_bytes is not deterministic"
    gz = p.to_bytes()
    assert gz[:2] == b"\x1f\x8b"
    assert pprofcore.loads(gz) == p
    # Header and every table survive (equality covers columns; spell out the header).
    for attr in ("sample_types", *HEADER_FIELDS):
        assert getattr(q, attr) == getattr(p, attr), attr
    assert list(q.strings) == list(p.strings)


def _rawdump(args: list) -> str:
    r = subprocess.run([go_helper("rawdump"), *args], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _rawdump_start(args: list) -> subprocess.Popen:
    return subprocess.Popen([go_helper("rawdump"), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _rawdump_finish(proc: subprocess.Popen) -> str:
    out, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err
    return out


_split = split_rawdump


@pytest.fixture(scope="module")
def oracle(corpus_dir, tmp_path_factory):
    """{corpus file: (original path, re-encoded path, digest of original, digest of ours)}.
    Built once: every re-encoded file is written, then one rawdump run digests all."""
    out_dir = tmp_path_factory.mktemp("reencoded")
    rows = [r for r in corpus_manifest() if parses_with_pprof(r)]
    # pprof digests the originals while we re-encode (two cores).
    originals = _rawdump_start(["-sep", "-digest", *(str(corpus_dir / r["file"]) for r in rows)])
    pairs = {}
    for i, row in enumerate(rows):
        src = corpus_dir / row["file"]
        dst = out_dir / f"{i:04d}.pb.gz"
        dst.write_bytes(pprofcore.load(src).to_bytes(level=1))
        pairs[row["file"]] = (str(src), str(dst))
    digests = _split(_rawdump(["-sep", "-digest", *(b for _, b in pairs.values())]))
    digests.update(_split(_rawdump_finish(originals)))
    return {name: (a, b, digests[a].strip(), digests[b].strip()) for name, (a, b) in pairs.items()}


@requires_go
@pytest.mark.parametrize("row", ACCEPTED)
def test_pprof_dump_of_reencoded_equals_original(row, oracle):
    src, ours, want, got = oracle[row["file"]]
    assert want.startswith("sha256 "), f"google/pprof rejects the original: {want}"
    assert got.startswith("sha256 "), f"google/pprof rejects our re-encoding: {got}"
    if got != want:
        dumps = _split(_rawdump(["-sep", src, ours]))
        diff = "".join(
            difflib.unified_diff(
                dumps[src].splitlines(True), dumps[ours].splitlines(True), "original", "re-encoded", n=1
            )
        )
        pytest.fail(f"go tool pprof -raw differs for {row['file']}:\n{diff[:4000]}")


@requires_go
def test_rawdump_oracle_detects_a_difference(tmp_path):
    """The oracle is not vacuous: a changed profile gives a different dump."""
    import gzip

    from wirebuild import small

    a, b = tmp_path / "a.pb", tmp_path / "b.pb"
    a.write_bytes(small())
    b.write_bytes(gzip.compress(small(period=20_000_000)))
    dumps = _split(_rawdump(["-sep", str(a), str(b)]))
    assert "Period: 10000000" in dumps[str(a)] and "Period: 20000000" in dumps[str(b)]
    digests = _split(_rawdump(["-sep", "-digest", str(a), str(b)]))
    assert digests[str(a)] != digests[str(b)]
