"""Builds and executes the notebooks in this folder (needs nbformat, nbclient,
ipykernel): `python notebooks/build_notebooks.py [fleet.ipynb ...]`. The tests run the same code
cells without Jupyter (tests/views/test_notebooks.py), so the notebooks cannot rot.

`--fresh-clone` executes them as a fresh clone would and writes nothing: in an
empty directory with no ../shared corpus beside it, where build/test-corpus is
the one the tests built (if they ran), so a notebook that works only on this
machine fails (.ci/run runs it after the tests)."""

import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent

TOUR = [
    ("md", "# A tour of pprofcore\n\nLoad a pprof profile, look at its columns, ask pprof's questions "
           "(`top`, `peek`, `traces`, `tags`), narrow it with pprof's filters, and combine profiles "
           "(merge, diff, delta). Everything runs in C++; Python gets NumPy views."),
    ("code", "import pprofcore\nimport numpy as np\n\np = pprofcore.load(pprofcore.example_path('cpu'))\np"),
    ("md", "## Columns\n\nEvery array is a read-only, zero-copy view. Strings are `int32` codes into "
           "`p.strings`; references are dense row indices."),
    ("code", "print(p.sample_types, p.period_type, p.period)\nprint(p.values.shape, p.values.dtype)\n"
             "leaf_rows = p.stack_locations[p.stack_offsets[:-1]]          # leaf location of every sample\n"
             "leaf_functions = p.lines.function[p.locations.line_offsets[leaf_rows]]\n"
             "p.strings.lookup(p.functions.name[leaf_functions[:5]])"),
    ("md", "## Where does the time go?\n\n`top` matches `go tool pprof -top` (flat, cum, ordering, units)."),
    ("code", "p.top(n=10)"),
    ("code", "p.top(by='lines', sort='cum', n=5, unit='s')"),
    ("code", "print(p.peek('sort\\\\.partition'))"),
    ("code", "print(p.tags())"),
    ("code", "p.by_label('endpoint')"),
    ("md", "## Tables for data science\n\nString columns arrive as `pandas.Categorical` built from the codes "
           "(no per-row Python)."),
    ("code", "df = p.to_pandas(kind='samples')\ndf.head()"),
    ("code", "df.groupby('endpoint', observed=True)['cpu'].sum().sort_values(ascending=False)"),
    ("md", "## Narrowing: pprof's filters as methods"),
    ("code", "checkout = p.filter(tagfocus='endpoint=/api/search', hide='runtime\\\\.')\n"
             "print(len(p), '->', len(checkout), 'samples')\ncheckout.top(n=5)"),
    ("code", "print(p.focus('sha256').to_folded()[:300])"),
    ("md", "## Combining profiles: merge, diff, delta"),
    ("code", "heap = pprofcore.load(pprofcore.example_path('heap'))\n"
             "merged = pprofcore.merge([p, p])\n"
             "assert merged.total('cpu') == 2 * p.total('cpu')\n"
             "half = p.scale(0.5)\n"
             "p.diff(half, mode='base').top(n=5)"),
    ("code", "series = [heap, heap.scale_n([2, 2, 1, 1])]\n"
             "dc = pprofcore.DeltaComputer(sample_types=['alloc_objects', 'alloc_space'])\n"
             "first, second = [dc.delta(x) for x in series]\n"
             "second.top(sample_type='alloc_space', n=5)"),
    ("md", "## Writing\n\nEncoding is deterministic: `loads(p.to_bytes()) == p`."),
    ("code", "data = checkout.to_bytes()\nassert pprofcore.loads(data) == checkout\nlen(data)"),
    ("md", "## Other profilers' files\n\n`load` tells other profilers' files by their content: JFR, "
           "`.cpuprofile`, perf, py-spy, cProfile, memray, stackprof and more (docs/producers.md). Here, what "
           "Java's async-profiler prints to the terminal: each trace is a sample, and FlameGraph's frame "
           "annotations are read (`_[j]` JIT compiled, `_[k]` kernel, `_[i]` inlined into its caller)."),
    ("code", "text = b\"\"\"Started [cpu] profiling\n--- Execution profile ---\nTotal samples       : 95\n\n"
             "--- 600000000 ns (63.16%), 60 samples\n  [ 0] java.lang.String.indexOf_[i]\n"
             "  [ 1] com.example.Search.find_[j]\n  [ 2] com.example.Main.main_[j]\n\n"
             "--- 350000000 ns (36.84%), 35 samples\n  [ 0] ksys_read_[k]\n  [ 1] read\n"
             "  [ 2] com.example.Main.main_[j]\n\"\"\"\n"
             "java = pprofcore.loads(text)\n"
             "print(java.sample_types)\n"
             "java.top(inline=False)"),
]


