"""``pprofcore.fleet.collect`` and ``pprofcore fleet collect``: profiles
fetched from running programs into a store.

- real Go programs (``net/http/pprof``) on 127.0.0.1: one killed and started
  again on its port, one socket that never answers; what the store gives back
  equals what the program serves (fetched directly, the oracle);
- a bounded number of fetches at once, retries of what may pass (503) and
  none of what cannot (404);
- the push endpoint: pprof (gzip or not) and OTLP in, garbage refused with
  400 and the decoder's message;
- SIGTERM commits every profile fetched; SIGKILL at each step of the commit
  path, then a restart: every committed profile is there, whole, none is
  half-written, and the restart cleans what the kill left."""

from __future__ import annotations

import gzip
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import pytest

import pprofcore
from pprofcore.fleet import _collect
from pprofcore.testing import canonical

pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

try:
    from google.protobuf import json_format
    from opentelemetry.proto.collector.profiles.v1development import profiles_service_pb2 as svc
except ImportError:  # optional: the OTLP pushes then come from pprofcore's own writer only
    svc = None

import pprof_targets as targets  # noqa: E402
from testenv import pprofcore_env  # noqa: E402


def _wait_for(cond, timeout: float, what: str, collector=None) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            seen = f": {collector.stats}, {collector.errors}" if collector is not None else ""
            raise AssertionError(f"waited {timeout}s for {what}{seen}")
        time.sleep(0.02)


