"""Firefox's raw Gecko profiles read by `load`: a parent and a child process
with their own start times and libraries, each kind of frame location (an
unsymbolicated address in its library's mapping, `name (in lib)` with and
without a source line, JavaScript functions, labels), CPU deltas and a
sample without a stack, exactly; version 3's child processes and libraries
embedded as JSON strings; unsymbolicated addresses named by `symbolize`
from a binary built here; bad documents refused naming the JSON path."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess

import pytest
from gecko_profile import CHILD_START, START, gecko_profile
from stack_values import stacks_by_name
from testenv import DATA

import pprofcore
from pprofcore import DecodeError


def _load(doc, tmp_path) -> pprofcore.Profile:
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(doc))
    return pprofcore.load(path)


def test_fixture_is_what_the_helper_writes():
    assert json.loads((DATA / "producers" / "small.gecko.json").read_text()) == json.loads(json.dumps(gecko_profile()))


def test_small_profile_exactly(tmp_path):
    p = _load(gecko_profile(), tmp_path)
    assert p.sample_types == [("samples", "count"), ("wall", "nanoseconds"), ("cpu", "nanoseconds")]
    assert p.period == 1_000_000 and p.time_nanos == round(START * 1e6)
    app = ("?", "nsThread::ProcessNextEvent", "js::RunScript")  # root side of the parent's stacks, reversed below
    assert stacks_by_name(p, "samples") == {
        ("handleClick", "js::RunScript", "nsThread::ProcessNextEvent", "?", "(root)"): 2,
        ("(root scope) https://example.com/app.js",) + app[::-1] + ("(root)",): 1,
        ("?", "?", "(root)"): 1,  # libc's address, called from the app's
        ("?", "(root)"): 1,  # an address in no library
        ("PresShell::Paint", "(root)"): 1,
        ("?", "PresShell::Paint", "(root)"): 1,
    }
    assert (
        stacks_by_name(p, "cpu")[("handleClick", "js::RunScript", "nsThread::ProcessNextEvent", "?", "(root)")]
        == 1_900_000
    )
    df = p.to_pandas("samples")
    assert list(df["timestamp_ns"]) == [round((START + t) * 1e6) for t in (0.0, 1.0, 2.0, 4.0, 5.0)] + [
        round((CHILD_START + t) * 1e6) for t in (0.5, 1.5)
    ]
    assert list(df["pid"]) == [4242] * 5 + [4243] * 2
    assert list(df["process"]) == ["Parent Process"] * 5 + ["Isolated Web Content"] * 2
    s = p.strings
    files = {s[p.functions.name[f]]: (s[p.functions.filename[f]]) for f in range(len(p.functions.name))}
    assert files["js::RunScript"] == "src/vm/Interpreter.cpp" and files["handleClick"] == "https://example.com/app.js"
    lines = {
        s[p.functions.name[p.lines.function[k]]]: (int(p.lines.line[k]), int(p.lines.column[k]))
        for k in range(len(p.lines.function))
    }
    assert (
        lines["js::RunScript"] == (412, 0) and lines["handleClick"] == (10, 5) and lines["PresShell::Paint"] == (77, 0)
    )
    # Unsymbolicated addresses keep their process address, in their library's mapping with its range.
    maps = {}
    for row in range(len(p.locations.address)):
        if p.locations.line_offsets[row] == p.locations.line_offsets[row + 1]:
            m = p.locations.mapping[row]
            maps[int(p.locations.address[row])] = (
                None
                if m < 0
                else (
                    s[p.mappings.filename[m]],
                    int(p.mappings.memory_start[m]),
                    int(p.mappings.memory_limit[m]),
                    int(p.mappings.file_offset[m]),
                    int(p.mappings.has_functions[m]),
                )
            )
    assert maps == {
        0x555500001234: ("/opt/firefox/firefox", 0x555500000000, 0x555500100000, 0, 0),
        0x7F0000002000: ("/usr/lib/libc.so.6", 0x7F0000000000, 0x7F0000200000, 0, 0),
        0x10: None,
        0x400000000500: ("/opt/firefox/libxul.so", 0x400000000000, 0x400000010000, 0x1000, 0),
    }
    assert p.comments == ["Gecko profile, version 31, from Firefox"]


def test_version_3_embeds_children_and_libraries_as_strings(tmp_path):
    doc = gecko_profile()
    old = copy.deepcopy(doc)
    child = old.pop("processes")[0]
    child["libs"] = json.dumps(child["libs"])
    old["threads"].append(json.dumps(child))
    old["processes"] = []
    got, want = _load(old, tmp_path), _load(doc, tmp_path)
    assert stacks_by_name(got, "samples") == stacks_by_name(want, "samples")
    assert sorted(got.to_pandas("samples")["timestamp_ns"]) == sorted(want.to_pandas("samples")["timestamp_ns"])


NATIVE = r"""
__attribute__((noinline)) long work(int n) { long s = 0; for (int i = 0; i < n; i++) s += i * i; return s; }
int main(void) { return (int)work(3); }
"""


def test_unsymbolicated_addresses_symbolize_from_the_library(tmp_path):
    if not shutil.which("gcc") or not shutil.which("nm"):
        pytest.skip("needs gcc and nm (binutils) to build a binary to symbolize against")
    (tmp_path / "prog.c").write_text(NATIVE)
    subprocess.run(["gcc", "-g", "-O1", "-fPIE", "-pie", "prog.c", "-o", "prog"], cwd=tmp_path, check=True, timeout=120)
    nm = subprocess.run(["nm", str(tmp_path / "prog")], capture_output=True, text=True, check=True).stdout
    work = next(int(line.split()[0], 16) for line in nm.splitlines() if line.endswith(" T work"))
    base = 0x5555_0000_0000
    doc = gecko_profile()
    doc["processes"] = []
    doc["libs"] = [
        {
            "start": base,
            "end": base + 0x10000,
            "offset": 0,
            "name": "prog",
            "path": str(tmp_path / "prog"),
            "breakpadId": "",
        }
    ]
    thread = doc["threads"][0]
    thread["stringTable"][1] = hex(base + work + 4)
    thread["samples"]["data"] = [[1, 0.0, 0.1, None]]
    p = _load(doc, tmp_path)
    q, report = p.symbolize()
    s = q.strings
    leaf = q.stack(0)[0]
    assert s[q.functions.name[q.lines.function[q.locations.line_offsets[leaf]]]] == "work", str(report)


def _changed(change):
    doc = gecko_profile()
    change(doc)
    return doc


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda d: d["threads"][0].pop("stackTable"), r"threads\[0\] has no 'stackTable' table"),
        (
            lambda d: d["threads"][0]["stackTable"]["data"].__setitem__(2, [1, 99]),
            r"threads\[0\]\.stackTable\.frame\[2\] = 99 is not an index",
        ),
        (lambda d: d["threads"][0]["stackTable"]["data"].__setitem__(0, [1, 0]), "has a cycle"),
        (
            lambda d: d["threads"][0]["stringTable"].__setitem__(1, "0x" + "f" * 20),
            r"location\[1\] = '0xffff.* is not a 64-bit address",
        ),
        (lambda d: d["processes"][0]["threads"].__setitem__(0, 5), r"processes\[0\]\.threads\[0\] is not an object"),
        (lambda d: d["threads"].append("{not json"), r"threads\[1\] is a string that is not a JSON document"),
        (
            lambda d: d["threads"][0]["samples"]["data"][1].__setitem__(1, "soon"),
            r"samples time\[1\] = 'soon' is not a number",
        ),
        (lambda d: d["libs"][0].__setitem__("start", "x"), r"Gecko profile: libs\[0\]\.start = 'x' is not a number"),
    ],
)
def test_bad_documents_name_the_place(change, says, tmp_path):
    with pytest.raises(DecodeError, match="Gecko profile") as e:
        _load(_changed(change), tmp_path)
    assert e.match(says)
