"""Builds and executes the notebooks in this folder (needs nbformat, nbclient,
ipykernel): `python notebooks/build_notebooks.py`. The tests run the same code
cells without Jupyter (tests/test_notebooks.py), so the notebooks cannot rot."""

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
    ("code", "checkout = p.filter(tagfocus='endpoint=/checkout', hide='runtime\\\\.')\n"
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
]


FLEET_SQL = """store.sql('''
    select f.name, sum(s.values[2]) / 1e9 as cpu_seconds
    from samples s join stacks k using (stack_id)
    join locations l on l.location_id = k.location_ids[1]    -- the leaf frame
    join functions f on f.function_id = l.function_ids[1]
    group by f.name order by cpu_seconds desc limit 8''')"""

FLEET_FILES = """import os, tempfile
from pathlib import Path
import pprofcore
from pprofcore import fleet

def fleet_files():
    \"\"\"The corpus fleet (../shared/corpus/fleet/cpu), else the tests' local corpus,
    else copies of the example profile.\"\"\"
    repo = Path.cwd().parent
    roots = [Path(os.environ['PPROFCORE_CORPUS'])] if 'PPROFCORE_CORPUS' in os.environ else []
    roots += [repo.parent / 'shared' / 'corpus', repo.parent.parent / 'shared' / 'corpus',
              repo / 'build' / 'test-corpus' / 'files']
    for root in roots:
        files = sorted((root / 'fleet' / 'cpu').glob('*.pb.gz'))
        if files:
            return [str(f) for f in files]
    return [pprofcore.example_path('cpu')] * 8

files = fleet_files()
s = pprofcore.ProfileSet(files, metadata=lambda path: {'host': Path(path).name.rsplit('-', 1)[0]})
s"""

FLEET = [
    ("md", "# Fleets: profiles over time\n\nA continuous profiler writes one profile per host per minute. "
           "`pprofcore.ProfileSet` reads such a directory in parallel and in bounded memory (a chunk of "
           "profiles at a time) and answers *what grew, where, when*: per-function series, heat maps, top "
           "movers between two windows, and a Parquet store queried with SQL (DuckDB)."),
    ("code", FLEET_FILES),
    ("md", "One row per profile: time (UTC), duration, totals per sample type, and the metadata columns "
           "(here `host`, parsed from the file name)."),
    ("code", "s.profiles.head()"),
    ("md", "## Series\n\nFlat (or cum) value per function and profile, from the same C++ aggregation as "
           "`Profile.top` (and equal to `go tool pprof -top`). `freq` sums per time bucket; "
           "`normalize='share'` divides by the bucket's total."),
    ("code", "share = s.series(freq='10s', normalize='share')\nshare.head()"),
    ("code", "fleet.lines(share, n=5)"),
    ("code", "fleet.heatmap(share, n=15)"),
    ("md", "## Top movers\n\nWhich functions' share of CPU changed most between the first and the second half?"),
    ("code", "split = s.profiles['time'].sort_values().iloc[len(s) // 2]\ns.movers(split, n=8)"),
    ("md", "## A window, merged\n\n`window(start, end)` is a sub-set; `merge()` is `merge_files` over it, "
           "`top()` its report."),
    ("code", "late = s.window(split, None)\nprint(len(late), 'profiles')\nlate.top(n=8)"),
    ("md", "Folded stacks of the window (the input of any flame graph tool):"),
    ("code", "print(late.merge().to_folded()[:600])"),
    ("md", "## The Parquet store\n\n`to_parquet` writes (and appends to) an open layout partitioned by day; "
           "stacks, locations, functions and mappings are stored once, keyed by content hashes. "
           "`open_store` gives DuckDB views over the tables."),
    ("code", "store = s.to_parquet(tempfile.mkdtemp(prefix='fleet-store-'))\n"
             "store.sql('select day, count(*) as profiles, sum(n_samples) as samples from profiles group by day')"),
    ("code", FLEET_SQL),
    ("md", "Profiles come back from the tables exactly: merging all of them equals `merge_files` over the "
           "original files."),
    ("code", "assert store.profile() == pprofcore.merge_files(files)\n"
             "host = s.profiles['host'][0]\n"
             "store.profile(f\"host = '{host}'\").top(n=5)"),
    ("code", "import shutil\nstore.close()\nshutil.rmtree(store.directory)  # the example store was temporary"),
]


def build(name: str, cells) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for kind, src in cells:
        nb.cells.append(nbformat.v4.new_markdown_cell(src) if kind == "md" else nbformat.v4.new_code_cell(src))
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}).execute()
    nbformat.write(nb, HERE / name)


if __name__ == "__main__":
    build("tour.ipynb", TOUR)
    build("fleet.ipynb", FLEET)
