"""V8 sampling heap profiles (`.heapprofile`): `load` reads what
`node --heap-prof` writes (node is the oracle: its JSON's tree and samples
give every node's bytes and sample count) and a hand-written document
exactly; `go tool pprof` reports pprofcore's conversion as pprofcore does."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import node_profiles
import pytest
from cli_run import run_cli
from testenv import go_pprof

import pprofcore
from pprofcore import DecodeError

SCRIPT = """
function leaf(n){const a=[];for(let i=0;i<n;i++)a.push({x:i,s:'v'+i});return a}
function mid(k){const out=[];for(let j=0;j<k;j++)out.push(leaf(200));return out}
function other(k){const out=[];for(let j=0;j<k;j++)out.push(new Array(64).fill(j));return out}
globalThis.keep=[mid(300),other(2000)];
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return node_profiles.record(tmp_path_factory.mktemp("node"), "heap", SCRIPT, "--heap-prof-interval=4096")


def _nodes(doc):
    """(node, its path of function names from the root, root excluded) of every tree node."""
    out, todo = [], [(doc["head"], ())]
    while todo:
        node, path = todo.pop()
        cf = node["callFrame"]
        name = cf["functionName"] or "(anonymous)"
        here = path if (cf["functionName"] == "(root)" and not cf["url"]) else (*path, name)
        out.append((node, here))
        todo.extend((c, here) for c in node["children"])
    return out


def test_node_totals_match_its_json(recorded):
    doc = json.loads(recorded.read_text())
    p = pprofcore.load(recorded)
    assert p.sample_types == [("samples", "count"), ("space", "bytes")]
    assert p.total("space") == sum(n["selfSize"] for n, _ in _nodes(doc))
    assert p.total("samples") == len(doc["samples"])  # those naming a node outside the tree included


def test_node_stacks_carry_its_bytes(recorded):
    """Bytes per root-to-node path (folded, root first) are the tree's selfSize."""
    doc = json.loads(recorded.read_text())
    want: Counter = Counter()
    for node, path in _nodes(doc):
        if node["selfSize"]:
            want[";".join(path)] += node["selfSize"]
    got: Counter = Counter()
    for line in pprofcore.load(recorded).to_folded(sample_type="space").splitlines():
        stack, _, value = line.rpartition(" ")
        if int(value):
            got[stack] += int(value)
    assert got == want
    assert any(s.endswith("mid;leaf") for s in got)


def test_go_tool_pprof_reports_the_conversion_alike(recorded, tmp_path):
    if not shutil.which("go"):
        pytest.skip("needs Go (go tool pprof) as the oracle")
    converted = tmp_path / "heap.pb.gz"
    pprofcore.load(recorded).save(converted)
    for flags in (["-top"], ["-top", "-sample_index=samples"], ["-traces"]):
        want = go_pprof(*flags, str(converted))
        rc, out, err = run_cli(*flags, str(recorded))  # the .heapprofile itself, read by the command line
        assert rc == 0, err
        assert out.decode() == want, flags


DOC = {
    "head": {
        "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1},
        "selfSize": 0,
        "id": 1,
        "children": [
            {
                "callFrame": {
                    "functionName": "main",
                    "scriptId": "1",
                    "url": "app.js",
                    "lineNumber": 0,
                    "columnNumber": 4,
                },
                "selfSize": 100,
                "id": 2,
                "children": [
                    {
                        "callFrame": {
                            "functionName": "",
                            "scriptId": "1",
                            "url": "app.js",
                            "lineNumber": 9,
                            "columnNumber": 0,
                        },
                        "selfSize": 4096,
                        "id": 3,
                        "children": [],
                    },
                    {
                        "callFrame": {"functionName": "idle", "scriptId": "1", "url": "app.js", "lineNumber": 20},
                        "selfSize": 0,
                        "id": 4,
                        "children": [],
                    },
                ],
            }
        ],
    },
    "samples": [
        {"size": 4096, "nodeId": 3, "ordinal": 1},
        {"size": 100, "nodeId": 2, "ordinal": 2},
        {"size": 64, "nodeId": 3, "ordinal": 3},
        {"size": 32, "nodeId": 99, "ordinal": 4},
    ],
}


def test_small_document_exactly():
    p = pprofcore.loads(json.dumps(DOC).encode())
    folded = sorted(p.to_folded(sample_type="space").splitlines())
    assert folded == ["main 100", "main;(anonymous) 4096"]  # node 99's sample holds no bytes
    assert sorted(p.to_folded(sample_type="samples").splitlines()) == [
        "(node 99, not in the tree) 1",
        "main 1",
        "main;(anonymous) 2",
    ]
    frames = p.to_pandas("frames")
    anon = frames[frames["function"] == "(anonymous)"].iloc[0]
    assert (anon["file"], anon["line"]) == ("app.js", 10)  # 0-based in V8, 1-based here


@pytest.mark.parametrize(
    "doc, says",
    [
        ('{"head": {"callFrame": {}, "selfSize": 1, "id": 1, "children": [', "invalid JSON"),
        ('{"head": [{"callFrame": {}, "selfSize": 1}], "samples": []}', "no 'head' node"),
        ('{"head": {"callFrame": {}, "selfSize": 1, "id": 1, "children": [7]}}', "head.children[0] is not an object"),
        ('{"head": {"callFrame": {}, "selfSize": "x", "id": 1, "children": []}}', "'selfSize' must be a number"),
        (
            '{"head": {"callFrame": {}, "selfSize": 1, "id": 1, "children": '
            '[{"callFrame": {}, "selfSize": 1, "id": 1, "children": []}]}}',
            "node id 1 appears twice",
        ),
        (
            '{"head": {"callFrame": {}, "selfSize": 1, "id": 1, "children": []}, "samples": [{"nodeId": "a"}]}',
            "samples[0]",
        ),
    ],
    ids=["truncated", "no-head", "child", "self-size", "duplicate", "sample"],
)
def test_bad_input_is_a_decode_error(doc, says, tmp_path):
    node_profiles.assert_refused(tmp_path / "bad.heapprofile", doc, "heap profile", says)


def test_a_deep_tree_loads():
    """The tree is walked without recursion (300 frames deep: Python's json
    module reads about twice that many nested objects)."""
    node = {"callFrame": {"functionName": "f0", "url": "x.js"}, "selfSize": 1, "id": 2, "children": []}
    head = {"callFrame": {"functionName": "(root)", "url": ""}, "selfSize": 0, "id": 1, "children": [node]}
    for i in range(1, 300):
        child = {"callFrame": {"functionName": f"f{i % 7}", "url": "x.js"}, "selfSize": 1, "id": i + 2, "children": []}
        node["children"].append(child)
        node = child
    p = pprofcore.loads(json.dumps({"head": head, "samples": []}).encode())
    assert p.total("space") == 300 and len(p) == 300


def test_a_tree_too_deep_for_json_is_a_decode_error():
    depth = 5000
    text = '{"head": {"callFrame": {}, "selfSize": 1, "id": 1, "children": [' * depth + "]}" * depth + "}"
    with pytest.raises(DecodeError, match="nests deeper"):
        pprofcore.loads(text.encode())
