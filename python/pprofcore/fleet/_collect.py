"""Collecting profiles from running programs into a store: :func:`collect`
and its :class:`Collector`.

Each target URL (a Go ``/debug/pprof/<profile>`` endpoint, or pprof's
``host:port`` shorthand for the CPU profile) is fetched once per interval by
a bounded pool of worker threads, with the CLI's fetching (``_fetch``) and a
deadline per request; a failed fetch is tried again after an exponential
backoff with jitter, within its round. Decoded profiles go to the store
through ``_sink`` (batched commits under the store's lock); pushed profiles
come in through ``_receive`` when the collector listens.

Stopping (``stop()``, Ctrl-C, SIGTERM in a blocking :func:`collect`) starts no
new fetch, waits a little for those in flight, then commits every profile
already fetched; a fetch still hanging is abandoned (its profile was never
handed over). A kill loses at most the profiles not yet committed, never
part of one. Not here: the store's layout and commit path (``_store``,
``_commit``), the push endpoint (``_receive``)."""

from __future__ import annotations

import heapq
import random
import signal
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Union

from .. import _fetch
from .._args import check_duration, check_int, type_name
from .._io import loads
from ._receive import Receiver
from ._sink import Sink, check_labels

#: Columns of ``profiles`` the collector fills for every target.
TARGET_LABELS = frozenset({"url", "host", "profile_type"})
#: Go's endpoint of the CPU profile, and the ``profile_type`` its rows get.
CPU_ENDPOINT, CPU_TYPE = "profile", "cpu"
#: Seconds Go's CPU profile runs without ``seconds=``.
GO_DEFAULT_SECONDS = 30.0


@dataclass
class Target:
    """One URL to fetch: the request's URL and the labels of its rows."""

    url: str
    labels: Dict[str, str]
    timeout: float


def target(source: str, seconds: Optional[float], labels: Dict[str, str], timeout: Optional[float]) -> Target:
    """The :class:`Target` of a URL or ``host:port[/path]`` (pprof's
    spelling); ValueError for anything else."""
    if not isinstance(source, str):
        raise TypeError(f"a target must be a URL string, not {type_name(source)}")
    url = None
    if source.startswith(("http://", "https://")) or ":" in source.split("/", 1)[0]:
        url = _fetch.source_url(source)
    if url is None:
        raise ValueError(f"{source!r} is not a target URL (http://HOST:PORT/debug/pprof/heap or HOST:PORT)")
    parts = urllib.parse.urlsplit(url)
    endpoint = parts.path.rstrip("/").rsplit("/", 1)[-1]
    if endpoint == CPU_ENDPOINT and not _fetch.duration_of(url) and seconds:
        # the CPU profile's length; other endpoints keep their own seconds= (Go
        # refuses it for goroutine, threadcreate and custom profiles)
        url = _fetch.source_url(url, seconds) or url
    duration = _fetch.duration_of(url)
    if not duration and endpoint == CPU_ENDPOINT:
        duration = GO_DEFAULT_SECONDS
    own = {
        "url": urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")),
        "host": parts.netloc,
        "profile_type": CPU_TYPE if endpoint == CPU_ENDPOINT else endpoint,
    }
    return Target(url, {**own, **labels}, timeout if timeout else duration + 10.0)


