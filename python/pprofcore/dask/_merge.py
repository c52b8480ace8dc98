"""``pprofcore.dask.merge``: a tree of merges on the workers, equal to
:func:`pprofcore.merge_files` on the same files.

Each leaf task decodes a chunk of files and merges them with the C++
:class:`~pprofcore.Merger` (as ``merge_files`` does); inner tasks merge the
partial profiles of up to ``split_every`` children, in input order. Merging
partial merges gives exactly the sequential result whenever the inputs'
headers are uniform, which is what a fleet's profiles are. The cases where it
would not, because pprof's merge depends on where in the sequence a header
string, a zero ``time_nanos`` or a cancelled sample first appears, are tracked
per partial (:class:`Part`); then the result is recomputed sequentially in
one task, so the answer is always exact.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple, Union

from .._io import DEFAULT_MAX_DECOMPRESSED_SIZE, loads
from .._merge import Merger
from ..errors import ProfileError
from . import _client, _read
from ._read import Item, Skipped

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile

_INDEX = re.compile(r"^cannot merge profile \d+: ")


class Part:
    """A merged chunk of the input and what decides whether merging it after
    other chunks reproduces the sequential merge.

    pprof's merge takes header strings (comments, default sample type, doc
    URL) and the main mapping from the input that first has them; a partial
    merge carries them all at its start. So a partial merged again reproduces
    the sequence only when it is *uniform*: none of its inputs after the first
    brings a comment the first lacks, or a default type, doc URL or mapping
    where the first had none. ``time_nanos`` follows pprof's ``t == 0 || s < t`` rule, where a
    zero resets the running minimum; a negative ``period`` breaks the max;
    and a partial whose zero-sum samples were compacted away may not be merged
    again. ``exact`` says the profile equals the sequential merge of its inputs.

    The profile travels as its pprof bytes and is decoded only where it is
    used, one at a time in a merge task (:meth:`take`), so a task holding
    ``split_every`` children holds their bytes, not their decoded tables.
    """

    __slots__ = (
        "_profile",
        "_blob",
        "time",
        "exact",
        "uniform",
        "first_path",
        "comments",
        "first_comments",
        "first_default",
        "first_doc",
        "first_mappings",
        "any_default",
        "any_doc",
        "any_mappings",
        "has_zero_time",
        "negative_period",
        "compacted",
        "skipped",
        "n",
    )

    def __init__(self) -> None:
        self._profile = self._blob = None
        self.time = 0
        self.exact = True
        self.uniform = True
        self.first_path: Optional[str] = None
        self.comments: frozenset = frozenset()
        self.first_comments: frozenset = frozenset()
        self.first_default = self.first_doc = self.first_mappings = False
        self.any_default = self.any_doc = self.any_mappings = False
        self.has_zero_time = self.negative_period = self.compacted = False
        self.skipped = Skipped()
        self.n = 0

    def set_profile(self, profile) -> None:
        self._profile, self._blob, self.time = profile, None, profile.time_nanos

    @property
    def has_profile(self) -> bool:
        return self._profile is not None or self._blob is not None

    @property
    def profile(self):
        """The merged profile (None when every file of the part was skipped)."""
        if self._profile is None and self._blob is not None:
            self._profile, self._blob = self.take(), None
        return self._profile

    def take(self):
        """The profile, decoded from its bytes without keeping it here."""
        if self._profile is not None or self._blob is None:
            return self._profile
        return loads(self._blob, max_decompressed_size=len(self._blob) + 1)

    def __getstate__(self):
        blob = self._profile.to_bytes(compress=False) if self._profile is not None else self._blob
        return blob, tuple(getattr(self, k) for k in self.__slots__[2:])

    def __setstate__(self, state) -> None:
        self._profile, self._blob = None, state[0]
        for k, v in zip(self.__slots__[2:], state[1]):
            setattr(self, k, v)

    def _follow(self, comments, default: bool, doc: bool, mappings: bool, uniform: bool) -> None:
        """Record an input (or a uniform partial) merged after this one's first."""
        self.uniform = (
            self.uniform
            and uniform
            and comments <= self.first_comments
            and (self.first_default or not default)
            and (self.first_doc or not doc)
            and (self.first_mappings or not mappings)
        )
        self.comments |= comments
        self.any_default |= default
        self.any_doc |= doc
        self.any_mappings |= mappings