FLAMEGRAPHS = [
    ("md", "# Flame graphs, diff flame graphs and call graphs\n\n"
           "`Profile.flamegraph()` builds the call tree in C++ and shows it right here: click a frame to "
           "zoom (the breadcrumb zooms out), hover for values, search with a regex, flip between icicle "
           "and flame, and pick a function in the table (or the graph) for its sandwich view: callers "
           "above, callees below. Everything is inline in the output; nothing is fetched."),
    ("code", "import pprofcore\n\np = pprofcore.load(pprofcore.example_path('cpu'))\nfg = p.flamegraph()\nfg"),
    ("md", "The tree is data too: one row per node (root first, depth-first), and pprof's flat/cum per "
           "function."),
    ("code", "print(fg)\nfg.nodes().to_pandas().head(8)"),
    ("code", "fg.functions().to_pandas().head(8)"),
    ("md", "## Options\n\n`by=` is pprof's granularity (`functions`, `filefunctions`, `files`, `lines`, "
           "`addresses`), `inverted=True` puts the hottest leaf functions under the root, and "
           "`min_fraction=` merges thin subtrees into one `...` node per parent (0 keeps every node)."),
    ("code", "p.flamegraph('cpu', by='files', inverted=True, title='cpu by file, inverted')"),
    ("md", "## Diff flame graph\n\nWidths come from the new profile; red frames grew and blue ones shrank "
           "against the base (scaled to the same total unless `normalize=False`). Frames that vanished "
           "are drawn at their base width. Here the new profile spends twice as long in sorting."),
    ("code", "new = pprofcore.merge([p, p.focus('sort\\\\.').scale(2.0)])\n"
             "diff = new.flamegraph(base=p, title='new vs base')\ndiff"),
    ("code", "t = diff.nodes().to_pandas()\n"
             "t.assign(delta=t['total'] - t['base_total']).sort_values('delta', ascending=False).head(5)"),
    ("md", "## Export\n\n`save()` picks the format by extension: a standalone page (`.html`), a static "
           "SVG for GitHub and papers (`.svg`), or a speedscope file (`.json`)."),
    ("code", "import json, os, tempfile\n\nout = tempfile.mkdtemp()\n"
             "for name in ('cpu.html', 'cpu.svg', 'cpu.speedscope.json'):\n"
             "    fg.save(os.path.join(out, name))\n"
             "{name: os.path.getsize(os.path.join(out, name)) for name in sorted(os.listdir(out))}"),
    ("code", "from IPython.display import SVG\nSVG(fg.to_svg(width=900))"),
    ("code", "doc = json.loads(fg.to_speedscope())\n"
             "doc['profiles'][0]['unit'], len(doc['shared']['frames']), len(doc['profiles'][0]['samples'])"),
    ("md", "## Call graph\n\n`Profile.callgraph()` is pprof's graph (`go tool pprof -dot`): the same nodes, "
           "edges and weights for the same `nodecount`, `nodefraction` and `edgefraction`. Dotted edges "
           "pass through nodes that were trimmed away. It draws itself with Graphviz's `dot` "
           "(`apt-get install graphviz`)."),
    ("code", "cg = p.callgraph(nodecount=25)\nprint(cg)\ncg"),
    ("code", "cg.edges().to_pandas().head(8)"),
    ("code", "print(cg.to_dot()[:400])"),
    ("md", "## Rich tables\n\nReport tables show bars for flat and cum."),
    ("code", "p.top(n=8)"),
    ("md", "## The explorer\n\n`p.explore()` is the explorer of `pprofcore -http` (pprof's web UI: graph, top, "
           "flame graph, peek, source, labels, with Refine and a label filter; see docs/explorer.md) as a Jupyter "
           "widget. Its state is readable and settable from Python, and `w.profile` is the profile refined by it. "
           "Read without a kernel (as here on GitHub), the widget shows its static fallback: the flame graph and "
           "pprof's Top of its state."),
    ("code", "w = p.explore('flamegraph', search='sha256')\nw"),
    ("code", "w.state = w.state.replace(hide='runtime\\\\.', si='cpu')\nw.state"),
    ("code", "w.profile.top(n=5)"),
]

