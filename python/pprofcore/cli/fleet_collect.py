"""``pprofcore fleet collect STORE URL...``: fetch running programs'
``/debug/pprof`` endpoints on an interval (and take pushed profiles with
``--listen``) into a fleet store, until Ctrl-C, SIGTERM or ``--duration``.
Progress and errors go to stderr, one line each; the last line says how
many profiles were committed."""

from __future__ import annotations

import sys

from ..fleet import collect

HELP = "fetch /debug/pprof endpoints on an interval (and take pushed profiles) into a store"


def add_arguments(p) -> None:
    p.add_argument("directory", metavar="STORE", help="the store's folder (made if missing)")
    p.add_argument(
        "targets",
        nargs="*",
        metavar="URL",
        help="http://HOST:PORT/debug/pprof/heap ..., or HOST:PORT for the CPU profile",
    )
    p.add_argument("--every", default="60s", help="interval between two fetches of a target (default 60s)")
    p.add_argument("--seconds", default=None, help="length of CPU profiles (default: Go's, 30s)")
    p.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a column for every profile collected (repeatable), e.g. service=api",
    )
    p.add_argument(
        "--listen",
        default=None,
        metavar="HOST:PORT",
        help="also take pushed profiles: POST /pprof (pprof) and /v1development/profiles (OTLP)",
    )
    p.add_argument("--concurrency", type=int, default=8, help="fetches at once (default 8)")
    p.add_argument("--retries", type=int, default=3, help="tries again after a failed fetch (default 3)")
    p.add_argument("--timeout", default=None, help="limit of one request (default: its seconds + 10s)")
    p.add_argument("--commit-every", default="10s", help="commit fetched profiles this often (default 10s)")
    p.add_argument("--stop-wait", default="5s", help="at a stop, wait this long for fetches in flight (default 5s)")
    p.add_argument("--duration", default=None, help="stop after this long (default: until Ctrl-C or SIGTERM)")
    p.add_argument("-q", "--quiet", action="store_true", help="print errors and the last line only")


def run(args) -> int:
    def say(line: str) -> None:
        progress = line.startswith("collect: committed ") or " target(s) every " in line
        if not (args.quiet and progress):
            print(line, file=sys.stderr, flush=True)

    c = collect(
        args.directory,
        args.targets,
        every=args.every,
        seconds=args.seconds,
        labels=args.label,
        listen=args.listen,
        concurrency=args.concurrency,
        retries=args.retries,
        timeout=args.timeout,
        commit_every=args.commit_every,
        stop_wait=args.stop_wait,
        duration=args.duration,
        log=say,
    )
    return 1 if c.stats["dropped"] else 0