def _rows(store_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("error", pprofcore.fleet.IncompleteStoreWarning)  # nothing left half-written
        store = pprofcore.open_store(store_dir)
    table = store.sql("select * from profiles order by profile_id")
    return store, table


# ------------------------------------------------------------------ arguments
def test_targets_labels_and_refusals():
    t = _collect.target("127.0.0.1:6060", 5, {"service": "api"}, None)
    assert t.url == "http://127.0.0.1:6060/debug/pprof/profile?seconds=5"
    assert t.labels == {
        "url": "http://127.0.0.1:6060/debug/pprof/profile",
        "host": "127.0.0.1:6060",
        "profile_type": "cpu",
        "service": "api",
    }
    assert t.timeout == 15
    heap = _collect.target("http://h:1/debug/pprof/heap", 5, {}, None)  # seconds is the CPU profile's only
    assert heap.url == "http://h:1/debug/pprof/heap" and heap.labels["profile_type"] == "heap" and heap.timeout == 10
    own = _collect.target("http://h:1/debug/pprof/allocs?seconds=30", 5, {}, 2.0)
    assert own.url.endswith("allocs?seconds=30") and own.timeout == 2.0
    assert _collect.target("h:1", None, {}, None).timeout == 40  # Go's 30 s CPU profile
    C = pprofcore.fleet.Collector
    for kwargs, message in [
        (dict(targets=["profile.pb.gz"]), "not a target URL"),
        (dict(targets=["h:1", "http://h:1/debug/pprof/profile"]), "given twice"),
        (dict(targets=[]), "nothing to collect"),
        (dict(targets=["h:1"], labels=["service"]), "not KEY=VALUE"),
        (dict(targets=["h:1"], labels={"bad-name": "x"}), "letters, digits"),
        (dict(targets=["h:1"], labels={"time": "x"}), "column the store fills"),
        (dict(targets=["h:1"], labels={"host": "x"}), "column the store fills"),
        (dict(targets=["h:1"], seconds=0.5), "whole seconds"),
        (dict(targets=["h:1"], every="soon"), "not a duration"),
        (dict(targets=["h:1"], concurrency=0), "at least 1"),
        (dict(targets=["h:1"], retries=-1), "0 or more"),
    ]:
        with pytest.raises(ValueError, match=message):
            C("unused", **kwargs)


def test_label_names_cannot_take_a_store_column():
    from pprofcore.fleet import _sink, _store

    p = pprofcore.load(pprofcore.example_path())
    written = set(_store.header_row(p, "x", {})) | {f.name for f in _store._empty_table("profiles").schema}
    assert written == set(_sink.STORE_COLUMNS)


def test_command_line_refusals_are_one_line(tmp_path, capsys):
    from pprofcore.cli import main

    assert main(["fleet", "collect", str(tmp_path / "s"), "not-a-url"]) == 2
    assert main(["fleet", "collect", str(tmp_path / "s"), "h:1", "--every", "soon"]) == 2
    assert main(["fleet", "collect", str(tmp_path / "s"), "h:1", "--label", "time=1"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and "'not-a-url' is not a target URL" in err[0]
    assert "not a duration" in err[1] and "column the store fills" in err[2]
    assert not (tmp_path / "s").exists()  # nothing made before the arguments are right


def test_backoff_doubles_up_to_its_cap_with_jitter():
    rng = random.Random(1)
    for attempt in range(1, 12):
        for _ in range(50):
            d = _collect.backoff(attempt, 0.1, 2.0, rng)
            top = min(2.0, 0.1 * 2 ** (attempt - 1))
            assert top / 2 <= d < top
    assert len({_collect.backoff(1, 1.0, 10.0, rng) for _ in range(20)}) == 20  # jittered


# ------------------------------------------------------------------ Go targets
@pytest.mark.skipif(targets.go_missing() is not None, reason=str(targets.go_missing()))
def test_go_targets_killed_restarted_and_one_that_never_answers(tmp_path):
    a, b, silent = targets.GoTarget(), targets.GoTarget(), targets.SilentServer()
    store_dir = tmp_path / "store"
    urls = [a.url("fixed"), b.url("fixed"), a.url("heap"), f"http://{silent.addr}/debug/pprof/fixed"]
    c = pprofcore.fleet.collect(
        store_dir,
        urls,
        every="0.2s",
        commit_every=0.1,
        retries=2,
        timeout=1.0,
        stop_wait=0.3,
        labels={"service": "api"},
        block=False,
    )
    try:
        _wait_for(lambda: c.stats["committed"] >= 6, 20, "six profiles committed")
        b.kill()
        _wait_for(lambda: "refused" in c.errors.get(b.url("fixed"), ""), 10, "the dead target's error")
        t_restart = time.time_ns()
        b = b.restart()
        _wait_for(lambda: b.url("fixed") not in c.errors, 10, "a fetch from the restarted target")
        done = c.stats["committed"]
        _wait_for(lambda: c.stats["committed"] > done + 2, 10, "more commits")
        # the silent one: never answered (its first timeout may come after the
        # others' commits on a fast machine), never blocked the rest
        _wait_for(lambda: "timed out" in c.errors.get(urls[3], ""), 10, "the silent target's timeout")
    finally:
        stopper = threading.Thread(target=c.stop)
        stopper.start()
        stopper.join(30)  # a fetch still hanging on the silent socket is abandoned
        assert not stopper.is_alive(), "stop() hung on a target that never answers"
        direct = {u: pprofcore.loads(urllib.request.urlopen(u, timeout=10).read()) for u in urls[:2]}
        a.kill()
        b.kill()
        silent.close()
    assert c.stopped and c.stats["committed"] == c.stats["fetched"]
    store, table = _rows(store_dir)
    assert len(table) == c.stats["committed"] and table["profile_id"].is_unique
    assert set(table["url"]) == {u.split("?")[0] for u in urls[:3]}  # nothing from the silent target
    assert set(table["service"]) == {"api"} and set(table["host"]) == {a.addr, b.addr}
    assert set(table["profile_type"]) == {"fixed", "heap"}
    from_b = table[table["url"] == urls[1]]
    assert (from_b["time_nanos"] < t_restart).any() and (from_b["time_nanos"] > t_restart).any()
    for url, kind, p in zip(table["url"], table["profile_type"], store.profile_set()):
        if kind == "fixed":  # what the store gives back is what the program serves
            assert canonical(p) == canonical(direct[url]), f"a profile from {url}"
        else:
            assert [t for t, _ in p.sample_types] == ["alloc_objects", "alloc_space", "inuse_objects", "inuse_space"]


# -------------------------------------------------------- concurrency, retries
def test_bounded_concurrency_retries_and_refusals(tmp_path):
    body = targets.example_bytes()
    want = canonical(pprofcore.loads(body))
    srv = targets.FixedServer(body, delay=0.15)
    flaky, gone = "/debug/pprof/flaky", "/debug/pprof/gone"
    srv.fail = {gone: (404, 10**6)}
    urls = [srv.url(f"/debug/pprof/p{k}") for k in range(5)] + [srv.url(gone)]
    c = pprofcore.fleet.collect(
        tmp_path / "store", urls, every="0.5s", concurrency=2, retries=3, commit_every=0.1, block=False
    )
    try:
        _wait_for(lambda: srv.requests[gone] >= 3, 20, "three rounds of the gone target", c)
    finally:
        c.stop()
    assert srv.most == 2  # never more fetches at once than asked for
    # a 404 is not tried again within its round (each retry would count here)
    assert c.stats["retried"] == 0 and c.stats["failed"] >= 2 and "404" in c.errors[urls[-1]]
    store, table = _rows(tmp_path / "store")
    assert urls[-1] not in set(table["url"])
    assert len(table) == c.stats["committed"] > 0
    assert all(canonical(p) == want for p in store.profile_set())
    # two 503s, then the profile: tried again twice within the round (5 s; backoff 0.25-0.5 s, then 0.5-1 s)
    srv.fail = {flaky: (503, 2)}
    c = pprofcore.fleet.collect(tmp_path / "store2", [srv.url(flaky)], every="5s", commit_every=0, block=False)
    try:
        _wait_for(lambda: c.stats["committed"] == 1, 20, "the flaky target's profile", c)
    finally:
        c.stop()
        srv.close()
    assert srv.requests[flaky] == 3 and c.stats["retried"] == 2 and c.stats["failed"] == 0 and not c.errors


# ------------------------------------------------------------------- push
def _post(url: str, data: bytes, ctype: str = "application/octet-stream"):
    req = urllib.request.Request(url, data=data, headers={"Content-Type": ctype}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _status_message(data: bytes):
    """(code, message) of a google.rpc.Status, decoded by hand (fields 1 and 2)."""
    assert data[0] == 0x08
    code, pos = data[1], 2
    assert data[pos] == 0x12
    n, pos = data[pos + 1], pos + 2
    if n & 0x80:
        n, pos = (n & 0x7F) | (data[pos] << 7), pos + 1
    return code, data[pos : pos + n].decode()


def test_push_endpoint_takes_pprof_and_otlp_and_refuses_garbage(tmp_path):
    cpu = pprofcore.load(pprofcore.example_path("cpu"))
    heap = pprofcore.load(pprofcore.example_path("heap"))
    c = pprofcore.fleet.collect(
        tmp_path / "store", listen="127.0.0.1:0", commit_every=30, labels={"cluster": "eu"}, block=False
    )
    base = f"http://127.0.0.1:{c.address[1]}"
    try:
        raw = cpu.to_bytes(compress=False)
        assert _post(base + "/pprof?service=api", raw) == (200, b"stored 1 profile(s)\n")
        status, _ = _post(base + "/pprof?service=db&profile_type=heap", heap.to_bytes())
        assert status == 200
        otlp = cpu.to_otlp(resource={"service.name": "checkout", "process.pid": 42}, compress=True)
        assert _post(base + "/v1development/profiles", otlp, "application/x-protobuf") == (200, b"")
        sent = 3
        if svc is not None:  # the service's own request message, built by opentelemetry-proto, and its JSON
            request = svc.ExportProfilesServiceRequest.FromString(gzip.decompress(otlp))
            status, data = _post(
                base + "/v1development/profiles", request.SerializeToString(), "application/x-protobuf"
            )
            assert status == 200 and svc.ExportProfilesServiceResponse.FromString(data).ByteSize() == 0
            as_json = json_format.MessageToJson(request).encode()
            assert _post(base + "/v1development/profiles", as_json, "application/json") == (200, b"{}")
            sent = 5
        status, text = _post(base + "/pprof", b"<html>not a profile</html>")
        assert status == 400 and b"not a profile: input looks like text" in text
        assert _post(base + "/pprof", b"")[0] == 400
        status, text = _post(base + "/pprof?bad-name=1", raw)
        assert status == 400 and b"label name 'bad-name'" in text
        status, text = _post(base + "/pprof?time=1", raw)
        assert status == 400 and b"column the store fills" in text
        status, data = _post(base + "/v1development/profiles", b"\x0a\x05garbage", "application/x-protobuf")
        code, message = _status_message(data)
        assert status == 400 and code == 3 and message.startswith("not a profile: ")
        status, data = _post(base + "/v1development/profiles", b"{nope", "application/json")
        assert status == 400 and b'"code": 3' in data
        assert _post(base + "/elsewhere", raw)[0] == 404
        with pytest.raises(urllib.error.HTTPError, match="405"):
            urllib.request.urlopen(base + "/pprof", timeout=10)
    finally:
        c.stop()
    assert c.stats["pushed"] == sent and c.stats["refused"] == 6
    store, table = _rows(tmp_path / "store")
    ps = list(store.profile_set())
    assert list(table["url"]) == ["/pprof", "/pprof"] + ["/v1development/profiles"] * (sent - 2)
    assert list(table["service"])[:2] == ["api", "db"] and list(table["profile_type"])[1] == "heap"
    assert set(table["cluster"]) == {"eu"} and set(table["host"]) == {"127.0.0.1"}
    assert table["service_name"].iloc[2] == "checkout" and table["process_pid"].iloc[2] == "42"
    assert canonical(ps[0]) == canonical(cpu) and canonical(ps[1]) == canonical(heap)
    # the OTLP profile: what load_otlp reads from the same message (resource attributes on the samples)
    (want,) = pprofcore.load_otlp(otlp, resource_labels=True)
    assert all(canonical(p) == canonical(want.profile) for p in ps[2:])


def test_push_bodies_chunked_missing_and_too_large(tmp_path):
    """What a hand-written client may send: a chunked body is read, no length
    is 411, a length over the limit 413 before any byte is read."""
    import http.client

    from pprofcore.fleet import _receive

    raw = pprofcore.load(pprofcore.example_path()).to_bytes()
    c = pprofcore.fleet.collect(tmp_path / "store", listen="127.0.0.1:0", block=False)
    port = c.address[1]

    def ask(headers, body_parts=()):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.putrequest("POST", "/pprof")
        for k, v in headers.items():
            conn.putheader(k, v)
        conn.endheaders()
        for part in body_parts:
            conn.send(part)
        r = conn.getresponse()
        out = r.status, r.read()
        conn.close()
        return out

    try:
        half = len(raw) // 2
        chunks = [b"%x\r\n%s\r\n" % (len(x), x) for x in (raw[:half], raw[half:])] + [b"0\r\n\r\n"]
        assert ask({"Transfer-Encoding": "chunked"}, chunks) == (200, b"stored 1 profile(s)\n")
        assert ask({})[0] == 411
        status, text = ask({"Content-Length": str(_receive.MAX_BODY + 1)})
        assert status == 413 and b"over the limit" in text
    finally:
        c.stop()
    assert c.stats["pushed"] == 1
    store, table = _rows(tmp_path / "store")
    assert canonical(next(iter(store.profile_set()))) == canonical(pprofcore.loads(raw))


# --------------------------------------------------------------- stop and kill
def _cli(*args) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "pprofcore", "fleet", "collect", *map(str, args)],
        env=pprofcore_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


KILLABLE_COLLECT = """
import sys
from kill_at_step import kill_at
kill_at(int(sys.argv[1]))
from pprofcore.cli import main
sys.exit(main(["fleet", "collect", *sys.argv[2:]]))
"""


def test_killed_mid_write_then_restarted_then_sigterm(tmp_path):
    """SIGKILL at a write, flush or rename of the commit path (a different
    step each run): the store holds every profile a run reported committed,
    each whole. Then a run stopped by SIGTERM while profiles wait for their
    commit and a fetch hangs: it commits them all, and leaves nothing of
    the killed runs behind."""
    body = targets.example_bytes()
    srv, silent = targets.FixedServer(body), targets.SilentServer()
    store_dir = tmp_path / "store"
    url = srv.url("/debug/pprof/heap")
    want = canonical(pprofcore.loads(body))
    reported, kills = 0, 0
    try:
        # step 3: inside the first part's write; the others: later parts, their renames, the commit file
        for when in [3, *random.Random(33).sample(range(8, 50), 2)]:
            args = [store_dir, url, "--every", "0.1s", "--commit-every", "0s", "--duration", "5s"]
            k = subprocess.Popen(
                [sys.executable, "-c", textwrap.dedent(KILLABLE_COLLECT), str(when), *map(str, args)],
                env=pprofcore_env(helpers=True),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            _, err = k.communicate(timeout=60)
            kills += k.returncode == -signal.SIGKILL
            assert k.returncode in (0, -signal.SIGKILL), err
            committed = [line for line in err.splitlines() if line.startswith("collect: committed ")]
            reported += sum(int(line.split()[2]) for line in committed)
            if not (store_dir / "_commits").is_dir():
                assert reported == 0
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", pprofcore.fleet.IncompleteStoreWarning)  # what the kill left
                store = pprofcore.open_store(store_dir)
            n = len(store.sql("select profile_id from profiles"))
            assert n >= reported  # every reported commit is there
            assert all(canonical(p) == want for p in store.profile_set()), f"a partial profile, kill at step {when}"
            store.close()
            reported = n
        assert kills >= 2
        # commits far apart: at SIGTERM the fetched profiles wait uncommitted, and a fetch hangs
        k = _cli(store_dir, url, f"{silent.addr}/debug/pprof/heap", "--every", "0.1s", "--stop-wait", "0.2s")
        before = srv.requests["/debug/pprof/heap"]
        _wait_for(lambda: srv.requests["/debug/pprof/heap"] >= before + 3, 30, "three fetches")
        k.send_signal(signal.SIGTERM)
        _, err = k.communicate(timeout=60)
    finally:
        srv.close()
        silent.close()
    assert k.returncode == 0, err
    assert "interrupted, stopping" in err and "abandoning 1 fetch(es)" in err
    last = err.strip().splitlines()[-1]  # "collect: stopped; N profile(s) committed in all"
    n = int(last.split("; ")[1].split()[0])
    assert n >= 3
    store, table = _rows(store_dir)  # no IncompleteStoreWarning: nothing half-written remains
    assert len(table) == reported + n and table["profile_id"].is_unique
    assert all(canonical(p) == want for p in store.profile_set())
    assert not [p for p in Path(store_dir).rglob("*") if ".tmp-" in p.name]
