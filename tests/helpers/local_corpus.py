"""A corpus the tests make themselves, so every oracle comparison runs on a fresh
clone without `../shared`: real runtime/pprof output of every kind from a Go
workload run under Debian's Go (`tests/producers/goprofiles`), plus profiles
written byte by byte with the tests' own protobuf writer (`_pb.py`) for shapes Go
never writes (samples without locations, inline frames, numeric labels with
units, ids pprof refuses).

Its MANIFEST.tsv has the shared corpus's columns, filled in by oracles, never by
pprofcore: google/pprof's `profile.Parse` (tools/goref/manifest) for the verdict,
table sizes, types and labels, and the `protobuf` package for the string count.
It is built once under build/test-corpus and rebuilt when its sources change.
"""

from __future__ import annotations

import csv
import fcntl
import gzip
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import List, Optional

from _pb import msg

HERE = Path(__file__).resolve().parent  # tests/helpers
TESTS = HERE.parent
REPO = TESTS.parent
ROOT = REPO / "build" / "test-corpus"
PRODUCER = TESTS / "producers" / "goprofiles"
DESCRIBER = REPO / "tools" / "goref" / "manifest"
GOPATH = os.environ.get("PPROFCORE_GOPATH", "/usr/share/gocode")
COLUMNS = [
    "file",
    "producer",
    "source",
    "license",
    "bytes",
    "gzip",
    "uncompressed_bytes",
    "sample_types",
    "period_type",
    "n_samples",
    "n_locations",
    "n_functions",
    "n_mappings",
    "n_strings",
    "labels",
    "symbolized",
    "parses_with_google_pprof",
    "format",
    "sha256",
    "notes",
]


# ------------------------------------------------------------ hand-written files
_STRINGS = [
    "",
    "objects",
    "count",
    "space",
    "bytes",
    "main",
    "alloc",
    "worker",
    "tier",
    "hot",
    "cold",
    "request",
    "main.go",
    "inlined.helper",
    "lib.so",
    "note: hand-written",
]
_S = {s: i for i, s in enumerate(_STRINGS)}


def _label_str(key: str, value: str) -> list:
    return [(1, _S[key]), (2, _S[value])]


def _label_num(key: str, num: int, unit: str = "") -> list:
    return [(1, _S[key]), (3, num)] + ([(4, _S[unit])] if unit else [])


def labelled_profile(with_located: bool = True, *, inline: bool = False) -> bytes:
    """Raw profile.proto with two sample types, samples with and without stacks
    (redpanda's memory profiler writes only the latter), string and numeric labels;
    with `inline`, location 2 holds an inlined frame and a second mapping exists."""
    fields: list = [(1, [(1, _S["objects"]), (2, _S["count"])]), (1, [(1, _S["space"]), (2, _S["bytes"])])]
    samples = [
        ([], [3, 3072], [_label_str("tier", "hot"), _label_num("request", 1024, "bytes")]),
        ([], [1, 64], [_label_str("tier", "cold"), _label_num("request", 64, "bytes")]),
    ]
    if with_located:
        samples += [
            ([2, 1], [5, 5000], [_label_str("tier", "hot"), _label_num("request", 1000, "bytes")]),
            ([3, 1], [2, 256], [_label_str("tier", "cold")]),
            ([3, 2, 1], [1, 128], []),
        ]
    for locs, vals, labels in samples:
        fields.append((2, [(1, i) for i in locs] + [(2, v) for v in vals] + [(3, lab) for lab in labels]))
    fields.append((3, [(1, 1), (2, 0x1000), (3, 0x9000), (5, _S["main"]), (7, 1), (8, 1), (9, 1), (10, 1)]))
    if inline:
        fields.append((3, [(1, 2), (2, 0x10000), (3, 0x20000), (5, _S["lib.so"])]))
    for lid, fid in ((1, 1), (2, 2), (3, 3)):
        lines = [(4, [(1, fid), (2, 10 * lid)])]
        if inline and lid == 2:
            lines.insert(0, (4, [(1, 4), (2, 77)]))  # leaf-most line first: the inlined callee
        fields.append((4, [(1, lid), (2, 2 if inline and lid == 3 else 1), (3, 0x1000 + 16 * lid)] + lines))
    for fid, name in ((1, "main"), (2, "alloc"), (3, "worker"), (4, "inlined.helper")):
        fields.append((5, [(1, fid), (2, _S[name]), (3, _S[name]), (4, _S["main.go"]), (5, fid)]))
    fields += [(6, s) for s in _STRINGS]
    fields += [
        (9, 1_700_000_000_000_000_000),
        (10, 10_000_000_000),
        (11, [(1, _S["space"]), (2, _S["bytes"])]),
        (12, 524288),
        (13, _S["note: hand-written"]),
    ]
    return msg(fields)


def duplicate_locations_profile() -> bytes:
    """Locations 1 and 3 (and functions 1 and 3) have equal content under different
    ids, as rewritten profiles have: pprof merges them, so samples [1, 2] and [3, 2]
    are one stack in its reports."""
    fields: list = [(1, [(1, _S["objects"]), (2, _S["count"])])]
    for locs, v in (([1, 2], 5), ([3, 2], 7), ([2], 1), ([3, 2], 2)):
        fields.append((2, [(1, i) for i in locs] + [(2, v)]))
    fields.append((3, [(1, 1), (2, 0x1000), (3, 0x9000), (5, _S["main"])]))
    for lid, fid, addr in ((1, 1, 0x1010), (2, 2, 0x1020), (3, 3, 0x1010)):
        fields.append((4, [(1, lid), (2, 1), (3, addr), (4, [(1, fid), (2, 12)])]))
    for fid, name in ((1, "worker"), (2, "main"), (3, "worker")):
        fields.append((5, [(1, fid), (2, _S[name]), (4, _S["main.go"])]))
    fields += [(6, s) for s in _STRINGS]
    return msg(fields)


