"""The explorer's server (pprofcore.web) without a browser: the state in URLs,
each view's data against the Python API and `go tool pprof`, the command line,
and the guard: foreign Host, cross-origin writes, source files outside the
root, hostile names. Browser tests are in test_explorer_browser.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
import warnings

import pytest

pytest.importorskip("starlette", reason="needs pprofcore[web]: pip install starlette uvicorn httpx")
pytest.importorskip("httpx", reason="the Starlette test client needs httpx")

import explorer_data as ed
from testenv import CORPUS, pprofcore_env  # noqa: E402

with warnings.catch_warnings():  # Starlette >= 0.47 would rather have httpx2; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

import pprofcore  # noqa: E402
from pprofcore.cli import _COMMANDS, _pprof_flags, build_parser  # noqa: E402
from pprofcore.cli.serve import session_of  # noqa: E402
from pprofcore.web import Session, State, create_app  # noqa: E402

FLEET = CORPUS / "fleet" / "cpu"


@pytest.fixture(scope="module")
def source_root(tmp_path_factory):
    return ed.source_tree(tmp_path_factory.mktemp("src"))


@pytest.fixture(scope="module")
def plain():
    return ed.plain()


@pytest.fixture(scope="module")
def client(plain, source_root):
    other = plain.scale(0.5)
    session = Session([("plain", plain), ("half", other)], source_path=str(source_root))
    return TestClient(create_app(session, hosts=["testserver"]))


@pytest.fixture(scope="module")
def hostile_client():
    return TestClient(create_app(Session([("</script><b>", ed.hostile())]), hosts=["testserver"]))


# ------------------------------------------------------------------ state
@pytest.mark.parametrize(
    "query",
    [
        "si=samples&f=main&i=io&h=hash&s=work&sf=main",
        "tf=endpoint%3D%2Fapi&ti=x&ts=a&th=b&g=lines",
        "q=wo.k&p=1&cmp=0",
        "n=5&nf=0.0&ef=0.01&noinlines=t&mean=t&unit=ms&rel=t&sort=cum",
    ],
)
def test_state_round_trips_through_the_url(query):
    from urllib.parse import parse_qsl

    st = State.from_query(dict(parse_qsl(query)))
    assert dict(parse_qsl(st.to_query())) == dict(parse_qsl(query))
    assert State.from_query(dict(parse_qsl(st.to_query()))) == st


def test_state_uses_pprofs_parameter_names():
    st = State.from_query({"f": "a", "i": "b", "h": "c", "s": "d", "sf": "e", "tf": "k=v", "si": "1"})
    assert st.filters() == {"focus": "a", "ignore": "b", "hide": "c", "show": "d", "show_from": "e", "tagfocus": "k=v"}
    assert st.sample_type() == 1
    with pytest.raises(ValueError):
        State.from_query({"g": "bogus"})
    with pytest.raises(ValueError):
        State.from_query({"f": "x" * 5000})
    with pytest.raises(ValueError):
        State.from_query({"noinlines": "maybe"})
    assert State.from_query({"noinlines": "true", "nf": "0"}).to_query() == "nf=0.0&noinlines=t"


# ------------------------------------------------------------------ views
@pytest.mark.parametrize("view", ["graph", "top", "flamegraph", "peek", "source", "labels"])
def test_every_view_answers(client, view):
    r = client.get(f"/ui/data/{view}?f=main")
    assert r.status_code == 200
    assert "error" not in r.json(), r.json().get("error")
    page = client.get("/ui/" + ("" if view == "graph" else view) + "?f=main")
    assert page.status_code == 200 and 'id="px-meta"' in page.text


def test_top_equals_the_python_api(client, plain):
    d = client.get("/ui/data/top?si=samples&f=work&sort=cum").json()
    want = plain.filter(focus="work").top(sample_type="samples", sort="cum")
    assert [r["name"] for r in d["rows"]] == list(want["name"])
    assert [r["flat"] for r in d["rows"]] == want["flat"].tolist()
    assert [r["cum"] for r in d["rows"]] == want["cum"].tolist()
    assert d["total"] == plain.filter(focus="work").total("samples")
    assert d["text"] == want.to_text()


def test_sort_by_name(client):
    rows = client.get("/ui/data/top?sort=name").json()["rows"]
    assert [r["name"] for r in rows] == sorted(r["name"] for r in rows)


def test_flamegraph_and_graph_follow_the_state(client, plain):
    fg = client.get("/ui/data/flamegraph?si=samples&h=work").json()["flame"]
    assert fg["total"][0] == plain.total("samples") and "work" not in fg["names"]
    g = client.get("/ui/data/graph?g=files").json()
    assert {n["name"] for n in g["graph"]["nodes"]} <= {
        "src/main.go",
        "src/hash.go",
        "src/compress.go",
        "src/io.go",
        "src/link.go",
        "../../etc/passwd",
    }


def test_labels_view_has_values_shares_and_histograms(client, plain):
    keys = {k["key"]: k for k in client.get("/ui/data/labels").json()["keys"]}
    assert {v["value"] for v in keys["endpoint"]["values"]} == {"/api/hash", "/api/zip", "/api/io"}
    hist = keys["bytes"]["histogram"]["buckets"]
    assert sum(b["total"] for b in hist) == sum(v["total"] for v in keys["bytes"]["values"])
    for b in hist:  # each bucket's filter keeps exactly its samples
        assert plain.filter(tagfocus=b["filter"], warn=False).total() == b["total"]


def test_tag_filter_from_a_value(client, plain):
    d = client.get("/ui/data/top", params={"tf": "endpoint=^/api/zip$"}).json()
    assert d["total"] == plain.filter(tagfocus="endpoint=^/api/zip$").total()


def test_peek_needs_a_regex_and_reports_no_match(client):
    assert "pick a function" in client.get("/ui/data/peek").json()["error"]
    assert "no matches" in client.get("/ui/data/peek?q=nothing-here").json()["error"]
    assert client.get("/ui/data/top?f=(").json()["error"]  # a bad regex is shown, not a crash


def test_compare_two_profiles_is_a_signed_diff(client, plain):
    d = client.get("/ui/data/top?p=0&cmp=1").json()
    want = plain.diff(plain.scale(0.5), mode="diff_base").top()
    assert [r["flat"] for r in d["rows"]] == want["flat"].tolist() and d["diff"]
    flame = client.get("/ui/data/flamegraph?cmp=1").json()["flame"]
    assert flame["diff"] and flame["base_total"][0] == flame["total"][0]  # normalized to the new total
    assert client.get("/ui/data/top?p=7").status_code == 400


def test_download_gives_the_refined_profile(client, plain):
    r = client.get("/ui/download?f=hash")
    assert pprofcore.loads(r.content).total() == plain.filter(focus="hash").total()


def test_saved_configurations(client):
    r = client.post("/ui/saveconfig?config=mine", content="f=work&si=samples")
    assert r.json()["configs"]["mine"] == "si=samples&f=work"
    assert "mine" in client.get("/ui/top").text  # listed in the page's meta
    assert "mine" not in client.post("/ui/deleteconfig?config=mine").json()["configs"]


# ------------------------------------------------------------------ go tool pprof
@pytest.mark.skipif(shutil.which("go") is None, reason="needs Go (go tool pprof) as the oracle")
@pytest.mark.parametrize(
    "flags",
    [
        [],
        ["-focus=flate", "-sample_index=samples"],
        ["-cum", "-lines", "-hide=runtime"],
        ["-nodefraction=0", "-noinlines", "-unit=ms", "-nodecount=12"],
        ["-relative_percentages", "-tagfocus=endpoint=/api/export", "-mean"],
        [f"-diff_base={FLEET / 'cpu-api-00-001.pb.gz'}", "-sample_index=samples"],
        [f"-base={FLEET / 'cpu-api-00-001.pb.gz'}", "-focus=flate"],
        ["-prune_from=deflate", "-tagroot=endpoint", "-show_from=workload"],
    ],
    ids=[
        "default",
        "focus-si",
        "cum-lines-hide",
        "trim-unit",
        "rel-tagfocus-mean",
        "diff_base",
        "base",
        "prune-tagroot",
    ],
)
def test_top_text_equals_go_tool_pprof(flags):
    path = FLEET / "cpu-api-00-000.pb.gz"
    if not path.exists():
        pytest.skip("corpus not available")
    args = build_parser().parse_args(_pprof_flags.translate(["-http=:0", *flags, str(path)], list(_COMMANDS)))
    session = session_of(args)
    client = TestClient(create_app(session, hosts=["testserver"]))
    text = client.get("/ui/data/top?" + session.initial.to_query()).json()["text"]
    go = subprocess.run(["go", "tool", "pprof", "-top", *flags, str(path)], capture_output=True, text=True, timeout=120)
    assert go.returncode == 0, go.stderr
    assert text.strip("\n") == go.stdout.strip("\n")


# ------------------------------------------------------------------ the guard
def test_foreign_host_is_refused(client):
    assert client.get("/ui/top", headers={"host": "evil.example:8080"}).status_code == 403
    assert client.get("/ui/data/top", headers={"host": "rebound.attacker.test"}).status_code == 403


def test_loopback_hosts_are_served(plain):
    app = create_app(Session([("p", plain)]))
    c = TestClient(app)
    for host in ("localhost:8080", "127.0.0.1:1", "[::1]:9"):
        assert c.get("/ui/top", headers={"host": host}).status_code == 200


def test_cross_origin_writes_are_refused(client):
    evil = {"origin": "http://evil.example"}
    assert client.post("/ui/saveconfig?config=x", content="f=a", headers=evil).status_code == 403
    assert client.post("/ui/deleteconfig?config=x", headers={"sec-fetch-site": "cross-site"}).status_code == 403
    ok = {"origin": "http://testserver"}
    assert client.post("/ui/saveconfig?config=x", content="f=a", headers=ok).status_code == 200


def test_security_headers(client):
    h = client.get("/ui/").headers
    assert (
        "script-src 'self'" in h["content-security-policy"]
        and "unsafe-inline" not in h["content-security-policy"].split("script-src")[1].split(";")[0]
    )
    assert h["x-content-type-options"] == "nosniff"


def test_source_refuses_files_outside_the_root(client):
    d = client.get("/ui/data/source?f=leak").json()
    assert d["routines"][0]["error"].startswith("refused") and not d["routines"][0]["lines"]
    d = client.get("/ui/data/source?f=linked").json()
    assert "symlink" in d["routines"][0]["error"] and not d["routines"][0]["lines"]
    ok = client.get("/ui/data/source?f=^main$").json()["routines"][0]
    assert ok["error"] == "" and ok["lines"] and ok["lines"][0]["text"].startswith("// main line")


def test_no_url_parameter_changes_the_source_path(client):
    for extra in ("source_path=/", "trim_path=/work", "sp=/etc"):
        d = client.get(f"/ui/data/source?f=leak&{extra}").json()
        assert d["routines"][0]["error"].startswith("refused")
        assert "root:" not in client.get(f"/ui/data/source?f=linked&{extra}").text


def test_unknown_paths(client):
    assert client.get("/ui/nope").status_code == 404
    assert client.get("/ui/data/nope").status_code == 404
    assert client.get("/ui/assets/../../_state.py").status_code == 404
    assert client.get("/?f=x", follow_redirects=False).headers["location"] == "/ui/?f=x"


# ------------------------------------------------------------------ hostile names
@pytest.mark.parametrize("view", ["graph", "top", "flamegraph", "peek", "source", "labels"])
def test_hostile_names_stay_data(hostile_client, view):
    r = hostile_client.get(f"/ui/data/{view}?q=main")
    assert r.status_code == 200
    assert "<" not in r.text  # every < is \u003c: no markup can start, even if the JSON were read as HTML
    d = r.json()
    if view == "top":
        assert set(ed.HOSTILE_NAMES) <= {row["name"] for row in d["rows"]}  # names arrive intact
    if view == "graph":  # names travel as JSON strings, drawn with textContent
        assert set(ed.HOSTILE_NAMES) & {n["name"] for n in d["graph"]["nodes"]}


def test_hostile_title_is_escaped(hostile_client):
    page = hostile_client.get("/ui/").text
    assert "</script><b>" not in page and "&lt;/script&gt;&lt;b&gt;" in page


# ------------------------------------------------------------------ command line
def test_pprof_spelling_translates_to_serve():
    argv = _pprof_flags.translate(
        ["-http=localhost:0", "-no_browser", "-focus=x", "a.pb", "--", "b.pb", "c.pb", "--", "d.pb"], list(_COMMANDS)
    )
    assert argv[:2] == ["serve", "--http=localhost:0"]
    assert "--no-browser" in argv and "--focus=x" in argv
    assert argv[-3:] == ["--source-group=1:b.pb", "--source-group=1:c.pb", "--source-group=2:d.pb"]


def test_command_line_sessions(tmp_path, plain):
    a, b = tmp_path / "a.pb.gz", tmp_path / "b.pb.gz"
    plain.save(a)
    plain.scale(2).save(b)
    args = build_parser().parse_args(_pprof_flags.translate(["-http=:0", str(a), "--", str(b)], list(_COMMANDS)))
    s = session_of(args)
    assert [n for n, _ in s.profiles] == ["a.pb.gz", "b.pb.gz"]
    args = build_parser().parse_args(_pprof_flags.translate(["-http=:0", str(a), str(b)], list(_COMMANDS)))
    assert len(session_of(args).profiles) == 1  # several files: merged, as pprof does
    args = build_parser().parse_args(_pprof_flags.translate(["-http=:0", str(tmp_path)], list(_COMMANDS)))
    assert len(session_of(args).profiles) == 2  # a directory: one profile per file
    args = build_parser().parse_args(
        _pprof_flags.translate(["-http=:0", f"-diff_base={a}", "-sample_index=samples", str(b)], list(_COMMANDS))
    )
    s = session_of(args)
    c = TestClient(create_app(s, hosts=["testserver"]))
    d = c.get("/ui/data/top?" + s.initial.to_query()).json()
    assert d["diff"] and d["sample_type"] == "samples" and d["total"] == plain.total("samples")


def test_pprofcore_http_serves_and_prints_the_url(tmp_path, plain):
    path = tmp_path / "p.pb.gz"
    plain.save(path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pprofcore", "-http=127.0.0.1:0", "-no_browser", "-focus=work", str(path)],
        stderr=subprocess.PIPE,
        text=True,
        env=pprofcore_env(),
    )
    try:
        line = ""
        deadline = time.monotonic() + 60
        while "Serving web UI on" not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
        url = re.search(r"http://\S+", line).group(0)
        assert url.startswith("http://localhost:") and url.endswith("/ui/?f=work")
        data_url = url.replace("/ui/?", "/ui/data/top?")
        with urllib.request.urlopen(data_url, timeout=30) as r:
            assert b'"focus":"work"' in r.read()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.parametrize(
    "address, want",
    [
        (":8080", ("127.0.0.1", 8080)),
        (":", ("127.0.0.1", 0)),
        ("localhost:0", ("localhost", 0)),
        ("[::1]:9", ("::1", 9)),
    ],
)
def test_http_address(address, want):
    from pprofcore.web._serve import parse_address

    assert parse_address(address) == want


@pytest.mark.parametrize("address", ["8080", ":http", ":70000"])
def test_bad_http_address(address):
    from pprofcore.web._serve import parse_address

    with pytest.raises(ValueError):
        parse_address(address)


def test_warm_computes_what_the_first_page_asks_for(plain):
    from pprofcore.web._app import warm

    state = State(focus="work")
    warmed, cold = Session([("plain", plain)], initial=state), Session([("plain", plain)], initial=state)
    warm(warmed)
    computed = (len(warmed.views.items), len(warmed.texts.items))
    assert computed == (2, 1)  # the page's facts and the graph's data, and its JSON text
    query = "/ui/data/graph?" + state.to_query()
    for path in ("/ui/", query):  # a warmed session answers what a cold one computes
        got = TestClient(create_app(warmed, hosts=["testserver"])).get(path).text
        assert got == TestClient(create_app(cold, hosts=["testserver"])).get(path).text
    assert (len(warmed.views.items), len(warmed.texts.items)) == computed  # the requests computed nothing again


def test_the_url_is_announced_once_requests_are_answered(plain):
    import threading

    from pprofcore.web._serve import listening_socket, uvicorn_server

    sock = listening_socket("127.0.0.1", 0)
    started_when_announced: list = []
    server = uvicorn_server(
        create_app(Session([("plain", plain)])), lambda: started_when_announced.append(server.started)
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not started_when_announced and time.monotonic() < deadline:
            time.sleep(0.01)
        assert started_when_announced == [True]
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/ui/"
        with urllib.request.urlopen(url, timeout=30) as r:
            assert r.status == 200
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def test_concurrent_requests_for_one_state_compute_it_once():
    import threading

    from pprofcore.web._session import _Cache

    cache, calls, gate = _Cache(4), [], threading.Event()

    def compute():
        calls.append(1)
        gate.wait(5)
        return 42

    out = []
    threads = [threading.Thread(target=lambda: out.append(cache.get("k", compute))) for _ in range(8)]
    for t in threads:
        t.start()
    time.sleep(0.2)
    gate.set()
    for t in threads:
        t.join()
    assert out == [42] * 8 and len(calls) == 1


def test_source_found_only_above_the_root_is_refused(tmp_path, plain):
    # pprof walks up from the source path; the explorer does not serve what it finds there
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.go").write_text("// above the root\n" * 20)
    root = tmp_path / "deeper" / "root"
    root.mkdir(parents=True)
    c = TestClient(create_app(Session([("p", plain)], source_path=str(root)), hosts=["testserver"]))
    r = c.get("/ui/data/source?f=^main$")
    assert r.json()["routines"][0]["error"].startswith("refused") and "above the root" not in r.text


def test_http_sources_are_fetched(tmp_path, plain, monkeypatch):
    import http.server
    import threading

    body = plain.to_bytes()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    monkeypatch.setenv("PPROF_TMPDIR", str(tmp_path))
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}/debug/pprof/heap"
        args = build_parser().parse_args(_pprof_flags.translate(["-http=:0", url], list(_COMMANDS)))
        s = session_of(args)
        assert s.profiles[0][1].total() == plain.total()
        assert list(tmp_path.glob("pprof.*.pb.gz"))  # kept, as pprof keeps what it fetched
    finally:
        srv.shutdown()


def test_background_work_runs_once_per_key_on_a_daemon_thread(plain):
    session = Session([("p", plain)])
    release, runs, daemons = threading.Event(), [], []

    def work():
        runs.append(1)
        daemons.append(threading.current_thread().daemon)  # a server's Ctrl-C does not wait for it
        release.wait(30)

    session.in_background("build", work)
    session.in_background("build", work)  # while the first runs
    assert not session.wait_background(0.01)
    release.set()
    assert session.wait_background(30)
    session.in_background("build", work)  # after it ended
    assert session.wait_background(30) and runs == [1] and daemons == [True]


def test_held_background_work_starts_when_released(plain):
    session = Session([("p", plain)])
    runs: list = []
    session.hold_background()
    session.in_background("build", lambda: runs.append("build"))
    session.in_background("build", lambda: runs.append("again"))  # once per key, held or not
    session.in_background("other", lambda: runs.append("other"))
    time.sleep(0.05)
    assert runs == [] and session.background_started("build")
    assert not session.wait_background(0.01)  # held work has not ended
    session.release_background()
    assert session.wait_background(30) and sorted(runs) == ["build", "other"]
    session.in_background("later", lambda: runs.append("later"))  # released: runs at once
    assert session.wait_background(30) and runs[-1] == "later"


def test_loading_thread_loads_warms_and_holds_the_background(plain):
    from pprofcore.web._serve import _Loading

    loading = _Loading(lambda: Session([("plain", plain)]))
    session = loading.session()
    loading.thread.join(60)  # the warm-up follows the load on the same thread
    assert len(session.texts.items) == 1  # the first page's graph, as warm computes it
    assert not session.wait_background(0.01)  # the graph's other sample types wait for the server
    session.release_background()
    assert session.wait_background(60)


def serving(monkeypatch, session, release_after_s):
    """``serve_loading(session)`` on a thread (as ``pprofcore -http`` runs it,
    the held background work's timer set to ``release_after_s``): returns
    (server, base URL) once it answers."""
    from pprofcore.web import _serve

    made: list = []
    server_for = _serve.uvicorn_server

    def server_of(app, announce=None):
        made.append(server_for(app, announce))
        return made[-1]

    sockets: list = []
    listen = _serve.listening_socket

    def socket_of(host, port):
        sockets.append(listen(host, port))
        return sockets[-1]

    monkeypatch.setattr(_serve, "RELEASE_BACKGROUND_AFTER_S", release_after_s)
    monkeypatch.setattr(_serve, "uvicorn_server", server_of)
    monkeypatch.setattr(_serve, "listening_socket", socket_of)
    quiet = open(os.devnull, "w")  # noqa: SIM115 - the server thread prints to it for the test's life
    kwargs = {"open_browser": False, "out": quiet}
    threading.Thread(
        target=_serve.serve_loading, args=(lambda: session, "127.0.0.1:0"), kwargs=kwargs, daemon=True
    ).start()
    deadline = time.monotonic() + 60
    while not (made and made[0].started) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert made and made[0].started
    return made[0], f"http://127.0.0.1:{sockets[0].getsockname()[1]}"


def test_held_background_work_starts_once_the_first_data_is_sent(monkeypatch, plain):
    """``pprofcore -http``: the work held while the server started (the Graph
    of the other sample types) waits for the first view's data to be sent,
    not only for the server to answer."""
    session = Session([("plain", plain)])
    server, base = serving(monkeypatch, session, release_after_s=60)
    ran: list = []
    try:
        session.in_background("probe", lambda: ran.append("probe"))  # held with the rest
        with urllib.request.urlopen(base + "/ui/", timeout=30) as r:
            assert r.status == 200
        time.sleep(0.2)
        assert ran == []  # the page alone: still held
        with urllib.request.urlopen(base + "/ui/data/graph", timeout=30) as r:
            assert r.status == 200
        assert wait_for(lambda: ran == ["probe"]) and session.wait_background(60)
    finally:
        server.should_exit = True


def test_held_background_work_starts_after_a_while_without_data(monkeypatch, plain):
    session = Session([("plain", plain)])
    server, _ = serving(monkeypatch, session, release_after_s=0.3)
    ran: list = []
    try:
        session.in_background("probe", lambda: ran.append("probe"))
        assert wait_for(lambda: ran == ["probe"]) and session.wait_background(60)
    finally:
        server.should_exit = True


def wait_for(condition, timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_load_error_reaches_the_caller_of_serve_loading():
    from pprofcore.web._serve import serve_loading

    def load():
        raise ValueError("no such profile")

    with pytest.raises(ValueError, match="no such profile"):
        serve_loading(load, "127.0.0.1:0", open_browser=False)


def test_pprofcore_http_reports_a_bad_file_as_pprof_does(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "pprofcore", "-http=127.0.0.1:0", "-no_browser", str(tmp_path / "missing.pb.gz")],
        capture_output=True,
        text=True,
        env=pprofcore_env(),
        timeout=60,
    )
    assert r.returncode == 2 and r.stderr.startswith("pprofcore serve: error:") and "missing.pb.gz" in r.stderr


def test_the_gc_runs_again_once_the_server_answers():
    import gc

    from pprofcore.cli.serve import started

    gc.disable()  # as pprofcore.cli.main does for serve
    try:
        started()
        assert gc.isenabled() and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.enable()


def test_main_leaves_the_gc_as_it_found_it_when_serve_fails(tmp_path, capsys):
    import gc

    from pprofcore.cli import main

    assert gc.isenabled()
    assert main(["-http=127.0.0.1:0", "-no_browser", str(tmp_path / "missing.pb.gz")]) == 2
    assert gc.isenabled()  # serve turned it off to start, and failed before the server answered
    assert "pprofcore serve: error:" in capsys.readouterr().err


def test_the_exit_waits_for_a_background_thread_that_has_not_begun_running(monkeypatch):
    # start() called, the thread not running yet: join() raises until it runs
    # (a -http server stopped right after it released its held work).
    from pprofcore.web import _session

    class Starting:
        name = _session.BACKGROUND_THREAD

        def __init__(self):
            self.tries = 0

        def join(self):
            self.tries += 1
            if self.tries < 3:
                raise RuntimeError("cannot join thread before it is started")

    thread = Starting()
    monkeypatch.setattr(_session.threading, "enumerate", lambda: [thread])
    _session.wait_background_at_exit()
    assert thread.tries == 3
