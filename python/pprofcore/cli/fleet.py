"""Fleets on disk: ingest profiles into a Parquet store, query it with SQL,
report the top functions of a selection, its series and top movers by code or
label.

  pprofcore fleet ingest DIR FILES...      write (or append) FILES to the store DIR (one
                                           ingest at a time: a second one waits for the lock);
                                           --symbolize=local and --repair=truncated,typeparams
                                           store symbolized, repaired profiles
  pprofcore fleet sql DIR QUERY            run a DuckDB query over the store's tables
  pprofcore fleet top DIR [--where COND]   pprof -top of the merged selection
  pprofcore fleet collect DIR URL... [--every 60s] [--listen HOST:PORT]
                                           fetch /debug/pprof endpoints on an interval
                                           (and take pushed profiles) into the store
  pprofcore fleet series DIR [--by BY]...  value per profile and key (function, label:KEY...)
  pprofcore fleet movers DIR --split TIME  keys whose share moved most, with q-values

A progress bar is shown when stderr is a terminal."""

from __future__ import annotations

import argparse
import sys
import time

import pprofcore

from .._report_defaults import GRANULARITIES
from . import _pprof_options, fleet_collect
from . import _report_args as ra
from . import _symbolize_args as sa
from ._progress import Progress

HELP = "Parquet store of many profiles: ingest, sql, top, series, movers, collect"


def add_arguments(parser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # keep the usage lines above as written
    sub = parser.add_subparsers(dest="fleet_command", metavar="ACTION")
    sub.required = True
    p = sub.add_parser("ingest", help="write (or append) profiles to a store directory")
    p.add_argument("directory", metavar="DIR")
    p.add_argument("files", nargs="+", metavar="FILE", help="profiles (gzip or raw profile.proto)")
    p.add_argument("-j", "--threads", type=int, default=None, help="decoder threads (default: all cores)")
    _add_prepare_arguments(p)
    p.set_defaults(_fleet=_ingest)
    p = sub.add_parser("sql", help="run a DuckDB query over the store's tables")
    p.add_argument("directory", metavar="DIR")
    p.add_argument(
        "query", metavar="QUERY", help="SQL over the views profiles, samples, stacks, locations, functions, mappings"
    )
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="output format")
    p.add_argument(
        "--external-access",
        action="store_true",
        help="let the query read or write files outside the store (COPY ... TO, read_csv, ATTACH)",
    )
    p.set_defaults(_fleet=_sql)
    p = sub.add_parser("top", help="top functions of the merged profiles (like pprof -top)")
    p.add_argument("directory", metavar="DIR")
    p.add_argument(
        "--where", default=None, help="one SQL condition over the profiles table, e.g. \"day = '2024-01-02'\""
    )
    ra.add_sample_index(p)
    p.add_argument("--granularity", default="functions", choices=GRANULARITIES)
    p.add_argument("--nodecount", type=int, default=20, help="show at most N rows (default 20)")
    p.add_argument("--cum", action="store_true", help="sort by cum instead of flat")
    p.add_argument("--unit", default=None, help="display unit: minimum (default), auto, ms, MB, ...")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="output format")
    _add_prepare_arguments(p)
    p.set_defaults(_fleet=_top)
    p = sub.add_parser("collect", help=fleet_collect.HELP)
    fleet_collect.add_arguments(p)
    p.set_defaults(_fleet=fleet_collect.run)
    p = sub.add_parser("series", help="value of every key in every profile (long table)")
    _add_key_arguments(p)
    p.add_argument("--value", choices=("flat", "cum"), default="flat")
    p.add_argument("--freq", default=None, help="sum per time bucket, e.g. 1min, 1h")
    p.add_argument("--normalize", choices=("share", "rate"), default=None)
    p.add_argument("--fill", type=float, default=None, help="dense: every key in every profile, this when absent")
    p.set_defaults(_fleet=_series)
    p = sub.add_parser("movers", help="keys whose share changed most between before and after a time")
    _add_key_arguments(p)
    p.add_argument("--split", required=True, metavar="TIME", help="profiles before TIME against at or after it")
    p.add_argument("-n", "--nodecount", type=int, default=20, help="show at most N rows (default 20)")
    p.set_defaults(_fleet=_movers)


def _add_key_arguments(p) -> None:
    p.add_argument("directory", metavar="DIR")
    p.add_argument("--where", default=None, help="one SQL condition over the profiles table")
    ra.add_sample_index(p)
    p.add_argument(
        "--by",
        action="append",
        default=None,
        metavar="BY",
        help="a granularity (functions, files...) or label:KEY; repeat to combine (default: functions)",
    )
    p.add_argument(
        "--buckets",
        action="append",
        default=None,
        metavar="KEY=EDGES",
        help="numeric label buckets: KEY=pow2 (default), KEY=exact or KEY=E1,E2,... (increasing edges)",
    )
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="output format")


