"""The packages and binaries granularities: package_of on generated names of
each language (Hypothesis), and the packages report against the functions
report grouped by package, ours and go tool pprof's (-topproto -functions),
on generated and corpus profiles."""

import collections

import pytest
import testenv
from hypothesis import given, settings
from hypothesis import strategies as st

import pprofcore
import pprofcore.cli
from pprofcore._build import ProfileBuilder
from pprofcore.reports import package_of

lower = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)
upper = st.from_regex(r"[A-Z][A-Za-z0-9_]{0,7}", fullmatch=True)


@st.composite
def go_names(draw):
    """(name, file, package): import paths with hosts and versions, methods,
    generics (type arguments may hold paths too) and closures."""
    elems = draw(st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,6}", fullmatch=True), min_size=0, max_size=3))
    host = draw(st.sampled_from(["", "github.com/", "go.uber.org/", "example.org/"]))
    path = host + "/".join([*elems, draw(lower)]) if host or elems else draw(lower)
    ty, fn = draw(upper), draw(st.one_of(lower, upper))
    shape = draw(st.sampled_from(["[...]", "[go.shape.int]", "[go.shape.struct { X github.com/a/b.T }]"]))
    body = draw(
        st.sampled_from(
            [fn, f"(*{ty}).{fn}", f"{ty}.{fn}", f"{fn}{shape}", f"(*{ty}{shape}).{fn}", f"{ty}{shape}.{fn}"]
        )
    )
    body += draw(st.sampled_from(["", ".func1", ".func2.3", ".gowrap1", ".deferwrap2"]))
    return f"{path}.{body}", draw(st.sampled_from(["", "/src/x/y.go"])), path


@st.composite
def java_names(draw):
    pkg = draw(st.lists(lower, min_size=1, max_size=4))
    cls = draw(upper) + draw(st.sampled_from(["", "$Inner", "$1", "$$Lambda$17/0x0000000800c0b000"]))
    method = draw(st.sampled_from(["<init>", "run", "lambda$run$0", "apply"]))
    sep = draw(st.sampled_from([".", "/"]))
    name = sep.join(pkg) + sep + cls + "." + method + draw(st.sampled_from(["", "(I)V", "(Ljava/lang/String;)V"]))
    return name, draw(st.sampled_from(["", f"{cls.split('$')[0]}.java"])), ".".join(pkg)


@st.composite
def cpp_names(draw):
    ns = draw(st.lists(lower, min_size=1, max_size=3))
    cls = draw(st.sampled_from(["", draw(upper), draw(upper) + "<int, std::vector<int> >", "_Iter_less"]))
    fn = draw(st.sampled_from(["run", "operator()", "operator<", "get_value", "~Widget"]))
    args = draw(st.sampled_from(["", "(int)", "(char const*, unsigned long)", "() const"]))
    clone = draw(st.sampled_from(["", " [clone .cold]", ".constprop.0", ".isra.0"]))
    if not cls and fn.startswith(("operator", "~")):
        fn = "run"
    path = "::".join(ns + ([cls] if cls else []) + [fn])
    ret = draw(st.sampled_from(["", "void "])) if "<" in cls else ""
    return ret + path + args + clone, draw(st.sampled_from(["", "src/widget.cc", "include/widget.h"])), "::".join(ns)


@st.composite
def rust_names(draw):
    mods = draw(st.lists(lower, min_size=1, max_size=3))
    ty = draw(st.sampled_from(["", draw(upper)]))
    fn = draw(lower)
    tail = draw(st.sampled_from(["", "::{{closure}}", "::{closure#0}"]))
    hash_ = draw(st.sampled_from(["", "::h0123456789abcdef"]))
    name = "::".join(mods + ([ty] if ty else []) + [fn]) + tail + hash_
    if ty and draw(st.booleans()):  # <Type as Trait>::method
        name = f"<{'::'.join(mods)}::{ty} as core::ops::Drop>::{fn}"
    return name, draw(st.sampled_from(["", "src/lib.rs"])), "::".join(mods)


@st.composite
def python_names(draw):
    mods = draw(st.lists(lower, min_size=1, max_size=3))
    root = draw(st.sampled_from(["", "/usr/lib/python3.11/", "/venv/lib/python3.12/site-packages/", "./"]))
    file = root + "/".join(mods) + ".py"
    fn = draw(st.sampled_from(["main", "<module>", "handle", "Worker.run"]))
    if draw(st.booleans()):  # pyroscope's "path.py:LINE - func"
        return f"{'/'.join(mods)}.py:{draw(st.integers(-1, 99))} - {fn}", "", ".".join(mods)
    return fn, file, ".".join(mods)


