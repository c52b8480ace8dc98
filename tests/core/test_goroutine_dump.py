"""Go goroutine dumps (runtime/pprof's goroutine profile with debug=2, panic and
fatal-error tracebacks, the SIGQUIT dump) read by `load`/`loads` as goroutine
profiles.

Real inputs come from tests/producers/goroutines, built here with Debian's Go: it
blocks goroutines in many states and writes the debug=2 dump and, right after it,
the debug=0 goroutine profile. `go tool pprof -traces` on the debug=0 profile is
the oracle for the stacks: both come from the same goroutines, so after leaving
out the runtime frames that tracebacks hide (runtime/traceback.go's
showfuncinfo) they must agree. Newer Go versions' header forms (Go 1.21's
"created by ... in goroutine N" and middle elision, Go 1.23's "gp=... m=..."),
which Debian's Go 1.19 does not print, are covered by hand-written and
Hypothesis-generated dumps rendered from a model.
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testenv import TESTS, requires_go

import pprofcore
from pprofcore import DecodeError

PRODUCER = TESTS / "producers" / "goroutines"
GOPATH = os.environ.get("PPROFCORE_GOPATH", "/usr/share/gocode")
HEADER = re.compile(r"^goroutine (\d+) ", re.M)


# ------------------------------------------------------- reading profiles
def stacks(p):
    """Leaf-first function names of every sample, inlined frames expanded."""
    names = [p.strings[c] for c in p.functions.name]
    lo, fn = p.locations.line_offsets, p.lines.function
    return [
        [names[fn[k]] for loc in p.stack(i) for k in range(lo[loc], lo[loc + 1])]
        for i in range(len(p.stack_offsets) - 1)
    ]


def labels_of(p):
    """Per sample, {key: str value or (num, unit)}."""
    out = []
    lab = p.labels
    for i in range(len(p.label_offsets) - 1):
        d = {}
        for j in range(p.label_offsets[i], p.label_offsets[i + 1]):
            key = p.strings[lab.key[j]]
            d[key] = p.strings[lab.str[j]] if lab.str[j] >= 0 else (int(lab.num[j]), p.strings[lab.num_unit[j]])
        out.append(d)
    return out


def shown_in_traceback(name: str) -> bool:
    """runtime/traceback.go's showfuncinfo at GOTRACEBACK=single/all: runtime
    internals and names without a package are hidden."""
    if "." not in name:
        return False
    return not name.startswith("runtime.") or name[len("runtime.") :][:1].isupper()


def go_traces(path: Path):
    """Stacks of `go tool pprof -traces` (google/pprof reading runtime/pprof's own
    debug=0 profile), one entry per goroutine."""
    env = dict(os.environ, PPROF_TMPDIR=str(path.parent), HOME=str(path.parent))
    text = subprocess.run(
        ["go", "tool", "pprof", "-traces", str(path)], capture_output=True, text=True, check=True, env=env
    ).stdout
    out = []
    for block in text.split("-----------+-------------------------------------------------------")[1:]:
        rows = [ln for ln in block.splitlines() if ln.strip()]
        if not rows:  # pprof closes the list with a separator
            continue
        m = re.match(r"^\s*(\d+)\s+(\S.*)$", rows[0])
        count, frames = int(m.group(1)), [m.group(2).strip()] + [r.strip() for r in rows[1:]]
        frames = [f.removesuffix(" (inline)") for f in frames]
        out += [frames] * count
    return out


def comparable(stack, depth=20):
    """A stack as a traceback shows it, cut to its `depth` leaf-most frames (the
    debug=0 profile keeps 32 frames, the traceback 100)."""
    return tuple([f for f in stack if shown_in_traceback(f)][:depth])


# --------------------------------------------------------------- producers
@pytest.fixture(scope="session")
def producer(tmp_path_factory):
    if shutil.which("go") is None:
        pytest.skip("needs Debian's Go (apt-get install golang-go)")
    out = tmp_path_factory.mktemp("goroutines") / "goroutines"
    # CGO off: the runtime's deadlock detector does not fire in cgo binaries.
    env = dict(os.environ, GOPATH=GOPATH, GO111MODULE="off", GOFLAGS="", CGO_ENABLED="0")
    subprocess.run(["go", "build", "-o", str(out), "."], cwd=PRODUCER, env=env, check=True, capture_output=True)
    return out


@pytest.fixture(scope="session")
def dumped(producer, tmp_path_factory):
    d = tmp_path_factory.mktemp("dump")
    subprocess.run([str(producer), "dump", str(d)], check=True, timeout=60)
    return d / "goroutine.debug2.txt", d / "goroutine.pb.gz"


def crash(producer, mode, **env):
    r = subprocess.run([str(producer), mode], capture_output=True, timeout=60, env=dict(os.environ, **env), check=False)
    assert r.returncode == 2, r.stderr[-2000:]
    return r.stderr


# --------------------------------------------------------------- real dumps
def test_debug2_dump_reads_every_goroutine(dumped):
    text_path, _ = dumped
    text = text_path.read_text()
    p = pprofcore.load(text_path)
    p._core.check_invariants()
    assert p.sample_types == [("goroutine", "count")]
    assert p.period_type == ("goroutine", "count") and p.period == 1
    ids = [int(x) for x in HEADER.findall(text)]
    assert len(p.values) == len(ids) and set(p.values[:, 0]) == {1}
    labs = labels_of(p)
    assert [lab["goid"][0] for lab in labs] == ids
    states = collections.Counter(lab["state"] for lab in labs)
    for state in (
        "chan receive",
        "chan send",
        "select",
        "select (no cases)",
        "sleep",
        "sync.Cond.Wait",
        "IO wait",
        "syscall",
        "running",
    ):
        assert states[state] >= 1, (state, states)
    assert states["semacquire"] + states["sync.Mutex.Lock"] >= 1, states
    by_leaf = {}
    for st_, lab in zip(stacks(p), labs):
        by_leaf.setdefault(next(f for f in st_ if f.startswith("main.")), []).append(lab)
    assert [lab.get("locked_to_thread") for lab in by_leaf["main.lockedWait"]] == ["true"]
    assert all("locked_to_thread" not in lab for k, v in by_leaf.items() if k != "main.lockedWait" for lab in v)
    assert all(lab["created_by"] == "main.start" for lab in by_leaf["main.recvOne"])
    assert "created_by" not in by_leaf["main.dump"][0]  # goroutine 1 has no creator
    # Generics, methods and closures keep the names Go prints.
    assert {"main.waitOn[...]", "main.(*queue[...]).pop", "main.(*server).serve", "main.start.func1"} <= set(by_leaf)
    assert all(lab["state"] == "IO wait" for lab in by_leaf["main.readPipe"] + by_leaf["main.acceptConn"])
    assert len(p.comments) == 0


def test_inlined_frames_share_a_location(dumped):
    p = pprofcore.load(dumped[0])
    names = [p.strings[c] for c in p.functions.name]
    lo = p.locations.line_offsets
    per_loc = [[names[p.lines.function[k]] for k in range(lo[i], lo[i + 1])] for i in range(len(lo) - 1)]
    # main.inlined is printed with "(...)" and no PC offset: it lives in its caller's location.
    assert ["main.inlined", "main.callsInlined"] in per_loc
    assert ["sync.(*Mutex).Lock", "main.lockHeld"] in per_loc
    assert all(len(lines) >= 1 for lines in per_loc)


@requires_go
def test_stacks_agree_with_the_debug0_profile(dumped):
    """Differential: the same goroutines through runtime/pprof's debug=0 profile
    and `go tool pprof -traces` give the same stacks, up to the frames tracebacks
    hide and the goroutine that wrote the profiles (its own stack differs)."""
    text_path, pb_path = dumped
    ours = [comparable(s) for s in stacks(pprofcore.load(text_path))]
    theirs = [comparable(s) for s in go_traces(pb_path)]
    writer = lambda s: any(f.startswith("runtime/pprof.") for f in s)  # noqa: E731
    assert sum(map(writer, ours)) == 1 and sum(map(writer, theirs)) == 1
    assert len(ours) == len(theirs)
    assert collections.Counter(s for s in ours if not writer(s)) == collections.Counter(
        s for s in theirs if not writer(s)
    )
    # The flat counts per leaf function agree too (what `top` shows).
    assert collections.Counter(s[0] for s in ours if not writer(s)) == collections.Counter(
        s[0] for s in theirs if not writer(s)
    )


def test_reports_on_a_dump(dumped):
    p = pprofcore.load(dumped[0])
    share = pytest.approx(300 / len(p.values))
    assert next(iter(p.top(n=3).rows())) == {
        "name": "main.recvOne",
        "flat": 3,
        "flat%": share,
        "sum%": share,
        "cum": 3,
        "cum%": share,
        "inline": "",
    }
    by_state = {row["state"]: row["goroutine"] for row in p.by_label("state").rows()}
    assert sum(by_state.values()) == len(p.values) and by_state["chan receive"] >= 8
    fg = p.flamegraph()
    assert fg.total == len(p.values)
    assert pprofcore.loads(p.to_bytes()) == p  # encodes and decodes to itself
    assert pprofcore.load_many([dumped[0]])[0] == p


@requires_go
def test_reports_agree_with_pprof_on_the_encoded_dump(dumped, pprof, tmp_path):
    """google/pprof reads the profile made from the dump and prints the same
    top (flat and cum), traces and tags (state, goid, created_by...) as pprofcore."""
    from pprof_oracle import assert_tags_match, compare_top, parse_tags

    p = pprofcore.load(dumped[0])
    path = tmp_path / "dump.pb.gz"
    p.save(path)
    compare_top(pprof, path, p, 0)
    compare_top(pprof, path, p, 0, cum=True)
    text, err = pprof.run("-tags", "-functions", "-flat", str(path))
    assert err is None, err
    assert_tags_match(p.tags().to_text(), text)
    assert {"state", "goid", "created_by", "locked_to_thread"} <= {k for k, _, _ in parse_tags(text)}
    text, err = pprof.run("-traces", str(path))
    assert err is None, err
    body = lambda t: t.split("-----------+", 1)[1].rstrip("\n")  # noqa: E731 (after the File/Type header)
    assert body(p.traces().to_text()) == body(text)


def test_panic_traceback(producer, tmp_path):
    err = crash(producer, "panic", GOTRACEBACK="all")
    path = tmp_path / "panic.txt"
    path.write_bytes(err)
    p = pprofcore.load(path)
    assert p.comments == ["panic: boom 42"]
    assert len(p.values) == len(HEADER.findall(err.decode()))
    first = stacks(p)[0]
    assert first[:2] == ["main.explode", "main.main.func1"] and labels_of(p)[0]["state"] == "running"


def test_fatal_error_deadlock(producer):
    err = crash(producer, "deadlock")
    p = pprofcore.loads(err)
    assert p.comments == ["fatal error: all goroutines are asleep - deadlock!"]
    assert sorted(s[0] for s in stacks(p)) == ["main.main", "main.recvOne"]


def test_sigquit_dump_with_runtime_frames(producer):
    """SIGQUIT prints every frame (runtime ones, fp/sp/pc) and a register dump."""
    err = crash(producer, "sigquit")
    assert b"\nrax " in err and b" fp=0x" in err
    p = pprofcore.loads(err)
    assert p.comments[0] == "SIGQUIT: quit" and p.comments[1].startswith("PC=0x")
    assert len(p.values) == len(HEADER.findall(err.decode()))
    assert any("runtime.goexit" in s for s in stacks(p))


# --------------------------------------------------------- newer Go formats
NEW_GO = """\
=== RUN   TestServer
panic: first [recovered]
	panic: second