def _add_prepare_arguments(p) -> None:
    sa.add_arguments(p, default="none")
    p.add_argument(
        "--repair",
        default=None,
        type=_pprof_options.repair_names,
        metavar="truncated,typeparams",
        help="repair Go's truncated stacks and/or drop generic type parameters from function names",
    )


def _prepare_options(args) -> dict:
    """``repairs=`` and ``symbolize=`` of ProfileSet from the options."""
    symbolize = None
    if args.symbolize != "none":
        symbolize = {
            "binaries": args.binary or None,
            "search_path": args.search_path,
            "tool": args.tool,
            "demangle": args.demangle,
            "force": args.symbolize == "force",
        }
    return {"repairs": args.repair or None, "symbolize": symbolize}


def _say_prepared(s) -> None:
    """What symbolize and the repairs did over the profiles read, on stderr."""
    totals = s.report_totals()
    if not totals:
        return
    parts = [f"{k}={v}" for k, v in totals.items()]
    cache = s.symbol_cache
    if cache is not None:
        parts.append(f"symbolizer runs={cache.tool_runs} for {len(cache.entries)} distinct mappings")
    print("prepared: " + ", ".join(parts), file=sys.stderr)


def run(args) -> int:
    return args._fleet(args)


def _ingest(args) -> int:
    t0 = time.perf_counter()
    s = pprofcore.ProfileSet(args.files, threads=args.threads, **_prepare_options(args))
    bar = Progress(len(s), "ingesting")
    s.to_parquet(args.directory, progress=bar if bar.enabled else None)
    _say_prepared(s)
    print(f"ingested {len(s)} profiles into {args.directory} in {time.perf_counter() - t0:.2f}s", file=sys.stderr)
    return 0


def _sql(args) -> int:
    _emit(pprofcore.open_store(args.directory, external_access=args.external_access).sql(args.query), args.format)
    return 0


def _buckets(items):
    """``--buckets KEY=SPEC`` items as series' ``buckets`` dict."""
    if not items:
        return None
    out = {}
    for item in items:
        key, sep, spec = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--buckets {item!r}: expected KEY=pow2, KEY=exact or KEY=E1,E2,...")
        if spec in ("pow2", "exact"):
            out[key] = spec
        else:
            try:
                out[key] = [int(e) for e in spec.split(",")]
            except ValueError:
                raise ValueError(f"--buckets {item!r}: edges must be integers") from None
    return out


def _selection(args, **prepare):
    """The store's profiles matching ``--where`` (``prepare``: ProfileSet's repairs= and symbolize=)."""
    ps = pprofcore.open_store(args.directory).profile_set(args.where, **prepare)
    if not len(ps):
        raise ValueError(f"no profiles match {args.where!r}" if args.where else "the store has no profiles")
    return ps


def _series(args) -> int:
    buckets = _buckets(args.buckets)  # bad arguments fail before the store is read
    df = _selection(args).series(
        ra.sample_index(args.sample_index),
        by=args.by or "functions",
        value=args.value,
        freq=args.freq,
        normalize=args.normalize,
        buckets=buckets,
        fill=args.fill,
    )
    _emit(df, args.format)
    return 0


def _movers(args) -> int:
    buckets = _buckets(args.buckets)
    df = _selection(args).movers(
        args.split,
        sample_type=ra.sample_index(args.sample_index),
        by=args.by or "functions",
        buckets=buckets,
        n=args.nodecount,
    )
    _emit(df, args.format)
    return 0


def _emit(df, fmt: str) -> None:
    if fmt == "csv":
        df.to_csv(sys.stdout, index=False)
    elif fmt == "json":
        print(df.to_json(orient="records", date_format="iso"))
    else:
        import pandas as pd

        with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 200):
            print(df.to_string(index=False))


def _top(args) -> int:
    ps = _selection(args, **_prepare_options(args))
    bar = Progress(len(ps), "merging")
    merged = ps.merge(progress=bar if bar.enabled else None)
    _say_prepared(ps)
    t = merged.top(
        sample_type=ra.sample_index(args.sample_index),
        by=args.granularity,
        n=args.nodecount,
        sort="cum" if args.cum else "flat",
        unit=args.unit,
    )
    ra.emit(t, args.format)
    return 0
