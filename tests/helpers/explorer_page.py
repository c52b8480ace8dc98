"""The explorer page in chromium: its root element's state attributes and a
wait for the page to finish drawing (tests/views/test_explorer_*.py)."""

from __future__ import annotations

import time


def page_attr(browser, name):
    """An attribute of the explorer's root element (``data-loaded``, ``data-busy`` ...)."""
    return browser.execute_script("return document.getElementById('px-root').getAttribute(arguments[0])", name)


def wait_drawn(browser, before=None, timeout=30):
    """Waits until the page has drawn a state newer than ``before``; returns it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            loaded = page_attr(browser, "data-loaded")
            if loaded and loaded != before and not page_attr(browser, "data-busy"):
                return loaded
        except Exception:  # noqa: BLE001 - the page is being replaced
            pass
        time.sleep(0.05)
    raise AssertionError(f"the explorer did not finish drawing ({browser.current_url})")
