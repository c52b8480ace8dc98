"""pprof demangles the function names of every profile it reads (its
symbolizer's last step, skipped only by ``-symbolize=none``): the command line
does the same, checked here against ``go tool pprof`` run plainly on profiles
the tests make, with mangled C++ and Rust names, names that look like
demangled C++, Go, Java and odd ones."""

from __future__ import annotations

import gzip
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from testenv import go_pprof, requires_go
from wirebuild import profile_from_json

import pprofcore
from pprofcore.cli import main as cli_main
from pprofcore.cli.quick_top import may_demangle, unsymbolized

requires_cxxfilt = pytest.mark.skipif(shutil.which("c++filt") is None, reason="needs binutils' c++filt")

NAMES = [
    "_ZNSt6vectorIiSaIiEE9push_backERKi",  # mangled, and below the same function demangled
    "std::vector<int, std::allocator<int> >::push_back(int const&)",
    "_ZN3foo3barEv",
    "_ZN3foo3barEi",  # an overload: one row with the one above once parameters go
    "_ZN5Outer5InnerIiE6methodIdEEvT_",
    "_ZNK3Foo3getEv",
    "_ZN3FooC2Ev",
    "_ZN3FooD0Ev",
    "_ZN3foo3bazEv.constprop.0",
    "_ZN4core3ptr13drop_in_place17h0123456789abcdefE",
    "a::b(c)",
    "Foo::<lambda()>::operator()",
    "Z[a](b)::c",
    "x<y",
    "a(b)c)d::e",
    "ns::f<int>(g<h>)",
    "main.(*List[go.shape.int]).Push",
    "main.Map[go.shape.int,go.shape.string]",
    "pkg.Func[...]",
    "runtime.(*mheap).alloc",
    "java.lang.Thread.<init>",
    "com.example.Foo::bar",
    "main.main",
    "",
]


def _profile(names, system_names=None, file_name="/nonexistent/bin"):
    """A profile with one function, location and sample per name (values 1, 2,
    ...), its mapping marked symbolized so that pprof looks up no binary."""
    system_names = system_names or names
    functions = [
        dict(id=i + 1, name=n, system_name=sn, filename="f.cc", start_line=0)
        for i, (n, sn) in enumerate(zip(names, system_names))
    ]
    locations = [
        dict(id=i + 1, mapping_id=1, address=0x1000 + i, lines=[dict(function_id=i + 1, line=3)], is_folded=False)
        for i in range(len(names))
    ]
    mapping = dict(
        id=1,
        start=0x1000,
        limit=0x100000,
        offset=0,
        file=file_name,
        build_id="",
        has_functions=True,
        has_filenames=True,
        has_line_numbers=True,
        has_inline_frames=False,
    )
    samples = [dict(locations=[i + 1, len(names)], values=[i + 1]) for i in range(len(names))]
    d = dict(sample_types=[["samples", "count"]], samples=samples, mappings=[mapping], locations=locations)
    d["functions"] = functions
    return gzip.compress(profile_from_json(d))


def _ours(capsys, *argv):
    assert cli_main(list(argv)) == 0
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def names_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("demangle") / "names.pb.gz"
    # the last function has a name of its own: pprof leaves a name that differs from its system name
    path.write_bytes(_profile(NAMES + ["shown_name"], NAMES + ["_ZN3foo3quxEv"]))
    return str(path)


@requires_go
@requires_cxxfilt
@pytest.mark.parametrize(
    "flags",
    [
        [],
        ["-symbolize=none"],
        ["-symbolize=demangle=full"],
        ["-symbolize=demangle=templates"],
        ["-symbolize=demangle=none"],
        ["-symbolize=demangle=default"],
        ["-symbolize=force"],
        ["-symbolize=local:demangle=templates"],
        ["-focus=^std::vector::push_back$"],
        ["-ignore=foo::bar"],
    ],
    ids=lambda f: " ".join(f) or "default",
)
@pytest.mark.parametrize("report", ["-top", "-traces", "-tree"])
def test_reports_name_functions_as_pprof_does(capsys, names_file, flags, report):
    args = [report, "-nodecount=200", *flags, names_file]
    assert _ours(capsys, *args) == go_pprof(*args)


@requires_go
@requires_cxxfilt
def test_the_quick_top_and_the_full_top_both_demangle(capsys, names_file):
    # `pprofcore -top FILE` is answered without a Profile when it can; names
    # that demangling changes send it to the full path
    assert _ours(capsys, "-top", names_file) == go_pprof("-top", names_file)
    assert _ours(capsys, "top", names_file) == go_pprof("-top", names_file)


_ODD = st.text(alphabet="ab:<>()[]. *_", min_size=0, max_size=14).filter(lambda n: not n.startswith("_"))


@requires_go
@settings(max_examples=8, deadline=None)
@given(st.lists(_ODD, min_size=1, max_size=60, unique=True))
def test_pprofs_heuristic_for_unmangled_names(tmp_path_factory, names):
    # names that are not mangled: pprof's looks-like-C++ heuristic alone decides
    path = tmp_path_factory.mktemp("odd") / "odd.pb.gz"
    path.write_bytes(_profile(names))
    args = ["-traces", str(path)]
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(list(args)) == 0
    assert out.getvalue() == go_pprof(*args)


def test_quick_top_hands_over_every_name_demangling_would_change():
    p = pprofcore.loads(_profile(NAMES))
    changed = p.demangle(tool_required=False)
    names, after = p.functions["name"].tolist(), changed.functions["name"].tolist()
    for before_code, after_code in zip(names, after):
        if p.strings[before_code] != changed.strings[after_code]:
            assert may_demangle(p.strings[before_code]), p.strings[before_code]
    assert not may_demangle("runtime.(*mheap).alloc")
    assert not may_demangle("pkg.Func[...]")


@requires_cxxfilt
def test_the_api_keeps_system_names_and_names_demangled_already():
    p = pprofcore.loads(_profile(["_ZN3foo3barEv", "kept", ""], ["_ZN3foo3barEv", "_ZN3foo3bazEv", "_ZN1a1bEv"]))
    q = p.demangle()
    s = q.strings
    assert [s[c] for c in q.functions["name"].tolist()] == ["foo::bar", "kept", "a::b"]
    assert [s[c] for c in q.functions["system_name"].tolist()] == ["_ZN3foo3barEv", "_ZN3foo3bazEv", "_ZN1a1bEv"]
    forced = p.demangle("full", force=True)
    assert [forced.strings[c] for c in forced.functions["name"].tolist()] == ["foo::bar()", "foo::baz()", "a::b()"]
    assert p.demangle("none") == p  # names as they are
    assert p.demangle().demangle() == q  # a second pass changes nothing


def test_a_profile_without_names_to_demangle_is_returned_as_it_is():
    p = pprofcore.load(pprofcore.example_path())
    assert p.demangle() is p


def test_bad_modes_are_refused():
    p = pprofcore.load(pprofcore.example_path())
    with pytest.raises(ValueError, match="mode must be one of"):
        p.demangle("short")


def test_quick_top_hands_over_nodes_of_address_only_locations():
    assert unsymbolized("[libc.so.6]") and unsymbolized("00007f947cca3f14 [libc.so.6]")
    assert not unsymbolized("pkg.F[...]") and not unsymbolized("main.main")
