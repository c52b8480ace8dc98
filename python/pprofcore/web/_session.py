"""What one explorer serves: the profiles (one, or several to pick from), the
base of a diff, the source search path, and the refined profile of each state,
cached.

A :class:`Session` is built once (from the command line, or from a Profile in
a notebook) and then only read: requests compute the refined profile of their
:class:`~pprofcore.web._state.State` through :meth:`pprofcore.Profile.filter`
(the same call the CLI makes) and keep the last few results.
"""

from __future__ import annotations

import atexit
import threading
import time
import warnings
from collections import OrderedDict
from typing import Any, Callable, Dict, Hashable, List, Optional, Sequence, Tuple

from ..display.callgraph import derive_sample_paths, drop_sample_paths, sample_paths_nbytes
from ..errors import FilterWarning
from ._state import State

# Refined profiles and view payloads kept per session (LRU): enough for
# back/forward over a few states without holding many copies of a big profile.
CACHE_SIZE = 24
# Bytes of the Graph view's sample paths (each sample's node list, about 52 MB
# for a 480k-sample heap profile) kept over the session's cached profiles; the
# least recently used profiles' go first. The most recent profile keeps its
# paths whatever their size.
PATHS_BUDGET = 160 << 20
# The name of the sessions' background threads (joined at exit).
BACKGROUND_THREAD = "pprofcore-background"


class _Cache:
    """A small thread-safe LRU; one lock per key so two requests for the same
    state compute it once while other states proceed."""

    def __init__(self, size: int):
        self.size = size
        self.items: "OrderedDict[Hashable, Any]" = OrderedDict()
        self.lock = threading.Lock()
        self.key_locks: Dict[Hashable, threading.Lock] = {}

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
            klock = self.key_locks.setdefault(key, threading.Lock())
        with klock:
            with self.lock:
                if key in self.items:
                    return self.items[key]
            value = compute()
            with self.lock:
                self.items[key] = value
                while len(self.items) > self.size:
                    self.items.popitem(last=False)
                self.key_locks.pop(key, None)
            return value


