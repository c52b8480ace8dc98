"""Go repairs: truncated stacks completed from their untruncated siblings, and
generic type parameters dropped from names. Checked against the profile before
truncation, against an independent re-implementation of the name rule with go
tool pprof as the report oracle, and on a real Go program's heap profile."""

import random
import re
import shutil
import subprocess
import textwrap

import pytest
from testenv import go_call_chain, run_go_program

import pprofcore
from pprofcore._go_repairs import clean_name

HAVE_GO = shutil.which("go") is not None


def folded(stacks) -> pprofcore.Profile:
    """A profile of root-first stacks with their counts."""
    return pprofcore.from_folded("".join(f"{';'.join(s)} {n}\n" for s, n in stacks))


def names(p, s):
    """Function names of sample `s`'s stack, leaf first (inline frames included)."""
    lo = p.locations["line_offsets"]
    fn = p.lines["function"]
    name = p.functions["name"]
    return [p.strings[name[fn[i]]] for loc in p.stack(s) for i in range(lo[loc], lo[loc + 1])]


def stacks_of(p):
    """{root-first tuple of names: count} of a profile's samples."""
    out = {}
    for s in range(len(p)):
        key = tuple(reversed(names(p, s)))
        out[key] = out.get(key, 0) + int(p.values[s, 0])
    return out


def truncate(stacks, depth):
    """What Go's runtime records: the leaf-most `depth` frames."""
    return [(s[-depth:] if len(s) > depth else s, n) for s, n in stacks]


