"""Optional dependencies (pandas, pyarrow), imported on first use with an error
that says which extra to install."""

from __future__ import annotations


def require_pandas():
    try:
        import pandas as pd
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("this needs pandas: pip install pprofcore[pandas]") from e
    return pd


def require_pyarrow():
    try:
        import pyarrow as pa
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("this needs pyarrow: pip install pprofcore[arrow]") from e
    return pa