goroutine 7 gp=0xc000007340 m=3 mp=0xc000100008 [running]:
panic({0x4a6e60?, 0xc000012345?})
	/usr/lib/go/src/runtime/panic.go:785 +0x132 fp=0xc000045f00 sp=0xc000045e60 pc=0x43ab12
main.(*List[...]).Push(...)
	C:/src/app/list.go:12
main.worker.func1()
	C:/src/app/main.go:30 +0x1d
...5 frames elided...
main.worker.gowrap1()
	C:/src/app/main.go:40 +0x25
created by main.main in goroutine 1
	C:/src/app/main.go:41 +0x66

goroutine 1 gp=0xc0000061c0 m=nil [chan receive, 42 minutes, locked to thread]:
main.main()
	/src/main.go:50 +0x99

runtime stack:
runtime.throw({0x4b0e0f?, 0x0?})
	/usr/lib/go/src/runtime/panic.go:1101 +0x48

goroutine 9 [running]:
	goroutine running on other thread; stack unavailable
created by main.main in goroutine 1
	/src/main.go:44 +0x80

goroutine 10 [chan receive (durable), synctest bubble 1]:
main.wait(...)
	/src/main.go:60
[originating from goroutine 3]:
main.spawn(...)
	/src/main.go:70 +0x10