def deep_program(seed, depth=64, window=8):
    """Stacks of a program with deep call chains (deeper than `depth`), each with
    a shallower sibling that passes through the frames where the deep one is cut,
    so its root part is known."""
    rng = random.Random(seed)
    trunk = ["runtime.main", "main.main"] + [f"main.layer{i}" for i in range(rng.randint(depth // 4, depth // 2))]
    stacks = []
    for k in range(6):
        cut = rng.randint(5, len(trunk))
        full = trunk[:cut] + [f"main.branch{k}_{i}" for i in range(rng.randint(depth + 1, depth + depth // 2) - cut)]
        if len(full) <= depth:
            full += [f"main.extra{k}_{i}" for i in range(depth + 1 - len(full))]
        stacks.append((full, rng.randint(1, 50)))  # truncated by the runtime
        keep = len(full) - depth + window + rng.randint(1, 5)  # reaches past the cut's window
        stacks.append((full[:keep], rng.randint(1, 50)))
    return stacks


@pytest.mark.parametrize("seed", range(12))
def test_repair_restores_the_untruncated_stacks(seed):
    stacks = deep_program(seed)
    whole = folded(stacks)
    cut = folded(truncate(stacks, 64))
    repaired, report = cut.repair_truncated_stacks()
    truncated = sum(n for s, n in stacks if len(s) >= 64)
    assert report.depth == 64
    assert report.truncated == sum(1 for s, _ in stacks if len(s) >= 64)
    assert report.repaired == report.truncated and report
    assert stacks_of(repaired) == stacks_of(whole)
    assert repaired.total() == whole.total() == cut.total()
    assert truncated > 0


def test_no_limit_no_change_and_explicit_depth():
    p = folded([(["main.main", "main.f"], 3), (["main.main"], 1)])
    q, report = p.repair_truncated_stacks()
    assert report.depth == 0 and not report
    assert q == p
    stacks = deep_program(3, depth=40)
    cut = folded(truncate(stacks, 40))
    _, auto = cut.repair_truncated_stacks()
    assert auto.depth == 0  # 40 is not one of Go's limits
    fixed, given = cut.repair_truncated_stacks(depth=40)
    assert given.depth == 40 and stacks_of(fixed) == stacks_of(folded(stacks))
    with pytest.raises(ValueError, match="window"):
        cut.repair_truncated_stacks(window=0)


def test_ambiguous_root_parts_take_the_heaviest():
    leaf = [f"main.f{i}" for i in range(64)]
    stacks = [
        (["runtime.main", "main.a"] + leaf, 5),  # truncated to `leaf`
        (["runtime.main", "main.a"] + leaf[:10], 7),
        (["runtime.main", "main.b"] + leaf[:10], 3),
    ]
    cut = folded(truncate(stacks, 64))
    repaired, report = cut.repair_truncated_stacks()
    assert report.ambiguous == 1 and report.repaired == 1
    assert tuple(["runtime.main", "main.a"] + leaf) in stacks_of(repaired)


GO_NAMES = [
    ("main.Map[go.shape.int]", "main.Map"),
    ("main.Map[...]", "main.Map"),
    ("main.(*List[go.shape.string]).Push", "main.(*List).Push"),
    ("example.com/x.Reduce[go.shape.struct { a int },go.shape.[]uint8]", "example.com/x.Reduce"),
    ("main.f[[]int].func1", "main.f.func1"),
    ("runtime.mallocgc", "runtime.mallocgc"),
    ("std::vector<int>::operator[]", "std::vector<int>::operator[]"),  # empty brackets are not a list
    ("unbalanced[go.shape", "unbalanced[go.shape"),
]


@pytest.mark.parametrize("name,expected", GO_NAMES)
def test_clean_name(name, expected):
    assert clean_name(name) == expected


def python_clean(name: str) -> str:
    """The rule again, written independently: repeatedly drop an innermost
    non-empty bracket pair that follows a name character or ')'."""
    while True:
        new = re.sub(r"(?<=[\w)\x80-\uffff])\[[^\[\]]+\]", "", name)
        new2 = re.sub(r"(?<=[\w)\]])\[[^\[\]]*\[\][^\[\]]*\]", "", new)
        if new2 == name:
            return name
        name = new2


def generic_stacks(seed):
    rng = random.Random(seed)
    shapes = ["go.shape.int", "go.shape.string", "...", "go.shape.*uint8"]
    funcs = ["main.Map[{}]", "main.(*Set[{}]).Add", "main.Reduce[{}].func1", "main.plain"]
    out = []
    for _ in range(40):
        depth = rng.randint(1, 6)
        s = ["main.main"] + [rng.choice(funcs).format(rng.choice(shapes)) for _ in range(depth)]
        out.append((s, rng.randint(1, 20)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_drop_type_params_equals_renamed_source(seed, tmp_path):
    stacks = generic_stacks(seed)
    p = folded(stacks)
    q, report = p.drop_type_params()
    expected = folded([([python_clean(f) for f in s], n) for s, n in stacks])
    assert report.functions_renamed > 0
    assert len(q.functions) == len(p.functions) - report.functions_merged
    assert stacks_of(q) == stacks_of(expected)
    assert q.top().to_text() == expected.top().to_text()
    if HAVE_GO:  # the report of the repaired profile is pprof's report of the renamed one
        path = tmp_path / "expected.pb.gz"
        expected.save(path)
        go = subprocess.run(["go", "tool", "pprof", "-top", str(path)], capture_output=True, text=True, check=True)
        assert q.top().to_text().split("\n", 1)[1] == go.stdout.rstrip("\n").split("\n", 1)[1]


GO_PROGRAM = textwrap.dedent(
    """
    package main

    import (
        "os"
        "runtime"
        "runtime/pprof"
    )

    var sink [][]byte

    //go:noinline
    func rec(n int) {
        if n == 0 {
            sink = append(sink, make([]byte, 4096))
            return
        }
        rec(n - 1)
    }

    func main() {
        runtime.MemProfileRate = 1
        for i := 0; i < 200; i++ {
            rec(45) // deeper than the heap profile's 32 frames
            rec(12)
        }
        runtime.GC()
        f, _ := os.Create(os.Args[1])
        pprof.Lookup("heap").WriteTo(f, 0)
        f.Close()
    }
    """
)


@pytest.mark.skipif(not HAVE_GO, reason="needs go (golang-go) to build a Go program")
def test_real_go_heap_profile_roots_at_main(tmp_path):
    p = pprofcore.load(run_go_program(tmp_path, GO_PROGRAM, "heap.pb.gz"))
    deep = [s for s in range(len(p)) if len(p.stack(s)) == 32]
    assert deep, "the Go runtime did not truncate any stack"
    assert all(names(p, s)[-1] != "runtime.main" for s in deep)
    q, report = p.repair_truncated_stacks()
    assert report.depth == 32 and report.repaired == report.truncated == len(deep)
    for s in range(len(q)):
        if "main.rec" in names(q, s):
            assert names(q, s)[-1] == "runtime.main", names(q, s)
    assert q.total() == p.total()


# A CPU profile of a call chain DEEP levels deep with one function a level
# (c0 calls c1 ... until level `stop`), so every frame says its level: Go
# 1.19's CPU profiler keeps the leaf-most 64 frames, and a recursion through
# one function would leave nothing to tell how deep a cut stack was. The
# chains stopped at SHALLOW levels are never cut and pass through the frames
# where the deep one is: what the runtime would have recorded uncut.
DEEP, SHALLOW = 100, (44, 49, 54)


def chain_program() -> str:
    calls = "; ".join(f"c0({stop})" for stop in (DEEP - 1, *SHALLOW))
    return textwrap.dedent(
        """
            package main

            import (
            \t"os"
            \t"runtime"
            \t"runtime/pprof"
            )

            var sink int

            //go:noinline
            func spin() {
            \tfor i := 0; i < 100000; i++ {
            \t\tsink += i
            \t}
            }

            func main() {
            \truntime.SetCPUProfileRate(500) // before StartCPUProfile, which keeps it (and says so on stderr)
            \tf, _ := os.Create(os.Args[1])
            \tpprof.StartCPUProfile(f)
            \tfor round := 0; round < 1500; round++ {
            \t\tCALLS
            \t}
            \tpprof.StopCPUProfile()
            \tf.Close()
            }

            """
    ).replace("CALLS", calls) + go_call_chain("c", DEEP, "spin()", "spin()")


@pytest.mark.skipif(not HAVE_GO, reason="needs go (golang-go) to build a Go program")
def test_real_go_cpu_profile_of_a_deep_chain_is_rebuilt(tmp_path):
    p = pprofcore.load(run_go_program(tmp_path, chain_program(), "cpu.pb.gz"))
    cut = [s for s in range(len(p)) if len(p.stack(s)) == 64]
    assert cut, "the Go runtime did not truncate any stack"
    assert all(names(p, s)[-1] != "runtime.main" for s in cut)
    q, report = p.repair_truncated_stacks()
    assert report.depth == 64 and report.repaired == report.truncated == len(cut)
    assert q.total() == p.total()
    ends = set()
    for s in range(len(q)):
        root_first = names(q, s)[::-1]
        chain = [f for f in root_first if re.fullmatch(r"main\.c\d+", f)]
        if not chain:
            continue
        # what the uncut program runs: runtime.main, main.main, c0, c1, ... with no level missing or repeated
        assert root_first[:2] == ["runtime.main", "main.main"], root_first[:4]
        assert chain == [f"main.c{i}" for i in range(len(chain))], chain
        assert root_first[2 : 2 + len(chain)] == chain
        ends.add(len(chain) - 1)
    # a sample may stop at any level (taken on the way down); the deep chain's end is among them
    assert DEEP - 1 in ends and max(ends) == DEEP - 1
