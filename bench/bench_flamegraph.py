"""Benchmark of flame graphs (issue 11): Profile.flamegraph() + to_html() on the
largest corpus profile against google/pprof's profile.Parse of the same file,
the page size at the default min_fraction, and (with --browser, needs selenium and
chromium) how long the page takes to draw and to zoom in a headless browser.

    python bench/bench_flamegraph.py [--file FILE] [--repeat N] [--browser] [--json OUT]

Wall-clock minimum over runs; each run starts from a freshly loaded profile, so
the timed work includes building the report nodes. Never run from the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import DEFAULT_CORPUS, go_available, go_helper, loadavg

import pprofcore  # noqa: E402  (path set up by _common)

DEFAULT = DEFAULT_CORPUS / "go/generated/gen-bigheap-500k.pb.gz"


def time_flamegraph(path: Path, repeat: int, min_fraction=None):
    best, html, nodes = None, "", 0
    for _ in range(repeat):
        p = pprofcore.load(path)
        t = time.perf_counter()
        fg = p.flamegraph(min_fraction=min_fraction)
        t_tree = time.perf_counter() - t
        html = fg.to_html()
        wall = time.perf_counter() - t
        nodes = len(fg)
        if best is None or wall < best[0]:
            best = (wall, t_tree)
    return best[0], best[1], len(html.encode("utf-8")), nodes, html


def browser_times(html: str, runs: int = 3):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        opts.add_argument(a)
    opts.binary_location = "/usr/bin/chromium"
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            page = Path(tmp) / "fg.html"
            page.write_text(html, encoding="utf-8")
            draws, zooms = [], []
            for _ in range(runs):
                d.get(page.as_uri())
                draws.append(
                    float(
                        d.execute_script(
                            "return document.querySelector('.pprofcore-flame').getAttribute('data-render-ms')"
                        )
                    )
                )
                zooms.append(
                    d.execute_script(
                        "var a=document.querySelector('.pprofcore-flame').pprofcore, t=performance.now();"
                        "a.zoomTo(1); var z=performance.now()-t; a.zoomTo(0); return z;"
                    )
                )
            return min(draws), min(zooms)
    finally:
        d.quit()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--browser", action="store_true", help="also time drawing and zooming in headless chromium")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    path = Path(args.file)
    res = {
        "file": os.path.relpath(path, DEFAULT_CORPUS) if path.is_relative_to(DEFAULT_CORPUS) else path.name,
        "loadavg_before": loadavg(),
    }
    wall, tree, size, nodes, html = time_flamegraph(path, args.repeat)
    res.update(flamegraph_html_s=wall, flamegraph_s=tree, html_bytes=size, nodes=nodes)
    if go_available():
        out = subprocess.run(
            [go_helper("parsetime"), "-n", str(args.repeat), str(path)], capture_output=True, text=True, check=True
        ).stdout
        res["go_parse_s"] = json.loads(out)["parse_seconds"]
        res["ratio_to_parse"] = wall / res["go_parse_s"]
    if args.browser:
        res["browser_draw_ms"], res["browser_zoom_ms"] = browser_times(html)
    res["loadavg_after"] = loadavg()
    print(
        f"{res['file']}: flamegraph() {tree:.3f} s, + to_html() {wall:.3f} s; {nodes} nodes, "
        f"{size / 1e6:.2f} MB of HTML"
    )
    if "go_parse_s" in res:
        print(
            f"google/pprof profile.Parse: {res['go_parse_s']:.3f} s -> ratio {res['ratio_to_parse']:.3f} (target <= 0.2)"  # noqa: E501
        )
    if args.browser:
        print(f"browser: draw {res['browser_draw_ms']:.1f} ms, zoom {res['browser_zoom_ms']:.1f} ms")
    print(f"load average before/after: {res['loadavg_before']} / {res['loadavg_after']}")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