exit status 2
FAIL	example.com/x	0.010s
"""


def test_newer_go_headers_and_frames():
    p = pprofcore.loads(NEW_GO.replace("\nFAIL\texample.com/x\t0.010s\n", "\n").encode())
    p._core.check_invariants()
    assert p.comments == ["panic: first [recovered]", "\tpanic: second", "pprofcore: 1 lines before the dump skipped"]
    labs = labels_of(p)
    assert [lab["goid"][0] for lab in labs] == [7, 1, 9, 10]
    assert labs[0]["created_by"] == "main.main" and labs[0]["parent_goid"] == (1, "")
    assert labs[1]["wait"] == (42, "minutes") and labs[1]["locked_to_thread"] == "true"
    assert labs[1]["state"] == "chan receive" and "created_by" not in labs[1]
    assert labs[3]["state"] == "chan receive (durable)" and labs[3]["detail"] == "synctest bubble 1"
    s = stacks(p)
    assert s[0] == [
        "panic",
        "main.(*List[...]).Push",
        "main.worker.func1",
        "...5 frames elided...",
        "main.worker.gowrap1",
    ]
    assert s[1] == ["main.main"] and s[2] == [] and s[3] == ["main.wait"]  # ancestors not in the stack
    files = {p.strings[p.functions.name[i]]: p.strings[p.functions.filename[i]] for i in range(len(p.functions.name))}
    assert files["main.worker.func1"] == "C:/src/app/main.go"
    fn_names = [p.strings[c] for c in p.functions.name]
    lines = {(fn_names[f], int(n)) for f, n in zip(p.lines.function, p.lines.line)}
    assert {("main.(*List[...]).Push", 12), ("main.worker.func1", 30), ("panic", 785)} <= lines
    # The inlined Push shares main.worker.func1's location.
    lo = p.locations.line_offsets
    assert [int(lo[loc + 1] - lo[loc]) for loc in p.stack(0)] == [1, 2, 1, 1]


def test_windows_line_endings():
    text = NEW_GO.replace("\nexit status 2\nFAIL\texample.com/x\t0.010s\n", "\n")
    a, b = pprofcore.loads(text.encode()), pprofcore.loads(text.replace("\n", "\r\n").encode())
    assert a == b


# ------------------------------------------------------- malformed catalogue
GOOD = "goroutine 1 [running]:\nmain.main()\n\t/x/main.go:5 +0x1d\n"
MALFORMED = [
    ("truncated-after-function", "goroutine 1 [running]:\nmain.main()\n", 2, r"truncated: the frame has no"),
    ("truncated-mid-call", "goroutine 1 [running]:\nmain.main(0x1\n", 2, r"expected a function call"),
    ("header-without-bracket", "goroutine 1 running:\nmain.main()\n\t/x.go:1 +0x1\n", 1, r"malformed goroutine header"),
    ("header-unclosed", GOOD + "\ngoroutine 2 [chan receive\n", 5, r"malformed goroutine header"),
    ("empty-state", "goroutine 3 []:\n", 1, r"malformed goroutine header"),
    ("huge-goid", "goroutine 99999999999999999999 [x]:\n", 1, r"malformed goroutine header"),
    (
        "file-line-missing-number",
        "goroutine 1 [running]:\nmain.main()\n\t/x/main.go +0x1d\n",
        3,
        r"expected \"\\t<file>:<line> \+0x<offset>\" after the function line 2",
    ),
    (
        "file-line-not-indented",
        "goroutine 1 [running]:\nmain.main()\n/x/main.go:5 +0x1d\n",
        3,
        r"expected \"\\t<file>:<line>",
    ),
    ("stray-file-line", GOOD + "\t/x/other.go:9 +0x1\n", 4, r"a file:line without its function line"),
    (
        "garbage-between-goroutines",
        GOOD + "\nhello world\n\n" + GOOD,
        5,
        r"expected \"goroutine <id> \[<state>\]:\" or a blank line",
    ),
    ("garbage-in-stack", "goroutine 1 [running]:\n  some log text\n", 2, r"expected a function call"),
    (
        "frame-after-created-by",
        GOOD + "created by main.x\n\t/x.go:1 +0x1\nmain.y()\n\t/y.go:2 +0x2\n",
        6,
        r"unexpected line after the \"created by\" frame",
    ),
    (
        "name-without-args",
        "goroutine 1 [running]:\nmain.main\n\t/x/main.go:5 +0x1d\n",
        3,
        r"expected \"<name>\(<args>\)\" in line 2",
    ),
    ("crash-without-goroutines", "panic: boom\n\nexit status 2\n", 1, r"has no goroutine traceback"),
    ("bad-non-go-pc", "goroutine 1 [running]:\nnon-Go function at pc=0xzz\n", 2, r"bad pc"),
]


@pytest.mark.parametrize("desc,text,line,message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_dumps(desc, text, line, message):
    with pytest.raises(DecodeError, match=message) as e:
        pprofcore.loads(text.encode())
    assert e.value.field == f"line {line}", str(e.value)
    assert "Go goroutine dump" in str(e.value)


def test_text_without_a_dump_is_not_mistaken_for_one():
    with pytest.raises(DecodeError, match="looks like text"):
        pprofcore.loads(b"just some words\nand more words\n")
    # A log that mentions a panic but holds no traceback is not claimed either.
    with pytest.raises(DecodeError, match="looks like text"):
        pprofcore.loads(b"starting server\npanic: recovered from bad input\nshutting down\n")


# ------------------------------------------------------------ property tests
words = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6)
receivers = st.sampled_from(["", "(*T).", "(*List[...]).", "T.", "(*server)."])
names = st.builds(
    lambda pkg, sub, recv, fn, generic, closure: f"{pkg}{sub}.{recv}{fn}{generic}{closure}",
    words,
    st.sampled_from(["", "/v2", "/internal/x"]),
    receivers,
    words,
    st.sampled_from(["", "[...]"]),
    st.sampled_from(["", ".func1", ".func2.1", ".gowrap3"]),
)
files = st.builds(lambda d, f: f"/{d}/{f}.go", words, words)
frames = st.tuples(names, files, st.integers(1, 10**6), st.booleans())  # (name, file, line, inlined)
goroutines = st.fixed_dictionaries(
    {
        "goid": st.integers(1, 10**12),
        "state": st.sampled_from(
            [
                "chan receive",
                "select",
                "IO wait",
                "sleep",
                "sync.Mutex.Lock",
                "running",
                "GC worker (idle)",
                "chan send (nil chan)",
                "syscall",
            ]
        ),
        "wait": st.one_of(st.none(), st.integers(1, 10**6)),
        "locked": st.booleans(),
        "system": st.booleans(),
        "frames": st.lists(frames, max_size=8),
        "created_by": st.one_of(st.none(), st.tuples(names, st.one_of(st.none(), st.integers(1, 10**6)))),
    }
)


def render(gs, crlf=False):
    out = []
    for g in gs:
        facts = (
            [g["state"]]
            + ([f"{g['wait']} minutes"] if g["wait"] else [])
            + (["locked to thread"] if g["locked"] else [])
        )
        extra = " gp=0xc000001234 m=nil" if g["system"] else ""
        out.append(f"goroutine {g['goid']}{extra} [{', '.join(facts)}]:")
        for name, file, line, inlined in g["frames"]:
            out += [
                f"{name}(...)" if inlined else f"{name}(0x1?, {{0x2, 0x3}})",
                f"\t{file}:{line}" + ("" if inlined else " +0x1d"),
            ]
        if g["created_by"]:
            fn, parent = g["created_by"]
            out += [f"created by {fn}" + (f" in goroutine {parent}" if parent else ""), "\t/src/go.go:3 +0x44"]
        out.append("")
    return ("\r\n" if crlf else "\n").join(out).encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(goroutines, min_size=1, max_size=6), st.booleans())
def test_generated_dumps_read_back_their_model(gs, crlf):
    p = pprofcore.loads(render(gs, crlf))
    p._core.check_invariants()
    assert len(p.values) == len(gs)
    labs = labels_of(p)
    for g, lab, stack in zip(gs, labs, stacks(p)):
        assert lab["state"] == g["state"] and lab["goid"] == (g["goid"], "")
        assert lab.get("wait") == ((g["wait"], "minutes") if g["wait"] else None)
        assert lab.get("locked_to_thread") == ("true" if g["locked"] else None)
        assert lab.get("created_by") == (g["created_by"][0] if g["created_by"] else None)
        assert stack == [f[0] for f in g["frames"]]
    # Inlined frames join the next real frame's location; trailing ones form their own.
    for g, i in zip(gs, range(len(gs))):
        expected, run = [], 0
        for *_, inlined in g["frames"]:
            run += 1
            if not inlined:
                expected.append(run)
                run = 0
        if run:
            expected.append(run)
        lo = p.locations.line_offsets
        assert [int(lo[loc + 1] - lo[loc]) for loc in p.stack(i)] == expected
    assert pprofcore.loads(p.to_bytes()) == p


@settings(max_examples=150, deadline=None)
@given(st.lists(goroutines, min_size=1, max_size=4), st.data())
def test_damaged_dumps_load_or_raise_decode_error(gs, data):
    """Cutting a dump anywhere or overwriting a byte never crashes: it loads or
    raises DecodeError naming a line."""
    raw = bytearray(render(gs))
    cut = data.draw(st.integers(0, len(raw)))
    raw = raw[:cut]
    if raw and data.draw(st.booleans()):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    try:
        p = pprofcore.loads(bytes(raw))
    except DecodeError as e:
        assert e.field.startswith("line ") or e.field == "" or "Go goroutine dump" not in str(e)
    else:
        p._core.check_invariants()
        assert len(p.values) <= len(gs) + 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(goroutines, min_size=1, max_size=4), st.integers(0, 255), st.booleans(), st.booleans())
def test_go_run_exit_line_is_skipped(gs, status, crlf, trailing_blank):
    """`go run` appends "exit status N" right under the last frame of a panic's
    traceback (no blank line between): the dump reads as without it."""
    nl = "\r\n" if crlf else "\n"
    dump = render(gs, crlf).rstrip(b"\r\n")  # what the program printed, up to its last frame
    exited = dump + f"{nl}exit status {status}{nl}{nl if trailing_blank else ''}".encode()
    assert pprofcore.loads(b"panic: boom" + nl.encode() * 2 + exited) == pprofcore.loads(
        b"panic: boom" + nl.encode() * 2 + dump + nl.encode()
    )


def test_exit_line_inside_the_dump_is_still_an_error():
    """Only the dump's last line is taken for `go run`'s exit line."""
    text = GOOD + "exit status 2\ngoroutine 2 [running]:\nmain.g()\n\t/x/g.go:1 +0x1\n"
    with pytest.raises(DecodeError, match="Go goroutine dump"):
        pprofcore.loads(text.encode())
