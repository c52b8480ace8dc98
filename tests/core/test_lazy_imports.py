"""``pprofcore/__init__.py``'s ``LAZY_IMPORTS`` (PEP 562): every public name
is the object its module defines, loaded on first use; the table, ``__all__``
and the ``TYPE_CHECKING`` block that type checkers read name the same things;
and ``import pprofcore`` alone loads the C++ core and the leaves, not NumPy.
The rooms deferred with ``pprofcore._lazy`` (``reports``' table,
``lazy_module``, ``lazy_function``) stay unloaded until used: ``pprofcore
-http``'s first page answers without them, and each works when first used.
(tests/core/test_layering.py reads the tables and calls as imports.)"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys

import pytest
from testenv import REPO, pprofcore_env

import pprofcore

INIT = REPO / "python" / "pprofcore" / "__init__.py"


def type_checking_names() -> set:
    """The names the ``if TYPE_CHECKING:`` block of ``__init__`` imports."""
    tree = ast.parse(INIT.read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test))
    return {a.asname or a.name for n in block.body if isinstance(n, ast.ImportFrom) for a in n.names}


def test_table_all_and_type_checking_agree():
    table = set(pprofcore.LAZY_IMPORTS)
    assert type_checking_names() == table
    attributes = {name for name, entry in pprofcore.LAZY_IMPORTS.items() if ":" in entry}
    eager = set(pprofcore.__all__) - attributes
    # the names not in the table are defined by __init__ itself, without an import on use
    assert eager == {
        "DEFAULT_MAX_DECOMPRESSED_SIZE",
        "DecodeError",
        "FilterWarning",
        "GzipError",
        "ProfileError",
        "build_info",
        "example_path",
    }
    assert attributes <= set(pprofcore.__all__)


@pytest.mark.parametrize("name", sorted(pprofcore.LAZY_IMPORTS))
def test_each_entry_is_what_its_module_defines(name):
    module, _, attribute = pprofcore.LAZY_IMPORTS[name].partition(":")
    home = importlib.import_module(module, "pprofcore")
    want = getattr(home, attribute) if attribute else home
    assert getattr(pprofcore, name) is want
    assert pprofcore.__dict__[name] is want  # kept: __getattr__ runs once per name


def test_unknown_names_still_fail():
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        pprofcore.nope  # noqa: B018
    from pprofcore import load  # a from-import goes through __getattr__ too

    assert load is pprofcore.load


def test_import_pprofcore_loads_only_the_core():
    code = "import sys, pprofcore; print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith('pprofcore')))"
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=pprofcore_env(),
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    loaded = ["pprofcore", "pprofcore._build_info", "pprofcore._core", "pprofcore._lazy", "pprofcore.errors"]
    assert r.stdout.strip() == str(loaded)


def test_the_explorers_first_page_leaves_numpy_ma_unloaded():
    """NumPy 2's ``unique`` imports ``numpy.ma`` (about 10 ms of the
    time to ``pprofcore -http``'s first page): the Graph view's data avoid it."""
    code = (
        "import sys, pprofcore\n"
        "from pprofcore.web import Session\n"
        "from pprofcore.web._app import warm\n"
        "warm(Session([('p', pprofcore.load(pprofcore.example_path()))]))\n"
        "print('numpy.ma' in sys.modules)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=pprofcore_env(), timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


#: The rooms ``pprofcore -http``'s first page does not use, imported on use
#: (``pprofcore._lazy``): the symbolizer, disassembly, the weblist, callgrind,
#: the -top profile and comments (profile.proto's field enums), the trace and
#: OTLP exports and the timeline's samples, the other profilers' readers, the
#: repairs.
DEFERRED = (
    "pprofcore._comments",
    "pprofcore._proto_fields",
    "pprofcore.reports.topproto",
    "pprofcore._timed_samples",
    "pprofcore.symbolize",
    "pprofcore.reports.disasm",
    "pprofcore.reports._weblist",
    "pprofcore.reports.callgrind",
    "pprofcore.display.calltree_callgrind",
    "pprofcore._to_chrome_trace",
    "pprofcore._to_firefox",
    "pprofcore._to_otlp",
    "pprofcore._foreign",
    "pprofcore._repair",
    "pprofcore._go_repairs",
)

FIRST_PAGE = """
import json, socket, sys, threading, time, urllib.request
import pprofcore
from pprofcore import cli

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
argv = [f"-http=127.0.0.1:{port}", "-no_browser", pprofcore.example_path()]
threading.Thread(target=cli.main, args=(argv,), daemon=True).start()


