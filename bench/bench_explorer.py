"""Benchmark of the explorer (issue 29): server-side times of the first page and
of each kind of state change on a big profile, and how soon `pprofcore -http`
is ready against `go tool pprof -http` on the same file.

    python bench/bench_explorer.py [--file FILE] [--rounds N] [--views flamegraph,top,graph]
                                   [--browser] [--http-file FILE] [--http-rounds N] [--no-http] [--json OUT]

Server side: the app's requests through Starlette's TestClient (routing, the
view computed in C++ and Python, the JSON response), each round on a freshly
loaded profile and a new session, so nothing is cached from an earlier round.
"First page" is `/ui/` and the first view's data after the profile is loaded;
then the explorer's work off the request path ends ("background after the
first page": the flame graph's kept trees; a person clicks later than that);
each state change (sample type, focus, ignore, hide, show, granularity,
search, label filter) is one request for a state not asked for before.
Medians over rounds, of the wall time and of the CPU time the request took
(every thread of the process, and Graphviz's run): on a loaded machine the
CPU time is the steadier measure of the work.

Drawn in the browser (``--browser``): `pprofcore -http` serving the file,
Debian's headless chromium (selenium) opens each view and then asks for each
state change in the page (``Explorer.go``, as a click does); the page records
how long the data took to come (``data-fetch-ms``: the request, the server's
work and the JSON parse) and to be drawn (``data-draw-ms``: the DOM built and
laid out), read from its root element. Each (view, state) once, not cached.

Ready time: the package's bytecode is written first, as installing it does
(with PYTHONDONTWRITEBYTECODE set every run would compile the checkout's
modules again); each tool is started with `-no_browser -http=127.0.0.1:PORT FILE`
and `/ui/` is polled until it answers 200 (pprof's `/ui/` is its graph page,
drawn by Graphviz on the server; pprofcore's `/ui/` is the page and the graph
comes from `/ui/data/graph`, so "graph shown" adds that request). Rounds
interleave the two tools; ratios are per round. Never run from the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path
from urllib.parse import urlencode

from _common import DEFAULT_CORPUS, child_env, compile_package, loadavg

import pprofcore  # noqa: E402  (path set up by _common)

DEFAULT = DEFAULT_CORPUS / "go/generated/gen-bigheap-500k.pb.gz"
HTTP_DEFAULT = DEFAULT_CORPUS / "go/pprof__internal_proftest_testdata_large.cpu"


def _client(profile, name: str):
    from pprofcore.web import Session, create_app

    with warnings.catch_warnings():  # Starlette >= 0.47 would rather have httpx2
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    session = Session([(name, profile)])
    client = TestClient(create_app(session, hosts=["testserver"]))
    client.session = session  # for its background work (a peer's Session may have none)
    return client


def _cpu() -> float:
    """CPU seconds of this process (every thread) and of its finished children (Graphviz)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


CPU: dict = {}  # url -> CPU seconds of its last request (read by server_round)


def _timed_get(client, url: str):
    t, c = time.perf_counter(), _cpu()
    r = client.get(url)
    dt = time.perf_counter() - t
    CPU[url] = _cpu() - c
    if r.status_code != 200:
        raise RuntimeError(f"{url}: HTTP {r.status_code}: {r.text[:200]}")
    body = r.json() if url.startswith("/ui/data/") else None
    if body is not None and "error" in body:
        raise RuntimeError(f"{url}: {body['error'][:200]}")
    return dt


