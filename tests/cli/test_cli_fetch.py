"""URL sources on the command line, as go tool pprof takes them: a local
/debug/pprof server answers, the report equals the file's, the profile is
saved under pprof's name in $PPROF_TMPDIR, and errors name the URL."""

import http.server
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import pprofcore
from pprofcore import _fetch

CPU = Path(pprofcore.example_path("cpu"))
HEAP = Path(pprofcore.example_path("heap"))
HAVE_GO = shutil.which("go") is not None


class _Handler(http.server.BaseHTTPRequestHandler):
    routes = {"/debug/pprof/profile": CPU, "/debug/pprof/heap": HEAP}
    seen: list = []

    def do_GET(self):  # noqa: N802 - the standard library's name
        type(self).seen.append(self.path)
        path = self.path.split("?")[0]
        if path == "/debug/pprof/hang":
            time.sleep(30)
            return
        if path == "/debug/pprof/bad":
            body = b"profile: unknown profile bad"
            self.send_response(404)
            self.send_header("X-Go-Pprof", "1")
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if path not in self.routes:
            self.send_error(404)
            return
        body = self.routes[path].read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.daemon_threads = True
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


def cli(args, tmpdir, timeout=60):
    env = dict(os.environ, PPROF_TMPDIR=str(tmpdir), HOME=str(tmpdir))
    return subprocess.run(
        [sys.executable, "-m", "pprofcore", *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def test_source_url_rules(tmp_path):
    assert _fetch.source_url("host:6060") == "http://host:6060/debug/pprof/profile"
    assert _fetch.source_url("host:6060/debug/pprof/heap") == "http://host:6060/debug/pprof/heap"
    assert _fetch.source_url("http://h:1/debug/pprof/profile", 5) == "http://h:1/debug/pprof/profile?seconds=5"
    assert _fetch.source_url("http://h:1/p?seconds=30&x=1", 7) == "http://h:1/p?x=1&seconds=7"
    assert _fetch.source_url("cpu.pb.gz") is None
    local = tmp_path / "host:6060"
    local.write_bytes(b"")
    assert _fetch.source_url(str(local)) is None  # a file of that name wins
    assert _fetch.go_duration(90) == "1m30s" and _fetch.go_duration(30) == "30s"


def test_top_of_a_url_equals_the_file_and_is_saved(server, tmp_path):
    r = cli(["-top", "-seconds=3", server], tmp_path)
    assert r.returncode == 0, r.stderr
    local = cli(["-top", str(CPU)], tmp_path)
    # the header's File line is the profile's, so the whole report is the same
    assert r.stdout == local.stdout
    assert f"Fetching profile over HTTP from http://{server}/debug/pprof/profile?seconds=3" in r.stderr
    assert "Please wait... (3s)" in r.stderr
    assert any(p.endswith("?seconds=3") for p in _Handler.seen)
    saved = sorted(tmp_path.glob("pprof.*.pb.gz"))
    assert [p.name for p in saved] == ["pprof.basic.samples.cpu.001.pb.gz"]
    assert f"Saved profile in {saved[0]}" in r.stderr
    assert pprofcore.load(saved[0]) == pprofcore.load(CPU)


def test_base_url_and_second_save(server, tmp_path):
    heap = f"http://{server}/debug/pprof/heap"
    r = cli(["-top", f"-base={heap}", heap], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Showing nodes accounting for 0, 0% of 0 total" in r.stdout
    r = cli(["-traces", heap], tmp_path)
    assert r.returncode == 0
    names = sorted(p.name for p in tmp_path.glob("pprof.*.pb.gz"))
    assert len(names) == 2 and names[1].endswith(".002.pb.gz")


def test_server_errors_name_the_url(server, tmp_path):
    r = cli(["-top", f"http://{server}/debug/pprof/bad"], tmp_path)
    assert r.returncode == 2
    assert f"http://{server}/debug/pprof/bad: server response: 404 Not Found - profile: unknown profile bad" in r.stderr
    r = cli(["-top", "-timeout=0.5", f"http://{server}/debug/pprof/hang"], tmp_path)
    assert r.returncode == 2 and "timed out" in r.stderr
    r = cli(["-top", "127.0.0.1:1/debug/pprof/heap"], tmp_path)
    assert r.returncode == 2 and "http fetch" in r.stderr
    assert not list(tmp_path.glob("pprof.*"))


@pytest.mark.skipif(not HAVE_GO, reason="needs go tool pprof")
def test_same_report_and_saved_name_as_go_pprof(server, tmp_path):
    (tmp_path / "go").mkdir()
    (tmp_path / "us").mkdir()
    url = f"http://{server}/debug/pprof/heap"
    env = dict(os.environ, PPROF_TMPDIR=str(tmp_path / "go"), HOME=str(tmp_path / "go"))
    go = subprocess.run(["go", "tool", "pprof", "-top", url], capture_output=True, text=True, env=env, timeout=120)
    us = cli(["-top", url], tmp_path / "us")
    assert us.stdout == go.stdout
    assert [p.name for p in (tmp_path / "us").glob("*.pb.gz")] == [p.name for p in (tmp_path / "go").glob("*.pb.gz")]
    assert go.stderr.splitlines()[0] == us.stderr.splitlines()[0]  # Fetching profile over HTTP from ...


def test_the_shell_fetches_once(server, tmp_path):
    env = dict(os.environ, PPROF_TMPDIR=str(tmp_path), HOME=str(tmp_path))
    before = len(_Handler.seen)
    r = subprocess.run(
        [sys.executable, "-m", "pprofcore", f"http://{server}/debug/pprof/heap"],
        input="top3\ntraces\nquit\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert len(_Handler.seen) == before + 1
    assert "Showing top 3 nodes" in r.stdout and r.stdout.count("(pprof) ") == 3