def backoff(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Seconds before try ``attempt + 1`` (``attempt`` >= 1 failed so far):
    ``base * 2**(attempt-1)``, at most ``cap``, times a random factor in
    [0.5, 1) so that targets failing together do not retry together."""
    return min(cap, base * 2.0 ** (attempt - 1)) * rng.uniform(0.5, 1.0)


@dataclass(order=True)
class _Job:
    due: float
    seq: int
    index: int = field(compare=False)  # the target's
    round_start: float = field(compare=False)  # when its round was planned
    attempt: int = field(compare=False, default=0)  # tries that failed in this round


class Collector:
    """Fetches targets on an interval (and takes pushed profiles) into a
    store; see :func:`collect`, which makes and starts one.

    ``stats`` counts ``fetched``, ``failed`` (rounds that failed after their
    retries), ``retried``, ``pushed``, ``refused`` (pushes answered 400),
    ``abandoned`` (profiles fetched after the stop), ``committed`` and
    ``dropped`` (profiles the store would not take); ``errors`` holds the
    last error of each target URL. ``address`` is the ``(host, port)`` the
    push endpoint listens on. A Collector is a context manager that stops
    on exit.

    Examples
    --------
    A collector with no targets that takes pushed profiles (``POST /pprof``):

    >>> import urllib.request
    >>> c = pprofcore.fleet.Collector("pushed", listen="127.0.0.1:0").start()
    >>> host, port = c.address
    >>> push = urllib.request.Request(f"http://{host}:{port}/pprof", method="POST",
    ...                               data=open(pprofcore.example_path(), "rb").read())
    >>> urllib.request.urlopen(push).status
    200
    >>> c.stop()
    >>> c.stats["committed"]
    1
    """

    def __init__(
        self,
        store,
        targets: Sequence[str] = (),
        *,
        every=60.0,
        seconds=None,
        labels=None,
        listen: Optional[str] = None,
        concurrency: int = 8,
        retries: int = 3,
        timeout=None,
        commit_every=10.0,
        stop_wait=5.0,
        log: Optional[Callable[[str], None]] = None,
        seed: Optional[int] = None,
    ) -> None:
        if isinstance(targets, str):
            targets = [targets]
        self.every = check_duration("every", every)
        secs = None if seconds is None else check_duration("seconds", seconds)
        if secs is not None and (secs < 1 or secs != int(secs)):
            raise ValueError(
                f"seconds must be whole seconds, at least 1 (Go's CPU profile takes those), not {seconds!r}"
            )
        tmo = None if timeout is None else check_duration("timeout", timeout)
        self.commit_every = check_duration("commit_every", commit_every, positive=False)
        self.stop_wait = check_duration("stop_wait", stop_wait, positive=False)
        self.concurrency = check_int("concurrency", concurrency)
        self.retries = check_int("retries", retries)
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {self.concurrency}")
        if self.retries < 0:
            raise ValueError(f"retries must be 0 or more, not {self.retries}")
        self.labels = check_labels(labels, "labels", TARGET_LABELS)
        self.targets: List[Target] = [target(t, secs, self.labels, tmo) for t in targets]
        urls = [t.url for t in self.targets]
        dup = sorted({u for u in urls if urls.count(u) > 1})
        if dup:
            raise ValueError(f"target {dup[0]} is given twice")
        if not self.targets and listen is None:
            raise ValueError("nothing to collect: give target URLs, or listen= for pushed profiles")
        self._listen = listen
        self._store = store
        self._log = log or (lambda _: None)
        self._rng = random.Random(seed)
        self._cond = threading.Condition()
        self._heap: List[_Job] = []
        self._seq = 0
        self._inflight = 0
        self._stopping = False
        self._stopped = threading.Event()
        self._threads: List[threading.Thread] = []
        self._sink: Optional[Sink] = None
        self._receiver: Optional[Receiver] = None
        self.errors: Dict[str, str] = {}
        self._counts = dict.fromkeys(("fetched", "failed", "retried", "pushed", "refused", "abandoned"), 0)

    def __repr__(self) -> str:
        state = "stopped" if self._stopped.is_set() else "running" if self._sink else "not started"
        return f"<pprofcore.fleet.Collector {len(self.targets)} target(s) every {self.every:g}s, {state}>"

    def __enter__(self) -> "Collector":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def stats(self) -> Dict[str, int]:
        with self._cond:
            out = dict(self._counts)
        sink = self._sink
        out["committed"] = sink.committed if sink else 0
        out["dropped"] = sink.dropped if sink else 0
        return out

    @property
    def address(self):
        return self._receiver.address if self._receiver else None

    def _count(self, key: str, n: int = 1) -> None:
        with self._cond:
            self._counts[key] += n

    # --------------------------------------------------------------- lifecycle
    def start(self) -> "Collector":
        """Open the store's sink (and the push endpoint), start the workers."""
        if self._sink is not None:
            raise RuntimeError("this collector was started already")
        self._sink = Sink(self._store, commit_every=self.commit_every, say=self._log)
        if self._listen is not None:
            try:
                self._receiver = Receiver(self._listen, self._sink, self.labels, self._pushed, self._log)
            except BaseException:
                self._sink.close()
                raise
        now = time.monotonic()
        # more targets than workers: spread their first fetches over one interval
        spread = self.every if len(self.targets) > self.concurrency else 0.0
        with self._cond:
            for i in range(len(self.targets)):
                due = now + self._rng.uniform(0, spread)
                self._push(due, i, due)
        for k in range(min(self.concurrency, len(self.targets))):
            t = threading.Thread(target=self._work, name=f"pprofcore-collect-{k}", daemon=True)
            t.start()
            self._threads.append(t)
        self._log(
            f"collect: {len(self.targets)} target(s) every {self.every:g}s into {self._sink.dir}"
            + (f", listening on http://{_hostport(self.address)}" if self._receiver else "")
        )
        return self

    def stop(self, wait: Optional[float] = None) -> None:
        """Stop: no new fetch, wait up to ``wait`` seconds (default
        ``stop_wait``) for fetches in flight, commit every profile fetched or
        pushed, and return. Safe to call more than once, from any thread."""
        wait = self.stop_wait if wait is None else wait
        with self._cond:
            if self._stopping:
                already = True
            else:
                already, self._stopping = False, True
                self._cond.notify_all()
        if already:
            self._stopped.wait()
            return
        try:
            if self._receiver is not None:
                self._receiver.close()
            deadline = time.monotonic() + wait
            with self._cond:
                while self._inflight and time.monotonic() < deadline:
                    self._cond.wait(deadline - time.monotonic())
                hanging = self._inflight
            if hanging:
                self._log(f"collect: abandoning {hanging} fetch(es) still running")
            if self._sink is not None:
                self._sink.close()
            s = self.stats
            self._log(f"collect: stopped; {s['committed']} profile(s) committed in all")
        finally:
            self._stopped.set()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until the collector is stopped (True) or ``timeout`` seconds
        have passed (False)."""
        end = None if timeout is None else time.monotonic() + timeout
        while not self._stopped.is_set():
            left = 0.5 if end is None else min(0.5, end - time.monotonic())
            if left <= 0:
                return False
            self._stopped.wait(left)  # short waits: Ctrl-C is seen at once
        return True

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    # ----------------------------------------------------------------- workers
    def _push(self, due: float, index: int, round_start: float, attempt: int = 0) -> None:
        self._seq += 1
        heapq.heappush(self._heap, _Job(due, self._seq, index, round_start, attempt))
        self._cond.notify()

    def _next(self) -> Optional[_Job]:
        with self._cond:
            while not self._stopping:
                now = time.monotonic()
                if self._heap and self._heap[0].due <= now:
                    self._inflight += 1
                    return heapq.heappop(self._heap)
                self._cond.wait(self._heap[0].due - now if self._heap else None)
            return None

    def _work(self) -> None:
        while True:
            job = self._next()
            if job is None:
                return
            try:
                self._run(job)
            finally:
                with self._cond:
                    self._inflight -= 1
                    self._cond.notify_all()

    def _run(self, job: _Job) -> None:
        t = self.targets[job.index]
        try:
            data = _fetch.fetch(t.url, t.timeout, grace=0.0)
            profile = loads(data)
        except Exception as e:  # OSError, DecodeError: the target's, reported and tried again
            # a refusal (404, 400) stays one until the next round; 408, 429 and 5xx may pass
            status = getattr(e, "status", 500)
            self._failed(job, f"{e}", retry=not (400 <= status < 500 and status not in (408, 429)))
            return
        assert self._sink is not None
        if self._sink.put(profile, t.url, t.labels) is None:
            self._count("abandoned")
            return
        self.errors.pop(t.url, None)
        self._count("fetched")
        self._again(job)

    def _failed(self, job: _Job, message: str, retry: bool = True) -> None:
        url = self.targets[job.index].url
        self.errors[url] = message
        attempt = job.attempt + 1
        now = time.monotonic()
        next_round = self._next_round(job.round_start, now)
        with self._cond:
            if self._stopping:
                return
            if retry and attempt <= self.retries:
                base = min(1.0, self.every / 10)
                due = now + backoff(attempt, base, self.every / 2, self._rng)
                if due < next_round:
                    self._counts["retried"] += 1
                    self._push(due, job.index, job.round_start, attempt)
                    return
            self._counts["failed"] += 1
            self._push(next_round, job.index, next_round)
        self._log(f"collect: {message}")

    def _again(self, job: _Job) -> None:
        next_round = self._next_round(job.round_start, time.monotonic())
        with self._cond:
            if not self._stopping:
                self._push(next_round, job.index, next_round)

    def _next_round(self, start: float, now: float) -> float:
        """The first round after ``start`` that is not over yet (a round
        that overran skips the rounds it missed)."""
        rounds = max(1, int((now - start) // self.every) + 1)
        return start + rounds * self.every

    def _pushed(self, accepted: int, refused: int) -> None:
        self._count("pushed", accepted)
        self._count("refused", refused)


def _hostport(address) -> str:
    host, port = address[0], address[1]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def collect(
    store,
    targets: Union[str, Sequence[str]] = (),
    *,
    every=60.0,
    seconds=None,
    labels=None,
    listen: Optional[str] = None,
    concurrency: int = 8,
    retries: int = 3,
    timeout=None,
    commit_every=10.0,
    stop_wait=5.0,
    duration=None,
    block: bool = True,
    log: Optional[Callable[[str], None]] = None,
) -> Collector:
    """Collect profiles from running programs into the store ``store`` (a
    folder; made if missing) until stopped.

    Parameters
    ----------
    targets : URLs
        ``http://HOST:PORT/debug/pprof/heap`` and the like, or pprof's
        ``HOST:PORT[/path]`` (no path: the CPU profile). Each is fetched
        once per ``every``; more targets than workers spread their first
        fetches over the first interval.
    every, seconds, timeout, commit_every, stop_wait, duration
        Seconds, or Go-style durations (``"60s"``, ``"1m30s"``, ``"0.2s"``).
        ``seconds`` is the length of CPU profiles (``seconds=`` of
        ``/debug/pprof/profile`` URLs that have none; Go's default is 30 s);
        other URLs keep their own query (``heap?seconds=60`` asks Go for a
        delta). ``timeout``
        bounds each request, body included (default: its seconds + 10 s).
        Fetched profiles are committed when the oldest has waited
        ``commit_every``. ``stop_wait`` is how long a stop waits for
        fetches in flight. ``duration``: stop after that long.
    labels : mapping or ``["KEY=VALUE", ...]``
        Columns added to every row (``service="api"``); names are SQL names
        and not the store's own. Each row also gets ``url`` (without query),
        ``host`` (``HOST:PORT``) and ``profile_type`` (Go's endpoint name,
        ``cpu`` for ``/debug/pprof/profile``).
    listen : ``"HOST:PORT"``
        Also serve an endpoint taking pushed profiles: ``POST /pprof``
        (profile.proto, gzip or not) and ``POST /v1development/profiles``
        (OTLP/HTTP, protobuf or JSON). See docs/fleet.md.
    concurrency, retries
        Fetches at once (worker threads), and tries again after a failure
        (backoff from ``min(1 s, every/10)`` doubling, with jitter, within
        the round).
    block
        True: run until ``duration`` passes, Ctrl-C or SIGTERM (when called
        from the main thread), then stop and return the stopped collector.
        False: return the running collector at once; call its ``stop()``
        (or use it in a ``with`` block).

    A stop commits every profile already fetched; a kill (SIGKILL, power)
    loses at most those not yet committed, and the store never holds part
    of a profile. The collector holds the store's lock only while it
    commits, so ingests and queries run beside it.

    Examples
    --------
    Fetch a Go program's heap profile every minute (here, no program runs):

    >>> c = pprofcore.fleet.collect("store", ["localhost:6060/debug/pprof/heap"],
    ...                             every="60s", labels={"service": "api"},
    ...                             block=False)  # doctest: +SKIP
    >>> c.stop()  # doctest: +SKIP

    Only take what programs push, for two seconds:

    >>> pprofcore.fleet.collect("pushed", listen="127.0.0.1:0", duration="2s").stats["committed"]
    0
    """
    limit = None if duration is None else check_duration("duration", duration)
    c = Collector(
        store,
        targets,
        every=every,
        seconds=seconds,
        labels=labels,
        listen=listen,
        concurrency=concurrency,
        retries=retries,
        timeout=timeout,
        commit_every=commit_every,
        stop_wait=stop_wait,
        log=log,
    ).start()
    if not block:
        return c
    with _sigterm_stops():
        try:
            c.wait(limit)
        except KeyboardInterrupt:
            c._log("collect: interrupted, stopping")
        finally:
            c.stop()
    return c


class _Terminated(KeyboardInterrupt):
    """SIGTERM, seen as an interrupt so that the same stop runs."""


class _sigterm_stops:
    """While blocking in the main thread, SIGTERM interrupts as Ctrl-C does
    (the previous handler comes back after)."""

    def __enter__(self) -> None:
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, self._raise)

    @staticmethod
    def _raise(signum, frame) -> None:
        raise _Terminated()

    def __exit__(self, *exc) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)