class Session:
    """The profiles an explorer shows.

    ``profiles``: (name, Profile) pairs, already merged and pruned as pprof
    loads them; ``base``: a profile every view is compared against
    (``base_mode`` ``"diff_base"`` or ``"base"``, pprof's ``-diff_base``/``-base``);
    ``source_path``/``trim_path``: pprof's flags for the Source view, fixed for
    the session's life; ``initial``: the state of ``/ui/`` without parameters;
    ``paths_budget``: bytes of the Graph view's sample paths kept over the
    cached profiles (see :meth:`bound_paths`).

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> from pprofcore import web
    >>> session = web.Session([("cpu.pb.gz", p)])
    >>> app = web.create_app(session)  # an ASGI app, as pprofcore -http serves it
    """

    def __init__(
        self,
        profiles: Sequence[Tuple[str, Any]],
        *,
        base: Any = None,
        base_mode: str = "diff_base",
        normalize: bool = False,
        source_path: Optional[str] = None,
        trim_path: str = "",
        initial: Optional[State] = None,
        title: str = "",
        paths_budget: int = PATHS_BUDGET,
    ):
        if not profiles:
            raise ValueError("the explorer needs at least one profile")
        if base_mode not in ("diff_base", "base"):
            raise ValueError(f"base_mode must be diff_base or base, got {base_mode!r}")
        self.profiles: List[Tuple[str, Any]] = list(profiles)
        self.base, self.base_mode, self.normalize = base, base_mode, normalize
        self.source_path, self.trim_path = source_path, trim_path
        self.initial = initial or State()
        self.title = title or self.profiles[0][0]
        self.configs: Dict[str, str] = {}  # saved configurations: name -> URL query
        self._profiles = _Cache(CACHE_SIZE)
        self.paths_budget = paths_budget
        self.views = _Cache(CACHE_SIZE * 4)
        self.texts = _Cache(CACHE_SIZE * 4)  # the views' data as JSON text (the server's responses)
        self._background: Dict[Hashable, threading.Thread] = {}
        self._background_lock = threading.Lock()
        self._held: Optional[List[threading.Thread]] = None  # work asked for while held, not started

    def in_background(self, key: Hashable, work: Callable[[], None]) -> None:
        """Runs ``work`` on a thread of its own, once per ``key`` for the
        session's life (a second call with the same key does nothing, whether
        the first run is under way or over). The thread is a daemon, which
        the interpreter's exit waits for (:func:`wait_background_at_exit`)."""
        with self._background_lock:
            if key in self._background:
                return
            thread = self._background[key] = threading.Thread(
                target=_ignoring_errors, args=(work,), name=BACKGROUND_THREAD, daemon=True
            )
            if self._held is not None:
                self._held.append(thread)
                return
        thread.start()

    def hold_background(self) -> None:
        """Holds the work :meth:`in_background` is asked for until
        :meth:`release_background`: the server holds it while it starts, so
        that the first page's imports and data have the CPU to themselves."""
        with self._background_lock:
            if self._held is None:
                self._held = []

    def release_background(self) -> None:
        """Starts the work held since :meth:`hold_background`, in the order
        asked (under the lock: :meth:`wait_background` on another thread
        never sees a thread no longer held and not started yet)."""
        with self._background_lock:
            held, self._held = self._held or [], None
            for thread in held:
                thread.start()

    def background_started(self, key: Hashable) -> bool:
        """Whether :meth:`in_background` was called with ``key``."""
        with self._background_lock:
            return key in self._background

    def wait_background(self, timeout: Optional[float] = None) -> bool:
        """Waits up to ``timeout`` seconds (None: no limit) for the work started
        by :meth:`in_background` so far; True when all of it has ended (False
        while some is held, see :meth:`hold_background`)."""
        with self._background_lock:
            held = set(self._held or ())
            threads = [t for t in self._background.values() if t not in held]
        for thread in threads:
            thread.join(timeout)
        return not held and not any(thread.is_alive() for thread in threads)

    def check(self, state: State) -> None:
        """Refuses a state that names a profile this session does not have."""
        n = len(self.profiles)
        if not 0 <= state.profile < n:
            raise ValueError(f"p= must be between 0 and {n - 1}, got {state.profile}")
        if state.compare is not None and not 0 <= state.compare < n:
            raise ValueError(f"cmp= must be between 0 and {n - 1}, got {state.compare}")

    def is_diff(self, state: State) -> bool:
        return self.base is not None or state.compare is not None

    def parts(self, state: State) -> Tuple[Any, Optional[Any]]:
        """The unfiltered (new, base) profiles of a state (base None without a diff)."""
        self.check(state)
        new = self.profiles[state.profile][1]
        if state.compare is not None and state.compare != state.profile:
            return new, self.profiles[state.compare][1]
        return new, self.base

    def combined(self, state: State):
        """The profile the reports read: the new one, minus or against the base."""

        def compute():
            new, base = self.parts(state)
            if base is None:
                return new
            mode = "diff_base" if state.compare is not None else self.base_mode
            return new.diff(base, mode=mode, normalize=self.normalize)

        return self._profiles.get(("combined", state.profile, state.compare), compute)

    def refined(self, state: State) -> Tuple[Any, List[str]]:
        """The state's profile after its Refine filters, and the filter warnings
        ("focus expression matched no samples", ...) to show."""
        key = ("refined", state.profile, state.compare, tuple(sorted(state.filters().items())), state.timewindow)
        return self._profiles.get(key, lambda: _filtered(self.combined(state), state))

    def cached_profiles(self) -> List[Any]:
        """The distinct profiles the session holds, most recently used first."""
        with self._profiles.lock:
            values = list(self._profiles.items.values())
        out: Dict[int, Any] = {}
        for value in reversed(values):
            for item in value if isinstance(value, tuple) else (value,):
                if hasattr(item, "_derived"):  # a (profile, warnings) pair holds a list too
                    out.setdefault(id(item), item)
        for _, p in self.profiles:  # the loaded ones, in case no state asked for them lately
            out.setdefault(id(p), p)
        if self.base is not None:
            out.setdefault(id(self.base), self.base)
        return list(out.values())

    def bound_paths(self) -> None:
        """Drops the sample paths of the least recently used profiles until the
        rest weigh at most ``paths_budget`` bytes (the most recent keeps its own)."""
        held = 0
        for i, p in enumerate(self.cached_profiles()):
            size = sample_paths_nbytes(p)
            if i and held + size > self.paths_budget:
                drop_sample_paths(p)
            else:
                held += size

    def refined_parts(self, state: State) -> Tuple[Any, Optional[Any]]:
        """(new, base) each refined by the state's filters: the diff flame graph's input."""
        new, base = self.parts(state)
        if base is None:
            return self.refined(state)[0], None
        key = ("parts", state.profile, state.compare, tuple(sorted(state.filters().items())), state.timewindow)
        return self._profiles.get(key, lambda: (_filtered(new, state)[0], _filtered(base, state)[0]))


def _filtered(profile: Any, state: State) -> Tuple[Any, List[str]]:
    kwargs = state.filters()
    window = state.window()
    if window is not None:  # the time window first: a smaller profile to filter
        profile = profile.window(*window)
    if not kwargs:
        return profile, []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FilterWarning)
        # The kept samples of a focus or ignore stay in the input until read:
        # Top reads them there, and the input stays loaded anyway.
        out = profile.filter(**kwargs, defer_copy=True)
    derive_sample_paths(out, profile)
    return out, [str(w.message) for w in caught if issubclass(w.category, FilterWarning)]


def wait_background_at_exit() -> None:
    """Joins the sessions' background threads still running when the
    interpreter exits: one stopped inside a C++ call that released the GIL
    would end the process with std::terminate when it takes the GIL back
    during finalization. Their work is bounded (a few graph or tree builds)."""
    for thread in threading.enumerate():
        if thread.name == BACKGROUND_THREAD and thread is not threading.current_thread():
            while True:
                try:
                    thread.join()
                    break
                except RuntimeError:  # start() was called and the thread is not running yet
                    time.sleep(0.001)


atexit.register(wait_background_at_exit)


def _ignoring_errors(work: Callable[[], None]) -> None:
    try:
        work()
    except Exception:  # noqa: BLE001 - background work only saves later requests time; they compute their own
        pass