def function_id_zero_profile() -> bytes:
    """A profile google/pprof refuses: a function with the reserved id 0."""
    fields = [(1, [(1, 1), (2, 2)]), (2, [(1, 1), (2, 7)]), (4, [(1, 1), (4, [(1, 0), (2, 3)])]), (5, [(1, 0), (2, 3)])]
    fields += [(6, s) for s in ("", "samples", "count", "main")]
    return msg(fields)


HAND_WRITTEN = {  # path -> (bytes, gzip?, notes)
    "synthetic/locationless-only.pb.gz": (
        lambda: labelled_profile(False),
        True,
        "only samples without locations, with labels",
    ),
    "synthetic/labels-mixed.pb.gz": (
        lambda: labelled_profile(True),
        True,
        "samples with and without locations; string and numeric labels",
    ),
    "synthetic/inline-two-mappings.pb": (
        lambda: labelled_profile(True, inline=True),
        False,
        "raw protobuf; an inlined frame; two mappings",
    ),
    "synthetic/duplicate-locations.pb.gz": (
        duplicate_locations_profile,
        True,
        "locations and functions of equal content under different ids",
    ),
    "odd/function-id-zero.pb": (function_id_zero_profile, False, "function with reserved id 0"),
}


# ------------------------------------------------------------------- the build
def _go_build(src: Path, out: Path) -> None:
    env = dict(os.environ, GOPATH=GOPATH, GO111MODULE="off", GOFLAGS="")
    subprocess.run(["go", "build", "-o", str(out), "."], cwd=src, env=env, check=True, capture_output=True)


def _stamp() -> str:
    h = hashlib.sha256()
    describer = [*DESCRIBER.glob("*.go"), *(DESCRIBER.parent / "common").glob("*.go")]
    for path in sorted([Path(__file__), HERE / "_pb.py", *PRODUCER.glob("*.go"), *describer]):
        h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()


def _n_strings(data: bytes) -> str:
    try:
        from pbprofile import profile_class
    except ImportError:  # protobuf is a test extra; without it the column stays empty
        return ""
    m = profile_class()()
    m.ParseFromString(data)
    return str(len(m.string_table))


def _rows(root: Path, files: List[Path], notes: dict) -> List[dict]:
    out = subprocess.run(
        [str(root / "bin" / "manifest"), *map(str, files)], capture_output=True, text=True, check=True
    ).stdout
    rows = []
    for line in out.splitlines():
        d = json.loads(line)
        path = Path(d["file"])
        rel = path.relative_to(root / "files").as_posix()
        raw = path.read_bytes()
        gz = raw[:2] == b"\x1f\x8b"
        data = gzip.decompress(raw) if gz else raw
        legacy = rel.startswith("legacy/")
        parses = d["parses_with_google_pprof"]
        if legacy and parses == "yes":
            parses = "yes (legacy parser)"
        row = {c: "" for c in COLUMNS}
        row.update({k: str(v) for k, v in d.items() if k in COLUMNS})
        row.update(
            {
                "file": str(path),
                "id": "local/" + rel,
                "parses_with_google_pprof": parses,
                "producer": "hand-written (tests/helpers/_pb.py)"
                if rel.startswith(("synthetic/", "odd/"))
                else "go runtime/pprof (tests/producers/goprofiles)",
                "source": "generated by the tests",
                "license": "project",
                "bytes": str(len(raw)),
                "gzip": "yes" if gz else "no",
                "uncompressed_bytes": str(len(data)),
                "format": "legacy" if legacy else "profile.proto",
                "n_strings": "" if legacy else _n_strings(data),
                "sha256": hashlib.sha256(raw).hexdigest(),
                "notes": notes.get(rel, ""),
            }
        )
        rows.append(row)
    return rows


def build() -> Optional[Path]:
    """Builds (or reuses) the local corpus; returns its MANIFEST.tsv, or None when
    Go or google/pprof's sources are missing (the oracle tests then skip)."""
    if shutil.which("go") is None or not (Path(GOPATH) / "src/github.com/google/pprof/profile").is_dir():
        return None
    ROOT.parent.mkdir(parents=True, exist_ok=True)
    with open(ROOT.parent / "test-corpus.lock", "w") as lock:  # one builder at a time (parallel pytest runs)
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_locked()


def _build_locked() -> Path:
    manifest = ROOT / "MANIFEST.tsv"
    stamp = _stamp()
    if manifest.exists() and (ROOT / "STAMP").exists() and (ROOT / "STAMP").read_text() == stamp:
        return manifest
    shutil.rmtree(ROOT, ignore_errors=True)
    (ROOT / "bin").mkdir(parents=True)
    _go_build(PRODUCER, ROOT / "bin" / "goprofiles")
    _go_build(DESCRIBER, ROOT / "bin" / "manifest")
    files = ROOT / "files"
    subprocess.run([str(ROOT / "bin" / "goprofiles"), str(files)], check=True, capture_output=True, timeout=300)
    notes = {}
    for rel, (make, gz, note) in HAND_WRITTEN.items():
        path = files / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = make()
        path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
        notes[rel] = note
    rows = _rows(ROOT, sorted(p for p in files.rglob("*") if p.is_file()), notes)
    with open(manifest, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS + ["id"], delimiter="\t")
        w.writeheader()
        w.writerows(rows)
    (ROOT / "STAMP").write_text(stamp)
    return manifest
