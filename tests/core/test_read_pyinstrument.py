"""pyinstrument's JSON read by `load`: a real `pyinstrument -r json` run of a
recursive program (the producer is the oracle: every node's `time` is the
inclusive wall time of its stack in the profile, and the total is the root's),
a small hand-written tree exactly (pyinstrument's `[self]` children are their
parent's self time), gzip, and damaged input."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections import defaultdict

import pytest

import pprofcore
from pprofcore import DecodeError

SCRIPT = """
import time
def leaf(n):
    return sum(i * i for i in range(n))
def walk(depth):
    if depth == 0:
        return leaf(3000)
    return walk(depth - 1) + leaf(500)
def main():
    t = time.time()
    while time.time() - t < 0.4:
        walk(12)
        time.sleep(0.0005)
main()
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    pytest.importorskip("pyinstrument", reason="needs pyinstrument (pip install pyinstrument)")
    tmp = tmp_path_factory.mktemp("pyinstrument")
    script, out = tmp / "work.py", tmp / "out.json"
    script.write_text(SCRIPT)
    cmd = [sys.executable, "-m", "pyinstrument", "-r", "json", "-o", str(out), str(script)]
    subprocess.run(cmd, check=True, capture_output=True, cwd=tmp, timeout=120)
    return out


def _inclusive(p) -> dict:
    """Each stack prefix's inclusive wall time, from the profile's folded stacks."""
    out = defaultdict(int)
    for line in p.to_folded().strip().splitlines():
        path, value = line.rsplit(" ", 1)
        frames = path.split(";")
        for k in range(1, len(frames) + 1):
            out[";".join(frames[:k])] += int(value)
    return out


def _nodes(doc):
    """(path, time in seconds, child count) of every node but pyinstrument's [self] ones."""
    todo = [(doc["root_frame"], [])]
    while todo:
        node, parents = todo.pop()
        name = (node.get("class_name") + "." if node.get("class_name") else "") + node["function"]
        path = parents + [name]
        kids = [c for c in node.get("children", []) if not (c["function"] == "[self]" and not c.get("children"))]
        yield ";".join(path), node["time"], len(node.get("children", []))
        todo += [(c, path) for c in kids]


def test_real_run_keeps_every_nodes_time(recorded):
    doc = json.loads(recorded.read_text())
    p = pprofcore.load(recorded)
    assert p.sample_types == [("wall", "nanoseconds")]
    nodes = list(_nodes(doc))
    assert len(nodes) > 5
    # The JSON's times are rounded to microseconds, so children may sum to a
    # microsecond more than their parent (whose self time is then 0): allow
    # a microsecond per node of the tree.
    slack = 1000 * len(nodes)
    assert abs(p.total() - doc["root_frame"]["time"] * 1e9) <= slack
    inclusive = _inclusive(p)
    for path, seconds, _ in nodes:
        assert abs(inclusive.get(path, 0) - seconds * 1e9) <= slack, path
    assert any(path.endswith(";leaf") for path in inclusive)
    assert p.duration_nanos == round(doc["duration"] * 1e9)
    assert any("pyinstrument" in c for c in p.comments)


def test_gzip_reads_the_same(recorded, tmp_path):
    gz = tmp_path / "out.json.gz"
    gz.write_bytes(gzip.compress(recorded.read_bytes()))
    assert pprofcore.load(gz).to_folded() == pprofcore.load(recorded).to_folded()


SMALL = {
    "start_time": 1_700_000_000.5,
    "duration": 0.010,
    "sample_count": 10,
    "target_description": "Program: app.py",
    "cpu_time": 0.004,
    "root_frame": {
        "function": "<module>",
        "file_path": "app.py",
        "line_no": 1,
        "time": 0.010,
        "children": [
            {
                "function": "handle",
                "class_name": "Server",
                "file_path": "app.py",
                "line_no": 10,
                "time": 0.008,
                "children": [
                    {"function": "query", "file_path": "db.py", "line_no": 3, "time": 0.005, "children": []},
                    {"function": "[self]", "file_path": "", "line_no": 0, "time": 0.003, "children": []},
                ],
            }
        ],
    },
}


def test_small_tree_exactly():
    p = pprofcore.loads(json.dumps(SMALL).encode())
    assert sorted(p.to_folded().strip().splitlines()) == [
        "<module> 2000000",
        "<module>;Server.handle 3000000",
        "<module>;Server.handle;query 5000000",
    ]
    assert p.time_nanos == 1_700_000_000_500_000_000 and p.duration_nanos == 10_000_000
    assert p.comments[0] == "Program: app.py"
    df = p.to_pandas("samples")
    assert "timestamp_ns" not in df.columns


@pytest.mark.parametrize(
    "mutate, says",
    [
        (lambda d: d["root_frame"].__setitem__("time", "slow"), "root_frame: 'time' must be"),
        (lambda d: d["root_frame"]["children"][0].__setitem__("children", 3), "children[0]: 'children' must be a list"),
        (lambda d: d["root_frame"]["children"][0].__setitem__("function", None), "'function' must be a string"),
        (lambda d: d.__setitem__("root_frame", []), "no 'root_frame' object"),
    ],
)
def test_bad_documents_raise_decode_error(mutate, says):
    doc = json.loads(json.dumps(SMALL))
    mutate(doc)
    with pytest.raises(DecodeError, match="pyinstrument JSON") as e:
        pprofcore.loads(json.dumps(doc).encode())
    assert says in str(e.value)