@settings(max_examples=150, deadline=None)
@given(st.one_of(go_names(), java_names(), cpp_names(), rust_names(), python_names()))
def test_package_of_generated_names(case):
    name, file, want = case
    assert package_of(name, file) == want, (name, file)


@pytest.mark.parametrize(
    "name, file, want",
    [
        ("gopkg.in/yaml%2ev3.(*parser).parse", "", "gopkg.in/yaml.v3"),
        ("main.main", "", "main"),
        ("runtime.gcBgMarkWorker.func2", "", "runtime"),
        ("main.myType.method", "main.go", "main"),
        ("json.decoder.JSONDecoder.decode", "", "json.decoder"),
        ("(anonymous namespace)::helper()", "", "(anonymous namespace)"),
        ("std::__detail::_Mod_range_hashing::operator()(unsigned long, unsigned long) const", "", "std::__detail"),
        ("malloc", "", ""),
        ("compute.cold", "", ""),
        ("<built-in method builtins.print>", "~", ""),
        ("com.example.part.Parser.parse", "", "com.example.part"),
        ("libjvm.so.Unsafe_Park", "", "libjvm.so"),
        ("libc-2.31.so.clock_gettime", "", "libc-2.31.so"),
        ("./lib/x86_64-linux-gnu/libc.so.6", "", "libc.so.6"),
    ],
)
def test_package_of_examples(name, file, want):
    assert package_of(name, file) == want


def _generated_profile():
    """Frames of every language, unsymbolized ones and two binaries, in
    random stacks (recursion included)."""
    import random

    rng = random.Random(7)
    b = ProfileBuilder([("samples", "count"), ("cpu", "nanoseconds")])
    app, libc = b.mapping("/opt/app/server"), b.mapping("/lib/x86_64-linux-gnu/libc.so.6")
    names = [
        ("github.com/acme/api/handler.(*Server).ServeHTTP", "handler.go", app),
        ("github.com/acme/api/handler.decode[go.shape.int]", "handler.go", app),
        ("github.com/acme/api/store.Put.func1", "store.go", app),
        ("runtime.mallocgc", "malloc.go", app),
        ("com.acme.Worker.run", "Worker.java", app),
        ("com.acme.util.Pool$Task.call", "", app),
        ("acme::net::Socket::read(int)", "socket.cc", app),
        ("acme::net::poll()", "", app),
        ("acme_core::codec::decode::h0011223344556677", "codec.rs", app),
        ("handle", "acme/web/views.py", app),
        ("memcpy", "", libc),
        ("malloc", "", libc),
    ]
    locs = [b.location(b.function(n, f), line=i + 1, mapping_id=m) for i, (n, f, m) in enumerate(names)]
    locs.append(b.location(0, address=0x1234, mapping_id=libc))  # unsymbolized
    for _ in range(300):
        stack = [rng.choice(locs) for _ in range(rng.randint(1, 9))]
        b.add(stack, [1, rng.randint(1, 10) * 1_000_000])
    return b.build()


def _flat_by(table):
    return {n: int(v) for n, v in zip(table["name"], table["flat"]) if v}


def _group_key(p):
    """name -> the row a function's flat goes to: its package, else
    ``[binary]`` of the mapping its locations are in (pprof's nameless rows
    are already named so)."""
    file_of = {p.strings[int(n)]: p.strings[int(f)] for n, f in zip(p.functions.name, p.functions.filename)}
    binary_of = {}
    for loc, m in enumerate(p.locations.mapping.tolist()):
        for ln in range(int(p.locations.line_offsets[loc]), int(p.locations.line_offsets[loc + 1])):
            name = p.strings[int(p.functions.name[int(p.lines.function[ln])])]
            if m >= 0:
                binary_of.setdefault(name, "[" + p.strings[int(p.mappings.filename[m])].rsplit("/", 1)[-1] + "]")
    return lambda name, file=None: (
        package_of(name, file_of.get(name, "") if file is None else file) or binary_of.get(name, name)
    )


