"""The flag matrix: many pprof command lines (reports x flags x inputs) run by
pprofcore and by google/pprof's driver, compared byte for byte on stdout and
on the exit status (0, or 2 for pprof's errors).

Inputs: the bundled proto profiles, a legacy heap profile and a legacy
contention profile written here (text, address-only stacks), and diff inputs
(``-base``, ``-diff_base``), with text reports and ``-mean`` DOT graphs. One long-lived pprof driver answers every line
(``pprof`` fixture), so the matrix costs little.

The call tree (``-call_tree``: ``-callgrind`` and ``-mean`` DOT graphs) has a
matrix of its own. pprof orders equal nodes of different contexts as its maps
happen to give them, so the outputs are compared up to that order
(``tie_order``), except callgrind's on a profile built here whose contexts all
differ in value (inlined frames, recursion, one function under four parents),
whose bytes are pprof's."""

from __future__ import annotations

import itertools

import pytest
import wirebuild as wb
from cli_run import CPU, HEAP, run_cli
from testenv import corpus_path, one_per_producer, parses_with_pprof, requires_go
from tie_order import callgrind_without_ties, dot_without_ids

# Address-only stacks: pprof prints the addresses, so no symbolizer is involved.
LEGACY_HEAP = """heap profile: 6: 6144 [14: 14336] @ heap/1048576
2: 2048 [4: 4096] @ 0x401000 0x402000 0x403000
1: 1024 [2: 2048] @ 0x401100 0x402000 0x403000
2: 2048 [6: 6144] @ 0x404000 0x403000
1: 1024 [2: 2048] @ 0x405000 0x404000 0x403000
"""
LEGACY_CONTENTION = """--- contention:
cycles/second=1000000000
sampling period=1
2500000 10 @ 0x401000 0x402000 0x403000
1200000 3 @ 0x404000 0x403000
700001 7 @ 0x405000 0x402000 0x403000
"""

REPORTS = ["-top", "-tree", "-peek=sort", "-traces"]
FLAGS = [
    [],
    ["-nodecount=5"],
    ["-cum"],
    ["-lines"],
    ["-files"],
    ["-addresses", "-noinlines"],
    ["-divide_by=3"],
    ["-divide_by=1000", "-cum"],
    ["-divide_by=0.25", "-nodecount=4"],
    ["-mean"],
    ["-mean", "-divide_by=7"],
    ["-unit=ms"],
    ["-focus=sort", "-relative_percentages"],
    ["-hide=runtime", "-nodefraction=0.05"],
    ["-trim=false", "-nodecount=3"],
    ["-compact_labels"],
    ["-tagfocus=endpoint=/api/hash"],
    ["-ignore=sha256", "-edgefraction=0.1"],
    ["-show_from=main", "-divide_by=3"],
    ["-tagignore=tenant=acme", "-filefunctions"],
    ["-tagfocus=tenant=acme,globex", "-divide_by=3", "-lines"],
    ["-nodecount=10", "-cum", "-lines", "-divide_by=1e6"],
]
HEAP_FLAGS = [
    ["-sample_index=alloc_space"],
    ["-sample_index=inuse_objects", "-mean"],
    ["-alloc_objects", "-divide_by=2"],
    ["-sample_index=alloc_space", "-divide_by=1024", "-cum"],
    ["-unit=MB"],
    ["-mean", "-lines"],
]
LEGACY_FLAGS = [[], ["-divide_by=3"], ["-mean"], ["-cum", "-nodecount=2"], ["-sample_index=0"], ["-unit=s"]]
# -mean call graphs: trimmed by the sums, shown as sums over count sums; the
# heap's inuse types leave nodes and edges whose sum is 0 but whose count is not
DOT_MEAN_FLAGS = [
    ["-mean", CPU],
    ["-mean", "-lines", CPU],
    ["-mean", "-nodecount=10", "-divide_by=3", CPU],
    ["-mean", "-tagfocus=endpoint=/api/hash", CPU],
    ["-mean", "-hide=runtime", "-nodefraction=0.05", CPU],
    ["-mean", "-unit=ms", "-cum", CPU],
    ["-mean", HEAP],
    ["-mean", "-sample_index=inuse_space", HEAP],
    ["-mean", "-sample_index=inuse_space", "-nodecount=0", "-nodefraction=0", "-edgefraction=0", HEAP],
    ["-mean", "-sample_index=inuse_objects", "-nodefraction=0", HEAP],
    ["-mean", "-sample_index=alloc_space", "-lines", HEAP],
    ["-mean", "-sample_index=alloc_space", f"-diff_base={HEAP}", HEAP],
    ["-mean", "-drop_negative", f"-diff_base={HEAP}", HEAP],
]
# exit status 2 with no report
FAILING = [
    ["-top", "-divide_by=0", CPU],
    ["-peek=no_such_function_anywhere", CPU],
    ["-top", "-sample_index=no_such_type", HEAP],
    ["-list=no_such_function_anywhere", CPU],
    ["-tree", "-focus=(", CPU],
    ["-top", "-no_browser", CPU],
]