TIMELINE_PROFILE = """import json, random
import numpy as np

# A V8 .cpuprofile (what Node.js and Chrome write): a call tree, and per sample a node and a time.
rng = random.Random(1)
names = ['(root)', 'main', 'handleRequest', 'parseJSON', 'queryDB', 'render', 'gc']
tree = {1: [2, 7], 2: [3, 5], 3: [4, 6], 4: [], 5: [], 6: [], 7: []}
nodes = [{'id': i, 'callFrame': {'functionName': names[i - 1], 'url': 'app.js', 'lineNumber': i,
                                 'columnNumber': 0, 'scriptId': '1'}, 'children': tree[i]} for i in tree]
phases = [[4, 4, 6, 5], [7, 4, 4], [5, 5, 6, 6, 4]]   # what the program does, phase by phase
samples = [n for ph in phases for n in ph for _ in range(40)]
deltas = [rng.randint(800, 1200) for _ in samples]    # microseconds between samples
doc = {'nodes': nodes, 'startTime': 1_700_000_000_000_000, 'endTime': 1_700_000_000_000_000 + sum(deltas),
       'samples': samples, 'timeDeltas': deltas}
p = pprofcore.loads(json.dumps(doc).encode())
# Two workers taking turns: a thread label per sample (any label names the lanes).
p = p.set_label('thread', ['worker-%d' % ((i // 25) % 2) for i in range(len(p))])
print(len(p), 'samples from', p.timestamps.min().astype('datetime64[ns]'), 'to',
      p.timestamps.max().astype('datetime64[ns]'))"""
FLAMEGRAPHS += [
    ("md", "## Time: the timeline view\n\nWhen samples carry times (OTLP profiles, JFR, `.cpuprofile`, "
           "perf, Datadog's `end_timestamp_ns`), `Profile.timestamps` is a column and `Profile.timeline()` "
           "draws them over time: one lane per thread, each sample's stack from the root down. Drag across the "
           "time axis to pick a window: the flame graph and Top below show only that window, as "
           "`p.window(start, end)` does (docs/timeline.md)."),
    ("code", TIMELINE_PROFILE),
    ("code", "t = p.timeline(title='request handler over time')\nt"),
    ("md", "The same window in Python: the middle phase (samples 160 to 280) is `parseJSON` and `gc`."),
    ("code", "ts = np.sort(p.timestamps)\nmiddle = p.window(ts[160], ts[280])\nmiddle.top(n=5)"),
    ("md", "## Exports for timeline viewers\n\n`to_chrome_trace()` opens in Perfetto UI and chrome://tracing "
           "(one thread per lane, a frame on consecutive samples merged into one slice); "
           "`to_firefox_profiler()` in profiler.firefox.com (the processed format, version 58). "
           "`save(path, format='chrome-trace' | 'firefox')` writes the JSON."),
    ("code", "trace = p.to_chrome_trace()\n"
             "slices = [e for e in trace['traceEvents'] if e['ph'] == 'X']\n"
             "print(len(p), 'samples ->', len(slices), 'slices')\n"
             "[(e['name'], e['tid'], round(e['ts'] / 1000, 1), round(e['dur'] / 1000, 1)) for e in slices[:6]]"),
    ("code", "ff = p.to_firefox_profiler()\n"
             "[(th['name'], th['samples']['length'], th['samples']['weightType']) for th in ff['threads']]"),
    ("md", "`load` reads Chrome traces too: the V8 CPU profiles of DevTools recordings, or, as here, a trace of "
           "spans (clang's `-ftime-trace`, viztracer, Perfetto, this export) as the wall time of its open "
           "spans per thread (docs/producers.md)."),
    ("code", "back = pprofcore.loads(json.dumps(trace).encode())\nback.top(n=4)"),
    ("md", "And the Firefox Profiler's processed profiles: samply's `profile.json.gz`, profiles saved from "
           "profiler.firefox.com, or this export read back, with each sample's thread and time "
           "(docs/producers.md also lists Valgrind's DHAT and Massif, JFR, perf and more)."),
    ("code", "ff_back = pprofcore.loads(json.dumps(ff).encode())\n"
             "ff_back.to_pandas('samples')[['leaf_function', 'wall', 'thread', 'time']].head()"),
]



