"""pprofcore on a Dask cluster: merge, series and store ingest of many files.

The same operations as :func:`pprofcore.merge_files`,
:meth:`pprofcore.ProfileSet.series` and :meth:`pprofcore.ProfileSet.to_parquet`,
with the files spread over the workers of a Dask cluster (a ``LocalCluster``
on a laptop, or ``Client("tcp://scheduler:8786")``). Each task decodes and
aggregates a chunk of files in C++ with the GIL released; partial results
combine in a tree, never all on one node. Results equal the local ones.

Paths must be readable from every worker: a shared filesystem, or fsspec URLs
(``s3://``, ``gs://``, ``file://``...). A single string is a glob pattern.
Needs ``pip install 'pprofcore[dask]'`` (``dask[distributed]``, ``fsspec``).
See docs/dask.md.
"""

from ._ingest import ingest
from ._merge import merge
from ._read import Skipped
from ._series import series

__all__ = ["merge", "series", "ingest", "Skipped"]
