"""Other profilers' formats are refused by name, with the converter to pprof, the
same way from every entry point (`load`, `loads`, `load_many`, `merge_files`)
and through gzip.

Where the producer is installed the input is real: `perf record` (perf.data),
`node --cpu-prof` (.cpuprofile) and pprofcore's own speedscope and folded
writers; JFR is the small recording of tests/helpers/jfrwriter.py (tests/core/test_read_jfr.py
records with the JDK). Without the tool the test uses the format's documented
header, which is all the sniffing reads. Formats that `load` reads are checked
to be read alike by `load`, `loads`, `load_many` and `merge_files`
(tests/core/test_foreign_entry_points.py takes each through every entry point).
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
import wirebuild as wb
from hypothesis import given, settings
from hypothesis import strategies as st
from testenv import DATA

import pprofcore
from pprofcore import DecodeError

EXAMPLE = Path(pprofcore.__file__).parent / "data" / "example-cpu.pb.gz"


def _run(cmd, cwd: Path, **kw) -> bool:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=120, check=False, **kw).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def perf_data(tmp: Path) -> bytes:
    out = tmp / "perf.data"
    if shutil.which("perf") and _run(["perf", "record", "-q", "-o", str(out), "--", "true"], tmp) and out.exists():
        return out.read_bytes()
    # perf_file_header: magic, header size, attr size, then three (offset, size) sections.
    return b"PERFILE2" + struct.pack("<QQ6Q", 104, 136, 104, 0, 104, 0, 0, 0) + bytes(32)


def cpuprofile(tmp: Path) -> bytes:
    if shutil.which("node") and _run(
        ["node", "--cpu-prof", "--cpu-prof-dir=.", "-e", "let s = 0; for (let i = 0; i < 1e6; i++) s += i"], tmp
    ):
        found = sorted(tmp.glob("*.cpuprofile"))
        if found:
            return found[0].read_bytes()
    return json.dumps(
        {
            "nodes": [
                {
                    "id": 1,
                    "callFrame": {
                        "functionName": "(root)",
                        "scriptId": "0",
                        "url": "",
                        "lineNumber": -1,
                        "columnNumber": -1,
                    },
                    "hitCount": 1,
                    "children": [],
                }
            ],
            "startTime": 0,
            "endTime": 1000,
            "samples": [1],
            "timeDeltas": [1000],
        }
    ).encode()


def speedscope(tmp: Path) -> bytes:
    return pprofcore.load(EXAMPLE).flamegraph().to_speedscope().encode()


def folded(tmp: Path) -> bytes:
    return pprofcore.load(EXAMPLE).to_folded().encode()


def otlp_json(tmp: Path) -> bytes:
    # OTLP's JSON encoding of an ExportProfilesServiceRequest (field names in lowerCamelCase).
    return json.dumps(
        {
            "resourceProfiles": [
                {
                    "resource": {"attributes": []},
                    "scopeProfiles": [
                        {"scope": {"name": "ebpf-profiler"}, "profiles": [{"sampleType": {"typeStrindex": 1}}]}
                    ],
                }
            ]
        }
    ).encode()


def heapprofile(tmp: Path) -> bytes:
    """What `node --heap-prof` writes (a short run may hold no samples)."""
    if shutil.which("node") and _run(["node", "--heap-prof", "--heap-prof-dir=.", "-e", "globalThis.k = [1, 2]"], tmp):
        found = sorted(tmp.glob("*.heapprofile"))
        if found:
            return found[0].read_bytes()
    return (
        b'{"head":{"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,'
        b'"columnNumber":-1},"selfSize":0,"id":1,"children":[{"callFrame":{"functionName":"f","scriptId":"1",'
        b'"url":"a.js","lineNumber":1,"columnNumber":1},"selfSize":64,"id":2,"children":[]}]},'
        b'"samples":[{"size":64,"nodeId":2,"ordinal":1}]}'
    )


def otlp_protobuf(tmp: Path) -> bytes:
    # ExportProfilesServiceRequest { resource_profiles { resource {..} scope_profiles {..} } }
    resource = wb.ld(1, wb.ld(1, wb.text(1, "service.name")))
    scope = wb.ld(2, wb.ld(1, wb.text(1, "ebpf-profiler")))
    return wb.ld(1, resource + scope)


REFUSED = [
    # perf.data is read through `perf script` where perf is installed
    # (tests/core/test_read_perf_script.py); without it, refused naming the package and the command.
    pytest.param(perf_data, ["perf.data", "apt-get install linux-perf", "perf script -i perf.data"], id="perf.data"),
    # OTLP is read (tests/core/test_otlp_read.py); these two hold no readable profile.
    pytest.param(otlp_json, ["OpenTelemetry OTLP profiles message (JSON)", "string_table"], id="otlp-json"),
    pytest.param(otlp_protobuf, ["OpenTelemetry OTLP profiles message that holds no profile"], id="otlp-protobuf"),
]


def entry_points(data: bytes, tmp_path) -> dict:
    """Every reader of the input ``data``, as calls giving one profile: the bytes,
    the file, its gzip copy, ``load_many`` (the gzip copy after the file) and
    ``merge_files`` of the file and the gzip copy (twice the input)."""
    path = tmp_path / "input"
    path.write_bytes(data)
    gz = tmp_path / "input.gz"
    gz.write_bytes(pprofcore._core.gzip(data, 1))
    return {
        "loads": lambda: pprofcore.loads(data),
        "load": lambda: pprofcore.load(path),
        "load gzip": lambda: pprofcore.load(gz),
        "load_many": lambda: pprofcore.load_many([path, gz])[1],
        "merge_files": lambda: pprofcore.merge_files([path, gz]),
    }


@pytest.mark.parametrize("make, says", REFUSED)
def test_refused_with_name_and_converter(make, says, tmp_path, monkeypatch):
    data = make(tmp_path)
    monkeypatch.delenv("PPROFCORE_PERF", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-dir"))  # no perf to read perf.data with
    for entry, call in entry_points(data, tmp_path).items():
        with pytest.raises(DecodeError) as e:
            call()
        for text in says:
            assert text in str(e.value), (entry, str(e.value))


# Formats that load() now reads (docs/producers.md): every entry point gives
# the same profile.
READ = [
    pytest.param(cpuprofile, "V8/Chrome CPU profile (.cpuprofile JSON)", id="cpuprofile"),
    pytest.param(heapprofile, "V8 sampling heap profile (node --heap-prof", id="heapprofile"),
    pytest.param(speedscope, "speedscope JSON file", id="speedscope"),
    pytest.param(folded, "folded stacks", id="folded"),
    pytest.param(
        lambda tmp: (DATA / "producers" / "small.jfr").read_bytes(),
        "Java Flight Recorder (JFR)",
        id="jfr",
    ),
]


@pytest.mark.parametrize("make, name", READ)
def test_read_alike_by_every_entry_point(make, name, tmp_path):
    calls = entry_points(make(tmp_path), tmp_path)
    twice = calls.pop("merge_files")().total()
    totals = {call().total() for call in calls.values()}
    assert len(totals) == 1
    assert twice == 2 * totals.pop()


def test_folded_text_is_only_named_when_it_is_folded():
    with pytest.raises(DecodeError) as e:
        pprofcore.loads(b"main;foo 12\nthis line has no count\n")
    assert "folded" not in str(e.value)
    # What the message points to does read it.
    text = folded(Path("."))
    assert pprofcore.from_folded(text.decode()).total() == pprofcore.load(EXAMPLE).total()


def test_plain_json_is_still_just_json():
    with pytest.raises(DecodeError, match="input looks like JSON, not a pprof profile"):
        pprofcore.loads(b'{"hello": [1, 2, 3]}')


@settings(max_examples=200)
@given(st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789 "), min_size=1, max_size=40).map(str.lstrip))
def test_unrecognised_text_is_named_by_what_it_is_not(text):
    """A few bytes of junk text (a 4-byte file) are not called a legacy format:
    the message says what they are not and shows them."""
    data = ("x" + text).encode()
    with pytest.raises(DecodeError) as e:
        pprofcore.loads(data)
    message = str(e.value)
    assert "legacy format (convert" not in message
    shown = data[:16].decode()
    assert message.startswith(
        "input looks like text but is not a pprof profile (gzip or profile.proto) nor a legacy text format"
        f' pprofcore reads; first bytes: "{shown}"' + ("..." if len(data) > 16 else "") + ";"
    ), message


def test_jfr_without_events_names_what_it_reads():
    """A bare chunk header is a JFR recording, read as such: the error says
    what is wrong with it, not that JFR is foreign."""
    with pytest.raises(DecodeError, match=r"JFR: metadata offset 0 is outside the chunk at byte offset 0"):
        pprofcore.loads(b"FLR\0" + struct.pack(">HH7qi", 2, 1, 68, 0, 0, 0, 0, 0, 10**9, 0))