def _start(part: Part, path: str, comments: frozenset, default: bool, doc: bool, mappings: bool) -> None:
    part.first_path = path
    part.comments = part.first_comments = comments
    part.first_default = part.any_default = default
    part.first_doc = part.any_doc = doc
    part.first_mappings = part.any_mappings = mappings


def _add(m: Merger, profile, path: Optional[str], first: Optional[str]) -> None:
    try:
        m.add(profile)
    except ProfileError as e:
        raise ProfileError(f"{path}: {_INDEX.sub('', str(e))} (merging it after {first})") from None


def _compacted(m: Merger, result) -> bool:
    # the Merger drops samples whose values summed to zero when it hands out its result
    return m._m.num_samples != len(result)


def merge_chunk(chunk: Sequence[Item], errors: str = "raise", max_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE) -> Part:
    """Leaf task: decode and merge the files of ``chunk`` in order."""
    part = Part()
    m = Merger()
    for _, path, p in _read.decode(chunk, errors, part.skipped, max_size):
        comments = frozenset(p.comments)
        core = p._core  # header codes: no string or column lookups per file
        default, doc = core.default_sample_type_code != 0, core.doc_url_code != 0
        if part.n == 0:
            _start(part, path, comments, default, doc, len(p.mappings) > 0)
        else:
            # mappings: known for the whole chunk once merged (below)
            part._follow(comments, default, doc, False, True)
        part.has_zero_time |= p.time_nanos == 0
        part.negative_period |= p.period < 0
        _add(m, p, path, part.first_path)
        part.n += 1
    if part.n:
        part.set_profile(m.result())
        part.compacted = _compacted(m, part.profile)
        # the merge keeps a mapping whenever an input had one (pprof keeps the first one seen)
        part.any_mappings = len(part.profile.mappings) > 0
        part.uniform = part.uniform and (part.first_mappings or not part.any_mappings)
    return part


def _time_after(t: int, s: int) -> int:
    """pprof's combineHeaders rule for time_nanos."""
    return s if t == 0 or s < t else t


# What a combine takes over from its first operand: every fact but the profile
# itself, its time and compaction (recomputed below) and the skipped files
# (gathered from all operands).
_RECOMPUTED = ("_profile", "_blob", "time", "compacted", "skipped")
_FIRST_OPERAND_FACTS = tuple(k for k in Part.__slots__ if k not in _RECOMPUTED)


def combine(parts: List[Part]) -> Part:
    """Inner task: merge the partial merges ``parts`` (in input order)."""
    live = [x for x in parts if x.has_profile]
    out = Part()
    out.skipped = _read.concat_skipped([x.skipped for x in parts])
    if not live:
        return out
    a = live[0]
    if len(live) == 1:
        for k in Part.__slots__:
            if k != "skipped":
                setattr(out, k, getattr(a, k))
        return out
    for k in _FIRST_OPERAND_FACTS:
        setattr(out, k, getattr(a, k))
    # merged again, a partial starts with all its header strings and its main
    # mapping: only a uniform one comes out as it went in, first operand included
    out.exact = a.exact and a.uniform
    m = Merger()
    _add(m, a.take(), a.first_path, a.first_path)
    t = a.time
    for b in live[1:]:
        tb = b.time
        merged_t = _time_after(t, tb)
        # with a zero time among b's inputs, the sequential rule restarts there: b's own time wins
        right_t = tb if b.has_zero_time else merged_t
        out.exact = (
            out.exact and b.exact and b.uniform and merged_t == right_t and not (a.negative_period or b.negative_period)
        )
        out._follow(b.comments, b.any_default, b.any_doc, b.any_mappings, b.uniform)
        out.has_zero_time |= b.has_zero_time
        out.negative_period |= b.negative_period
        out.n += b.n
        _add(m, b.take(), b.first_path, a.first_path)
        t = merged_t
    out.exact = out.exact and not any(x.compacted for x in live)
    out.set_profile(m.result())
    out.compacted = _compacted(m, out.profile)
    return out


