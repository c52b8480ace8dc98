"""Small profiles for the explorer's tests: a plain one with string and numeric
labels and source files, and a hostile one whose function names, file names
and labels try to break out of the page (script tags, quotes, bidi controls,
a 1 MB name, a file name that climbs out of the source root)."""

from __future__ import annotations

import os
from pathlib import Path

import wirebuild as wb

import pprofcore

HOSTILE_NAMES = [
    "</script><script>window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=2">',
    "quote\"s 'and' `ticks` & amps",
    "bidi \u202eevil\u202c \u2066x\u2069",
    "{{7*7}} ${7*7} %s",
    "x" * (1 << 20),  # a 1 MB name
]


def build(stacks, files=None, labels=None, sample_types=(("samples", "count"), ("cpu", "nanoseconds"))):
    """A profile from ``[(names root first, values), ...]``; ``files``: name ->
    source file; ``labels``: one list of (key, str or int, unit) per sample."""
    strings = [""]

    def s(x: str) -> int:
        if x not in strings:
            strings.append(x)
        return strings.index(x)

    st = [wb.value_type(s(t), s(u)) for t, u in sample_types]
    ids: dict = {}
    for names, _ in stacks:
        for n in names:
            ids.setdefault(n, len(ids) + 1)
    funcs = [wb.function(i, s(n), s(n), s((files or {}).get(n, "")), 1) for n, i in ids.items()]
    locs = [wb.location(i, 0, 0x1000 * i, [wb.line(i, 3 + i % 5)]) for i in ids.values()]
    samples = []
    for k, (names, values) in enumerate(stacks):
        labs = []
        for key, value, unit in labels[k] if labels else []:
            if isinstance(value, str):
                labs.append(wb.label(s(key), str_=s(value)))
            else:
                labs.append(wb.label(s(key), num=value, num_unit=s(unit) if unit else 0))
        samples.append(wb.sample([ids[n] for n in reversed(names)], list(values), labs))
    return pprofcore.loads(
        wb.profile(sample_types=st, samples=samples, locations=locs, functions=funcs, strings=strings)
    )


def plain():
    """main -> work -> {hash, compress}, with endpoint/bytes labels and files under src/."""
    stacks = [
        (["main", "work", "hash"], (3, 300)),
        (["main", "work", "compress"], (5, 500)),
        (["main", "work", "compress"], (1, 100)),
        (["main", "io"], (2, 200)),
        (["main", "leak"], (1, 50)),
        (["main", "linked"], (1, 60)),
    ]
    files = {
        "main": "src/main.go",
        "work": "src/main.go",
        "hash": "src/hash.go",
        "compress": "src/compress.go",
        "io": "src/io.go",
        "leak": "../../etc/passwd",
        "linked": "src/link.go",
    }
    labels = [
        [("endpoint", "/api/hash", ""), ("bytes", 512, "bytes")],
        [("endpoint", "/api/zip", ""), ("bytes", 4096, "bytes")],
        [("endpoint", "/api/zip", ""), ("bytes", 1 << 20, "bytes")],
        [("endpoint", "/api/io", ""), ("bytes", 64, "bytes")],
        [("endpoint", "/api/io", "")],
        [],
    ]
    return build(stacks, files, labels)


def hostile():
    """Every view's worst case: the names of HOSTILE_NAMES as functions, files and labels."""
    stacks = [(["main", n], (k + 1, 100 * (k + 1))) for k, n in enumerate(HOSTILE_NAMES)]
    files = {n: n[:200] for n in HOSTILE_NAMES}
    labels = [[(n[:100], n[:100], ""), ("endpoint", n, "")] for n in HOSTILE_NAMES]
    return build(stacks, files, labels)


def source_tree(root: Path) -> Path:
    """src/*.go files for the plain profile, and src/link.go, a symlink out of the root."""
    src = root / "src"
    src.mkdir(parents=True, exist_ok=True)
    for name in ("main", "hash", "compress", "io"):
        (src / f"{name}.go").write_text("".join(f"// {name} line {i}\n" for i in range(1, 20)))
    link = src / "link.go"
    if not link.exists():
        os.symlink("/etc/passwd", link)
    return root