def _our_functions_grouped(p, ti):
    """Our functions report's flat values summed per package of each row's function."""
    key = _group_key(p)
    out = collections.Counter()
    for name, flat in _flat_by(p.top(ti, by="functions", nodefraction=0)).items():
        out[key(name)] += flat
    return {k: v for k, v in out.items() if v}


def test_packages_are_functions_grouped_generated():
    p = _generated_profile()
    for ti in range(2):
        assert _flat_by(p.top(ti, by="packages", nodefraction=0)) == _our_functions_grouped(p, ti)
    binaries = _flat_by(p.top(1, by="binaries", nodefraction=0))
    assert set(binaries) == {"server", "libc.so.6"} and sum(binaries.values()) == p.total(1)
    # a package's cum counts each sample once: never more than the total
    cum = dict(zip(*(p.top(1, by="packages", nodefraction=0)[c] for c in ("name", "cum"))))
    assert max(cum.values()) <= p.total(1)


def test_packages_in_series_flame_graph_and_cli(tmp_path, capsys):
    p = _generated_profile()
    path = tmp_path / "gen.pb.gz"
    p.save(path)
    s = pprofcore.ProfileSet([path, path])
    df = s.series(by="packages")
    assert dict(df[df["profile"] == 0].groupby("name", observed=True)["value"].sum()) == _flat_by(
        p.top(by="packages", nodefraction=0)
    )
    html = p.flamegraph(by="packages")._repr_html_()
    assert "github.com/acme/api/handler" in html
    assert pprofcore.cli.main(["-top", "-packages", "-nodefraction=0", str(path)]) == 0
    out = capsys.readouterr().out
    assert "acme::net" in out and "com.acme.util" in out
    assert pprofcore.cli.main(["-tree", "-binaries", str(path)]) == 0
    assert "libc.so.6" in capsys.readouterr().out


def _pprof_functions_grouped(path, tmp_path, p):
    """go tool pprof -topproto -functions: each function's flat, summed per
    our package of its name and file in ``p`` (the binary for names without one)."""
    key = _group_key(p)
    out = tmp_path / "top.pb.gz"
    testenv.go_pprof(
        "-symbolize=none", "-topproto", "-functions", "-nodefraction=0", "-unit=ns", f"-output={out}", str(path)
    )
    top = pprofcore.load(out)
    flat = [t for t, _ in top.sample_types].index("flat")
    got = collections.Counter()
    for i, vals in enumerate(top.values.tolist()):
        loc = int(top.stack_locations[top.stack_offsets[i]])
        fn = int(top.lines.function[int(top.locations.line_offsets[loc])])
        got[key(top.strings[int(top.functions.name[fn])])] += vals[flat]  # -functions drops the file: ours
    return {k: v for k, v in got.items() if v}


CORPUS_PROFILES = [
    "go/akvorado__default.pgo",
    "go/flameshow__tests_pprof_data_heap.out",
    "java/pyroscope__pkg_og_convert_jfr_testdata_cortex-dev-01__kafka-0__cpu__0.jfr.gz."
    "process_cpu_cpu_nanoseconds_cpu_nanoseconds.17241709254077376921.pb.gz",
    "cpp/generated/gen-gperftools-cpu.pb.gz",
]


@testenv.requires_go
@pytest.mark.oracle
@pytest.mark.parametrize("rel", ["generated", *CORPUS_PROFILES])
def test_packages_equal_pprof_functions_grouped(rel, tmp_path):
    if rel == "generated":
        p = _generated_profile()  # its default type: cpu nanoseconds, as -unit=ns prints it
        path = tmp_path / "gen.pb.gz"
        p.save(path)
    else:
        path = testenv.CORPUS / rel
        if not path.exists():
            pytest.skip(f"corpus profile {rel} not found (set PPROFCORE_CORPUS)")
        p = pprofcore.load(path)
    ours = _flat_by(p.top(by="packages", nodefraction=0))
    theirs = _pprof_functions_grouped(path, tmp_path, p)
    # -topproto names a frame without function "" and drops its binary: such
    # frames are only compared in the sum of the binaries' rows
    nameless = theirs.pop("", 0)
    binary = lambda k: k.startswith("[") or k == "<unknown>"  # noqa: E731
    assert {k: v for k, v in ours.items() if not binary(k)} == {k: v for k, v in theirs.items() if not binary(k)}
    assert sum(v for k, v in ours.items() if binary(k)) == sum(v for k, v in theirs.items() if binary(k)) + nameless