def state_changes(p) -> dict:
    """Name -> URL query of one state change each, from the default state; the
    names and values are picked from the profile so any profile works."""
    types = [t for t, _ in p.sample_types]
    default = types[p.sample_type_index(None)]
    other = next((t for t in types if t != default), default)
    top = p.top(by="functions")
    names = list(top["name"])
    cum_order = list(p.top(by="functions", sort="cum")["name"])
    mid = cum_order[min(len(cum_order) - 1, 12)]  # a function with a large subtree, not the root's caller
    leaf = names[min(len(names) - 1, 2)]
    changes = {
        "sample type": {"si": other},
        "focus": {"f": mid},
        "ignore": {"i": leaf},
        "hide": {"h": names[0]},
        "show": {"s": mid.split(".")[0] if "." in mid else mid},
        "granularity lines": {"g": "lines"},
        "granularity files": {"g": "files"},
        "search": {"q": leaf},
    }
    tags = p.tags(sample_type=default)
    if len(tags["key"]):
        key = tags["key"][0]
        values = [v for k, v in zip(tags["key"], tags["value"]) if k == key]
        changes["label filter"] = {"tf": f"{key}={values[0]}"} if values else {}
        if not values or any(ch in values[0] for ch in " :"):
            # numeric labels are listed with units ("64kB"): filter on a range of the numbers
            changes["label filter"] = {"tf": f"{key}=1:4096"}
    return {k: urlencode(v) for k, v in changes.items() if v}


def server_round(path: Path, views) -> dict:
    """One round: load, first page, then every state change for each view."""
    out: dict = {}
    t = time.perf_counter()
    p = pprofcore.load(path)
    out["load"] = time.perf_counter() - t
    client = _client(p, path.name)
    t, c = time.perf_counter(), _cpu()
    _timed_get(client, "/ui/")
    _timed_get(client, f"/ui/data/{views[0]}")
    out[f"first page ({views[0]})"], out[f"cpu: first page ({views[0]})"] = time.perf_counter() - t, _cpu() - c
    # A person clicks after the page is drawn: what the explorer does off the
    # request path after the first page (the kept call trees) ends first.
    wait = getattr(client.session, "wait_background", None)
    t, c = time.perf_counter(), _cpu()
    if wait is not None:
        wait()
    out["background after the first page"], out["cpu: background after the first page"] = (
        time.perf_counter() - t,
        _cpu() - c,
    )
    for v in views[1:]:
        out[f"first {v}"] = _timed_get(client, f"/ui/data/{v}")
    changes = state_changes(p)
    for name, query in changes.items():
        for v in views:
            url = f"/ui/data/{v}?{query}"
            out[f"{name} [{v}]"] = _timed_get(client, url)
            out[f"cpu: {name} [{v}]"] = CPU[url]
    return out


def kinds_table(times: dict, views, unit_ms: bool = False) -> None:
    """Prints one row per state-change kind, one column per view."""
    kinds = list(dict.fromkeys(k.split(" [")[0] for k in times if " [" in k))
    width = max([len(k) for k in kinds] + [4])
    print(f"  {'kind':<{width}}" + "".join(f"  {v:>11}" for v in views))
    for kind in kinds:
        cells = [times.get(f"{kind} [{v}]") for v in views]
        print(
            f"  {kind:<{width}}"
            + "".join(f"  {c if unit_ms else c * 1000:9.1f}ms" if c is not None else f"  {'-':>11}" for c in cells)
        )