FLEET_SQL = """store.sql('''
    select f.name, sum(s.values[2]) / 1e9 as cpu_seconds
    from samples s join stacks k using (stack_id)
    join locations l on l.location_id = k.location_ids[1]    -- the leaf frame
    join functions f on f.function_id = l.function_ids[1]
    group by f.name order by cpu_seconds desc limit 8''')"""

FLEET_FILES = """import os, tempfile
import pprofcore
from pprofcore import fleet

# A made-up web shop profiled once a minute for three hours, generated here so this runs anywhere
# (fleet.example_fleet; its docstring says what drifts). Your own: files = sorted(glob.glob('...')).
os.chdir(tempfile.mkdtemp(prefix='fleet-'))   # a scratch directory: the files and the store go here
files = fleet.example_fleet('shop', 180)
s = pprofcore.ProfileSet(files)
s"""

DASK_CLUSTER = """import logging
import pandas as pd
from distributed import Client, LocalCluster
from pprofcore import dask as pdask
from pprofcore.testing import assert_profile_equal

cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=':0', silence_logs=logging.ERROR)
client = Client(cluster)
shared = [os.path.abspath(f) for f in files]   # paths every worker can read
merged = pdask.merge(shared, client=client)
assert_profile_equal(merged, pprofcore.merge_files(files))   # the same samples, values and labels
merged.top(n=5)"""

FLEET = [
    ("md", "# Fleets: profiles over time\n\nA continuous profiler writes one profile per host per minute. "
           "`pprofcore.ProfileSet` reads such a directory in parallel and in bounded memory (a chunk of "
           "profiles at a time) and answers *what grew, where, when*: per-function and per-label series, heat "
           "maps, top movers between two windows with their statistical significance, and a Parquet store "
           "queried with SQL (DuckDB)."),
    ("code", FLEET_FILES),
    ("md", "One row per profile: time (UTC), duration, totals per sample type (and any metadata columns "
           "you give `ProfileSet(..., metadata=...)`)."),
    ("code", "s.profiles.head()"),
    ("md", "## Series\n\nFlat (or cum) value per function and profile, from the same C++ aggregation as "
           "`Profile.top` (and equal to `go tool pprof -top`). `freq` sums per time bucket; "
           "`normalize='share'` divides by the bucket's total."),
    ("code", "share = s.series(freq='10min', normalize='share')\nshare.head()"),
    ("code", "fleet.lines(share, n=5)"),
    ("code", "fleet.heatmap(share, n=12)"),
    ("md", "The series is sparse by default: a function absent from a profile has no row. For per-profile "
           "statistics ask for the dense form, `fill=0`, so that absent means zero:"),
    ("code", "dense = s.series(normalize='share', fill=0)\n"
             "dense.groupby('name', observed=True)['value'].mean().nlargest(5)   # mean share per profile"),
    ("md", "## Top movers\n\nWhich functions' share of CPU changed most between the first and the second half? "
           "`profiles_before/after` count the profiles holding the function; `qvalue` is the statistical "
           "compare's (Mann-Whitney U over the per-profile shares, Benjamini-Hochberg over all functions)."),
    ("code", "split = s.profiles['time'].iloc[len(s) // 2]\ns.movers(split, n=6)"),
    ("md", "## By label: which endpoint, which version\n\n`by` also takes label keys, alone or with a code "
           "granularity. `labels()` lists every key and value with its share over time:"),
    ("code", "s.labels(freq='1h').head(8)"),
    ("code", "by_endpoint = s.series(by='label:endpoint', freq='10min', normalize='share')\n"
             "fleet.lines(by_endpoint, n=5)"),
    ("md", "Endpoints ranked by how far their share moved, with the compare's confidence, and the functions "
           "that grew on each endpoint:"),
    ("code", "s.movers(split, by='label:endpoint')"),
    ("code", "s.movers(split, by=['label:endpoint', 'functions'], n=5)"),
    ("md", "Numeric labels are bucketed: powers of two by default, or the edges you give."),
    ("code", "s.series(by='label:payload', buckets=[1_000, 10_000, 100_000], freq='1h', normalize='share').head(8)"),
    ("md", "`compare` is `pprofcore.testing.compare` on two windows: mean share per window, the change with "
           "its confidence interval, p- and q-values."),
    ("code", "s.compare(s.window(None, split), s.window(split, None), by=['label:version', 'functions'])"),
    ("md", "## A window, merged\n\n`window(start, end)` is a sub-set; `merge()` is `merge_files` over it, "
           "`top()` its report."),
    ("code", "late = s.window(split, None)\nprint(len(late), 'profiles')\nlate.top(n=8)"),
    ("md", "## The Parquet store\n\n`to_parquet` writes (and appends to) an open layout partitioned by day; "
           "stacks, locations, functions and mappings are stored once, keyed by content hashes. "
           "`open_store` gives DuckDB views over the tables."),
    ("code", "store = s.to_parquet('store')\n"
             "store.sql('select day, count(*) as profiles, sum(n_samples) as samples from profiles group by day')"),
    ("code", FLEET_SQL),
    ("md", "Profiles come back from the tables exactly: merging all of them equals `merge_files` over the "
           "original files, and the store's series are the set's."),
    ("code", "assert store.profile() == pprofcore.merge_files(files)\n"
             "store.series(by='label:endpoint', where=\"time >= '2024-05-01 14:00'\", normalize='share').head()"),
    ("code", "store.close()"),
    ("md", "## Beyond one machine: Dask\n\n`pprofcore.dask` runs the same merge, series and store ingest on a "
           "Dask cluster: each task decodes and aggregates a chunk of files in C++, partial results combine in a "
           "tree, and the results equal the local ones. Here a `LocalCluster` of two worker processes; on a real "
           "cluster, `Client('tcp://scheduler:8786')`, with paths every worker can read (a shared disk, or "
           "`s3://...` URLs through fsspec). See docs/dask.md."),
    ("code", DASK_CLUSTER),
    ("md", "The series is a lazy Dask DataFrame, one partition per chunk of files (one with `freq`); computing "
           "it gives the local frame, by function or by label."),
    ("code", "frame = pdask.series(shared, client=client, by='label:endpoint', freq='10min', normalize='share')\n"
             "df = frame.compute()\n"
             "pd.testing.assert_frame_equal(df, s.series(by='label:endpoint', freq='10min', normalize='share'))\n"
             "df.head()"),
    ("md", "`errors='skip'` leaves unreadable files out and reports them; a worker that dies is replaced and its "
           "tasks rerun by Dask."),
    ("code", "broken = os.path.join(tempfile.mkdtemp(), 'broken.pb.gz')\n"
             "with open(broken, 'wb') as f:\n"
             "    f.write(b'not a profile')\n"
             "merged, skipped = pdask.merge(shared + [broken], client=client, errors='skip')\n"
             "print(skipped.count, 'skipped:', type(skipped.errors[0]).__name__)\n"
             "assert_profile_equal(merged, pprofcore.merge_files(shared))"),
    ("code", "client.close()\ncluster.close()"),
]