def merge(
    paths,
    *,
    client=None,
    split_every: int = 8,
    chunk_size: Optional[int] = None,
    errors: str = "raise",
    retries: int = 0,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
) -> Union["Profile", Tuple["Profile", Skipped]]:
    """Merge many profile files on a Dask cluster; equal to
    :func:`pprofcore.merge_files` on the same files.

    Each task decodes and merges ``chunk_size`` files in C++ (GIL released);
    partial merges combine in a tree, ``split_every`` at a time, in input
    order, so no node ever holds more than ``split_every`` partial profiles.
    Profiles travel between workers as their pprof bytes.

    Parameters
    ----------
    paths : iterable of path-like or URL, or a str glob pattern
        Files readable from every worker: paths on a shared filesystem, or
        fsspec URLs (``s3://bucket/p/*.pb.gz``, ``file:///data/...``). A
        single string is a glob pattern, expanded here in sorted order.
    client : distributed.Client, optional
        Default: the current client, else dask's local threaded scheduler.
    split_every : int
        Children per merge task in the tree (at least 2).
    chunk_size : int, optional
        Files per leaf task (default: about two tasks per worker thread, at
        least 8 files each; fewer partial profiles to move and merge again).
    errors : {"raise", "skip"}
        ``"raise"``: a file that cannot be read or decoded fails the call with
        the exception :func:`pprofcore.load` raises for it (the path in the
        message and in ``.path``). ``"skip"``: such files are left out and the
        call returns ``(profile, skipped)`` (a :class:`Skipped` report).
    retries : int
        Times a failed task is retried (for transient storage errors; a
        worker that dies is always retried by the scheduler).
    max_decompressed_size : int
        Per-file limit, as :func:`pprofcore.load`.

    Returns
    -------
    Profile, or (Profile, Skipped) with ``errors="skip"``.

    Raises
    ------
    ValueError
        No files, or (with ``errors="skip"``) none could be read.
    ProfileError
        Incompatible sample types, naming the file.

    Examples
    --------
    Without a client, Dask's local scheduler runs the tasks:

    >>> from pprofcore import dask as pdask
    >>> paths = [pprofcore.example_path()] * 4
    >>> pdask.merge(paths) == pprofcore.merge_files(paths)
    True
    """
    dask = _client.require_dask()
    _read.check_errors(errors)
    items = _read.expand(paths)
    if not items:
        raise ValueError("no profiles to merge")
    client = _client.resolve(client)
    size = _client.chunk_size(len(items), client, chunk_size)
    token = dask.base.tokenize(items, errors, max_decompressed_size, size)
    leaves = [
        dask.delayed(merge_chunk, pure=True)(
            c, errors, max_decompressed_size, dask_key_name=f"pprofcore-merge-{token}-{k}"
        )
        for k, c in enumerate(_read.chunks(items, size))
    ]
    root = _client.tree(leaves, combine, split_every, f"pprofcore-merge-{token}")
    (part,) = _client.compute([root], client, retries)
    if not part.has_profile:
        raise ValueError(f"no profiles to merge: all {len(items)} files failed ({part.skipped!r})")
    if not part.exact:
        # the inputs' headers differ along the sequence: merge in one sequential task (see Part)
        gone = set(part.skipped.paths)
        kept = [(i, p) for i, p in enumerate(items) if p not in gone]
        again = dask.delayed(merge_chunk, pure=True)(
            kept, "raise", max_decompressed_size, dask_key_name=f"pprofcore-merge-{token}-sequential"
        )
        (seq,) = _client.compute([again], client, retries)
        part.set_profile(seq.profile)
    if errors == "skip":
        return part.profile, part.skipped
    return part.profile
