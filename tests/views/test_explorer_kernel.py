"""Profile.explore() in a real Jupyter kernel: nbclient runs a notebook that
creates the widget, displays it, answers a request as the page's script would
send it, and reads and sets ``w.state`` and ``w.profile``; the cell outputs
are compared with the same calls made here in the test process (the oracle:
the Python API on the same profile). The page's script is driven in chromium
by test_explorer_browser.py."""

from __future__ import annotations

import json

import pytest
from testenv import pprofcore_env

pytest.importorskip("anywidget", reason="Profile.explore() needs anywidget: pip install anywidget")
nbformat = pytest.importorskip("nbformat", reason="needs pprofcore[notebook]: nbformat, nbclient, ipykernel")
nbclient = pytest.importorskip("nbclient", reason="needs pprofcore[notebook]: nbformat, nbclient, ipykernel")
pytest.importorskip("ipykernel", reason="needs pprofcore[notebook]: nbformat, nbclient, ipykernel")

import pprofcore  # noqa: E402

FOLDED = "main;work;hash 3 300\nmain;work;compress 5 500\nmain;idle 2 200\nmain;work;hash;sha 1 100\n"
HEADER = "samples/count cpu/nanoseconds\n"

CELLS = [
    # the profile, built the same way in the test process
    f"import json, pprofcore\nfrom pprofcore.web import State\np = pprofcore.from_folded({HEADER + FOLDED!r})",
    "w = p.explore('top', focus='work')\nw",
    # what the page's script does: set `request`, read `payload`
    "w.request = {'view': 'top', 'query': 'f=work&si=cpu', 'seq': 7}\nreply = json.loads(w.payload)\n"
    "print(json.dumps({'seq': reply['seq'], 'total': reply['data']['total'],"
    " 'rows': [r['name'] for r in reply['data']['rows']]}))",
    "w.state = State(hide='^work$', si='cpu')\n"
    "print(json.dumps({'view': w.view, 'query': w.query, 'state': w.state.to_query(),"
    " 'total': int(w.profile.total('cpu')), 'types': [t for t, _ in w.profile.sample_types]}))",
]


def _printed(cell) -> dict:
    text = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
    return json.loads(text.strip().splitlines()[-1])


def test_widget_in_a_kernel(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    # jupyter_client starts the kernelspec's "python" as this interpreter
    client = nbclient.NotebookClient(nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": tmp_path}})
    client.execute(env=pprofcore_env())

    display = nb.cells[1].outputs
    bundle = next(o["data"] for o in display if o.get("output_type") == "execute_result")
    assert "application/vnd.jupyter.widget-view+json" in bundle  # a live widget, with its model in the kernel
    assert "pprofcore-flame" in bundle["text/html"]  # and the static fallback beside it

    p = pprofcore.from_folded(HEADER + FOLDED)
    focused = p.filter(focus="work")
    reply = _printed(nb.cells[2])
    assert reply["seq"] == 7 and reply["total"] == focused.total("cpu")
    assert reply["rows"] == list(focused.top("cpu")["name"])

    state = _printed(nb.cells[3])
    assert state["view"] == "top" and state["query"] == state["state"] == "si=cpu&h=%5Ework%24"
    assert state["total"] == p.filter(hide="^work$").total("cpu")
    assert state["types"] == ["samples", "cpu"]