def get(path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
            return r.status
    except OSError:
        return 0


deadline = time.monotonic() + 60
while get("/ui/") != 200 and time.monotonic() < deadline:
    time.sleep(0.02)
assert get("/ui/data/graph") == 200
print(json.dumps(sorted(m for m in sys.modules if m.startswith("pprofcore"))))
"""


def test_the_explorers_first_page_leaves_the_deferred_rooms_unloaded():
    """``pprofcore -http FILE`` (the command line, uvicorn and Starlette) answers
    its page and the Graph view's data without importing them."""
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    r = subprocess.run(
        [sys.executable, "-c", FIRST_PAGE], capture_output=True, text=True, env=pprofcore_env(), timeout=120
    )
    assert r.returncode == 0, r.stderr
    loaded = set(json.loads(r.stdout.strip().splitlines()[-1]))
    assert {"pprofcore.web._app", "pprofcore.display.callgraph", "pprofcore._io"} <= loaded  # it did serve
    assert not loaded & set(DEFERRED), sorted(loaded & set(DEFERRED))


USE_DEFERRED = """
import json, sys
import pprofcore

deferred = json.loads(sys.argv[1])
p = pprofcore.load(pprofcore.example_path())
assert not [m for m in deferred if m in sys.modules], [m for m in deferred if m in sys.modules]
out = {}
out["symbolize"] = repr(p.symbolize()[1])
out["callgrind"] = p.to_callgrind()
out["callgrind_calltree"] = p.to_callgrind(call_tree=True)
out["otlp"] = p.to_otlp().hex()
out["comment"] = p.add_comment("deferred").comments
out["top_profile"] = p.top_profile().to_bytes().hex()
for name in ("to_chrome_trace", "to_firefox_profiler", "timeline"):
    try:
        getattr(p, name)()
    except ValueError as e:  # the example has no timestamps: the exporter's own refusal
        out[name] = str(e)
out["weblist"] = str(p.weblist("sha256.block").listing)
try:
    p.disasm("sha256.block")
except ValueError as e:  # no binary on this machine: the report's own refusal
    out["disasm"] = str(e)
out["repair"] = str(pprofcore.load(pprofcore.example_path(), repair=True)[1])
out["truncated"] = repr(p.repair_truncated_stacks()[1])
out["folded"] = pprofcore.load(sys.argv[2]).to_folded()  # another profiler's format
out["same"] = [getattr(pprofcore.Profile, name) is getattr(pprofcore.reports, report)
               for name, report in (("disasm", "disassembly"), ("weblist", "weblist"), ("top_profile", "top_profile"))]
out["loaded"] = [m for m in deferred if m in sys.modules]
print(json.dumps(out))
"""


def test_the_deferred_rooms_work_when_first_used(tmp_path):
    """Each deferred room, first used from a fresh process, gives what its
    functions give called directly (imported here at the top of the test)."""
    from pprofcore import _comments, _go_repairs, _to_chrome_trace, _to_firefox, _to_otlp, reports, symbolize
    from pprofcore.display.calltree_callgrind import calltree_callgrind
    from pprofcore.display.timeline import timeline
    from pprofcore.reports._weblist import weblist
    from pprofcore.reports.callgrind import to_callgrind
    from pprofcore.reports.disasm import disassembly
    from pprofcore.reports.topproto import top_profile

    folded = tmp_path / "stacks.folded"
    folded.write_text("main;work 3\nmain;idle 2\n")
    r = subprocess.run(
        [sys.executable, "-c", USE_DEFERRED, json.dumps(DEFERRED), str(folded)],
        capture_output=True,
        text=True,
        env=pprofcore_env(),
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    p = pprofcore.load(pprofcore.example_path())
    assert got["symbolize"] == repr(symbolize.symbolize(p)[1])
    assert got["callgrind"] == to_callgrind(p)
    assert got["callgrind_calltree"] == calltree_callgrind(p, None, None)
    assert bytes.fromhex(got["otlp"]) == _to_otlp.to_otlp(p, None, "pprofcore", "", False, None)
    assert got["comment"] == _comments.add_comment(p, "deferred").comments
    assert bytes.fromhex(got["top_profile"]) == top_profile(p).to_bytes()
    exporters = (_to_chrome_trace.to_chrome_trace, _to_firefox.to_firefox_profiler, timeline)
    for name, function in zip(("to_chrome_trace", "to_firefox_profiler", "timeline"), exporters):
        with pytest.raises(ValueError) as e:
            function(p, None, None, "")
        assert got[name] == str(e.value)
    assert got["weblist"] == str(weblist(p, "sha256.block").listing)
    with pytest.raises(ValueError) as e:
        disassembly(p, "sha256.block")
    assert got["disasm"] == str(e.value)
    assert got["repair"] == str(pprofcore.load(pprofcore.example_path(), repair=True)[1])
    assert got["truncated"] == repr(_go_repairs.repair_truncated_stacks(p, None, 8)[1])
    assert got["folded"] == pprofcore.load(folded).to_folded() != ""
    assert got["same"] == [True, True, True]
    assert reports.disassembly is disassembly and reports.weblist is weblist and reports.top_profile is top_profile
    # what was used is loaded now (calltree_callgrind through to_callgrind(call_tree=True))
    assert set(got["loaded"]) == set(DEFERRED)


def test_lazy_module_imports_once_on_first_read():
    code = (
        "import sys\n"
        "from pprofcore._lazy import lazy_module\n"
        "m = lazy_module('pprofcore._to_otlp')\n"
        "print('pprofcore._to_otlp' in sys.modules, 'not imported yet' in repr(m))\n"
        "f = m.to_otlp\n"
        "print('pprofcore._to_otlp' in sys.modules, f is sys.modules['pprofcore._to_otlp'].to_otlp, repr(m))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=pprofcore_env(), timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["False True", "True True <lazy module 'pprofcore._to_otlp' (imported)>"]