def _lines(legacy_heap: str, legacy_contention: str):
    out = []
    for report, flags in itertools.product(REPORTS, FLAGS):
        out.append([report, *flags, CPU])
    for report, flags in itertools.product(REPORTS[:3], HEAP_FLAGS):
        peek = "-peek=." if report.startswith("-peek") else report
        out.append([peek, *flags, HEAP])
    for report, flags in itertools.product(["-top", "-tree", "-traces"], LEGACY_FLAGS):
        out.append([report, *flags, legacy_heap])
        out.append([report, *flags, legacy_contention])
    for report in ["-top", "-tree", "-traces"]:
        out.append([report, f"-base={HEAP}", HEAP])
        out.append([report, f"-diff_base={CPU}", CPU])
        out.append([report, "-divide_by=3", f"-diff_base={HEAP}", "-sample_index=alloc_space", HEAP])
    out.append(["-top", "-sample_index=alloc_space", f"-base={HEAP}", "-mean", HEAP])
    out += [["-dot", *flags] for flags in DOT_MEAN_FLAGS]
    out += [["-dot", "-mean", path] for path in (legacy_heap, legacy_contention)]
    out.append(["-list=sort\\.insertionSort", "-divide_by=3", CPU])
    out.append(["-list=sort\\.insertionSort", CPU])
    # pprof's flags are global: each report takes the ones it does not act on
    out.append(["-list=sort\\.insertionSort", "-noinlines", "-cum", "-nodecount=2", "-addresses", CPU])
    out.append(["-list=sort\\.isNaN", "-noinlines", CPU])  # inlined away: no matches
    out.append(["-list=sort\\.Sort", "-noinlines", "-nodefraction=0.5", CPU])
    out.append(["-raw", "-nodecount=3", "-cum", "-nodefraction=0.1", "-edgefraction=0.1", CPU])
    out.append(["-comments", "-lines", "-mean", "-noinlines", "-nodecount=3", "-flat", HEAP])
    # flags every report takes, with nothing to do here
    out.append(["-top", "-nodecount=3", "-tools=/usr/bin", "-source_path=/x", "-trim_path=/y", "-tls_ca=x", CPU])
    out.append(["-tree", "-nodecount=3", "-tls_cert=a", "-tls_key=b", "-symbolize=none", CPU])
    return out + FAILING


@requires_go
def test_flag_matrix_matches_pprof(pprof, tmp_path):
    heap = tmp_path / "legacy.heap"
    heap.write_text(LEGACY_HEAP)
    contention = tmp_path / "legacy.contention"
    contention.write_text(LEGACY_CONTENTION)
    lines = _lines(str(heap), str(contention))
    assert len(lines) >= 150
    bad = []
    for argv in lines:
        want, err = pprof.run(*argv)
        try:
            rc, out, stderr = run_cli(*argv)
        except SystemExit as e:  # argparse refused the line
            rc, out, stderr = e.code, b"", "argparse"
        want_rc = 0 if err is None else 2
        if err is not None:
            want = ""  # the driver's partial output on error is not printed by go tool pprof
        if (rc, out.decode()) != (want_rc, want):
            bad.append((" ".join(argv), want_rc, rc, err, stderr.strip()[:200]))
    assert not bad, f"{len(bad)} of {len(lines)} command lines differ:\n" + "\n".join(map(str, bad[:20]))


# -nodecount, -nodefraction: pprof ignores them for callgrind
CALL_TREE_FLAGS = [
    ["-callgrind", "-call_tree"],
    ["-callgrind", "-call_tree", "-cum"],
    ["-callgrind", "-call_tree", "-mean"],
    ["-callgrind", "-call_tree", "-mean", "-cum"],
    ["-callgrind", "-call_tree", "-nodecount=2", "-nodefraction=0.3"],
    ["-callgrind", "-call_tree", "-focus=main\\.(f|k)", "-ignore=main\\.h"],
    ["-callgrind", "-call_tree", "-show_from=main\\.f", "-unit=s"],
    ["-callgrind", "-mean"],
    ["-callgrind", "-cum", "-noinlines"],
    ["-dot", "-call_tree", "-mean"],
    ["-dot", "-call_tree", "-mean", "-nodecount=4"],
    ["-dot", "-call_tree", "-mean", "-lines", "-focus=main\\.k"],
]
# the built profile's "wait" is 0 in every other sample, so some contexts tie at 0:
# only lines whose ties pprof orders by name
BUILT_FLAGS = [
    ["-callgrind", "-call_tree", "-mean", "-sample_index=wait"],
    ["-dot", "-call_tree", "-mean", "-sample_index=1", "-nodecount=5"],
]


