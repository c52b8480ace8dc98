"""Assertions and statistics for tests that check profiles.

- :func:`canonical`: a profile's samples as ``{(stack, labels): values}`` with
  every reference spelled out as content, so two profiles built differently
  (merged, re-encoded, written by another tool) compare equal when they say
  the same thing.
- :func:`assert_profile_equal`: canonical comparison with tolerances; the
  failure message lists the first differences in a fixed order.
- :func:`assert_share`: bound the share of the total spent in frames whose
  name matches a regex.
- :func:`assert_no_regression`: compare a profile with a baseline key by key
  (function, file, line ...) and fail on keys that grew.
- :func:`compare` and :func:`assert_no_significant_regression`: the same
  question asked of two *groups* of repeated runs, with a two-sample test per
  key and Benjamini-Hochberg control of false discoveries.

Aggregation runs in the C++ core (``_core.aggregate``, pprof's report nodes);
everything here works on whole NumPy columns, never sample by sample. Names
are pprof's report names at the chosen granularity (what ``Profile.top``
shows). The pytest side (fixtures, ``--pprof-update-baselines``, explanations
of failed ``==``) is in :mod:`pprofcore._pytest`.

This file only re-exports; each concern has its module: :mod:`.equality`,
:mod:`.shares`, :mod:`.regressions`, :mod:`.statistics`, with the shared
per-key values in :mod:`._keys` and the message text in :mod:`._format`.
"""

from .equality import assert_profile_equal, canonical, profile_differences, table_differences
from .regressions import assert_no_regression, regression_table
from .shares import assert_share
from .statistics import assert_no_significant_regression, compare

__all__ = [
    "assert_no_regression",
    "assert_no_significant_regression",
    "assert_profile_equal",
    "assert_share",
    "canonical",
    "compare",
    "profile_differences",
    "regression_table",
    "table_differences",
]