def _chromium():
    """Debian's headless chromium through selenium (None, with a note, without them)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        print("  (no selenium: pip install selenium)")
        return None
    binary, driver = shutil.which("chromium") or shutil.which("google-chrome"), shutil.which("chromedriver")
    if not binary or not driver:
        print("  (no chromium/chromedriver: apt-get install chromium chromium-driver)")
        return None
    opts = Options()
    opts.binary_location = binary
    for flag in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ]:
        opts.add_argument(flag)
    return webdriver.Chrome(service=Service(driver), options=opts)


def _page_state(driver) -> dict:
    return driver.execute_script(
        "var r = document.getElementById('px-root'); return r && {loaded: r.getAttribute('data-loaded'),"
        " busy: r.getAttribute('data-busy'), fetch: r.getAttribute('data-fetch-ms'),"
        " draw: r.getAttribute('data-draw-ms'), error: r.querySelector('.px-error') ? 1 : 0}"
    )


def _wait_drawn(driver, before, timeout: float = 120) -> dict:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        st = _page_state(driver)
        if st and st["loaded"] and st["loaded"] != before and not st["busy"]:
            return st
        time.sleep(0.005)
    raise RuntimeError("the explorer did not finish drawing")


def browser_round(path: Path, views, p) -> dict:
    """(view, state) -> {fetch, draw} ms in chromium, against `pprofcore -http`."""
    driver = _chromium()
    if driver is None:
        return {}
    port = _free_port()
    cmd = [sys.executable, "-m", "pprofcore", f"-http=127.0.0.1:{port}", "-no_browser", str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=child_env())
    out: dict = {}
    try:
        base = f"http://127.0.0.1:{port}"
        while _get(base + "/ui/top?q=none", timeout=5) != 200:  # the page only: no view computed
            if proc.poll() is not None:
                raise RuntimeError(f"pprofcore -http exited: {proc.stderr.read().decode()[-500:]}")
            time.sleep(0.05)
        t = time.perf_counter()
        driver.get(f"{base}/ui/{'' if views[0] == 'graph' else views[0]}")
        st = _wait_drawn(driver, None)
        out[f"first page ({views[0]}) total"] = (time.perf_counter() - t) * 1000
        out[f"first page ({views[0]}) fetch"], out[f"first page ({views[0]}) draw"] = (
            float(st["fetch"]),
            float(st["draw"]),
        )
        go = "document.getElementById('px-root').pprofcoreExplorer.go(arguments[0], arguments[1], true)"
        changes = {"first view": ""}
        changes.update(state_changes(p))
        for name, query in changes.items():
            for v in views:
                if name == "first view" and v == views[0]:
                    continue
                before = _page_state(driver)["loaded"]
                driver.execute_script(go, v, query)
                st = _wait_drawn(driver, before)
                out[f"{name} [{v}] fetch"], out[f"{name} [{v}] draw"] = float(st["fetch"]), float(st["draw"])
                if st["error"]:
                    print(f"  note: {name} [{v}] shows an error")
    finally:
        driver.quit()
        proc.terminate()
        proc.wait(timeout=30)
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, timeout: float = 30) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (urllib.error.URLError, ConnectionError, OSError):
        return 0


def ready_time(cmd: list, port: int, extra: str = "", timeout: float = 180) -> tuple:
    """(seconds until /ui/ answers 200, seconds until `extra` also answered)."""
    url = f"http://127.0.0.1:{port}/ui/"
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=child_env())
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{cmd[0]} exited: {proc.stderr.read().decode()[-500:]}")
            if _get(url) == 200:
                ready = time.perf_counter() - t0
                break
            if time.perf_counter() - t0 > timeout:
                raise RuntimeError(f"{' '.join(cmd)}: not ready after {timeout} s")
            time.sleep(0.01)
        if extra and _get(f"http://127.0.0.1:{port}{extra}") != 200:
            raise RuntimeError(f"{extra}: no answer")
        return ready, time.perf_counter() - t0
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def http_rounds(path: Path, rounds: int) -> dict:
    go = None
    if subprocess.run(["go", "tool", "pprof", "-h"], capture_output=True).returncode in (0, 2):
        go = ["go", "tool", "pprof"]
    compile_package(Path(pprofcore.__file__).parent)  # timed as installed: bytecode written
    res: dict = {"rounds": []}
    for k in range(rounds):
        row: dict = {"loadavg": loadavg()}
        port = _free_port()
        cmd = [sys.executable, "-m", "pprofcore", f"-http=127.0.0.1:{port}", "-no_browser", str(path)]
        row["pprofcore_ready_s"], row["pprofcore_graph_s"] = ready_time(cmd, port, "/ui/data/graph")
        if go:
            port = _free_port()
            row["pprof_ready_s"], _ = ready_time(go + ["-no_browser", f"-http=127.0.0.1:{port}", str(path)], port)
            row["ratio_ready"] = row["pprof_ready_s"] / row["pprofcore_ready_s"]
            row["ratio_graph"] = row["pprof_ready_s"] / row["pprofcore_graph_s"]
        res["rounds"].append(row)
        print(
            f"  round {k + 1}: pprofcore ready {row['pprofcore_ready_s']:.3f} s (graph shown "
            f"{row['pprofcore_graph_s']:.3f} s)"
            + (f", go tool pprof {row['pprof_ready_s']:.3f} s -> {row['ratio_ready']:.1f}x" if go else "")
            + f"; load {row['loadavg']}",
            flush=True,
        )
    for key in ("pprofcore_ready_s", "pprofcore_graph_s", "pprof_ready_s", "ratio_ready", "ratio_graph"):
        vals = [r[key] for r in res["rounds"] if key in r]
        if vals:
            res[key] = statistics.median(vals)
    return res


def server_rounds(path: Path, views, rounds: int, res: dict) -> None:
    print(f"{path.name}: server side, {rounds} rounds", flush=True)
    for k in range(rounds):
        r = server_round(path, views)
        r["loadavg"] = loadavg()
        res["server_rounds"].append(r)
        print(f"  round {k + 1} done (load {r['loadavg']})", flush=True)
    keys = [k for k in res["server_rounds"][0] if k != "loadavg"]
    res["server_median_s"] = {k: statistics.median(r[k] for r in res["server_rounds"]) for k in keys}
    width = max(len(k) for k in keys)
    for k in [k for k in keys if not k.startswith("cpu: ")]:
        t = res["server_median_s"][k]
        print(f"  {k:<{width}}  {t * 1000:9.1f} ms")
    print("  per state-change kind (server ms, medians):")
    kinds_table({k: v for k, v in res["server_median_s"].items() if not k.startswith("cpu: ")}, views)
    print("  per state-change kind (server CPU ms, Graphviz included; medians):")
    kinds_table({k[5:]: v for k, v in res["server_median_s"].items() if k.startswith("cpu: ")}, views)
    changes = [k for k in keys if "[" in k and not k.startswith("cpu: ")]
    if changes:
        worst = max(changes, key=lambda k: res["server_median_s"][k])
        print(f"  slowest state change: {worst} {res['server_median_s'][worst] * 1000:.1f} ms (target < 150 ms)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(DEFAULT))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--views", default="flamegraph,top,graph", help="views timed for each state change")
    ap.add_argument("--http-file", default=str(HTTP_DEFAULT))
    ap.add_argument("--http-rounds", type=int, default=5)
    ap.add_argument("--no-http", action="store_true", help="skip the -http ready-time comparison")
    ap.add_argument("--no-server", action="store_true", help="skip the server-side times")
    ap.add_argument("--browser", action="store_true", help="also time each state change drawn in chromium")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    views = [v for v in args.views.split(",") if v]
    path = Path(args.file)
    res: dict = {"file": path.name, "loadavg_before": loadavg(), "server_rounds": []}
    if not args.no_server:
        server_rounds(path, views, args.rounds, res)
    if args.browser:
        print(f"{path.name}: in chromium against pprofcore -http (load {loadavg()})", flush=True)
        b = res["browser_ms"] = browser_round(path, views, pprofcore.load(path))
        for k in [k for k in b if k.startswith("first page")]:
            print(f"  {k}: {b[k]:.1f} ms")
        for part in ("fetch", "draw"):
            print(f"  {part} ms per state-change kind:")
            kinds_table({k[: -len(part) - 1]: b[k] for k in b if k.endswith(" " + part) and "[" in k}, views, True)
        draws = {k: b[k] for k in b if k.endswith(" draw")}
        if draws:
            worst = max(draws, key=draws.get)
            print(f"  slowest draw: {worst[:-5]} {draws[worst]:.1f} ms (target < 300 ms)")
    if not args.no_http:
        hpath = Path(args.http_file)
        print(f"{hpath.name}: -http ready time, {args.http_rounds} interleaved rounds", flush=True)
        res["http"] = http_rounds(hpath, args.http_rounds)
        h = res["http"]
        if "ratio_ready" in h:
            print(
                f"  median: pprofcore {h['pprofcore_ready_s']:.3f} s, go tool pprof {h['pprof_ready_s']:.3f} s: "
                f"{h['ratio_ready']:.1f}x sooner ({h['ratio_graph']:.1f}x with the graph drawn; target >= 3x)"
            )
    res["loadavg_after"] = loadavg()
    print(f"load average before/after: {res['loadavg_before']} / {res['loadavg_after']}")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