def _call_tree_profile() -> bytes:
    """main -> f -> f (recursion), g with h inlined, k under four parents; a
    sample's values are its own power of two, so no two contexts tie."""
    strings = {"": 0}

    def s(x: str) -> int:
        return strings.setdefault(x, len(strings))

    names = ["main.main", "main.f", "main.g", "main.h", "main.k"]
    functions = [wb.function(i + 1, s(n), s(n), s(f"/src/{n[5:]}.go"), 10 * i) for i, n in enumerate(names)]
    main, f_call, gh, k, f_leaf = 1, 2, 3, 4, 5
    locations = [
        wb.location(main, 1, 0x1000, [wb.line(1, 10)]),
        wb.location(f_call, 1, 0x2000, [wb.line(2, 20)]),
        wb.location(gh, 1, 0x3000, [wb.line(4, 31), wb.line(3, 30)]),  # h inlined into g
        wb.location(k, 1, 0x4000, [wb.line(5, 40)]),
        wb.location(f_leaf, 1, 0x2040, [wb.line(2, 21)]),
    ]
    mappings = [wb.mapping(1, 0x1000, 0x9000, 0, s("/bin/app"), s("b1"), True, True, True, False)]
    stacks = [
        [k, f_call, main],
        [k, f_call, f_call, main],
        [f_leaf, f_call, f_call, main],
        [f_leaf, f_call, main],
        [k, gh, main],
        [gh, main],
        [k, gh, f_call, main],
        [f_call, main],
    ]
    # "wait" is 0 in every other sample: -mean's nodes of sum 0 and count > 0
    samples = [wb.sample(st, [i % 3 + 1, (1 << i) * (i % 2), 1000 << i]) for i, st in enumerate(stacks)]
    samples.append(wb.sample([k, f_call, f_call, f_call, main], [5, 0, 0]))  # a count alone
    return wb.profile(
        sample_types=[
            wb.value_type(s("samples"), s("count")),
            wb.value_type(s("wait"), s("nanoseconds")),
            wb.value_type(s("cpu"), s("nanoseconds")),  # the default type last: no ties
        ],
        samples=samples,
        mappings=mappings,
        locations=locations,
        functions=functions,
        period_type=wb.value_type(s("cpu"), s("nanoseconds")),
        period=1000,
        strings=list(strings),
    )


def _same_up_to_ties(report: str, got: str, want: str) -> bool:
    if report == "-dot":
        return dot_without_ids(got) == dot_without_ids(want)
    return callgrind_without_ties(got) == callgrind_without_ties(want)


def _call_tree_differences(pprof, path: str, exact: bool, lines=CALL_TREE_FLAGS) -> list:
    bad = []
    for flags in lines:
        argv = [*flags, path]
        want, err = pprof.run(*argv)
        rc, out, stderr = run_cli("-symbolize=none", *argv)  # as the helper runs pprof: no symbolizer step
        got = out.decode()
        # DOT's order is entropy's, where every node that only passes its value on ties
        same = got == want if exact and flags[0] == "-callgrind" else _same_up_to_ties(flags[0], got, want)
        if err is not None or rc != 0 or not same:
            bad.append((" ".join(argv), err, rc, stderr.strip()[:200]))
    return bad


@requires_go
def test_call_tree_matrix_matches_pprof_bytes(pprof, tmp_path):
    path = tmp_path / "contexts.pb"
    path.write_bytes(_call_tree_profile())
    bad = _call_tree_differences(pprof, str(path), exact=True, lines=CALL_TREE_FLAGS + BUILT_FLAGS)
    assert not bad, "\n".join(map(str, bad))


@requires_go
@pytest.mark.parametrize(
    "row",
    [None]
    + [
        p.values[0]
        for p in one_per_producer(
            lambda r: parses_with_pprof(r) and r["format"] == "profile.proto" and int(r["bytes"] or 0) < 100_000, 3
        )
    ],
    ids=lambda r: "bundled" if r is None else r["file"],
)
def test_call_tree_matrix_matches_pprof_up_to_ties(pprof, row):
    paths = [CPU, HEAP] if row is None else [str(corpus_path(row))]
    bad = [b for path in paths for b in _call_tree_differences(pprof, path, exact=False)]
    assert not bad, "\n".join(map(str, bad))