def build(name: str, cells, where: Path = HERE, write: bool = True) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for kind, src in cells:
        nb.cells.append(nbformat.v4.new_markdown_cell(src) if kind == "md" else nbformat.v4.new_code_cell(src))
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(where)}}).execute()
    if write:
        nbformat.write(nb, HERE / name)


NOTEBOOKS = {"tour.ipynb": TOUR, "flamegraphs.ipynb": FLAMEGRAPHS, "fleet.ipynb": FLEET}

if __name__ == "__main__":
    names = [arg for arg in sys.argv[1:] if not arg.startswith("--")] or list(NOTEBOOKS)
    if "--fresh-clone" in sys.argv[1:]:
        os.environ.pop("PPROFCORE_CORPUS", None)  # the kernels inherit it
        with tempfile.TemporaryDirectory() as tmp:
            clone = Path(tmp) / "clone"  # ../shared is absent here
            where = clone / "notebooks"
            where.mkdir(parents=True)
            local_corpus = HERE.parent / "build" / "test-corpus"
            if local_corpus.is_dir():  # what the clone's own test run wrote (tests/helpers/local_corpus.py)
                (clone / "build").mkdir()
                (clone / "build" / "test-corpus").symlink_to(local_corpus)
            for name in names:
                build(name, NOTEBOOKS[name], where, write=False)
                print(f"{name}: ran without ../shared")
    else:
        for name in names:  # python build_notebooks.py [NAME.ipynb...]
            build(name, NOTEBOOKS[name])
