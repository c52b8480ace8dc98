"""Every relative link of the README and docs/ points at a file that exists,
and every #anchor at a heading of that page (GitHub's anchor rules)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def anchors(page: Path) -> set:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to
    dashes, repeats numbered."""
    seen: dict = {}
    out = set()
    for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links():
    for page in PAGES:
        text = FENCE.sub("", page.read_text(encoding="utf-8"))
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
                continue
            yield pytest.param(page, target, id=f"{page.relative_to(ROOT)}->{target}")


@pytest.mark.parametrize("page,target", list(links()))
def test_link_resolves(page, target):
    path, _, anchor = target.partition("#")
    dest = (page.parent / path).resolve() if path else page
    assert dest.exists(), f"{page.relative_to(ROOT)} links to missing {path}"
    if anchor and dest.suffix == ".md":
        assert anchor in anchors(dest), f"{page.relative_to(ROOT)}: no heading for #{anchor} in {dest.name}"


def listed_pages(page: Path, row: str) -> list:
    """The link targets of the list items (or table rows) that start with `row`."""
    lines = FENCE.sub("", page.read_text(encoding="utf-8")).splitlines()
    return [LINK.search(line).group(1) for line in lines if line.startswith(row) and LINK.search(line)]


@pytest.mark.parametrize("page,row", [("README.md", "- ["), ("docs/index.md", "| [")])
def test_no_page_listed_twice(page, row):
    targets = listed_pages(ROOT / page, row)
    assert targets, f"{page} lists no pages"
    twice = sorted({t for t in targets if targets.count(t) > 1})
    assert not twice, f"{page} lists these pages more than once: {twice}"
