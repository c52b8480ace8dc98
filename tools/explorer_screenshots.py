"""Screenshots of the explorer for docs/explorer.md: `pprofcore -http` over
the bundled example CPU profile, each view in headless chromium.

    PYTHONPATH=python python3 tools/explorer_screenshots.py   # writes docs/images/explorer-*.png
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

import pprofcore
from pprofcore.web import Session
from pprofcore.web._serve import start_in_thread

OUT = Path(__file__).resolve().parent.parent / "docs" / "images"
VIEWS = [
    ("graph", "?si=cpu"),
    ("top", "top?si=cpu"),
    ("flamegraph", "flamegraph?si=cpu&q=sha256"),
    ("peek", "peek?f=sort.partition"),
    ("labels", "labels"),
]


def main() -> None:
    p = pprofcore.load(pprofcore.example_path("cpu")).remove_uninteresting()
    server, url = start_in_thread(Session([("cpu.pb.gz", p)]))
    opts = Options()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,760", "--hide-scrollbars"):
        opts.add_argument(a)
    opts.binary_location = shutil.which("chromium") or "chromium"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        for name, path in VIEWS:
            driver.get(url + path)
            for _ in range(200):
                if driver.execute_script("return document.getElementById('px-root').getAttribute('data-loaded')"):
                    break
                time.sleep(0.05)
            time.sleep(0.3)
            driver.save_screenshot(str(OUT / f"explorer-{name}.png"))
            print("wrote", OUT / f"explorer-{name}.png")
    finally:
        driver.quit()
        server.should_exit = True


if __name__ == "__main__":
    main()
